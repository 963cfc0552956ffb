//! Golden road cases, each worked out by hand from the rule in `roads.rs`.

use baccarat_table::{Mark, RoadEntry, RoadResult, Roads};

fn marks(r: &Roads, k: usize) -> String {
    r.derived(k).iter().map(|m| m.letter()).collect()
}

fn ask(r: &Roads, next: RoadResult) -> String {
    r.ask(next).iter().map(|m| m.map_or('-', Mark::letter)).collect()
}

fn cells(r: &Roads) -> Vec<(char, usize, usize, u32)> {
    r.big_road().iter().flatten().map(|c| (c.result.letter(), c.col, c.row, c.ties)).collect()
}

/// Columns [B,B] [P,P,P] [B]: big eye boy starts at column 1 row 1.
#[test]
fn big_eye_boy_starts_at_column_1_row_1() {
    let r = Roads::from_letters("BBPPPB").unwrap();
    // (1,1): column 0 has length 2, not 1 -> R; (1,2): length 2 -> B;
    // (2,0): columns 1 and 0 have lengths 3 and 2 -> B.
    assert_eq!(marks(&r, 1), "RBB");
    // Small road's (2,1) never filled and (3,0) does not exist yet.
    assert_eq!(marks(&r, 2), "");
    assert_eq!(marks(&r, 3), "");
    // Ask: Banker next fills (2,1): big eye boy compares column 1 (length 3) -> R;
    // small road starts at (2,1): column 0 has length 2 -> R; cockroach pig none.
    assert_eq!(ask(&r, RoadResult::Banker), "RR-");
    // Player next starts column 3: big eye boy 1 vs 3 -> B; small road 1 vs 2 -> B;
    // cockroach pig's first mark would be (3,1), so none at (3,0).
    assert_eq!(ask(&r, RoadResult::Player), "BB-");
    assert_eq!(ask(&r, RoadResult::Tie), "---");
}

/// When column k, row 1 never fills, the first mark is at column k+1, row 0.
#[test]
fn start_moves_to_the_next_column_when_row_1_never_fills() {
    let r = Roads::from_letters("BPBP").unwrap();
    // Big eye boy: (1,1) never fills; (2,0) and (3,0) compare equal lengths -> R R.
    assert_eq!(marks(&r, 1), "RR");
    // Small road: (2,1) never fills; (3,0): columns 2 and 0 both length 1 -> R.
    assert_eq!(marks(&r, 2), "R");
    assert_eq!(marks(&r, 3), "");
    let r = Roads::from_letters("BPBPB").unwrap();
    // Cockroach pig: (3,1) never fills; (4,0): columns 3 and 0 both length 1 -> R.
    assert_eq!(marks(&r, 3), "R");
}

/// Columns [B] [P,P] [B,B,B] [P] [B]: new columns on the small road and cockroach
/// pig, and the straight drop.
#[test]
fn new_columns_and_the_straight_drop() {
    let r = Roads::from_letters("BPPBBBPB").unwrap();
    // Big eye boy: (1,1) col0 len 1 == 1 -> B; (2,0) 2 vs 1 -> B; (2,1) col1 len 2 != 1
    // -> R; (2,2) len 2 == 2 -> B; (3,0) 3 vs 2 -> B; (4,0) 1 vs 3 -> B.
    assert_eq!(marks(&r, 1), "BBRBBB");
    // Small road: (2,1) col0 len 1 == 1 -> B; (2,2) col0 len 1 < 2, straight drop -> R;
    // (3,0) columns 2 and 0: 3 vs 1 -> B; (4,0) columns 3 and 1: 1 vs 2 -> B.
    assert_eq!(marks(&r, 2), "BRBB");
    // Cockroach pig: (3,0) is the start column at row 0 -> none; (4,0) columns 3 and
    // 0: 1 vs 1 -> R.
    assert_eq!(marks(&r, 3), "R");
}

