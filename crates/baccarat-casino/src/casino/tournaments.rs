//! Tournaments at the casino (NSW 15.3, 15.4): published from a conditions
//! file, entered by players who pay the fee from their wallet into the
//! tournament's prize pool, withdrawn from within the terms, cancelled with
//! every fee refunded.
//!
//! Each step is a record of the casino's own chain (`audit::CasinoEvent`),
//! and each movement of money is a transfer caused by that record
//! (`Cause::Tournament`), so `verify` reconciles fees and refunds with the log
//! as it does deposits. The state (the conditions' text, the entrants, whether
//! cancelled) is rebuilt from those records and kept in checkpoints.
//! Play itself is `baccarat_table::tournament`.

use baccarat_core::{TableId, TournamentId, UserId};
use std::collections::BTreeMap;

use baccarat_rules::tournament::Conditions;
use baccarat_rules::Money;
use baccarat_table::PlayerId;
use serde::{Deserialize, Serialize};

use baccarat_table::tournament::RoundEnd;
use baccarat_table::Refusal;

use super::into_play::IntoPlay;
use super::tournament_play::Play;
use super::tournament_view::PlayView;
use super::{Casino, Code, Commit, Reply};
use crate::audit::{Body, CasinoEvent, CASINO_CHAIN};
use crate::ledger::{AccountKind, Cause, Op};

/// Why a tournament's record does not restore (a forged or corrupt record,
/// or conditions that no longer check): each names the tournament.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TournamentStateError {
    #[error("tournament {id}: its recorded conditions no longer check: {problems}")]
    Conditions { id: TournamentId, problems: baccarat_rules::Problems },
    /// A step of the play a checkpoint saved does not replay.
    #[error("tournament {id}: its play does not replay: {refusal}")]
    Play { id: TournamentId, refusal: Refusal },
    /// A play record of the tail does not replay.
    #[error("tournament {id}: a play record does not replay: {refusal}")]
    PlayRecord { id: TournamentId, refusal: Refusal },
}

/// Most tournaments a casino keeps.
pub const MAX_TOURNAMENTS: usize = 1_000;

/// A tournament as the casino keeps it (and a checkpoint holds it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentState {
    pub id: TournamentId,
    /// The conditions file, as published.
    pub conditions: String,
    pub entrants: Vec<PlayerId>,
    pub cancelled: bool,
    /// Play's records since the start, replayed on restore
    /// (`tournament_play.rs`); empty before the start.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub play: Vec<CasinoEvent>,
}

/// A tournament with its conditions read.
#[derive(Clone, Debug)]
pub struct Tournament {
    pub state: TournamentState,
    pub conditions: Conditions,
    /// Play, once the Tournament Manager has started it.
    pub play: Option<Play>,
}

impl Tournament {
    pub fn of(mut state: TournamentState) -> Result<Tournament, TournamentStateError> {
        let conditions = Conditions::from_toml(&state.conditions)
            .map_err(|problems| TournamentStateError::Conditions { id: state.id, problems })?;
        let log = std::mem::take(&mut state.play);
        let mut t = Tournament { state, conditions, play: None };
        for e in &log {
            t.fold_play(e).map_err(|refusal| TournamentStateError::Play { id: t.state.id, refusal })?;
        }
        Ok(t)
    }

    /// The state a checkpoint keeps: with play's records.
    pub fn checkpoint_state(&self) -> TournamentState {
        TournamentState { play: self.play.as_ref().map(|p| p.log.clone()).unwrap_or_default(), ..self.state.clone() }
    }

