//! The steps of tournament play as the writer takes them (NSW 15.5-15.11):
//! each is turned into its record (drawing any seed or cards it needs),
//! folded into the tournament's play, which checks it, and recorded only if
//! the fold accepts it. When the final is over, the prizes are paid from the
//! pool in the same batch (NSW 15.3.2). See `tournament_play.rs`.

use baccarat_core::TournamentId;
use baccarat_rules::Money;
use baccarat_table::tournament::RoundEnd;
use baccarat_table::PlayerId;

use super::tournament_play::{PlayAction, Stake};
use super::{Casino, Code, Commit, Reply};
use crate::audit::CasinoEvent;
use crate::ledger::{AccountKind, Op};
use crate::trust::Actor;

/// A step of tournament play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayStep {
    /// The Tournament Manager starts play: entries close, the first round is
    /// seated (NSW 15.5.1, 15.5.4).
    Start,
    /// A player's action for the coup, or the Tournament Manager's for a late
    /// or absent player.
    Act { player: PlayerId, action: PlayAction },
    /// A player shows their undisclosed wager's form and secret (NSW 15.8.2.6).
    Reveal { player: PlayerId, form: Option<Stake>, salt: String },
    /// The Tournament Manager calls "no more bets" at a table.
    NoMoreBets { table: u32 },
    /// The Tournament Manager has the coup dealt at a table.
    Deal { table: u32 },
    /// The Tournament Manager ends the round (NSW 15.5.5, 15.10).
    EndRound,
    /// The Tournament Manager disqualifies a player.
    Disqualify { player: PlayerId, rule: String, why: String },
    /// The Tournament Manager moves a player to another table of the round
    /// (NSW 15.5.1, 15.5.4).
    Move { player: PlayerId, table: u32 },
}

/// The longest reason a disqualification records.
pub const MAX_WHY: usize = 500;

impl Casino {
    /// Take one step of a tournament's play.
    pub(super) fn tournament_play(
        &mut self,
        id: TournamentId,
        step: PlayStep,
        by: Actor,
        commit: &mut Commit,
    ) -> Reply {
        // A final whose prizes were not paid (the payment was refused) is
        // paid by ending the round again.
        let unpaid = self
            .tournaments
            .get(&id)
            .and_then(|t| t.play.as_ref())
            .is_some_and(|p| p.paid.is_none() && !p.bracket.placings.is_empty());
        if step == PlayStep::EndRound && unpaid {
            return match self.pay_prizes(id, commit) {
                Ok(()) => Reply::Tournament { tournament: id, entrants: self.tournaments[&id].state.entrants.len() },
                Err(r) => r,
            };
        }
        let e = match self.play_record(id, step) {
            Ok(e) => e,
            Err(r) => return r,
        };
        let t = self.tournaments.get_mut(&id).expect("play_record found it");
        let end = match t.fold_play(&e) {
            Ok(end) => end,
            Err(r) => return r.into(),
        };
        if let Err(r) = self.tournament_step_by(e, Vec::new(), Some(by), commit) {
            return r;
        }
        if end == Some(RoundEnd::Finished) {
            if let Err(r) = self.pay_prizes(id, commit) {
                return r;
            }
        }
        let entrants = self.tournaments[&id].state.entrants.len();
        Reply::Tournament { tournament: id, entrants }
    }

