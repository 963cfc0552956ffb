//! The table engine: commands in, events out; the state is a fold of events.
//!
//! # Design
//!
//! [`Table::execute`] works on a copy of the state: it checks the command against
//! the rules and, as it decides, *emits* events, each applied to the copy at once
//! by [`Table::apply`] — the same function a replay uses. Only if the whole command
//! succeeds does the copy replace the state, so a refused command changes nothing
//! and the live state always equals the replay of its events.
//!
//! Randomness enters only through [`Command::StartShoe`], which carries the seed;
//! the clock does not enter at all. A coup moves through the phases
//! betting open → no more bets → initial deal → third cards → result →
//! settlement ([`Phase`]), each step an event.

mod coup_wagers;
mod deal;
mod flow;
mod fold;
mod hands;
mod irregular;
mod refusal;
mod seated;
mod styles;
mod types;
mod wagers;

use baccarat_rules::Cite;
use std::sync::Arc;

use baccarat_rules::{
    banker_draws, player_action, Approvals, BySide, Card, Coup, Money, PlayerAction, Rulebook, Side, TableConfig,
};

pub use coup_wagers::CoupWagers;
pub use refusal::{Refusal, RefusalKind};
pub use seated::Seated;
pub use styles::{handling, Handling};
pub use types::*;

use crate::roads::{RoadEntry, RoadResult, Roads};
use crate::shoe::{CutRules, Shoe};
use crate::shuffle::Seed;

/// Everything fixed about a table: its rulebook, configuration and layout.
#[derive(Clone, Debug)]
pub struct TableSetup {
    pub rulebook: Rulebook,
    /// The operator's configuration, its layout (the version of the game,
    /// AU 2.2, 3.1) among it.
    pub config: TableConfig,
    /// What a wager needing a supervisor's approval does (NSW 5.6.6): the
    /// configuration's choice, or the table mode's default
    /// ([`TableSetup::unattended`] for a table no supervisor watches).
    pub approvals: Approvals,
}

impl TableSetup {
    /// A setup on the configuration's layout, or on the rulebook's layout
    /// named `layout` where a caller overrides it (a simulation at a full
    /// Baccarat table); the override is written into the configuration too,
    /// so the two never disagree.
    pub fn new(rulebook: Rulebook, mut config: TableConfig, layout: Option<&str>) -> Result<TableSetup, Refusal> {
        if let Some(name) = layout {
            config.layout = rulebook.layout(name).cloned().ok_or_else(|| {
                let names: Vec<&str> = rulebook.layouts.iter().map(|l| l.name.as_str()).collect();
                Refusal::new(rulebook.cite(Cite::Limits), format!("layout {name:?} is not one of {}", names.join(", ")))
            })?;
        }
        // Side bets only with a main wager lives in one place: the table's
        // configuration (the profile's rule, or a supervisor's restriction,
        // NSW 10.4), not a copy here.
        let approvals = config.approvals.unwrap_or(Approvals::Supervisor);
        Ok(TableSetup { rulebook, config, approvals })
    }

    /// The same setup for a table that no supervisor watches (an RNG table):
    /// unless its configuration chose otherwise, a wager that needs a
    /// supervisor's approval is refused when placed, rather than held for a
    /// person who is not there (NSW 5.6.6; issue 45: "no table can wait for
    /// no one").
    pub fn unattended(mut self) -> TableSetup {
        self.approvals = self.config.approvals.unwrap_or(Approvals::Refuse);
        self
    }
}

/// Where the table is in its cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Phase {
    /// No shoe in play.
    #[default]
    NoShoe,
    /// Between coups.
    Ready,
    /// Wagers are being placed.
    Betting,
    /// "No more bets": no card drawn yet.
    Closed,
    /// Cards are being dealt.
    Dealing,
    /// A misdeal was reconstructed (NSW 12.1.1), or a shuffler failed with no
    /// other device (NSW 13.5.1): players may withdraw before play resumes.
    Reconstruction,
    /// The last coup is over; the cards are to be replaced or reshuffled.
    ShoeOver,
}

/// The cards of a live shoe seen so far, to find foreign cards (NSW 12.11).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct LiveShoe {
    decks: u32,
    seen: Vec<u32>,
}

/// The coup in progress.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct CoupState {
    pub number: u64,
    pub no_bet: bool,
    pub wagers: CoupWagers,
    pub cards: Vec<DealtCard>,
}

