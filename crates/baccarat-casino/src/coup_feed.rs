//! The event feed: what committed events tell the outside, folded as they are
//! published by the committer, before their requests are answered. It keeps
//!
//! * each table's coup in progress — its wagers with their status and, once
//!   settled, the money line by line — for the pit console and for each player's
//!   own view;
//! * each player's history of settled wagers (bounded);
//! * each table's shoes: the seed commitment published when the shoe starts and
//!   the seed once it ends (provably fair);
//! * where each recent coup starts in the table's audit chain, so that game
//!   recall reads the coup back from the durable record itself;
//! * the rule-bearing events of each table (irregularities, returns, reductions,
//!   voids), for the pit console's prompts.
//!
//! Cards never pass through here except as events that expose them; the seed is
//! kept only once its shoe has ended.
//!
//! Everything here is bounded per table or per player, and the whole is kept in
//! each checkpoint ([`FeedState`]): a restart rebuilds it from the checkpoint
//! and the tail of the log, never by reading the log from its first record.
//! (Only without a usable checkpoint is the whole log read, table by table: a
//! player's history lines from several tables then follow table order rather
//! than the order they settled in, and the last [`HISTORY`] are kept in it.)

pub mod lines;
mod parts;

pub use parts::{CoupResult, Notice, ShoeLine};

use crate::coup_feed::lines::Lines;
use crate::exposure::ShownCards;
use crate::exposure_watch::Cause;
use baccarat_core::TableId;
use std::collections::{HashMap, VecDeque};

use baccarat_rules::{Bet, Card, CoupSummary, Money, Outcome, Settlement};
use baccarat_table::{positions_of, Event, PlayerId, Position, Spot, Wager, WagerId};
use serde::{Deserialize, Serialize};

/// Coups whose place in the chain is kept per table, for recall.
pub const RECALL_COUPS: usize = 100;
/// Settled wagers kept per player.
pub const HISTORY: usize = 200;
/// Rule-bearing events kept per table.
pub const NOTICES: usize = 50;
/// Shoes listed per table (older shoes are recalled from the audit log).
pub const SHOES: usize = 100;

/// Where a wager of the coup in progress stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WagerStatus {
    Open,
    Withdrawn,
    Returned,
    Settled,
}

/// A wager of the coup in progress.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WagerLine {
    pub wager: WagerId,
    pub player: PlayerId,
    pub spot: Spot,
    pub bet: Bet,
    pub amount: Money,
    pub ante: Money,
    /// Banker and Player together, waiting for a supervisor (NSW 5.6.6).
    pub needs_approval: bool,
    pub status: WagerStatus,
    /// The rule behind a return or reduction.
    pub rule: Option<String>,
    pub outcome: Option<String>,
    pub pays: Option<String>,
    pub settlement: Option<Settlement>,
    /// What the wallet gained or lost on it (settled wagers).
    pub net: Option<Money>,
}

/// One table's coup in progress (kept until the next opens).
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct CoupFeed {
    pub coup: u64,
    /// Shared with the checkpoint that copies the feed, a chunk at a time,
    /// copy-on-write (`coup_feed/lines.rs`).
    #[schemars(with = "Vec<WagerLine>")]
    pub wagers: Lines,
    /// Whether a wager ever came after one with a higher id (never, as the
    /// engine numbers them): lines are then found by a scan, not a binary
    /// search. (A map from wager to line, grown afresh each coup, cost the
    /// committer its rehashes and the fresh pages they touched.)
    #[serde(skip)]
    unsorted: bool,
    #[serde(skip)]
    by_player: HashMap<PlayerId, Vec<usize>>,
    /// Player and Banker totals, and every card, once complete (the coup's cards
    /// leave the table's view when it closes, often in the same batch).
    pub result: Option<CoupResult>,
    #[serde(skip)]
    dealt: Vec<(Position, Card)>,
    pub void: Option<String>,
}

impl CoupFeed {
    pub fn of(&self, player: PlayerId) -> Vec<WagerLine> {
        self.by_player.get(&player).into_iter().flatten().map(|&i| self.wagers[i].clone()).collect()
    }

