//! The pace of an RNG table: shoe, betting window, no more bets, cards, result,
//! decided from the table's typed view alone ([`next`]); the server's loop that
//! sleeps and sends what it decides is `baccarat-server`'s `http/pacing.rs`.
//!
//! The pacer is the server acting at its own tables ([`Actor::Server`]): the
//! trust matrix lets no one else open or close betting or deal at an RNG table.
//! The betting deadline is not kept here: it goes into the record with
//! `betting_opened { closes_at }`, the engine refuses a wager stamped after it
//! whenever the close itself is sent, and `verify` checks it.
//!
//! A hand out with a player to squeeze waits for them up to the squeeze time;
//! then the dealer exposes it (NSW 8.15). Live tables are paced by their
//! dealer, and a closed table finishes its coup and waits.

use std::time::Duration;

use baccarat_table::Command;

use crate::casino::Request;
use crate::table_view::{PhaseView, TableView};
use crate::trust::{Actor, Mode};

/// How long the pacer waits before it looks again at a table with nothing
/// for it to do (a live table, a closed one, a reconstruction).
const IDLE: Duration = Duration::from_millis(500);
/// The longest wait between looks at a hand out to squeeze.
const SQUEEZE_LOOK: Duration = Duration::from_millis(250);

/// The pace of RNG tables.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    pub betting: std::time::Duration,
    pub deal: std::time::Duration,
    pub squeeze: std::time::Duration,
    pub result_pause: std::time::Duration,
}

/// What the pacer does next at one table.
#[derive(Debug)]
pub enum Step {
    /// Nothing for the server to do now: look again after this long.
    Look(Duration),
    /// Let coup `coup`'s result be seen this long before the next betting
    /// opens; then look again (a supervisor may have closed the table).
    ShowResult { coup: u64, pause: Duration },
    /// After this long, send this request as the server.
    Send { after: Duration, request: Request },
}