    /// The record a step makes, with whatever it draws from outside.
    fn play_record(&self, id: TournamentId, step: PlayStep) -> Result<CasinoEvent, Reply> {
        let t = self
            .tournaments
            .get(&id)
            .ok_or_else(|| Reply::refused(Code::NoTournament, format!("no tournament {id}")))?;
        if t.state.cancelled {
            return Err(Reply::by_rule("NSW 15.3.4", format!("tournament {id} was cancelled")));
        }
        let play =
            || t.play.as_ref().ok_or_else(|| Reply::by_rule("NSW 15.5", format!("tournament {id} has not started")));
        Ok(match step {
            PlayStep::Start => self.start_record(id, t)?,
            PlayStep::Act { player, action } => {
                if let PlayAction::Undisclosed { commitment, .. } = &action {
                    if commitment.len() != 64 {
                        return Err(Reply::refused(Code::Bounds, "commitment: 64 lower-case hex digits"));
                    }
                }
                CasinoEvent::TournamentActed { tournament: id, player, action, at_ms: (self.clock)() }
            }
            PlayStep::Reveal { player, form, salt } => {
                if salt.is_empty() || salt.len() > 128 {
                    return Err(Reply::refused(Code::Bounds, "salt: 1 to 128 characters"));
                }
                CasinoEvent::TournamentRevealed { tournament: id, player, form, salt: Some(salt) }
            }
            PlayStep::NoMoreBets { table } => CasinoEvent::TournamentNoMoreBets { tournament: id, table },
            PlayStep::Deal { table } => {
                let cards = play()?.next_cards(table as usize).map_err(Reply::from)?;
                CasinoEvent::TournamentDealt { tournament: id, table, cards, at_ms: (self.clock)() }
            }
            PlayStep::EndRound => {
                play()?;
                let shoe = seed()?;
                CasinoEvent::TournamentRoundEnded {
                    tournament: id,
                    at_ms: (self.clock)(),
                    seating: seed()?,
                    shoe_seed: Some(shoe),
                    shoe_commitment: shoe.commitment_hex(),
                }
            }
            PlayStep::Move { player, table } => CasinoEvent::TournamentMoved { tournament: id, player, table },
            PlayStep::Disqualify { player, rule, why } => {
                if why.trim().is_empty() || why.len() > MAX_WHY {
                    return Err(Reply::refused(Code::Bounds, format!("why: 1 to {MAX_WHY} characters")));
                }
                CasinoEvent::TournamentDisqualified { tournament: id, player, rule, why }
            }
        })
    }

    /// The start's record: not before the conditions' start (NSW 15.4.2(i)),
    /// with the seating seed and the first round's shoe seed drawn now.
    fn start_record(&self, id: TournamentId, t: &super::tournaments::Tournament) -> Result<CasinoEvent, Reply> {
        let now = (self.clock)();
        if now < t.conditions.starts_ms {
            return Err(Reply::by_rule(
                "NSW 15.4.2(i)",
                format!("tournament {id} starts at {}; entries are open until then", t.conditions.spec.entry.starts),
            ));
        }
        let shoe = seed()?;
        Ok(CasinoEvent::TournamentStarted {
            tournament: id,
            at_ms: now,
            seating: seed()?,
            shoe_seed: Some(shoe),
            shoe_commitment: shoe.commitment_hex(),
        })
    }

    /// Pay the prizes of a finished tournament (NSW 15.3.2): the pool topped up
    /// from the cage to what the conditions promise (an addition, a guarantee:
    /// NSW 15.3.1, 15.3.3), then each placegetter's share to their wallet.
    fn pay_prizes(&mut self, id: TournamentId, commit: &mut Commit) -> Result<(), Reply> {
        let t = &self.tournaments[&id];
        let play = t.play.as_ref().expect("finished");
        let prizes = play.bracket.prizes();
        let promised = t.conditions.pool(t.state.entrants.len() as u32);
        let pool = self.ledger.open(AccountKind::PrizePool { tournament: id });
        let held = Money(self.ledger.account(pool).map_or(0, |a| a.balance));
        let top_up = Money((promised - held).0.max(0));
        let mut ops = Vec::new();
        if top_up.0 > 0 {
            ops.push(Op::Transfer {
                debit: self.cage,
                credit: pool,
                amount: top_up,
                memo: format!("tournament {id} prizes added"),
            });
        }
        for (p, amount) in &prizes {
            if amount.0 > 0 {
                let wallet = self.wallet(*p);
                ops.push(Op::Transfer {
                    debit: pool,
                    credit: wallet,
                    amount: *amount,
                    memo: format!("tournament {id} prize"),
                });
            }
        }
        let e = CasinoEvent::TournamentPaid { tournament: id, top_up, prizes };
        self.tournament_step(e.clone(), ops, commit)?;
        let t = self.tournaments.get_mut(&id).expect("found");
        // Built from the bracket's own prizes, so the fold accepts it.
        t.fold_play(&e).map_err(Reply::from)?;
        Ok(())
    }
}

/// A seed drawn from the OS, for a seating or a shoe.
fn seed() -> Result<baccarat_table::Seed, Reply> {
    baccarat_core::os_seed().map_err(|m| Reply::refused(Code::Entropy, m.to_string()))
}