/// The table's state: nothing here changes except through [`Table::apply`].
/// It serialises whole (shoe, seed and all) for the server's checkpoints: a
/// table restored from it equals the replay of its events.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct State {
    pub phase: Phase,
    pub shoe_number: u64,
    pub coup_number: u64,
    shoe: Option<Shoe>,
    live: Option<LiveShoe>,
    seed: Option<Seed>,
    /// Coups still to complete once the cutting card is out (NSW 4.9-4.10).
    pub coups_left: Option<u8>,
    /// No-bet coups due before wagers (EU 3.1.2).
    pub no_bet_coups_due: u8,
    /// A card carried to the next coup as its first card (NSW 12.2; AU 12.2(a)).
    carried: Option<Card>,
    /// The next coup must be a no-bet coup (NSW 12.3; AU 12.1(b), 12.2(b), 12.3).
    forced_no_bet: bool,
    pub coup: CoupState,
    pub next_wager: WagerId,
    /// Who holds each hand's cards this coup (`None`: the dealer).
    pub holder: BySide<Option<PlayerId>>,
    /// The hand out with a player, waiting to be exposed.
    pub out: Option<Side>,
    declined: Vec<(Side, PlayerId)>,
    /// Method C: the designated player and their seat (NSW 8.17).
    pub marker: Option<(PlayerId, u8)>,
    /// Nominees acting for players: (player, nominee) (AU 2.3).
    pub nominees: Vec<(PlayerId, PlayerId)>,
    /// Personal limits (NSW 6.8).
    pub personal: Vec<(PlayerId, Money, Money)>,
    /// The table minimum for main wagers once changed (NSW 6.7), and the players
    /// who keep an earlier one (NSW 6.7.1).
    pub minimum: Option<Money>,
    pub grandfathered: Vec<(PlayerId, Money)>,
    /// An announced higher minimum and when its notice has run (NSW 6.7).
    pub announced: Option<(Money, u64)>,
    /// Wagers whose limits a supervisor altered (NSW 6.7): (bet, min, max).
    #[serde(default)]
    pub limits: Vec<(baccarat_rules::Bet, Money, Money)>,
    /// Wagers reopened after the first card (NSW 12.12; AU 15.10).
    pub late_wagers: bool,
    /// The recorded betting deadline of the coup, if the table keeps one.
    pub closes_at: Option<u64>,
    /// Players may take their wagers back before play resumes (after a
    /// reconstruction where the profile allows it, NSW 12.1.1; NSW 13.5.1).
    pub withdrawals_open: bool,
    /// The card set of the shoe in play (AU 3.4(a)).
    pub set: Option<u8>,
    /// A continuous shuffler's seed (AU 7.2).
    continuous: Option<Seed>,
    pub roads: Roads,
    /// The wagers settled in the last coup, until the next opens: a request to
    /// withdraw one is refused by AU 5.15 / NSW 5.4 rather than as unknown.
    pub last_settled: Vec<WagerId>,
    /// The coup's result is recorded and it is not closed yet: its wagers are
    /// being settled. A log that ends here (a server that stopped mid-way
    /// through recording a large settlement) is finished by
    /// [`Table::finish_settlement`].
    #[serde(default)]
    pub completed: bool,
    /// The players seated at the table, as the lobby counts them (NSW
    /// 14.10; `seated.rs`). A state written before it reads as no one
    /// seated, and players take their seats again as they wager.
    #[serde(default)]
    pub seated: Seated,
}

/// A table: its fixed setup and its state.
#[derive(Clone, Debug)]
pub struct Table {
    setup: Arc<TableSetup>,
    state: State,
    /// Most wagers a completing command settles; the rest wait for
    /// [`Table::settle_next`]. Not part of the state: how a caller paces the
    /// settlement, never what it is.
    settle_chunk: usize,
}

impl PartialEq for Table {
    fn eq(&self, o: &Table) -> bool {
        self.state == o.state
    }
}

/// The events of one command, built while applying each to a scratch state.
pub(crate) struct Emit<'a> {
    pub t: &'a mut Table,
    pub events: Vec<Event>,
}

impl Emit<'_> {
    pub fn emit(&mut self, e: Event) {
        self.t.apply(&e);
        self.events.push(e);
    }
}