    /// Fold a play record in (`tournament_play.rs`); refused, nothing changes.
    pub fn fold_play(&mut self, e: &CasinoEvent) -> Result<Option<RoundEnd>, Refusal> {
        match (e, &mut self.play) {
            (CasinoEvent::TournamentStarted { seating, shoe_seed, at_ms, .. }, None) => {
                let mut p = Play::start(&self.conditions, &self.state.entrants, seating, shoe_seed.as_ref(), *at_ms)?;
                p.log.push(e.clone());
                self.play = Some(p);
                Ok(None)
            }
            (CasinoEvent::TournamentStarted { .. }, Some(_)) => {
                Err(Refusal::new("NSW 15.5".to_string(), "the tournament has started already".to_string()))
            }
            (_, Some(p)) => p.apply(e),
            (_, None) => Err(Refusal::new("NSW 15.5".to_string(), "the tournament has not started".to_string())),
        }
    }
}

/// Whether a casino record is a step of play (`tournament_play.rs`).
pub fn is_play(e: &CasinoEvent) -> bool {
    matches!(
        e,
        CasinoEvent::TournamentStarted { .. }
            | CasinoEvent::TournamentActed { .. }
            | CasinoEvent::TournamentNoMoreBets { .. }
            | CasinoEvent::TournamentRevealed { .. }
            | CasinoEvent::TournamentDealt { .. }
            | CasinoEvent::TournamentDisqualified { .. }
            | CasinoEvent::TournamentMoved { .. }
            | CasinoEvent::TournamentRoundEnded { .. }
            | CasinoEvent::TournamentPaid { .. }
    )
}

/// The tournament a casino record is about, if it is one's.
pub fn tournament_of(e: &CasinoEvent) -> Option<TournamentId> {
    match e {
        CasinoEvent::TournamentCreated { tournament, .. }
        | CasinoEvent::TournamentEntered { tournament, .. }
        | CasinoEvent::TournamentRefunded { tournament, .. }
        | CasinoEvent::TournamentCancelled { tournament }
        | CasinoEvent::TournamentAmended { tournament, .. }
        | CasinoEvent::TournamentStarted { tournament, .. }
        | CasinoEvent::TournamentActed { tournament, .. }
        | CasinoEvent::TournamentNoMoreBets { tournament, .. }
        | CasinoEvent::TournamentRevealed { tournament, .. }
        | CasinoEvent::TournamentDealt { tournament, .. }
        | CasinoEvent::TournamentDisqualified { tournament, .. }
        | CasinoEvent::TournamentMoved { tournament, .. }
        | CasinoEvent::TournamentRoundEnded { tournament, .. }
        | CasinoEvent::TournamentPaid { tournament, .. } => Some(*tournament),
        _ => None,
    }
}

fn no_tournament(id: TournamentId) -> Reply {
    Reply::refused(Code::NoTournament, format!("no tournament {id}"))
}

impl Casino {
    /// Record a casino event, its record's seq being the cause of `ops`.
    /// Nothing is recorded if the ledger refuses.
    pub(super) fn tournament_step(&mut self, e: CasinoEvent, ops: Vec<Op>, commit: &mut Commit) -> Result<(), Reply> {
        self.tournament_step_by(e, ops, None, commit)
    }

    /// The same, naming who took the step (the Tournament Manager, a player).
    pub(super) fn tournament_step_by(
        &mut self,
        e: CasinoEvent,
        ops: Vec<Op>,
        by: Option<crate::trust::Actor>,
        commit: &mut Commit,
    ) -> Result<(), Reply> {
        self.record_casino(&e, ops, |seq| Cause::Tournament { seq }, by, commit)?;
        // A step of play was folded in by its caller before it was recorded
        // (`tournament_manager.rs`): that is how it is checked.
        if !is_play(&e) {
            self.apply_tournament_event(&e);
        }
        Ok(())
    }

