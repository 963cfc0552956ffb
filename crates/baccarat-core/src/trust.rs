//! The trust boundary (DESIGN 10): which commands each table mode accepts, from
//! whom — as one table of data, [`MATRIX`], not checks scattered through the
//! routes and the engine.
//!
//! # Design
//!
//! On an **RNG table** the server shuffles with its own seed from the OS and
//! deals; the RNG alone decides every card. So no person may supply a card, a
//! card order, a reconstruction or a seed: `card_in`, `face_up_in_shoe`,
//! `misdeal`, `scanner_discrepancy`, `wrong_hand`, `missing_or_foreign`,
//! `cutting_card_out` and `start_shoe` are refused to every role. The physical
//! irregularities they report (NSW 12; AU 12, 15.9; EU 4-5) cannot happen when
//! the server deals. The pace (`open_betting`, `close_betting`, `deal_next`)
//! and the interruption after a restart are the server's own.
//!
//! What can go wrong on an RNG table is a malfunction of the software or of a
//! shuffler. Its remedy is a void, and never a choice of cards. Once a card of
//! the coup is out, a void is a free option for whoever has seen the cards (a
//! losing stake comes back), so it needs a supervisor and a reason from the
//! rulebook's own list ([`VOID_REASONS`], each a rule the profile cites); the
//! record names who did it, and the inspector's recall counts voids per table,
//! per person and per shoe. Withdrawals after the cards are out (NSW 13.5.1's
//! remedy without another device) and returning single wagers (NSW 12.17) are
//! refused on RNG tables for the same reason.
//!
//! **Live tables** keep every irregularity remedy of their rulebook: a dealer
//! or a scanning shoe enters the cards, and the record says who. A person still
//! never supplies a seed: a live shoe is `live` (cards entered one by one) or
//! `pre_shuffled` (the stack in order). From a pre-shuffled stack (NSW
//! 1.1 "Casino Pre-shuffled Cards", checked and shuffled by the casino
//! operator before they reach the table, then cut, 4.3; EU 2.1.1: sealed, used
//! without another shuffle) the dealer deals with `deal_next`: the order is in
//! the record from the start of the shoe, so each card is the next of that
//! stack and no one names it (`card_in` would let a person name a card other
//! than the recorded one). The order is recorded by a supervisor, not the
//! dealer who deals it (the rulebooks are silent on who records it; a dealer
//! who chose the order and dealt it would know every card to come), and no
//! view shows it before the shoe is over (`audit::blank`; NSW 4.13 voids a
//! shoe whose sequence was revealed). A deck shuffled again by hand at the
//! table (NSW 4.2, 4.12) has no recorded order: it is started as a `live`
//! shoe.
//!
//! Players' own actions (wagers, withdrawals, squeezing) have their own routes;
//! through the staff command route they are refused to everyone.

use crate::ids::UserId;
use baccarat_table::{Command, Phase, Refusal, RefusalKind, ShoeSource, Table};
use serde::{Deserialize, Serialize};

/// What a person may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Player,
    Dealer,
    Supervisor,
    Inspector,
    Admin,
    /// "A licensed person appointed by the casino operator and responsible
    /// for the overall control of the tournament" (NSW 15.1.1): starts play,
    /// calls "no more bets", deals, ends rounds and disqualifies. A role of
    /// its own, so that running a tournament gives no power over the tables.
    TournamentManager,
    /// Surveillance: watches the tables and reads the exposure monitor
    /// (`GET /api/exposure`, the surveillance page) and nothing else; it
    /// commands no table and moves no money. The rulebooks name no such
    /// role (NSW and AU speak of the Casino Supervisor and the inspector);
    /// casinos keep surveillance apart from the pit, so it is a role of its
    /// own rather than the inspector's or the supervisor's.
    Surveillance,
}