impl Table {
    pub fn new(setup: TableSetup) -> Table {
        Table { setup: Arc::new(setup), state: State::default(), settle_chunk: usize::MAX }
    }

    pub fn setup(&self) -> &TableSetup {
        &self.setup
    }

    pub fn state(&self) -> &State {
        &self.state
    }

    /// A wager's minimum and maximum as they stand: the configuration's, or
    /// as a supervisor altered them (NSW 6.7). (A changed main minimum, and
    /// a player's own limits, are applied per player on top: `wagers.rs`.)
    pub fn offer_limits(&self, bet: baccarat_rules::Bet) -> Option<(Money, Money)> {
        let offer = self.setup.config.offer(bet)?;
        Some(self.state.limits.iter().find(|l| l.0 == bet).map_or((offer.min, offer.max), |l| (l.1, l.2)))
    }

    pub fn phase(&self) -> Phase {
        self.state.phase
    }

    /// Why a wager of `amount` on `bet` by `player` would be refused for its
    /// amount alone (not offered, not whole chips, outside their limits with
    /// what they already have on it), if it would: the server moves no money
    /// to a table's players for a wager refused so (`bank/link.rs`).
    pub fn screen_wager(&self, player: PlayerId, bet: baccarat_rules::Bet, amount: Money) -> Result<(), Refusal> {
        wagers::screen(self, player, bet, amount)
    }

    /// Why a wager made at `at_ms` would be refused for its time alone
    /// (betting not open, or past its deadline), if it would: the server
    /// answers a bet slip so without recording its key.
    pub fn wagers_closed(&self, at_ms: Option<u64>) -> Option<Refusal> {
        wagers::closed(self, at_ms)
    }

    pub fn rb(&self) -> &Rulebook {
        &self.setup.rulebook
    }

    pub(crate) fn cite(&self, key: Cite) -> String {
        self.setup.rulebook.cite(key)
    }

    /// A table from a checkpoint of its state (see [`State`]), to replay only
    /// the events recorded after it.
    pub fn restore(setup: TableSetup, state: State) -> Table {
        Table { setup: Arc::new(setup), state, settle_chunk: usize::MAX }
    }

    /// Settle at most `chunk` wagers in the command that completes a coup
    /// (and a server's recovery), leaving the rest for [`Table::settle_next`]:
    /// a coup of 90,000 wagers is then settled in steps short enough for a
    /// server to serve other tables between them. By default (`usize::MAX`) a
    /// coup settles and closes in the command that completes it.
    pub fn settle_in_chunks(&mut self, chunk: usize) {
        self.settle_chunk = chunk.max(1);
    }

    /// The coup's result is recorded and some of its wagers are still to be
    /// settled (`State::completed`).
    pub fn settling(&self) -> bool {
        self.state.completed
    }

    /// The next settlements of a completed coup, at most `max` wagers in
    /// placement order, and once none is left the coup's close (and the
    /// shoe's end, if the coup ended it): exactly the events a completion
    /// settling everything at once would have made next. Nothing when no coup
    /// is part-way through its settlement.
    pub fn settle_next(&mut self, max: usize) -> Vec<Event> {
        if !self.state.completed {
            return Vec::new();
        }
        let mut o = Emit { t: self, events: Vec::new() };
        flow::settle_some(&mut o, max);
        o.events
    }

    /// The rest of a completed coup's settlement, when its log stops part-way
    /// (a server stopped while recording a settlement in chunks): every wager
    /// not yet settled, then the coup closed.
    pub fn finish_settlement(&mut self) -> Vec<Event> {
        self.settle_next(usize::MAX)
    }

    /// Rebuild a table from its events.
    pub fn replay(setup: TableSetup, events: &[Event]) -> Table {
        let mut t = Table::new(setup);
        for e in events {
            t.apply(e);
        }
        t
    }

    /// Run a command: the events it produced, or the rule that refused it (and
    /// then nothing changed).
    pub fn execute(&mut self, cmd: Command) -> Result<Vec<Event>, Refusal> {
        self.execute_checked(cmd, |_| Ok(()))
    }