    fn line(&mut self, w: WagerId) -> Option<&mut WagerLine> {
        let i = match self.unsorted {
            true => self.wagers.iter().position(|l| l.wager == w)?,
            false => crate::coup_feed::lines::find_in_order(&self.wagers, w)?,
        };
        self.wagers.get_mut(i)
    }

    /// A wager placed: its line, open.
    fn placed(&mut self, wager: &Wager) {
        let line = WagerLine {
            wager: wager.id,
            player: wager.player,
            spot: wager.spot,
            bet: wager.bet,
            amount: wager.amount,
            ante: wager.ante,
            needs_approval: wager.needs_approval,
            status: WagerStatus::Open,
            rule: None,
            outcome: None,
            pays: None,
            settlement: None,
            net: None,
        };
        self.index(&line);
        self.wagers.push(line);
    }

    /// The coup's result: the totals, the winner and the cards as dealt.
    fn completed(&mut self, summary: &CoupSummary) {
        self.result = Some(CoupResult::new(summary, &self.dealt));
    }

    /// Note where a new line goes, before it is pushed.
    fn index(&mut self, line: &WagerLine) {
        let i = self.wagers.len();
        if i > 0 && self.wagers[i - 1].wager >= line.wager {
            self.unsorted = true;
        }
        self.by_player.entry(line.player).or_default().push(i);
    }
}

/// A settled wager in a player's history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryLine {
    pub table: TableId,
    pub coup: u64,
    pub line: WagerLine,
}

#[derive(Debug, Default)]
pub struct Feed {
    pub coups: HashMap<TableId, CoupFeed>,
    pub history: HashMap<PlayerId, VecDeque<HistoryLine>>,
    pub shoes: HashMap<TableId, Vec<ShoeLine>>,
    /// Per table: (coup, sequence number of its `betting_opened` record).
    pub coup_starts: HashMap<TableId, VecDeque<(u64, u64)>>,
    pub notices: HashMap<TableId, VecDeque<Notice>>,
    /// Per table: the cards it has shown this shoe, for the exposure
    /// monitor (`exposure_watch.rs`).
    pub shown: HashMap<TableId, ShownCards>,
}

impl Feed {
    /// Fold one table's committed event (`seq`: its record's place in the chain).
    /// Every event a commit recorded, in order ([`Feed::absorb`] each); the
    /// tables whose shown cards changed, each with the last event that
    /// changed them (its record and card, if a card).
    pub fn absorb_all(&mut self, events: &[(TableId, u64, Event)]) -> Vec<(TableId, Cause)> {
        let mut changed: Vec<(TableId, Cause)> = Vec::new();
        for (table, seq, e) in events {
            // Only an event that can show a card is worth the copy.
            let before = crate::exposure_watch::concerns_exposure(e).then(|| self.shown.get(table).map(|s| *s.shown()));
            if self.absorb(*table, *seq, e) {
                let after = self.shown.get(table).map(|s| *s.shown()).unwrap_or([0; 52]);
                let cause = Cause { seq: *seq, cards: newly_shown(&before.flatten().unwrap_or([0; 52]), &after) };
                match changed.iter_mut().find(|(t, _)| t == table) {
                    Some(c) => c.1 = cause,
                    None => changed.push((*table, cause)),
                }
            }
        }
        changed
    }

    /// Fold one table's committed event; whether it changed the cards the
    /// table has shown.
    pub fn absorb(&mut self, table: TableId, seq: u64, e: &Event) -> bool {
        self.lines(table, seq, e);
        // A wager (most events, on the committer) can show no card: it is not
        // folded into the shown cards at all.
        crate::exposure_watch::concerns_exposure(e) && self.shown.entry(table).or_default().observe(e)
    }