    /// Record a casino event whose record's seq causes `ops` (all booked, or
    /// nothing is recorded): the one way tournaments and promotions write.
    pub(super) fn record_casino(
        &mut self,
        e: &CasinoEvent,
        ops: Vec<Op>,
        cause: impl Fn(u64) -> Cause,
        by: Option<crate::trust::Actor>,
        commit: &mut Commit,
    ) -> Result<(), Reply> {
        let seq = self.chain.len() + 1;
        if !ops.is_empty() {
            let (a, ch) = self.ledger.apply_internal(&ops, cause(seq));
            a.map_err(Reply::from)?;
            commit.ledger.push(ch);
        }
        let r = self.chain.append(Body::encode_casino(CASINO_CHAIN, by, e));
        debug_assert_eq!(r.seq, seq);
        commit.records.push((CASINO_CHAIN, r));
        Ok(())
    }

    /// Publish a tournament from its conditions file (admin).
    pub(super) fn create_tournament(&mut self, conditions: String, commit: &mut Commit) -> Reply {
        if self.tournaments.len() >= MAX_TOURNAMENTS {
            return Reply::refused(Code::Bounds, format!("a casino keeps at most {MAX_TOURNAMENTS} tournaments"));
        }
        if let Err(p) = Conditions::from_toml(&conditions) {
            return Reply::refused(Code::Config, p.to_string());
        }
        let Some(id) = self.tournaments.keys().next_back().map_or(Some(TournamentId(1)), |k| k.next()) else {
            return Reply::refused(Code::Bounds, "no tournament number is left after the last".to_string());
        };
        self.ledger.open(AccountKind::PrizePool { tournament: id });
        match self.tournament_step(CasinoEvent::TournamentCreated { tournament: id, conditions }, Vec::new(), commit) {
            Ok(()) => Reply::Tournament { tournament: id, entrants: 0 },
            Err(r) => r,
        }
    }

    /// A player enters, paying the fee into the pool (NSW 15.3.2), before the
    /// start and while there is room (NSW 15.4.2(i)).
    /// The entry fee of tournament `id`, if it takes entries now and has
    /// one (a partition funds it from the bank first: `bank/link.rs`).
    pub fn entry_fee(&self, id: TournamentId) -> Option<Money> {
        let t = self.tournaments.get(&id)?;
        let open = !t.state.cancelled && (self.clock)() < t.conditions.starts_ms;
        Some(Money(t.conditions.spec.entry.fee)).filter(|f| open && f.0 > 0)
    }

    pub(super) fn enter_tournament(&mut self, id: TournamentId, player: PlayerId, commit: &mut Commit) -> Reply {
        let now = (self.clock)();
        let Some(t) = self.tournaments.get(&id) else { return no_tournament(id) };
        let c = &t.conditions;
        if t.state.cancelled {
            return Reply::by_rule("NSW 15.3.4", format!("tournament {id} was cancelled"));
        }
        if now >= c.starts_ms {
            return Reply::by_rule("NSW 15.4.2(i)", format!("entries to tournament {id} closed at its start"));
        }
        if t.state.entrants.contains(&player) {
            return Reply::by_rule("NSW 15.4.2(i)", format!("player {player} has entered tournament {id} already"));
        }
        if t.state.entrants.len() as u32 >= c.spec.entry.max_players {
            return Reply::by_rule(
                "NSW 15.4.2(i)",
                format!("tournament {id} takes at most {} players", c.spec.entry.max_players),
            );
        }
        let fee = Money(c.spec.entry.fee);
        let wallet = self.wallet(player);
        let available = Money(self.ledger.account(wallet).map_or(0, |a| a.available()));
        if available < fee {
            return Reply::refused(Code::Wallet, format!("the entry fee is {fee}; {available} is available"));
        }
        // The fee is money into play: the player's own limits and cool-off
        // admit it as they do a wager (`into_play.rs`), a freeroll's too.
        let day = match self.admit_into_play(IntoPlay::TournamentEntry, player, fee) {
            Ok(day) => day,
            Err(refused) => return refused,
        };
        let pool = self.ledger.open(AccountKind::PrizePool { tournament: id });
        let ops = if fee.0 > 0 {
            vec![Op::Transfer { debit: wallet, credit: pool, amount: fee, memo: format!("tournament {id} entry fee") }]
        } else {
            Vec::new()
        };
        match self.tournament_step(CasinoEvent::TournamentEntered { tournament: id, player, fee }, ops, commit) {
            Ok(()) => {
                self.open_play_day(player, day, commit);
                Reply::Tournament { tournament: id, entrants: self.tournaments[&id].state.entrants.len() }
            }
            Err(r) => r,
        }
    }