    /// Run a command, and keep what it did only if `accept` agrees with its
    /// events: the server books their money first, and a booking the ledger
    /// refuses leaves the table as it was. (The wager commands run in place and
    /// make their one event after every check; `accept` sees that event after
    /// it is applied, so a refusal there is a broken invariant, for the caller
    /// to stop the table on.)
    pub fn execute_checked(
        &mut self,
        cmd: Command,
        accept: impl FnOnce(&[Event]) -> Result<(), Refusal>,
    ) -> Result<Vec<Event>, Refusal> {
        if self.state.completed {
            // Only `settle_next` moves a coup part-way through its settlement.
            return Err(Refusal::of(RefusalKind::Settling, "the coup's wagers are being settled; retry"));
        }
        // Wager commands make every check before their one event, so they run in
        // place: placing the thousandth wager of a coup does not copy the table.
        if matches!(
            cmd,
            Command::PlaceWager { .. }
                | Command::WithdrawWager { .. }
                | Command::ApproveWager { .. }
                | Command::RefuseWager { .. }
        ) {
            let mut out = Emit { t: self, events: Vec::new() };
            decide(&mut out, cmd)?;
            assert!(out.events.len() <= 1, "a wager command makes at most one event");
            accept(&out.events)?;
            return Ok(out.events);
        }
        let mut scratch = self.clone();
        let mut out = Emit { t: &mut scratch, events: Vec::new() };
        decide(&mut out, cmd)?;
        let events = out.events;
        accept(&events)?;
        *self = scratch;
        Ok(events)
    }

    /// The coup's cards as `viewer` may see them: a card is shown once exposed,
    /// and to the player squeezing it while it is out with them; otherwise only
    /// its position is known. Nothing else about the shoe is ever shown.
    pub fn view(&self, viewer: Option<PlayerId>) -> Vec<(Position, Option<Card>)> {
        let s = &self.state;
        self.state
            .coup
            .cards
            .iter()
            .map(|&DealtCard { position: p, card: c, exposed }| {
                let side = if p.is_player() { Side::Player } else { Side::Banker };
                let holding = viewer.is_some() && s.out == Some(side) && *s.holder.get(side) == viewer;
                (p, (exposed || holding).then_some(c))
            })
            .collect()
    }

    /// Cards dealt from the shoe in play (burns included) and the shoe's size:
    /// how far through the shoe the game is. `None` for a live shoe.
    pub fn shoe_progress(&self) -> Option<(usize, usize)> {
        self.state.shoe.as_ref().map(|s| (s.dealt(), s.len()))
    }

    /// The position of the card that is due, if one is.
    pub fn due(&self) -> Option<Position> {
        if !matches!(self.state.phase, Phase::Closed | Phase::Dealing) {
            return None;
        }
        deal::due(&self.state.coup.cards)
    }