    /// The wagers' lines, the shoes, the coups' starts and the notices.
    fn lines(&mut self, table: TableId, seq: u64, e: &Event) {
        match e {
            Event::BettingOpened { coup, .. } => self.coup_opened(table, *coup, seq),
            Event::ShoeStarted { shoe, commitment, cut, .. } => {
                let shoes = self.shoes.entry(table).or_default();
                shoes.push(ShoeLine { shoe: *shoe, commitment: commitment.clone(), cut: *cut, seed: None });
                if shoes.len() > SHOES {
                    shoes.remove(0);
                }
            }
            Event::ShoeEnded { shoe, seed, .. } => {
                if let Some(s) = self.shoes.entry(table).or_default().iter_mut().rev().find(|s| s.shoe == *shoe) {
                    s.seed = *seed;
                }
            }
            Event::WagerPlaced { wager } => self.coups.entry(table).or_default().placed(wager),
            Event::WagerWithdrawn { wager } => self.set(table, *wager, |l| l.status = WagerStatus::Withdrawn),
            Event::WagerApproved { wager } => self.set(table, *wager, |l| l.needs_approval = false),
            Event::WagerReturned { wager, rule } => self.set(table, *wager, |l| {
                l.status = WagerStatus::Returned;
                l.rule = Some(rule.clone());
            }),
            Event::WagerReduced { wager, to, rule } => self.set(table, *wager, |l| {
                l.amount = *to;
                l.rule = Some(rule.clone());
            }),
            Event::WagerSettled { wager, outcome, pays, settlement, ante } => {
                self.settled(table, *wager, outcome.as_ref(), pays, settlement, *ante)
            }
            Event::CardDealt { position, card, .. } => {
                if let Some(c) = self.coups.get_mut(&table) {
                    c.dealt.push((*position, *card));
                }
            }
            Event::Reconstructed { cards, .. } => {
                if let Some(c) = self.coups.get_mut(&table) {
                    c.dealt = positions_of(cards);
                }
            }
            Event::CoupCompleted { summary, .. } => {
                if let Some(c) = self.coups.get_mut(&table) {
                    c.completed(summary);
                }
            }
            Event::CoupVoided { rule, .. } => {
                if let Some(c) = self.coups.get_mut(&table) {
                    c.void = Some(rule.clone());
                }
            }
            _ => {}
        }
        if let Some(rule) = rule_of(e) {
            self.notice(table, seq, rule, e);
        }
    }

    /// A new coup at `table`: its feed starts empty, and its start (`seq`)
    /// is kept among the last [`RECALL_COUPS`].
    fn coup_opened(&mut self, table: TableId, coup: u64, seq: u64) {
        self.coups.insert(table, CoupFeed { coup, ..CoupFeed::default() });
        let starts = self.coup_starts.entry(table).or_default();
        starts.push_back((coup, seq));
        if starts.len() > RECALL_COUPS {
            starts.pop_front();
        }
    }

    /// A wager settled: its line completed, and a copy kept in the player's
    /// history (the last [`HISTORY`]).
    fn settled(
        &mut self,
        table: TableId,
        wager: WagerId,
        outcome: Option<&Outcome>,
        pays: &str,
        settlement: &Settlement,
        ante: Money,
    ) {
        let Some(c) = self.coups.get_mut(&table) else { return };
        let coup = c.coup;
        let Some(l) = c.line(wager) else { return };
        l.status = WagerStatus::Settled;
        l.outcome = outcome.map(|o| o.to_string());
        l.pays = Some(pays.to_string());
        l.settlement = Some(*settlement);
        // An ante collected is the player's too (AU 14.6).
        l.net = Some(settlement.player_net() - ante);
        let h = self.history.entry(l.player).or_default();
        h.push_back(HistoryLine { table, coup, line: l.clone() });
        if h.len() > HISTORY {
            h.pop_front();
        }
    }

    /// An event a rule explains, as the table's notices show it (the last
    /// [`NOTICES`]), its withheld parts blanked.
    fn notice(&mut self, table: TableId, seq: u64, rule: &str, e: &Event) {
        let n = self.notices.entry(table).or_default();
        let mut shown = e.clone();
        crate::audit::blank(&mut shown);
        n.push_back(Notice { seq, rule: rule.to_string(), event: shown });
        if n.len() > NOTICES {
            n.pop_front();
        }
    }