    /// A player withdraws, with the fee refunded, until the time the terms
    /// allow (NSW 15.4.2(i); 15.3.2: no fee is refunded otherwise).
    pub(super) fn withdraw_from_tournament(
        &mut self,
        id: TournamentId,
        player: PlayerId,
        commit: &mut Commit,
    ) -> Reply {
        let now = (self.clock)();
        let Some(t) = self.tournaments.get(&id) else { return no_tournament(id) };
        if !t.state.entrants.contains(&player) {
            return Reply::by_rule("NSW 15.4.2(i)", format!("player {player} has not entered tournament {id}"));
        }
        let until = t.conditions.withdraw_until_ms();
        if now > until {
            return Reply::by_rule(
                "NSW 15.3.2",
                format!(
                    "withdrawal with the fee refunded ended {} hours before the start (NSW 15.4.2(i)); no fee is \
                     refunded after it",
                    t.conditions.spec.entry.withdraw_hours_before_start
                ),
            );
        }
        let fee = Money(t.conditions.spec.entry.fee);
        match self.refund(id, player, fee, "withdrew within the terms (NSW 15.4.2(i))", commit) {
            Ok(()) => Reply::Tournament { tournament: id, entrants: self.tournaments[&id].state.entrants.len() },
            Err(r) => r,
        }
    }

    fn refund(
        &mut self,
        id: TournamentId,
        player: PlayerId,
        fee: Money,
        why: &str,
        commit: &mut Commit,
    ) -> Result<(), Reply> {
        let wallet = self.wallet(player);
        let pool = self.ledger.open(AccountKind::PrizePool { tournament: id });
        let ops = if fee.0 > 0 {
            vec![Op::Transfer { debit: pool, credit: wallet, amount: fee, memo: format!("tournament {id} refund") }]
        } else {
            Vec::new()
        };
        let e = CasinoEvent::TournamentRefunded { tournament: id, player, fee, why: why.into() };
        self.tournament_step(e, ops, commit)
    }

    /// Cancel a tournament: every fee refunded (NSW 15.3.4).
    pub(super) fn cancel_tournament(&mut self, id: TournamentId, commit: &mut Commit) -> Reply {
        let Some(t) = self.tournaments.get(&id) else { return no_tournament(id) };
        if t.state.cancelled {
            return Reply::by_rule("NSW 15.3.4", format!("tournament {id} was cancelled already"));
        }
        if t.play.as_ref().is_some_and(|p| p.paid.is_some() || !p.bracket.placings.is_empty()) {
            return Reply::by_rule("NSW 15.3.4", format!("tournament {id} is over: its prizes are paid"));
        }
        let fee = Money(t.conditions.spec.entry.fee);
        let entrants = t.state.entrants.clone();
        if let Err(r) = self.tournament_step(CasinoEvent::TournamentCancelled { tournament: id }, Vec::new(), commit) {
            return r;
        }
        for p in entrants {
            if let Err(r) = self.refund(id, p, fee, "the tournament was cancelled (NSW 15.3.4)", commit) {
                // The pool holds every fee it took: a refusal is a broken invariant.
                return r;
            }
        }
        Reply::Tournament { tournament: id, entrants: 0 }
    }