/// The pacer's decision, from the table's view alone: `now_ms` is the
/// writer's clock, `paused_after` the last coup whose result was shown.
pub fn next(t: &TableView, cfg: Pace, now_ms: u64, paused_after: Option<u64>) -> Step {
    match t.mode {
        Mode::Rng => {}
        Mode::Live => return Step::Look(IDLE),
    }
    // A table closed for good is paced no more (the server's loop ends at
    // it: `http/pacing.rs`); one closing deals out its coup in play and
    // starts no other (`casino/closing.rs`).
    let between_coups = matches!(t.phase, PhaseView::NoShoe | PhaseView::ShoeOver | PhaseView::Ready);
    if t.closed || (t.closing && between_coups) {
        return Step::Look(IDLE);
    }
    let table = t.id;
    let server = |command| Request::Table { table, command, by: Actor::Server };
    let now = |request| Step::Send { after: Duration::ZERO, request };
    match t.phase {
        PhaseView::NoShoe | PhaseView::ShoeOver if t.open => now(Request::NewShoe { table }),
        PhaseView::Ready if t.open => {
            if t.coup > 0 && paused_after != Some(t.coup) {
                return Step::ShowResult { coup: t.coup, pause: cfg.result_pause };
            }
            let closes_at = Some(now_ms + cfg.betting.as_millis() as u64);
            now(server(Command::OpenBetting { no_bet: false, closes_at }))
        }
        PhaseView::Betting => {
            let after = Duration::from_millis(t.closes_at_ms.unwrap_or(0).saturating_sub(now_ms));
            Step::Send { after, request: server(Command::CloseBetting) }
        }
        PhaseView::NoMoreBets | PhaseView::Dealing => match &t.out {
            // From when the hand went out, as the table's view says (and as a
            // page loaded mid-squeeze shows it).
            Some(h) => {
                let waited = Duration::from_millis(now_ms.saturating_sub(h.since_ms));
                if waited < cfg.squeeze {
                    return Step::Look((cfg.squeeze - waited).min(SQUEEZE_LOOK));
                }
                now(server(Command::Expose { side: h.side, player: None }))
            }
            None => Step::Send { after: cfg.deal, request: server(Command::DealNext) },
        },
        // A closed table finishes its coup and waits; a reconstruction waits
        // for the supervisor who resumes it (`resume_coup` in the trust matrix).
        PhaseView::NoShoe | PhaseView::ShoeOver | PhaseView::Ready | PhaseView::Reconstruction => Step::Look(IDLE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baccarat_core::TableId;

    const PACE: Pace = Pace {
        betting: Duration::from_millis(15_000),
        deal: Duration::from_millis(700),
        squeeze: Duration::from_millis(5_000),
        result_pause: Duration::from_millis(3_000),
    };

    fn view(mode: Mode, phase: PhaseView, open: bool) -> TableView {
        TableView { id: TableId(4), mode, phase, open, coup: 3, ..TableView::default() }
    }

    /// The command the step sends, and after how long; `None` if it sends none.
    fn sent(step: Step) -> Option<(Duration, Option<Command>)> {
        match step {
            Step::Send { after, request: Request::Table { table: TableId(4), command, by: Actor::Server } } => {
                Some((after, Some(command)))
            }
            Step::Send { after, request: Request::NewShoe { table: TableId(4) } } => Some((after, None)),
            Step::Send { request, .. } => panic!("not the server at table 4: {request:?}"),
            _ => None,
        }
    }

    #[test]
    fn a_live_table_is_left_to_its_dealer() {
        for phase in PhaseView::ALL {
            assert!(matches!(next(&view(Mode::Live, phase, true), PACE, 0, None), Step::Look(IDLE)), "{phase:?}");
        }
    }

    /// Each phase of an open RNG table gets its step, from the typed view.
    #[test]
    fn each_phase_of_an_rng_table_gets_its_step() {
        let at = |phase, paused| next(&view(Mode::Rng, phase, true), PACE, 1_000, paused);
        assert_eq!(sent(at(PhaseView::NoShoe, None)), Some((Duration::ZERO, None)));
        assert_eq!(sent(at(PhaseView::ShoeOver, None)), Some((Duration::ZERO, None)));
        assert!(
            matches!(at(PhaseView::Ready, None), Step::ShowResult { coup: 3, pause } if pause == PACE.result_pause)
        );
        let open = Command::OpenBetting { no_bet: false, closes_at: Some(16_000) };
        assert_eq!(sent(at(PhaseView::Ready, Some(3))), Some((Duration::ZERO, Some(open))));
        let betting = TableView { closes_at_ms: Some(1_600), ..view(Mode::Rng, PhaseView::Betting, true) };
        assert_eq!(
            sent(next(&betting, PACE, 1_000, None)),
            Some((Duration::from_millis(600), Some(Command::CloseBetting)))
        );
        for phase in [PhaseView::NoMoreBets, PhaseView::Dealing] {
            assert_eq!(sent(at(phase, None)), Some((PACE.deal, Some(Command::DealNext))), "{phase:?}");
        }
        assert!(matches!(at(PhaseView::Reconstruction, None), Step::Look(IDLE)));
        for phase in [PhaseView::NoShoe, PhaseView::Ready, PhaseView::ShoeOver] {
            let closed = next(&view(Mode::Rng, phase, false), PACE, 1_000, Some(3));
            assert!(matches!(closed, Step::Look(IDLE)), "a closed table waits in {phase:?}");
        }
    }

    /// A table closed for good gets no step in any phase; one closing deals
    /// out its coup and opens no other.
    #[test]
    fn a_closed_table_is_not_paced_and_a_closing_one_starts_no_coup() {
        for phase in PhaseView::ALL {
            let closed = TableView { closed: true, ..view(Mode::Rng, phase, true) };
            assert!(matches!(next(&closed, PACE, 1_000, Some(3)), Step::Look(IDLE)), "{phase:?}");
        }
        for phase in [PhaseView::NoShoe, PhaseView::Ready, PhaseView::ShoeOver] {
            let closing = TableView { closing: true, ..view(Mode::Rng, phase, true) };
            assert!(matches!(next(&closing, PACE, 1_000, Some(3)), Step::Look(IDLE)), "{phase:?}");
        }
        let dealing = TableView { closing: true, ..view(Mode::Rng, PhaseView::Dealing, true) };
        assert_eq!(sent(next(&dealing, PACE, 1_000, None)), Some((PACE.deal, Some(Command::DealNext))));
    }

    /// A hand out waits for its player up to the squeeze time, then the
    /// dealer exposes it (NSW 8.15).
    #[test]
    fn a_hand_out_is_exposed_after_the_squeeze_time() {
        let out = crate::table_view::HandOut {
            side: baccarat_rules::Side::Player,
            player: baccarat_table::PlayerId(9),
            since_ms: 1_000,
            name: None,
        };
        let t = TableView { out: Some(out), ..view(Mode::Rng, PhaseView::Dealing, true) };
        assert!(matches!(next(&t, PACE, 2_000, None), Step::Look(SQUEEZE_LOOK)));
        assert!(matches!(next(&t, PACE, 5_900, None), Step::Look(d) if d == Duration::from_millis(100)));
        let expose = Command::Expose { side: baccarat_rules::Side::Player, player: None };
        assert_eq!(sent(next(&t, PACE, 6_000, None)), Some((Duration::ZERO, Some(expose))));
    }
}