impl Role {
    pub const ALL: [Role; 7] = [
        Role::Player,
        Role::Dealer,
        Role::Supervisor,
        Role::Inspector,
        Role::Admin,
        Role::TournamentManager,
        Role::Surveillance,
    ];

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == s)
    }

    /// Whether a person of this role works at the casino: every role but a
    /// player's (dealer, supervisor, inspector, admin, tournament manager).
    /// Such a person "cannot act as a Nominee for another player" (AU 2.3(h)).
    pub fn works_at_the_casino(self) -> bool {
        self != Role::Player
    }

    pub fn name(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Dealer => "dealer",
            Role::Supervisor => "supervisor",
            Role::Inspector => "inspector",
            Role::Admin => "admin",
            Role::TournamentManager => "tournament_manager",
            Role::Surveillance => "surveillance",
        }
    }
}

/// How a table's cards come out. The default is what a table is made as
/// when its creator names no mode (`POST /staff/tables`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The server shuffles, and deals at a set pace with a betting countdown.
    #[default]
    Rng,
    /// A dealer console or a scanning shoe reports each card; the engine's
    /// irregularity rules apply.
    Live,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Rng, Mode::Live];

    pub fn id(self) -> &'static str {
        match self {
            Mode::Rng => "rng",
            Mode::Live => "live",
        }
    }

    pub fn from_id(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.id() == s)
    }
}

/// Who issued a request: the server itself (the pacer, recovery) or a signed-in
/// person. Written into every audit record a person's command produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Actor {
    Server,
    Person { user: UserId, role: Role },
}

/// Who may issue a command at a table of one mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    /// No one: the command does not exist at this kind of table.
    Nobody,
    /// The server alone (its pacer, its recovery).
    Server,
    /// The server, or staff of at least this rank (dealer < supervisor < admin).
    ServerOrStaff(Role),
    /// Staff of at least this rank.
    Staff(Role),
    /// A player, through the player's own routes.
    PlayerRoute,
}

/// One row of the matrix: a command and who may issue it at RNG and live tables.
pub struct Row {
    pub command: &'static str,
    pub rng: Who,
    pub live: Who,
    /// Why, where someone is refused (quoted in the refusal).
    pub why: &'static str,
}

const CARDS: &str = "on an RNG table the RNG alone decides every card: no person supplies a card, an order or a seed";
const PACE: &str = "the server paces an RNG table; a live table is paced by its dealer";
/// `deal_next` deals the next card of a stack whose order is recorded: the
/// server's shuffle at an RNG table, a pre-shuffled stack at a live table,
/// dealt by its dealer (NSW 1.1, 4.3; EU 2.1.1). A live shoe's cards come with
/// `card_in` instead (the engine refuses `deal_next` for them).
const DEAL: &str = "the server deals an RNG table's shoe; at a live table the dealer deals a pre-shuffled stack";
const OWN: &str = "a player's own action has its own route";
/// AU 2.3(a), (b), (e): a player appoints a nominee only with the prior
/// approval of the Game or Casino Supervisor, who announces the nominee
/// before they act and announces when they stop. The supervisor sends the
/// command, so its audit record names them as the one who announced it.
const NOMINEE: &str =
    "a nominee is approved and announced by the Game or Casino Supervisor (AU 2.3(a), (b); ending it, 2.3(e))";