    /// The Tournament Manager changes the limits and the points where they
    /// change. Only before the start: NSW 15.6.15 lets them change "providing
    /// tournament players have been notified of the condition prior to the
    /// commencement of the tournament"; the amended conditions are that notice.
    pub(super) fn amend_limits(
        &mut self,
        id: TournamentId,
        min: Money,
        max: Money,
        changes: Vec<baccarat_rules::tournament::LimitChange>,
        by: crate::trust::Actor,
        commit: &mut Commit,
    ) -> Reply {
        let Some(t) = self.tournaments.get(&id) else { return no_tournament(id) };
        if t.state.cancelled {
            return Reply::by_rule("NSW 15.3.4", format!("tournament {id} was cancelled"));
        }
        if t.play.is_some() || (self.clock)() >= t.conditions.starts_ms {
            return Reply::by_rule(
                "NSW 15.6.15",
                "the limits change during a tournament only as players were told before its start",
            );
        }
        let conditions = match t.conditions.with_limits(min.0, max.0, changes) {
            Ok((_, text)) => text,
            Err(p) => return Reply::refused(Code::Config, p.to_string()),
        };
        let e = CasinoEvent::TournamentAmended { tournament: id, conditions };
        match self.tournament_step_by(e, Vec::new(), Some(by), commit) {
            Ok(()) => Reply::Tournament { tournament: id, entrants: self.tournaments[&id].state.entrants.len() },
            Err(r) => r,
        }
    }

    /// Fold one of the casino chain's tournament records into the state (the
    /// writer after each step, and recovery over the log).
    pub fn apply_tournament_event(&mut self, e: &CasinoEvent) {
        apply(&mut self.tournaments, e);
    }
}

/// Fold a tournament record into `all` as recovery does: a step of play that
/// does not replay stops the start, naming it (the writer recorded only what
/// it accepted, so this is a forged or corrupt record).
pub fn apply_strict(all: &mut BTreeMap<TournamentId, Tournament>, e: &CasinoEvent) -> Result<(), TournamentStateError> {
    if is_play(e) {
        if let Some(t) = tournament_of(e).and_then(|id| all.get_mut(&id)) {
            return t
                .fold_play(e)
                .map(|_| ())
                .map_err(|refusal| TournamentStateError::PlayRecord { id: t.state.id, refusal });
        }
        // A tournament dropped at the start (its conditions no longer check:
        // reported then) has no play to fold into.
        return Ok(());
    }
    apply(all, e);
    Ok(())
}

/// Fold a tournament record into `all` (the casino's state, and the pages'
/// read model, `TournamentViews`).
pub fn apply(all: &mut BTreeMap<TournamentId, Tournament>, e: &CasinoEvent) {
    match e {
        CasinoEvent::TournamentCreated { tournament, conditions } => {
            let state = TournamentState {
                id: *tournament,
                conditions: conditions.clone(),
                entrants: Vec::new(),
                cancelled: false,
                play: Vec::new(),
            };
            match Tournament::of(state) {
                Ok(t) => {
                    all.insert(*tournament, t);
                }
                Err(why) => {
                    tracing::warn!(
                        tournament = tournament.0,
                        "a tournament's record does not check, passed over: {why}"
                    )
                }
            }
        }
        CasinoEvent::TournamentEntered { tournament, player, .. } => {
            if let Some(t) = all.get_mut(tournament) {
                t.state.entrants.push(*player);
            }
        }
        CasinoEvent::TournamentRefunded { tournament, player, .. } => {
            if let Some(t) = all.get_mut(tournament) {
                t.state.entrants.retain(|p| p != player);
            }
        }
        CasinoEvent::TournamentCancelled { tournament } => {
            if let Some(t) = all.get_mut(tournament) {
                t.state.cancelled = true;
            }
        }
        CasinoEvent::TournamentAmended { tournament, conditions } => {
            if let Some(t) = all.get_mut(tournament) {
                match Conditions::from_toml(conditions) {
                    Ok(c) => {
                        t.state.conditions = conditions.clone();
                        t.conditions = c;
                    }
                    Err(p) => tracing::warn!(
                        tournament = tournament.0,
                        "its amended conditions do not check, passed over: {p}"
                    ),
                }
            }
        }
        e if is_play(e) => {
            if let Some(t) = tournament_of(e).and_then(|id| all.get_mut(&id)) {
                if let Err(r) = t.fold_play(e) {
                    tracing::warn!(tournament = t.state.id.0, "a play record does not apply, passed over: {r}");
                }
            }
        }
        _ => {}
    }
}