    /// Fold one event into the state: one arm per event, those that change
    /// more than a few fields folded by a method of [`State`] named after it.
    pub fn apply(&mut self, e: &Event) {
        let s = &mut self.state;
        match e {
            Event::ShoeStarted { shoe, seed, preshuffled, live_decks, cut, continuous, set, .. } => {
                let in_play = fold::shoe_in_play(&self.setup, seed, preshuffled, *cut);
                s.shoe_started(*shoe, *seed, *continuous, *set, *live_decks, in_play);
            }
            Event::Burned { procedure, cards, .. } => s.burned(procedure, cards),
            Event::BettingOpened { coup, no_bet, first_card, closes_at, .. } => {
                s.betting_opened(*coup, *no_bet, *first_card, *closes_at)
            }
            Event::WagerPlaced { wager } => {
                s.next_wager = s.next_wager.max(wager.id.next());
                s.coup.wagers.push(wager.clone());
                s.seated.wagered(wager.player);
            }
            Event::WagerWithdrawn { wager } | Event::WagerReturned { wager, .. } => s.coup.wagers.remove(*wager),
            Event::WagerApproved { wager } => s.coup.wagers.approve(*wager),
            Event::WagerReduced { wager, to, .. } => s.coup.wagers.reduce(*wager, *to),
            Event::BettingClosed { .. } => {
                s.phase = if s.coup.cards.is_empty() { Phase::Closed } else { Phase::Dealing };
                s.late_wagers = false;
            }
            Event::WagersReopened { .. } => s.late_wagers = true,
            Event::CuttingCardOut { coups_left, .. } => s.cutting_card_out(*coups_left),
            Event::CardDealt { position, card, face_up } => s.card_dealt(*position, *card, *face_up),
            Event::Irregularity { kind, card, .. } => s.irregularity(kind, *card),
            Event::CoupCompleted { summary, .. } => s.coup_completed(summary),
            Event::WagerSettled { wager, .. } => s.last_settled.push(*wager),
            Event::CoupVoided { .. } => {}
            Event::CoupClosed { coup } => s.coup_closed(*coup),
            Event::Reconstructed { cards, .. } => {
                s.coup.cards = deal::positions(cards);
                s.phase = Phase::Reconstruction;
                s.withdrawals_open = self.setup.rulebook.config.remedies.withdraw_after_reconstruction.value;
            }
            Event::Resumed => {
                s.phase = Phase::Dealing;
                s.withdrawals_open = false;
            }
            Event::HandPassed { side, to, .. } => s.hand_passed(*side, *to),
            Event::CardsDeclined { side, player, .. } => {
                s.declined.push((*side, *player));
                s.out = None;
            }
            Event::HandExposed { side, .. } => s.hand_exposed(*side),
            Event::MarkerTaken { player, seat, .. } => s.marker = Some((*player, *seat)),
            Event::NomineeAppointed { player, nominee, .. } => s.nominee_appointed(*player, *nominee),
            Event::PersonalLimitsSet { player, min, max, .. } => s.personal_limits_set(*player, *min, *max),
            Event::MinimumAnnounced { minimum, effective_ms, .. } => s.announced = Some((*minimum, *effective_ms)),
            Event::MinimumChanged { minimum, grandfathered, .. } => s.minimum_changed(*minimum, grandfathered),
            Event::LimitsChanged { bet, min, max, .. } => s.limits_changed(*bet, *min, *max),
            Event::MarkerReleased { .. } => s.marker = None,
            Event::WithdrawalsOffered { .. } => {
                s.phase = Phase::Reconstruction;
                s.withdrawals_open = true;
            }
            Event::ShoeEnded { .. } => s.shoe_ended(),
        }
    }
}

fn count_live(s: &mut State, card: Option<Card>) {
    if let (Some(l), Some(c)) = (s.live.as_mut(), card) {
        l.seen[c.index()] += 1;
    }
}

fn stack_to_shoe(cards: Vec<Card>, cut: Option<crate::shoe::Cut>, rb: &Rulebook) -> Shoe {
    match cut {
        Some(c) => {
            Shoe::cut(cards, c, &CutRules::from_profile(&rb.config)).expect("cut checked before it was recorded")
        }
        None => Shoe::uncut(cards),
    }
}

fn road_entry(cards: &[Card], s: &baccarat_rules::CoupSummary) -> RoadEntry {
    let result = match s.winner() {
        baccarat_rules::Winner::Banker => RoadResult::Banker,
        baccarat_rules::Winner::Player => RoadResult::Player,
        baccarat_rules::Winner::Tie => RoadResult::Tie,
    };
    // The markers use the pair wager's own rule (NSW 10.6), not a copy of it.
    let pair = |a: usize, b: usize| {
        cards.len() > b
            && baccarat_rules::Bet::PlayerPair.classify_initial([cards[a], cards[b]]) == baccarat_rules::Outcome::Pair
    };
    RoadEntry {
        result,
        player_pair: pair(0, 2),
        banker_pair: pair(1, 3),
        natural: s.is_natural(baccarat_rules::Side::Player) || s.is_natural(baccarat_rules::Side::Banker),
    }
}

