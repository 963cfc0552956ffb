//! The drawing tableau: when each hand takes a third card.
//!
//! The four rulebooks print the same rules (NSW 9.2–9.6 Tables 1 and 2; AU 9.2–9.6;
//! the resort's "Baccarat Rules" a and b; EU section 8), so there is one tableau. The
//! Banker's rule is kept as data, a transcription of NSW Table 2, and the tests
//! check every cell of it against the text of both NSW and AU.

/// What the Player's Hand does after the initial deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerAction {
    /// One of the hands is a natural: nobody draws (NSW 9.2; AU 9.2).
    Natural,
    /// Player stands on 6 or 7 (NSW 9.3 Table 1; AU 9.3).
    Stand,
    /// Player draws on 0–5 (NSW 9.3 Table 1; AU 9.3).
    Draw,
}

/// A point count of 8 or 9 on the first two cards (NSW 1.1 "Natural"; AU 1.0).
pub fn is_natural_total(two_card_total: u8) -> bool {
    two_card_total >= 8
}

/// The Player's action given both two-card totals. NSW 9.2–9.3; AU 9.2–9.3.
pub fn player_action(player_total: u8, banker_total: u8) -> PlayerAction {
    debug_assert!(player_total < 10 && banker_total < 10);
    if is_natural_total(player_total) || is_natural_total(banker_total) {
        PlayerAction::Natural
    } else if player_total <= 5 {
        PlayerAction::Draw
    } else {
        PlayerAction::Stand
    }
}

/// NSW 9.4 Table 2, row = Banker's two-card total 0..=9, column 0 = "No Card"
/// (the Player stood, NSW 9.5), columns 1..=10 = Player's third card 0..=9.
/// `true` = D (draws). Rows 8 and 9 are naturals and never reached through
/// [`banker_draws`], but are kept as printed.
const TABLE_2: [[bool; 11]; 10] = {
    const D: bool = true;
    const S: bool = false;
    [
        [D, D, D, D, D, D, D, D, D, D, D],
        [D, D, D, D, D, D, D, D, D, D, D],
        [D, D, D, D, D, D, D, D, D, D, D],
        [D, D, D, D, D, D, D, D, D, S, D],
        [D, S, S, D, D, D, D, D, D, S, S],
        [D, S, S, S, S, D, D, D, D, S, S],
        [S, S, S, S, S, S, S, D, D, S, S],
        [S, S, S, S, S, S, S, S, S, S, S],
        [S, S, S, S, S, S, S, S, S, S, S],
        [S, S, S, S, S, S, S, S, S, S, S],
    ]
};

/// Whether the Banker's Hand draws, given its two-card total and the point value of
/// the Player's third card (`None` when the Player stood). Only meaningful when
/// neither hand is a natural. NSW 9.4 Table 2 and 9.5; AU 9.4 Table 2 and 9.5.
pub fn banker_draws(banker_total: u8, player_third: Option<u8>) -> bool {
    let col = match player_third {
        None => 0,
        Some(p) => 1 + p as usize,
    };
    TABLE_2[banker_total as usize][col]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NSW 9.4 Table 2 exactly as printed in `nsw-2021.txt`.
    const NSW_TABLE_2: &str = "\
0 D D D D D D D D D D D
1 D D D D D D D D D D D
2 D D D D D D D D D D D
3 D D D D D D D D D S D
4 D S S D D D D D D S S
5 D S S S S D D D D S S
6 S S S S S S S D D S S
7 S S S S S S S S S S S
8 S S S S S S S S S S S
9 S S S S S S S S S S S";

    #[test]
    fn banker_matches_nsw_table_2_cell_by_cell() {
        let mut cells = 0;
        for line in NSW_TABLE_2.lines() {
            let mut it = line.split_whitespace();
            let bt: u8 = it.next().unwrap().parse().unwrap();
            let marks: Vec<&str> = it.collect();
            assert_eq!(marks.len(), 11, "row {bt}");
            for (col, m) in marks.iter().enumerate() {
                let third = if col == 0 { None } else { Some(col as u8 - 1) };
                assert_eq!(banker_draws(bt, third), *m == "D", "banker {bt}, player third {third:?}");
                cells += 1;
            }
        }
        assert_eq!(cells, 110);
    }

    /// AU 9.4 Table 2 and 9.5 as printed in `au-casino.txt`: each row lists the
    /// Player third cards on which the Banker draws.
    #[test]
    fn banker_matches_au_table_2_and_9_5() {
        let au: [(u8, &[u8]); 10] = [
            (0, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), // "0-1-2 Draws"
            (1, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
            (2, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
            (3, &[0, 1, 2, 3, 4, 5, 6, 7, 9]), // "0,1,2,3,4,5,6,7,9 draws / 8 stands"
            (4, &[2, 3, 4, 5, 6, 7]),          // "2,3,4,5,6,7 draws / 0,1,8,9 stands"
            (5, &[4, 5, 6, 7]),                // "4,5,6,7, draws / 0,1,2,3,8,9 stands"
            (6, &[6, 7]),                      // "6,7 draws / 0,1,2,3,4,5,8,9 stands"
            (7, &[]),                          // "Stands"
            (8, &[]),                          // natural
            (9, &[]),
        ];
        for (bt, draws_on) in au {
            for p in 0..10u8 {
                assert_eq!(banker_draws(bt, Some(p)), draws_on.contains(&p), "banker {bt} vs {p}");
            }
            // AU 9.5: Player stood on 6 or 7; Banker draws on 0 to 5.
            assert_eq!(banker_draws(bt, None), bt <= 5, "banker {bt}, player stood");
        }
    }

    #[test]
    fn player_follows_table_1() {
        for pt in 0..10 {
            for bt in 0..10 {
                let want = if pt >= 8 || bt >= 8 {
                    PlayerAction::Natural
                } else if pt <= 5 {
                    PlayerAction::Draw
                } else {
                    PlayerAction::Stand
                };
                assert_eq!(player_action(pt, bt), want, "player {pt} banker {bt}");
            }
        }
    }
}
