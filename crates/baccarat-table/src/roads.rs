//! The Winning Result Display: bead plate, big road, the three derived roads and
//! the ask-road (NSW 1.1 "WRD"; AU 3.4(f) "game results display").
//!
//! # The derived-road rule
//!
//! Work on the big road's *logical* columns (a streak is one column however its
//! cells are drawn), ignore ties, and take k = 1, 2, 3 for big eye boy, small road
//! and cockroach pig:
//!
//! * a cell that starts column c is red when columns c-1 and c-1-k have the same
//!   length;
//! * any other cell, at row r ≥ 1 of column c, is blue exactly when column c-k has
//!   length r (the column k back ends just above this row), and red otherwise —
//!   including the "straight drop", where column c-k is shorter still;
//! * a road's first mark is the big-road cell at column k, row 1, or, if that cell
//!   never fills, the cell at column k+1, row 0.
//!
//! The rulebooks make the display advisory only: NSW 12.14 and AU 12.9 say a wrong
//! display changes nothing, and EU 7.1 settles on the cards actually dealt.
//!
//! # Drawing the big road
//!
//! Each logical column is drawn down from row 0. When it reaches the sixth row, or
//! the cell below is taken by an earlier column's tail, it turns right and runs
//! along that row (the dragon tail). A column starts at the display column of its
//! index, moved right past any display column whose top cell is taken.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

/// Rows of the big road and the bead plate.
pub const ROWS: usize = 6;

/// The result of one coup as the display records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum RoadResult {
    #[serde(rename = "B")]
    Banker,
    #[serde(rename = "P")]
    Player,
    #[serde(rename = "T")]
    Tie,
}

impl RoadResult {
    pub fn letter(self) -> char {
        match self {
            RoadResult::Banker => 'B',
            RoadResult::Player => 'P',
            RoadResult::Tie => 'T',
        }
    }

    pub fn from_letter(c: char) -> Option<RoadResult> {
        match c.to_ascii_uppercase() {
            'B' => Some(RoadResult::Banker),
            'P' => Some(RoadResult::Player),
            'T' => Some(RoadResult::Tie),
            _ => None,
        }
    }
}

/// One coup on the display: its result and the markers drawn with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RoadEntry {
    pub result: RoadResult,
    #[serde(default, skip_serializing_if = "is_false")]
    pub player_pair: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub banker_pair: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub natural: bool,
}

/// A shoe's results counted: Banker, Player and Tie wins, the coups with a
/// Player pair or a Banker pair, and those with a natural (8 or 9 on the
/// first two cards of either hand). Percentages are the reader's to work out
/// (each count over `coups`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ShoeStats {
    pub coups: u32,
    pub banker: u32,
    pub player: u32,
    pub tie: u32,
    pub player_pairs: u32,
    pub banker_pairs: u32,
    pub naturals: u32,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl RoadEntry {
    pub fn plain(result: RoadResult) -> RoadEntry {
        RoadEntry { result, player_pair: false, banker_pair: false, natural: false }
    }
}

/// A mark on a derived road.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum Mark {
    #[serde(rename = "R")]
    Red,
    #[serde(rename = "B")]
    Blue,
}

impl Mark {
    pub fn letter(self) -> char {
        match self {
            Mark::Red => 'R',
            Mark::Blue => 'B',
        }
    }
}

/// A big-road cell: a Banker or Player win, the ties that followed it, and where
/// it is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct BigCell {
    pub result: RoadResult,
    pub ties: u32,
    #[serde(skip_serializing_if = "is_false")]
    pub player_pair: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub banker_pair: bool,
    #[serde(skip_serializing_if = "is_false")]
    pub natural: bool,
    /// Display position, after any dragon tail.
    pub col: usize,
    pub row: usize,
}

/// The derived roads by k: big eye boy (1), small road (2), cockroach pig (3).
pub const DERIVED: [(&str, usize); 3] = [("big_eye_boy", 1), ("small_road", 2), ("cockroach_pig", 3)];

/// All the roads of one shoe, updated one coup at a time. Serialised as its
/// entries alone; the drawn roads are rebuilt from them when read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<RoadEntry>", into = "Vec<RoadEntry>")]
pub struct Roads {
    entries: Vec<RoadEntry>,
    leading_ties: u32,
    columns: Vec<Vec<BigCell>>,
    occupied: HashSet<(usize, usize)>,
    derived: [Vec<Mark>; 3],
}

impl From<Vec<RoadEntry>> for Roads {
    fn from(entries: Vec<RoadEntry>) -> Roads {
        let mut r = Roads::new();
        for e in entries {
            r.push(e);
        }
        r
    }
}

impl From<Roads> for Vec<RoadEntry> {
    fn from(r: Roads) -> Vec<RoadEntry> {
        r.entries
    }
}

impl Roads {
    pub fn new() -> Roads {
        Roads::default()
    }

    /// Roads from a string of `B`, `P` and `T` (white space ignored).
    pub fn from_letters(s: &str) -> Result<Roads, BadLetter> {
        let mut r = Roads::new();
        for (i, c) in s.chars().filter(|c| !c.is_whitespace()).enumerate() {
            let result = RoadResult::from_letter(c).ok_or(BadLetter { position: i + 1, found: c })?;
            r.push(RoadEntry::plain(result));
        }
        Ok(r)
    }