    /// Everything, for a checkpoint (in key order, so equal feeds give equal
    /// states).
    pub fn state(&self) -> FeedState {
        fn sorted<K: Ord + Copy, V: Clone, W>(m: &HashMap<K, V>, f: impl Fn(&V) -> W) -> Vec<(K, W)> {
            let mut v: Vec<(K, W)> = m.iter().map(|(k, v)| (*k, f(v))).collect();
            v.sort_by_key(|(k, _)| *k);
            v
        }
        FeedState {
            coups: sorted(&self.coups, |c| CoupState {
                coup: c.coup,
                wagers: c.wagers.clone(),
                result: c.result.clone(),
                dealt: c.dealt.clone(),
                void: c.void.clone(),
            }),
            history: sorted(&self.history, |h| h.iter().cloned().collect()),
            shoes: sorted(&self.shoes, Clone::clone),
            coup_starts: sorted(&self.coup_starts, |s| s.iter().copied().collect()),
            notices: sorted(&self.notices, |n| n.iter().cloned().collect()),
            shown: sorted(&self.shown, Clone::clone),
        }
    }

    /// A feed from a checkpoint's state, its indexes rebuilt.
    pub fn from_state(s: FeedState) -> Feed {
        let mut f = Feed::default();
        for (table, c) in s.coups {
            let mut feed =
                CoupFeed { coup: c.coup, result: c.result, dealt: c.dealt, void: c.void, ..CoupFeed::default() };
            for (i, l) in c.wagers.iter().enumerate() {
                feed.unsorted |= i > 0 && c.wagers[i - 1].wager >= l.wager;
                feed.by_player.entry(l.player).or_default().push(i);
            }
            feed.wagers = c.wagers;
            f.coups.insert(table, feed);
        }
        f.history = s.history.into_iter().map(|(p, h)| (p, h.into())).collect();
        f.shoes = s.shoes.into_iter().collect();
        f.coup_starts = s.coup_starts.into_iter().map(|(t, v)| (t, v.into())).collect();
        f.notices = s.notices.into_iter().map(|(t, v)| (t, v.into())).collect();
        f.shown = s.shown.into_iter().collect();
        f
    }

    fn set(&mut self, table: TableId, w: WagerId, f: impl FnOnce(&mut WagerLine)) {
        if let Some(l) = self.coups.get_mut(&table).and_then(|c| c.line(w)) {
            f(l);
        }
    }

    /// Where the last `n` coups of a table start in its chain (oldest first).
    pub fn recall_from(&self, table: TableId, n: usize) -> Option<u64> {
        let s = self.coup_starts.get(&table)?;
        s.get(s.len().saturating_sub(n)).map(|&(_, seq)| seq)
    }
}

/// One table's coup in progress, as a checkpoint keeps it (its cards too,
/// which the public view of [`CoupFeed`] leaves out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoupState {
    pub coup: u64,
    /// As rows (`casino/checkpoint_rows.rs`).
    #[serde(serialize_with = "crate::coup_feed::lines::wager_lines")]
    pub wagers: Lines,
    pub result: Option<CoupResult>,
    pub dealt: Vec<(Position, Card)>,
    pub void: Option<String>,
}

/// The feed as a checkpoint keeps it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FeedState {
    pub coups: Vec<(TableId, CoupState)>,
    pub history: Vec<(PlayerId, Vec<HistoryLine>)>,
    pub shoes: Vec<(TableId, Vec<ShoeLine>)>,
    pub coup_starts: Vec<(TableId, Vec<(u64, u64)>)>,
    pub notices: Vec<(TableId, Vec<Notice>)>,
    /// Absent from a checkpoint written before the exposure monitor: its
    /// tables then start with nothing shown until their next shoe.
    #[serde(default)]
    pub shown: Vec<(TableId, ShownCards)>,
}

/// The cards counted in `after` and not in `before` (by card index): what
/// one event showed (none for a new shoe, which forgets).
fn newly_shown(before: &[u32; 52], after: &[u32; 52]) -> Vec<Card> {
    (0..52)
        .flat_map(|i| std::iter::repeat_n(i, after[i].saturating_sub(before[i]) as usize))
        .filter_map(Card::from_index)
        .collect()
}