/// Decide a command, emitting its events.
fn decide(o: &mut Emit, cmd: Command) -> Result<(), Refusal> {
    match cmd {
        Command::StartShoe { source, cut, burn, show_burn } => deal::start_shoe(o, source, cut, burn, show_burn),
        Command::OpenBetting { no_bet, closes_at } => wagers::open_betting(o, no_bet, closes_at),
        Command::PlaceWager { player, spot, bet, amount, ante, token, at_ms } => {
            wagers::place(o, wagers::NewWager { player, spot, bet, amount, ante, token, at_ms })
        }
        Command::InvalidBet { wager } => wagers::invalid(o, wager),
        Command::ReopenWagers => wagers::reopen(o),
        Command::SetPersonalLimits { player, min, max } => wagers::personal(o, player, min, max),
        Command::AnnounceMinimum { minimum, at_ms } => wagers::announce_minimum(o, minimum, at_ms),
        Command::ChangeMinimum { minimum, at_ms, present } => wagers::change_minimum(o, minimum, at_ms, present),
        Command::ChangeLimits { bet, min, max } => wagers::change_limits(o, bet, min, max),
        Command::WithdrawWager { player, wager } => wagers::withdraw(o, player, wager),
        Command::ApproveWager { wager } => wagers::approve(o, wager),
        Command::RefuseWager { wager } => wagers::refuse(o, wager),
        Command::CloseBetting => flow::close(o),
        Command::DealNext => deal::deal_next(o),
        Command::CardIn { card, to, face_up } => deal::card_in(o, card, to, face_up),
        Command::FaceUpInShoe { card } => irregular::face_up_in_shoe(o, card),
        Command::CuttingCardOut => deal::live_cutting_card(o),
        Command::MissingOrForeign { card } => irregular::missing_or_foreign(o, card),
        Command::Misdeal { reconstructed } => irregular::misdeal(o, reconstructed),
        Command::ResumeCoup => irregular::resume(o),
        Command::Expose { side, player } => hands::expose(o, side, player),
        Command::DeclineCards { player } => hands::decline(o, player),
        Command::TakeMarker { player, seat } => hands::take_marker(o, player, seat),
        Command::AppointNominee { player, nominee } => hands::appoint_nominee(o, player, nominee),
        Command::PassMarker { player } => hands::pass_marker(o, player),
        Command::ScannerDiscrepancy { confirmed } => irregular::scanner(o, confirmed),
        Command::Invalidate { forfeit, reason } => irregular::invalidate(o, forfeit, reason),
        Command::Interrupted => irregular::interrupted(o, false),
        Command::VoidInterrupted => irregular::interrupted(o, true),
        Command::ShufflerMalfunction { disadvantage, other_device } => {
            irregular::shuffler(o, disadvantage, other_device)
        }
        Command::WrongHand { void_hand } => irregular::wrong_hand(o, void_hand),
    }
}

/// Cards in dealing order placed at the positions they are due at.
pub fn positions_of(cards: &[Card]) -> Vec<(Position, Card)> {
    deal::positions(cards).into_iter().map(|d| (d.position, d.card)).collect()
}

/// The coup that positioned cards make, if they are exactly a complete coup
/// (for verification, which must not trust its input).
pub fn coup_from_positions(cards: &[DealtCard]) -> Option<Coup> {
    let coup = try_coup_of(cards)?;
    let used = coup.player.cards().len() + coup.banker.cards().len();
    (used == cards.len() && deal::due(cards).is_none()).then_some(coup)
}

/// The totals of a coup's cards so far.
pub(crate) fn totals(cards: &[DealtCard]) -> (u8, u8) {
    let sum = |player: bool| {
        cards.iter().filter(|c| c.position.is_player() == player).map(|c| c.card.point()).sum::<u8>() % 10
    };
    (sum(true), sum(false))
}

/// Build the completed coup from its positioned cards.
pub(crate) fn coup_of(cards: &[DealtCard]) -> Coup {
    try_coup_of(cards).expect("a complete coup")
}

/// The same, or `None` when the cards do not make a coup.
fn try_coup_of(cards: &[DealtCard]) -> Option<Coup> {
    let by = |p: Position| cards.iter().find(|c| c.position == p).map(|c| c.card);
    let mut seq: Vec<Card> = Position::INITIAL.iter().filter_map(|p| by(*p)).collect();
    let (pt, bt) = {
        let pc: Vec<Card> = [Position::Player1, Position::Player2].iter().filter_map(|p| by(*p)).collect();
        let bc: Vec<Card> = [Position::Banker1, Position::Banker2].iter().filter_map(|p| by(*p)).collect();
        (pc.iter().map(|c| c.point()).sum::<u8>() % 10, bc.iter().map(|c| c.point()).sum::<u8>() % 10)
    };
    // Third cards in the order the real deal takes them.
    match player_action(pt, bt) {
        PlayerAction::Natural => {}
        PlayerAction::Stand => seq.extend(by(Position::Banker3)),
        PlayerAction::Draw => {
            seq.extend(by(Position::Player3));
            if let Some(p3) = by(Position::Player3) {
                if banker_draws(bt, Some(p3.point())) {
                    seq.extend(by(Position::Banker3));
                }
            }
        }
    }
    Coup::from_cards(&seq).ok().map(|c| c.0)
}