#[test]
fn leading_ties_are_kept_and_ties_mark_the_previous_cell() {
    let r = Roads::from_letters("TTBTTPT").unwrap();
    assert_eq!(r.leading_ties(), 2);
    assert_eq!(cells(&r), [('B', 0, 0, 2), ('P', 1, 0, 1)]);
    assert_eq!(r.bead_plate().iter().flatten().count(), 7);
    // Ties do not move the derived roads.
    assert_eq!(marks(&r, 1), marks(&Roads::from_letters("BP").unwrap(), 1));
    let only = Roads::from_letters("TTT").unwrap();
    assert_eq!((only.leading_ties(), only.big_road().len()), (3, 0));
    assert_eq!(ask(&only, RoadResult::Banker), "---");
}

#[test]
fn dragon_tail_turns_right_at_the_sixth_row_and_above_older_tails() {
    let r = Roads::from_letters("BBBBBBBB PPPPPP BBBBB").unwrap();
    let c = cells(&r);
    // Eight Bankers: rows 0-5 of column 0, then right along row 5.
    assert_eq!(
        &c[..8],
        &[
            ('B', 0, 0, 0),
            ('B', 0, 1, 0),
            ('B', 0, 2, 0),
            ('B', 0, 3, 0),
            ('B', 0, 4, 0),
            ('B', 0, 5, 0),
            ('B', 1, 5, 0),
            ('B', 2, 5, 0)
        ]
    );
    // Six Players: column 1 down to row 4 (row 5 is the tail), then right on row 4.
    assert_eq!(
        &c[8..14],
        &[('P', 1, 0, 0), ('P', 1, 1, 0), ('P', 1, 2, 0), ('P', 1, 3, 0), ('P', 1, 4, 0), ('P', 2, 4, 0)]
    );
    // Five Bankers: column 2 down to row 3, then right on row 3.
    assert_eq!(&c[14..], &[('B', 2, 0, 0), ('B', 2, 1, 0), ('B', 2, 2, 0), ('B', 2, 3, 0), ('B', 3, 3, 0)]);
    // The derived roads follow logical columns (lengths 8, 6, 5), not the drawing:
    // big eye boy (1,1)..(1,5): col0 len 8 never equals 1..5 -> R R R R R;
    // (2,0): 6 vs 8 -> B; (2,1)..(2,4): col1 len 6 -> R R R R.
    assert_eq!(marks(&r, 1), "RRRRRBRRRR");
}

#[test]
fn markers_are_kept_on_cells_and_bead_plate() {
    let mut r = Roads::new();
    r.push(RoadEntry { result: RoadResult::Banker, player_pair: true, banker_pair: false, natural: true });
    r.push(RoadEntry { result: RoadResult::Tie, player_pair: false, banker_pair: true, natural: false });
    let cell = r.big_road()[0][0];
    assert!(cell.player_pair && cell.natural && !cell.banker_pair);
    assert_eq!(cell.ties, 1);
    assert!(r.bead_plate()[0][1].banker_pair);
}

#[test]
fn bad_letters_are_refused_with_their_position() {
    let e = Roads::from_letters("BPX").unwrap_err();
    assert_eq!((e.position, e.found), (3, 'X'));
    assert!(e.to_string().contains("character 3 is 'X'"));
    assert!(Roads::from_letters("b p t").is_ok());
}

/// A derived road laid out by hand: eight reds run down six rows and turn right
/// along the bottom; the blue that follows starts column 1 at the top; two more
/// reds start column 2.
#[test]
fn derived_road_lay_out_with_a_dragon_tail() {
    use baccarat_table::lay_out;
    use Mark::{Blue as U, Red as R};
    let cells: Vec<(char, usize, usize)> =
        lay_out(&[R, R, R, R, R, R, R, R, U, R, R]).iter().map(|c| (c.mark.letter(), c.col, c.row)).collect();
    assert_eq!(
        cells,
        [
            ('R', 0, 0),
            ('R', 0, 1),
            ('R', 0, 2),
            ('R', 0, 3),
            ('R', 0, 4),
            ('R', 0, 5),
            ('R', 1, 5),
            ('R', 2, 5),
            ('U', 1, 0),
            ('R', 2, 0),
            ('R', 2, 1),
        ]
        .map(|(m, c, r)| (if m == 'U' { 'B' } else { m }, c, r))
    );
}