/// The whole matrix. Every [`Command`] has exactly one row (checked by test).
pub const MATRIX: &[Row] = &[
    Row { command: "start_shoe", rng: Who::Server, live: Who::Staff(Role::Dealer), why: CARDS },
    Row { command: "open_betting", rng: Who::Server, live: Who::Staff(Role::Dealer), why: PACE },
    Row { command: "close_betting", rng: Who::Server, live: Who::Staff(Role::Dealer), why: PACE },
    Row { command: "deal_next", rng: Who::Server, live: Who::Staff(Role::Dealer), why: DEAL },
    Row { command: "card_in", rng: Who::Nobody, live: Who::Staff(Role::Dealer), why: CARDS },
    Row { command: "face_up_in_shoe", rng: Who::Nobody, live: Who::Staff(Role::Dealer), why: CARDS },
    Row { command: "cutting_card_out", rng: Who::Nobody, live: Who::Staff(Role::Dealer), why: CARDS },
    Row { command: "missing_or_foreign", rng: Who::Nobody, live: Who::Staff(Role::Dealer), why: CARDS },
    Row { command: "misdeal", rng: Who::Nobody, live: Who::Staff(Role::Dealer), why: CARDS },
    Row { command: "scanner_discrepancy", rng: Who::Nobody, live: Who::Staff(Role::Dealer), why: CARDS },
    Row { command: "wrong_hand", rng: Who::Nobody, live: Who::Staff(Role::Dealer), why: CARDS },
    Row {
        command: "reopen_wagers",
        rng: Who::Nobody,
        live: Who::Staff(Role::Supervisor),
        why: "late wagers after a card is drawn exist only where a person draws it (NSW 12.12)",
    },
    Row { command: "resume_coup", rng: Who::Staff(Role::Supervisor), live: Who::Staff(Role::Dealer), why: "" },
    Row { command: "invalid_bet", rng: Who::Staff(Role::Supervisor), live: Who::Staff(Role::Dealer), why: "" },
    Row { command: "invalidate", rng: Who::Staff(Role::Supervisor), live: Who::Staff(Role::Supervisor), why: "" },
    Row {
        command: "shuffler_malfunction",
        rng: Who::Staff(Role::Supervisor),
        live: Who::Staff(Role::Supervisor),
        why: "",
    },
    Row { command: "interrupted", rng: Who::Server, live: Who::Server, why: "only the server records its own restart" },
    Row {
        command: "void_interrupted",
        rng: Who::Nobody,
        live: Who::Nobody,
        why: "a halted table's coup is voided through its own request, by a supervisor",
    },
    Row {
        command: "expose",
        rng: Who::ServerOrStaff(Role::Dealer),
        live: Who::Staff(Role::Dealer),
        why: "the dealer exposes a hand; a player exposes their own through the hand route",
    },
    Row { command: "decline_cards", rng: Who::PlayerRoute, live: Who::PlayerRoute, why: OWN },
    Row { command: "place_wager", rng: Who::PlayerRoute, live: Who::PlayerRoute, why: OWN },
    Row { command: "withdraw_wager", rng: Who::PlayerRoute, live: Who::PlayerRoute, why: OWN },
    Row { command: "approve_wager", rng: Who::Staff(Role::Supervisor), live: Who::Staff(Role::Supervisor), why: "" },
    Row { command: "refuse_wager", rng: Who::Staff(Role::Supervisor), live: Who::Staff(Role::Supervisor), why: "" },
    Row {
        command: "set_personal_limits",
        rng: Who::Staff(Role::Supervisor),
        live: Who::Staff(Role::Supervisor),
        why: "",
    },
    Row { command: "announce_minimum", rng: Who::Staff(Role::Supervisor), live: Who::Staff(Role::Supervisor), why: "" },
    Row { command: "change_minimum", rng: Who::Staff(Role::Supervisor), live: Who::Staff(Role::Supervisor), why: "" },
    Row { command: "change_limits", rng: Who::Staff(Role::Supervisor), live: Who::Staff(Role::Supervisor), why: "" },
    Row {
        command: "appoint_nominee",
        rng: Who::Staff(Role::Supervisor),
        live: Who::Staff(Role::Supervisor),
        why: NOMINEE,
    },
    Row { command: "take_marker", rng: Who::Staff(Role::Dealer), live: Who::Staff(Role::Dealer), why: "" },
    Row { command: "pass_marker", rng: Who::Staff(Role::Dealer), live: Who::Staff(Role::Dealer), why: "" },
];