/// The rule an irregularity-type event cites, for the pit's prompts.
fn rule_of(e: &Event) -> Option<&str> {
    match e {
        Event::Irregularity { rule, .. }
        | Event::WagerReturned { rule, .. }
        | Event::WagerReduced { rule, .. }
        | Event::CoupVoided { rule, .. }
        | Event::Reconstructed { rule, .. }
        | Event::WithdrawalsOffered { rule }
        | Event::CuttingCardOut { rule, .. }
        | Event::MinimumAnnounced { rule, .. }
        | Event::MinimumChanged { rule, .. }
        | Event::LimitsChanged { rule, .. }
        | Event::WagersReopened { rule }
        | Event::Burned { rule, .. }
        | Event::ShoeStarted { rule, .. } => Some(rule),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baccarat_rules::Outcome;
    use baccarat_table::Wager;

    fn placed(id: u64) -> Event {
        Event::WagerPlaced {
            wager: Wager {
                id: WagerId(id),
                player: PlayerId(7),
                spot: Spot::Box(1),
                bet: Bet::Banker,
                amount: Money(1000),
                ante: Money::ZERO,
                needs_approval: false,
                token: false,
                at_ms: None,
            },
        }
    }

    /// A checkpoint shares each coup's lines with the feed rather than copying
    /// them, and what the feed absorbs afterwards never shows in it.
    #[test]
    fn a_checkpoint_shares_the_lines_and_later_changes_do_not_reach_it() {
        let mut f = Feed::default();
        f.absorb(
            TableId(3),
            1,
            &Event::BettingOpened { coup: 1, no_bet: false, first_card: None, rule: None, closes_at: None },
        );
        for (seq, id) in (2..).zip(0..5) {
            f.absorb(TableId(3), seq, &placed(id));
        }
        let taken = f.state();
        let lines = &taken.coups[0].1.wagers;
        assert!(lines.shares_all_with(&f.coups[&TableId(3)].wagers), "shared, not copied");
        let settled = Event::WagerSettled {
            wager: WagerId(2),
            outcome: Some(Outcome::Win),
            pays: "0.95:1".into(),
            settlement: baccarat_rules::Settlement {
                stake: Money(1000),
                returned: Money(1000),
                lost: Money::ZERO,
                won: Money(950),
                commission: Money::ZERO,
                void: Money::ZERO,
            },
            ante: Money::ZERO,
        };
        f.absorb(TableId(3), 7, &settled);
        f.absorb(TableId(3), 8, &placed(5));
        assert_eq!(f.coups[&TableId(3)].wagers.len(), 6);
        assert_eq!(f.coups[&TableId(3)].wagers[2].status, WagerStatus::Settled);
        assert_eq!(lines.len(), 5, "the checkpoint keeps the lines it took");
        assert!(lines.iter().all(|l| l.status == WagerStatus::Open));
        // And the feed rebuilt from it is the feed as it was then.
        assert_eq!(Feed::from_state(taken.clone()).state(), taken);
    }

    /// Each wager's line is found to change it: by binary search while the
    /// wagers come in order (as a table numbers them), by a scan once one
    /// comes out of order, and the same in a feed rebuilt from a checkpoint.
    #[test]
    fn every_line_is_found_in_order_or_not() {
        for ids in [vec![0u64, 1, 2, 5, 9], vec![4, 9, 2, 7, 0]] {
            let mut f = Feed::default();
            f.absorb(
                TableId(3),
                1,
                &Event::BettingOpened { coup: 1, no_bet: false, first_card: None, rule: None, closes_at: None },
            );
            for (seq, &id) in (2..).zip(&ids) {
                f.absorb(TableId(3), seq, &placed(id));
            }
            let mut rebuilt = Feed::from_state(f.state());
            for (i, &id) in ids.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
                for feed in [&mut f, &mut rebuilt] {
                    feed.absorb(TableId(3), 100 + i as u64, &Event::WagerWithdrawn { wager: WagerId(id) });
                }
            }
            feed_absorb_unknown(&mut f);
            for feed in [&f, &rebuilt] {
                let statuses: Vec<_> = feed.coups[&TableId(3)].wagers.iter().map(|l| l.status).collect();
                let want: Vec<_> = (0..ids.len())
                    .map(|i| if i % 2 == 0 { WagerStatus::Withdrawn } else { WagerStatus::Open })
                    .collect();
                assert_eq!(statuses, want, "ids {ids:?}");
            }
        }
    }

    /// A wager the coup does not hold changes nothing.
    fn feed_absorb_unknown(f: &mut Feed) {
        let before = f.state();
        f.absorb(TableId(3), 999, &Event::WagerWithdrawn { wager: WagerId(3) });
        assert_eq!(f.state(), before);
    }
}