/// The tournaments and promotions as the pages show them: kept beside the
/// tables' views, folded from each durable batch's casino records.
#[derive(Clone, Debug, Default)]
pub struct TournamentViews {
    pub all: BTreeMap<TournamentId, Tournament>,
    /// The promotions (NSW 16), folded the same way (`promotions.rs`).
    pub promotions: BTreeMap<u32, super::promotions::Promotion>,
}

impl TournamentViews {
    pub fn of(c: &Casino) -> TournamentViews {
        TournamentViews { all: c.tournaments.clone(), promotions: c.promotions.clone() }
    }

    /// Fold a durable batch's records in; the tournaments they were about
    /// (their sockets are woken: `baccarat-server`'s `publish/wakes.rs`).
    pub fn absorb(&mut self, records: &[(TableId, crate::audit::Record)]) -> Vec<TournamentId> {
        let mut about = Vec::new();
        for (chain, r) in records {
            if *chain != CASINO_CHAIN {
                continue;
            }
            if let Ok(Body { casino: Some(e), .. }) = Body::decode(&r.body) {
                super::promotions::apply(&mut self.promotions, &e);
                apply(&mut self.all, &e);
                about.extend(tournament_of(&e));
            }
        }
        about
    }

    /// A tournament's play as the public sees it (`tournament_view.rs`);
    /// `Some(None)` before it starts.
    pub fn play(&self, id: TournamentId) -> Option<Option<PlayView>> {
        let t = self.all.get(&id)?;
        Some(t.play.as_ref().map(|p| super::tournament_view::view(id, p)))
    }

    /// One tournament as the public sees it, without its conditions' text
    /// ([`TournamentSummary::conditions`]).
    pub fn public(&self, id: TournamentId) -> Option<TournamentSummary> {
        let t = self.all.get(&id)?;
        let s = &t.conditions.spec;
        Some(TournamentSummary {
            tournament: id,
            name: s.name.clone(),
            starts: s.entry.starts.clone(),
            fee: Money(s.entry.fee),
            entrants: t.state.entrants.len(),
            min_players: s.entry.min_players,
            max_players: s.entry.max_players,
            cancelled: t.state.cancelled,
            started: t.play.is_some(),
            finished: t.play.as_ref().is_some_and(|p| p.paid.is_some()),
            pool: t.conditions.pool(t.state.entrants.len() as u32),
            conditions: None,
        })
    }
}

/// A tournament as the public sees it (`GET /api/tournaments`, and the
/// `tournament` of its WebSocket messages): what a player needs to decide to
/// enter, and how far it has gone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TournamentSummary {
    pub tournament: TournamentId,
    pub name: String,
    /// When it starts, UTC, as the conditions say (`YYYY-MM-DDTHH:MM:SSZ`).
    pub starts: String,
    pub fee: Money,
    pub entrants: usize,
    pub min_players: u32,
    pub max_players: u32,
    pub cancelled: bool,
    pub started: bool,
    /// The final is over and the prizes paid.
    pub finished: bool,
    /// The prize pool with the entrants so far (NSW 15.3.2).
    pub pool: Money,
    /// The conditions as published to players (NSW 15.4.1): in one
    /// tournament's answer only (`GET /api/tournaments/{id}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<String>,
}