/// The command's name as the API spells it (its serde tag).
pub fn command_name(cmd: &Command) -> &'static str {
    match cmd {
        Command::StartShoe { .. } => "start_shoe",
        Command::OpenBetting { .. } => "open_betting",
        Command::PlaceWager { .. } => "place_wager",
        Command::ReopenWagers => "reopen_wagers",
        Command::InvalidBet { .. } => "invalid_bet",
        Command::SetPersonalLimits { .. } => "set_personal_limits",
        Command::AnnounceMinimum { .. } => "announce_minimum",
        Command::ChangeMinimum { .. } => "change_minimum",
        Command::ChangeLimits { .. } => "change_limits",
        Command::WithdrawWager { .. } => "withdraw_wager",
        Command::ApproveWager { .. } => "approve_wager",
        Command::RefuseWager { .. } => "refuse_wager",
        Command::CloseBetting => "close_betting",
        Command::DealNext => "deal_next",
        Command::CardIn { .. } => "card_in",
        Command::FaceUpInShoe { .. } => "face_up_in_shoe",
        Command::CuttingCardOut => "cutting_card_out",
        Command::MissingOrForeign { .. } => "missing_or_foreign",
        Command::Misdeal { .. } => "misdeal",
        Command::Expose { .. } => "expose",
        Command::DeclineCards { .. } => "decline_cards",
        Command::AppointNominee { .. } => "appoint_nominee",
        Command::TakeMarker { .. } => "take_marker",
        Command::PassMarker { .. } => "pass_marker",
        Command::ResumeCoup => "resume_coup",
        Command::ScannerDiscrepancy { .. } => "scanner_discrepancy",
        Command::Invalidate { .. } => "invalidate",
        Command::ShufflerMalfunction { .. } => "shuffler_malfunction",
        Command::Interrupted => "interrupted",
        Command::VoidInterrupted => "void_interrupted",
        Command::WrongHand { .. } => "wrong_hand",
    }
}

/// The rules a supervisor may give as the reason to void an RNG coup once its
/// cards are out: each a citation key the table's profile must cite (NSW 14.4
/// disruption or fraud; NSW 13.4 a malfunction that disadvantages someone).
pub const VOID_REASONS: [&str; 2] = ["invalidated", "shuffler_malfunction"];

/// The row for a command.
pub fn row(cmd: &Command) -> &'static Row {
    let name = command_name(cmd);
    MATRIX.iter().find(|r| r.command == name).expect("every command has a row (tested)")
}

fn rank(r: Role) -> u8 {
    match r {
        Role::Player | Role::Inspector | Role::TournamentManager | Role::Surveillance => 0,
        Role::Dealer => 1,
        Role::Supervisor => 2,
        Role::Admin => 3,
    }
}

fn refuse(message: String) -> Refusal {
    Refusal::of(RefusalKind::Trust, message)
}