    /// Record one coup.
    pub fn push(&mut self, e: RoadEntry) {
        self.entries.push(e);
        if e.result == RoadResult::Tie {
            match self.columns.last_mut().and_then(|c| c.last_mut()) {
                Some(cell) => cell.ties += 1,
                None => self.leading_ties += 1,
            }
            return;
        }
        let same = self.columns.last().and_then(|c| c.first()).is_some_and(|c| c.result == e.result);
        let (col, row) = self.place(same);
        let cell = BigCell {
            result: e.result,
            ties: 0,
            player_pair: e.player_pair,
            banker_pair: e.banker_pair,
            natural: e.natural,
            col,
            row,
        };
        self.occupied.insert((col, row));
        if same {
            self.columns.last_mut().expect("same column exists").push(cell);
        } else {
            self.columns.push(vec![cell]);
        }
        let (c, r) = (self.columns.len() - 1, self.columns[self.columns.len() - 1].len() - 1);
        let lens: Vec<usize> = self.columns.iter().map(Vec::len).collect();
        for (i, (_, k)) in DERIVED.iter().enumerate() {
            if let Some(m) = derived_mark(&lens, c, r, *k) {
                self.derived[i].push(m);
            }
        }
    }

    /// Where the next cell is drawn: below the last one, or to its right in a
    /// dragon tail, or at the top of a new column.
    fn place(&self, same_column: bool) -> (usize, usize) {
        place(
            &self.columns.iter().map(|c| c.iter().map(|x| (x.col, x.row)).collect()).collect::<Vec<_>>(),
            &self.occupied,
            same_column,
        )
    }

    /// Every coup in order, ties included.
    pub fn entries(&self) -> &[RoadEntry] {
        &self.entries
    }

    /// The shoe's statistics, as players read them beside the roads.
    pub fn stats(&self) -> ShoeStats {
        let mut s = ShoeStats::default();
        for e in &self.entries {
            s.coups += 1;
            match e.result {
                RoadResult::Banker => s.banker += 1,
                RoadResult::Player => s.player += 1,
                RoadResult::Tie => s.tie += 1,
            }
            s.player_pairs += u32::from(e.player_pair);
            s.banker_pairs += u32::from(e.banker_pair);
            s.naturals += u32::from(e.natural);
        }
        s
    }

    /// The bead plate: every coup, six to a column, top to bottom, left to right.
    pub fn bead_plate(&self) -> Vec<Vec<RoadEntry>> {
        self.entries.chunks(ROWS).map(<[RoadEntry]>::to_vec).collect()
    }

    /// Ties before the first Banker or Player win.
    pub fn leading_ties(&self) -> u32 {
        self.leading_ties
    }

    /// The big road's logical columns.
    pub fn big_road(&self) -> &[Vec<BigCell>] {
        &self.columns
    }

    /// A derived road's marks in the order they were made; `k` is 1, 2 or 3.
    pub fn derived(&self, k: usize) -> &[Mark] {
        &self.derived[k - 1]
    }

    /// The ask-road: the mark each derived road would make next if `next` won the
    /// next coup (`None` where that road would make no mark yet).
    pub fn ask(&self, next: RoadResult) -> [Option<Mark>; 3] {
        let mut lens: Vec<usize> = self.columns.iter().map(Vec::len).collect();
        match (next, self.columns.last()) {
            (RoadResult::Tie, _) => return [None; 3],
            (r, Some(col)) if col[0].result == r => *lens.last_mut().expect("column") += 1,
            _ => lens.push(1),
        }
        let (c, r) = (lens.len() - 1, lens[lens.len() - 1] - 1);
        DERIVED.map(|(_, k)| derived_mark(&lens, c, r, k))
    }
}

/// Where the next cell of a road goes, given the cells drawn so far by logical
/// column and the cells taken: below the last one, or to its right in a dragon
/// tail, or at the top of a new column (the module's drawing rule). Shared by the
/// big road and the derived roads, which are drawn the same way.
fn place(columns: &[Vec<(usize, usize)>], occupied: &HashSet<(usize, usize)>, same_column: bool) -> (usize, usize) {
    if same_column {
        let col = columns.last().expect("same column exists");
        let last = *col.last().expect("column has a cell");
        let bent = col.len() > 1 && col[col.len() - 2].1 == last.1;
        if !bent && last.1 + 1 < ROWS && !occupied.contains(&(last.0, last.1 + 1)) {
            (last.0, last.1 + 1)
        } else {
            (last.0 + 1, last.1)
        }
    } else {
        let index = columns.len();
        let after_previous = columns.last().map_or(0, |c| c[0].0 + 1);
        let mut col = index.max(after_previous);
        while occupied.contains(&(col, 0)) {
            col += 1;
        }
        (col, 0)
    }
}

/// A derived-road mark where it is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct MarkCell {
    pub mark: Mark,
    pub col: usize,
    pub row: usize,
}