/// Whether `by` may take the step `e` records (`http/tournament_play.rs`):
/// a player's own action or reveal, else the Tournament Manager; the
/// prizes, the server.
fn may_take(e: &CasinoEvent, by: Option<crate::trust::Actor>) -> bool {
    use crate::trust::Actor;
    use crate::trust::Role;
    let manager = matches!(by, Some(Actor::Person { role: Role::TournamentManager, .. }));
    match e {
        CasinoEvent::TournamentActed { player, action, .. } if !action.by_manager() => {
            by == Some(Actor::Person { user: UserId::from(*player), role: Role::Player })
        }
        CasinoEvent::TournamentRevealed { player, .. } => {
            by == Some(Actor::Person { user: UserId::from(*player), role: Role::Player })
        }
        CasinoEvent::TournamentPaid { .. } => by.is_none(),
        CasinoEvent::TournamentAmended { .. } => manager,
        e if is_play(e) => manager,
        _ => true,
    }
}

/// `verify`'s replay of the tournaments from the casino's chain: every
/// record folded in as the writer did, so a step the rules refuse (a wager
/// out of turn, cards that are not the shoe's, prizes that are not the
/// conditions' shares of the pool) is named with its record.
#[derive(Debug, Default)]
pub struct Replay {
    all: BTreeMap<TournamentId, Tournament>,
    pub problems: Vec<String>,
    /// Steps of play replayed.
    pub steps: u64,
    /// Promotions published (terms, commitment), and their draws, for
    /// `verify` to count the entries again and redraw (`promotions.rs`).
    pub promotions: BTreeMap<u32, (String, String)>,
    pub draws: Vec<(u64, CasinoEvent)>,
    claims: Vec<(u32, u32)>,
}

impl Replay {
    pub fn feed(&mut self, seq: u64, e: &CasinoEvent, by: Option<crate::trust::Actor>) {
        let at = |id: TournamentId| format!("the casino's chain record {seq}: tournament {id}");
        if !may_take(e, by) {
            let id = tournament_of(e).unwrap_or(TournamentId(0));
            self.problems.push(format!("{}: a step taken by someone who may not take it ({by:?})", at(id)));
        }
        match e {
            CasinoEvent::TournamentCreated { tournament, conditions }
            | CasinoEvent::TournamentAmended { tournament, conditions } => {
                if let Err(p) = Conditions::from_toml(conditions) {
                    self.problems.push(format!("{}: its conditions do not check: {p}", at(*tournament)));
                }
                if matches!(e, CasinoEvent::TournamentAmended { .. })
                    && self.all.get(tournament).is_some_and(|t| t.play.is_some())
                {
                    self.problems
                        .push(format!("{}: its limits changed after the start (NSW 15.6.15)", at(*tournament)));
                }
                apply(&mut self.all, e);
            }
            CasinoEvent::PromotionPublished { promotion, terms, commitment, .. } => {
                self.promotions.insert(*promotion, (terms.clone(), commitment.clone()));
            }
            CasinoEvent::PromotionClaimed { promotion, prize, .. } => {
                let key = (*promotion, *prize);
                if self.claims.contains(&key) {
                    self.problems.push(format!("the casino's chain record {seq}: prize {prize} of promotion {promotion} is claimed a second time"));
                }
                self.claims.push(key);
            }
            CasinoEvent::PromotionDrawn { promotion, .. } => {
                if self
                    .draws
                    .iter()
                    .any(|(_, d)| matches!(d, CasinoEvent::PromotionDrawn { promotion: q, .. } if q == promotion))
                {
                    self.problems
                        .push(format!("the casino's chain record {seq}: promotion {promotion} is drawn a second time"));
                }
                self.draws.push((seq, e.clone()));
            }
            e if is_play(e) => {
                let id = tournament_of(e).expect("a play record names its tournament");
                match self.all.get_mut(&id) {
                    None => self.problems.push(format!("{}: there is no such tournament", at(id))),
                    Some(t) => match t.fold_play(e) {
                        Ok(_) => self.steps += 1,
                        Err(r) => self.problems.push(format!("{}: {} ({})", at(id), r.message, r.rule())),
                    },
                }
            }
            _ => apply(&mut self.all, e),
        }
    }
}