/// Whether `by` may issue `cmd` at a table of `mode` in its present state.
/// Refused commands change nothing; the refusal names the reason.
pub fn admit(mode: Mode, by: Actor, cmd: &Command, table: &Table) -> Result<(), Refusal> {
    let r = row(cmd);
    let who = match mode {
        Mode::Rng => r.rng,
        Mode::Live => r.live,
    };
    let name = r.command;
    let at = mode.id();
    let allowed = match (who, by) {
        (Who::Nobody, _) => return Err(refuse(format!("{name} is not accepted at an {at} table: {}", r.why))),
        // A player acts only for themselves, through their own routes.
        (_, Actor::Person { user, role: Role::Player }) => {
            let own = match cmd {
                Command::Expose { player: Some(p), .. } | Command::DeclineCards { player: p } => *p == user.as_player(),
                _ => false,
            };
            if !own {
                return Err(Refusal::of(RefusalKind::Role, format!("a player may not send {name}")));
            }
            return Ok(());
        }
        (Who::PlayerRoute, _) => return Err(refuse(format!("{name}: {}", r.why))),
        (Who::Server, Actor::Server) | (Who::ServerOrStaff(_), Actor::Server) => true,
        (Who::Server, Actor::Person { .. }) => false,
        (Who::Staff(_), Actor::Server) => false,
        (Who::Staff(min) | Who::ServerOrStaff(min), Actor::Person { role, .. }) => {
            rank(role) > 0 && rank(role) >= rank(min)
        }
    };
    if !allowed {
        let whom = match by {
            Actor::Server => "the server".to_string(),
            Actor::Person { role, .. } => format!("a {}", role.name()),
        };
        let why = if r.why.is_empty() { String::new() } else { format!(": {}", r.why) };
        return Err(Refusal::of(RefusalKind::Role, format!("{whom} may not send {name} at an {at} table{why}")));
    }
    if let (Mode::Rng, Command::StartShoe { source, .. }) = (mode, cmd) {
        if !matches!(
            source,
            ShoeSource::Shuffle { .. } | ShoeSource::Continuous { .. } | ShoeSource::ShufflerSet { .. }
        ) {
            return Err(refuse("start_shoe: an RNG table's shoe is shuffled by the server from its own seed".into()));
        }
    }
    if let (Actor::Person { role, .. }, Command::StartShoe { source, .. }) = (by, cmd) {
        if !matches!(source, ShoeSource::Live { .. } | ShoeSource::PreShuffled { .. }) {
            return Err(refuse(
                "start_shoe: a seed comes only from the server's own entropy; a live table's shoe is `live` or `pre_shuffled`"
                    .into(),
            ));
        }
        // The order of a pre-shuffled stack is recorded by a supervisor, not
        // by the dealer who deals it (see the module's notes).
        if matches!(source, ShoeSource::PreShuffled { .. }) && rank(role) < rank(Role::Supervisor) {
            return Err(Refusal::of(
                RefusalKind::Role,
                format!(
                    "a {} may not start a pre_shuffled shoe: its recorded order is entered by a supervisor, \
                     not by the dealer who deals it",
                    role.name()
                ),
            ));
        }
    }
    if mode == Mode::Rng {
        rng_remedies(cmd, table)?;
    }
    Ok(())
}

/// Cards of the coup are out: someone has seen them (a squeezing player at
/// least), so a void or a return is now an option worth something.
fn cards_out(table: &Table) -> bool {
    !table.state().coup.cards.is_empty()
}

/// The remedies an RNG table keeps, limited so that none lets a person choose
/// cards or take back a stake after the cards are out without a cited reason.
fn rng_remedies(cmd: &Command, table: &Table) -> Result<(), Refusal> {
    match cmd {
        Command::Invalidate { reason, .. } if cards_out(table) => match reason.as_deref() {
            Some(k) if VOID_REASONS.contains(&k) && table.rb().config.citations.contains_key(k) => Ok(()),
            Some(k) => Err(refuse(format!(
                "reason: {k:?} is not a reason {} gives to void a coup (it cites: {})",
                table.rb().id,
                cited_reasons(table)
            ))),
            None => Err(refuse(format!(
                "reason: voiding an RNG coup after its cards are out needs a reason from the rulebook ({})",
                cited_reasons(table)
            ))),
        },
        Command::ShufflerMalfunction { disadvantage: false, other_device: false } if cards_out(table) => {
            Err(refuse(format!(
                "shuffler_malfunction: offering withdrawals after the cards are out ({} 13.5.1) would let a player take back a losing stake; void the coup instead (disadvantage: true)",
                table.rb().id
            )))
        }
        Command::InvalidBet { .. } if cards_out(table) || table.phase() == Phase::Dealing => Err(refuse(
            "invalid_bet: a wager is returned on an RNG table only before its cards are out; void the coup with a reason instead"
                .into(),
        )),
        _ => Ok(()),
    }
}

fn cited_reasons(table: &Table) -> String {
    let list: Vec<&str> =
        VOID_REASONS.iter().copied().filter(|k| table.rb().config.citations.contains_key(*k)).collect();
    if list.is_empty() {
        "none".into()
    } else {
        list.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_names_a_command_once() {
        let mut names: Vec<&str> = MATRIX.iter().map(|r| r.command).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(names.len(), n, "a command has two rows");
    }
}