/// Lay out a derived road: a run of one colour is a column, drawn like the big
/// road's (down six rows, then a dragon tail to the right).
pub fn lay_out(marks: &[Mark]) -> Vec<MarkCell> {
    let mut columns: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut occupied = HashSet::new();
    let mut out: Vec<MarkCell> = Vec::with_capacity(marks.len());
    for &mark in marks {
        let same = out.last().is_some_and(|c| c.mark == mark);
        let (col, row) = place(&columns, &occupied, same);
        occupied.insert((col, row));
        if same {
            columns.last_mut().expect("column").push((col, row));
        } else {
            columns.push(vec![(col, row)]);
        }
        out.push(MarkCell { mark, col, row });
    }
    out
}

/// Everything a roads board draws, positioned: for a screen.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Board {
    /// Every coup, six to a column.
    pub bead_plate: Vec<Vec<RoadEntry>>,
    pub leading_ties: u32,
    /// Big-road cells with their display positions.
    pub big_road: Vec<BigCell>,
    pub big_eye_boy: Vec<MarkCell>,
    pub small_road: Vec<MarkCell>,
    pub cockroach_pig: Vec<MarkCell>,
    /// The ask-road: the marks each derived road would make if Banker or Player
    /// won next (big eye boy, small road, cockroach pig).
    pub ask_banker: [Option<Mark>; 3],
    pub ask_player: [Option<Mark>; 3],
    /// The ask-road drawn in the roads: where Banker's or Player's win would
    /// go next in the big road, and the cell each derived road would draw.
    pub ask_banker_cells: AskCells,
    pub ask_player_cells: AskCells,
}

/// Where a next result would be drawn: its big-road cell's position, and the
/// cell each derived road would add (big eye boy, small road, cockroach pig;
/// `None` where that road would draw nothing yet).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct AskCells {
    pub col: usize,
    pub row: usize,
    pub derived: [Option<MarkCell>; 3],
}

impl Roads {
    /// The board, laid out for drawing.
    pub fn board(&self) -> Board {
        Board {
            bead_plate: self.bead_plate(),
            leading_ties: self.leading_ties,
            big_road: self.columns.iter().flatten().copied().collect(),
            big_eye_boy: lay_out(self.derived(1)),
            small_road: lay_out(self.derived(2)),
            cockroach_pig: lay_out(self.derived(3)),
            ask_banker: self.ask(RoadResult::Banker),
            ask_player: self.ask(RoadResult::Player),
            ask_banker_cells: self.ask_cells(RoadResult::Banker),
            ask_player_cells: self.ask_cells(RoadResult::Player),
        }
    }

    /// Where `next` (Banker or Player) would be drawn if it won the next
    /// coup: the roads with it added, read at their last cells.
    pub fn ask_cells(&self, next: RoadResult) -> AskCells {
        let mut after = self.clone();
        after.push(RoadEntry::plain(next));
        let cell = after.columns.last().and_then(|c| c.last()).copied();
        let derived = DERIVED.map(|(_, k)| {
            (after.derived(k).len() > self.derived(k).len())
                .then(|| lay_out(after.derived(k)).last().copied())
                .flatten()
        });
        AskCells { col: cell.map_or(0, |c| c.col), row: cell.map_or(0, |c| c.row), derived }
    }
}

/// The mark a derived road with offset `k` makes for the big-road cell at logical
/// column `c`, row `r`, given the column lengths (the module's rule).
pub fn derived_mark(lens: &[usize], c: usize, r: usize, k: usize) -> Option<Mark> {
    if c < k || (c == k && r == 0) {
        return None;
    }
    let red = if r == 0 { lens[c - 1] == lens[c - 1 - k] } else { lens[c - k] != r };
    Some(if red { Mark::Red } else { Mark::Blue })
}

/// A character in a road string that is not `B`, `P` or `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("results: character {position} is {found:?}; write only B (Banker), P (Player) and T (Tie)")]
pub struct BadLetter {
    pub position: usize,
    pub found: char,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(r: &Roads, k: usize) -> String {
        r.derived(k).iter().map(|m| m.letter()).collect()
    }

    /// A shoe's statistics by hand: six coups, two pairs on one coup, and
    /// naturals on two.
    #[test]
    fn shoe_stats_count_results_pairs_and_naturals() {
        let mut r = Roads::from_letters("BBPT").unwrap();
        r.push(RoadEntry { result: RoadResult::Player, player_pair: true, banker_pair: true, natural: true });
        r.push(RoadEntry { result: RoadResult::Banker, player_pair: false, banker_pair: true, natural: true });
        let s = r.stats();
        let want = ShoeStats { coups: 6, banker: 3, player: 2, tie: 1, player_pairs: 1, banker_pairs: 2, naturals: 2 };
        assert_eq!(s, want);
        assert_eq!(Roads::new().stats(), ShoeStats::default());
    }

    #[test]
    fn alternating_results() {
        let r = Roads::from_letters("BPBP").unwrap();
        assert_eq!(marks(&r, 1), "RR");
        assert_eq!(marks(&r, 2), "R");
        assert_eq!(marks(&r, 3), "");
    }
}
