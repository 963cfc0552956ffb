//! Who is at the table: the players the lobby counts as seated.
//!
//! An online table has no chairs, so "seated" needs a definition. A live
//! table's seat is held between wagers: a player who sits out a coup is still
//! at the table, and NSW 14.10 lets the casino ask a player to vacate their
//! seat only once they have abstained from wagering for three consecutive
//! coups. So the table counts as seated each player who has placed a wager in
//! the coup in progress or in one of the last three coups that took wagers
//! (a no-bet coup, EU 3.1.2 and NSW 12.3, is no one's abstention). A wager
//! withdrawn still counts: its player was at the table. Commercial lobbies
//! show the same thing, the players at the table now, not everyone who ever
//! played there or everyone watching.
//!
//! The count is kept as wagers arrive, never by a pass over the coup's
//! wagers: each wager records its player against the number of betting coups
//! closed so far (one map entry a player, O(1) a wager), and each coup's close
//! drops the players whose last wager is more than three coups old (a pass
//! over the players, once a coup, as settlement already is). The map is
//! behind an `Arc`, like the coup's indexes (`coup_wagers.rs`), so the copy of
//! the table each non-wager command runs on copies a pointer.

use std::collections::HashMap;
use std::sync::Arc;

use super::PlayerId;

/// How many consecutive coups a player may sit out and keep their seat
/// (NSW 14.10: one who abstains for three may be asked to vacate it).
pub const ABSTENTIONS: u64 = 3;

/// The players seated at a table (see the module's documentation). Written
/// as its round and its players sorted, so that a checkpoint's bytes do not
/// depend on a hash map's order.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(from = "SeatedRows", into = "SeatedRows")]
pub struct Seated {
    /// Betting coups closed so far at this table.
    round: u64,
    /// Each seated player and the round of their last wager.
    last: Arc<HashMap<PlayerId, u64>>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct SeatedRows {
    round: u64,
    players: Vec<(PlayerId, u64)>,
}

impl From<SeatedRows> for Seated {
    fn from(r: SeatedRows) -> Seated {
        Seated { round: r.round, last: Arc::new(r.players.into_iter().collect()) }
    }
}

impl From<Seated> for SeatedRows {
    fn from(s: Seated) -> SeatedRows {
        let mut players: Vec<(PlayerId, u64)> = s.last.iter().map(|(p, r)| (*p, *r)).collect();
        players.sort_unstable();
        SeatedRows { round: s.round, players }
    }
}

impl Seated {
    /// How many players are seated.
    pub fn count(&self) -> usize {
        self.last.len()
    }

    /// Whether `player` is seated.
    pub fn is_seated(&self, player: PlayerId) -> bool {
        self.last.contains_key(&player)
    }

    /// A wager placed by `player` in the coup in progress.
    pub(super) fn wagered(&mut self, player: PlayerId) {
        if self.last.get(&player) != Some(&self.round) {
            Arc::make_mut(&mut self.last).insert(player, self.round);
        }
    }

    /// A coup closed: a coup that took wagers counts one abstention for
    /// everyone who did not wager in it, and a player's fourth in a row
    /// ends their seat (NSW 14.10). A no-bet coup changes nothing.
    pub(super) fn coup_closed(&mut self, no_bet: bool) {
        if no_bet {
            return;
        }
        self.round += 1;
        let round = self.round;
        if self.last.values().any(|r| round - r > ABSTENTIONS) {
            Arc::make_mut(&mut self.last).retain(|_, r| round - *r <= ABSTENTIONS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A player stays seated through three coups without a wager and leaves
    /// at the close of the fourth; a no-bet coup is no abstention; a wager
    /// keeps the seat; the count never counts a player twice.
    #[test]
    fn a_seat_lasts_three_coups_without_a_wager() {
        let (a, b) = (PlayerId(1), PlayerId(2));
        let mut s = Seated::default();
        s.wagered(a);
        s.wagered(a);
        s.wagered(b);
        assert_eq!(s.count(), 2, "two players, three wagers");
        s.coup_closed(false);
        s.wagered(a);
        for _ in 0..2 {
            s.coup_closed(false);
            s.coup_closed(true);
            assert!(s.is_seated(b), "b has sat out at most two coups that took wagers");
        }
        s.coup_closed(false);
        assert_eq!((s.count(), s.is_seated(a)), (1, true), "b sat out three: a, who wagered later, stays");
        s.coup_closed(false);
        assert_eq!(s.count(), 0, "a sat out three too");
        s.wagered(b);
        assert_eq!(s.count(), 1);
    }

    /// Written with its players in order, read back equal.
    #[test]
    fn written_in_order_and_read_back_equal() {
        let mut s = Seated::default();
        for p in [9, 3, 5] {
            s.wagered(PlayerId(p));
        }
        s.coup_closed(false);
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(text, r#"{"round":1,"players":[[3,0],[5,0],[9,0]]}"#);
        assert_eq!(serde_json::from_str::<Seated>(&text).unwrap(), s);
    }
}