proptest::proptest! {
    /// A derived road is drawn exactly as a big road of the same runs would be.
    #[test]
    fn derived_roads_are_drawn_like_the_big_road(bits in proptest::collection::vec(proptest::bool::ANY, 0..200)) {
        use baccarat_table::lay_out;
        let marks: Vec<Mark> = bits.iter().map(|&b| if b { Mark::Red } else { Mark::Blue }).collect();
        let letters: String = bits.iter().map(|&b| if b { 'B' } else { 'P' }).collect();
        let big = Roads::from_letters(&letters).unwrap();
        let expect: Vec<(usize, usize)> = big.big_road().iter().flatten().map(|c| (c.col, c.row)).collect();
        let got: Vec<(usize, usize)> = lay_out(&marks).iter().map(|c| (c.col, c.row)).collect();
        proptest::prop_assert_eq!(got, expect);
    }

    /// The board carries every road of the shoe: the big road's cells in order,
    /// each derived road's marks in order, and the ask-road.
    #[test]
    fn the_board_matches_the_roads(s in "[BPT]{0,120}") {
        let r = Roads::from_letters(&s).unwrap();
        let b = r.board();
        proptest::prop_assert_eq!(b.big_road.len(), r.big_road().iter().map(Vec::len).sum::<usize>());
        proptest::prop_assert_eq!(b.bead_plate.iter().map(Vec::len).sum::<usize>(), s.len());
        for (k, road) in [(1, &b.big_eye_boy), (2, &b.small_road), (3, &b.cockroach_pig)] {
            let got: Vec<Mark> = road.iter().map(|c| c.mark).collect();
            proptest::prop_assert_eq!(&got[..], r.derived(k));
        }
        proptest::prop_assert_eq!(b.ask_banker, r.ask(RoadResult::Banker));
    }

    /// The ask-road drawn in the roads: each derived road's next cell has the
    /// colour the ask-road names (computed by another path, from the column
    /// lengths) and lies where no cell is drawn yet; the big road's next cell
    /// is free too, and is where that result, once it comes, is drawn.
    #[test]
    fn the_ask_road_is_drawn_where_the_next_result_goes(s in "[BPT]{0,120}") {
        let r = Roads::from_letters(&s).unwrap();
        let b = r.board();
        for (next, cells, marks) in [
            (RoadResult::Banker, &b.ask_banker_cells, b.ask_banker),
            (RoadResult::Player, &b.ask_player_cells, b.ask_player),
        ] {
            let drawn: Vec<Option<Mark>> = cells.derived.iter().map(|c| c.map(|c| c.mark)).collect();
            proptest::prop_assert_eq!(&drawn[..], &marks[..]);
            for (cell, road) in cells.derived.iter().zip([&b.big_eye_boy, &b.small_road, &b.cockroach_pig]) {
                if let Some(c) = cell {
                    proptest::prop_assert!(road.iter().all(|d| (d.col, d.row) != (c.col, c.row)), "{:?} is free", (c.col, c.row));
                }
            }
            proptest::prop_assert!(b.big_road.iter().all(|d| (d.col, d.row) != (cells.col, cells.row)));
            let letter = if next == RoadResult::Banker { 'B' } else { 'P' };
            let after = Roads::from_letters(&format!("{s}{letter}")).unwrap().board();
            let last = after.big_road.last().unwrap();
            proptest::prop_assert_eq!((last.col, last.row), (cells.col, cells.row));
        }
    }
}
