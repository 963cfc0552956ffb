//! Staff routes: the dealer's and supervisor's commands, the pit console's view
//! of a table, opening and closing tables, the cage, and the inspector's recall
//! and verification.

use axum::extract::State;
use axum::Json;
use baccarat_core::{TableId, UserId};
use baccarat_rules::{Cite, Money};
use baccarat_table::{Command, PlayerId};
use serde::Deserialize;

use super::extract::{Auth, Body, Id, Q};
use super::{call, limited, reply_json, require, table_exists, ApiError, AppState};
use crate::auth::Role;
use crate::bodies::recall::{Recall, RecalledCoup, RecalledRecord, VoidReport};
use crate::bodies::{PlayerCreated, Verified};
use crate::casino::{Code, Mode, Reply, Request};
use crate::ledger::keys::IdempotencyKey;
use crate::messages::{PitPush, PitView, RuleQuote};

/// Staff commands to a table's engine. A player's own actions have their own
/// routes; approving, refusing and invalidating, and changing limits, are for a
/// supervisor (NSW 5.6.6, 14.12, 14.4, 6.7-6.8).
pub(super) async fn command(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
    Body(cmd): Body<Command>,
) -> Result<Json<Reply>, ApiError> {
    // Staff only on this route; which staff may send which command at which
    // table is the trust matrix's to say (`trust.rs`), in the writer.
    require(&sess, &[Role::Dealer, Role::Supervisor, Role::Admin])?;
    limited(&s, &sess)?;
    // Only for those the trust matrix lets appoint one (AU 2.3(a)): anyone
    // else is refused by the matrix, and learns nothing here of who the id
    // is (a dealer probing ids for roles).
    if let (Command::AppointNominee { nominee: Some(n), .. }, Role::Supervisor | Role::Admin) = (&cmd, sess.role) {
        nominee_is_a_player(&s, id, *n)?;
    }
    // The command as sent (a card input, its correction, an approval) for
    // the staff's log line.
    super::access::detail(|| format!("{cmd:?}"));
    let by = crate::trust::Actor::Person { user: sess.user, role: sess.role };
    reply_json(call(&s, Request::Table { table: id, command: cmd, by }).await?)
}

/// AU 2.3(h): "a Casino employee, associated person or any other person who
/// works at the Casino cannot act as a Nominee for another player". Checked
/// here, where the people are (the writer and the engine know no roles): at a
/// table whose rulebook has nominees, the nominee must be a player. An id
/// that is no one is refused too (`no_player`), so no appointment names a
/// person the casino has not met. At a rulebook without nominees the engine
/// refuses the command itself. A table not (yet) in the read model is
/// refused as no table, as `table_exists` does, rather than let the
/// appointment past unchecked.
fn nominee_is_a_player(s: &AppState, table: TableId, nominee: PlayerId) -> Result<(), ApiError> {
    let rulebook = {
        let v = s.views.read().expect("views lock");
        v.tables.iter().find(|t| t.id == table).map(|t| t.rulebook.clone())
    };
    let Some(rulebook) = rulebook else {
        return Err(ApiError::new(axum::http::StatusCode::NOT_FOUND, "no_table", format!("no table {table}")));
    };
    let rb = baccarat_rules::profiles::builtin(&rulebook).map_err(|e| ApiError::internal(e.to_string()))?;
    if !rb.config.conduct.nominees {
        return Ok(());
    }
    let (code, rule, message) =
        match s.users.role(UserId::from(nominee)).map_err(|e| ApiError::internal(e.to_string()))? {
            Some(r) if !r.works_at_the_casino() => return Ok(()),
            Some(r) => (
                Code::Rule,
                Some(rb.cite(Cite::Nominee)),
                format!(
                "AU 2.3(h): nominee {} is a {}; a person who works at the casino cannot act as a nominee for a player",
                nominee.0,
                r.name()
            ),
            ),
            None => (Code::NoPlayer, None, format!("nominee: no player {}", nominee.0)),
        };
    Err(ApiError { rule, ..ApiError::new(super::error::status_of(code), code.name(), message) })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OpenBody {
    open: bool,
}

/// A supervisor opens or closes a table. A closed table finishes the coup in
/// progress and deals no more; the rulebooks ask no notice for this (their
/// notice periods are for a higher minimum, NSW 6.7, sent as `announce_minimum`).
pub(super) async fn set_open(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
    Body(b): Body<OpenBody>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Supervisor, Role::Admin])?;
    limited(&s, &sess)?;
    reply_json(call(&s, Request::SetOpen { table: id, open: b.open }).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewTable {
    name: String,
    /// A table configuration in TOML, checked against its rulebook profile.
    config: String,
    #[serde(default)]
    mode: Option<String>,
    /// The table's opening float (minor units) from the cage: the most its
    /// open wagers may win at once before it is filled (`float.rs`).
    /// Without it, `DEFAULT_FLOAT` (10^11, for a demo: never short).
    /// At least one minor unit.
    #[serde(default)]
    float: Option<i64>,
}

/// Admin: define a table from a configuration (checked against its profile).
/// Names are unique, trimmed and in any case (`casino/table_names.rs`): the
/// same table asked for again is answered with the usual reply, and made and
/// paced once; another definition under a taken name is refused
/// (`table_exists`), naming each difference.
pub(super) async fn create_table(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Body(b): Body<NewTable>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    if b.name.trim().is_empty() || b.name.len() > 64 {
        return Err(ApiError::bad("name: 1 to 64 bytes (UTF-8), not only spaces"));
    }
    let mode = match b.mode.as_deref() {
        None => Mode::Rng,
        Some(m) => Mode::from_id(m).ok_or_else(|| ApiError::bad("mode: \"rng\" or \"live\""))?,
    };
    #[derive(Deserialize)]
    struct Head {
        rulebook: String,
    }
    let head: Head = toml::from_str(&b.config).map_err(|e| ApiError::bad(format!("config: {}", e.message())))?;
    let float = match b.float {
        None => None,
        // At least a cent: the float is a transfer from the cage, and the
        // ledger moves no zero amount (a table that should take no wager
        // yet is not a table to open).
        Some(f) if (1..=baccarat_rules::MAX_LIMIT).contains(&f) => Some(Money(f)),
        Some(_) => return Err(ApiError::bad("float: 1 or more minor units, at most 10^12")),
    };
    let create = Request::CreateTable { name: b.name, rulebook: head.rulebook, config: b.config, mode, float };
    let r = call(&s, create).await?;
    match r {
        // Made now: paced from now.
        Reply::Table { table } => {
            let out = reply_json(r)?;
            crate::http::pacing::spawn(s.clone(), table);
            Ok(out)
        }
        // The table asked for exists: its usual reply, and its pacer runs already.
        Reply::ExistingTable { table } => reply_json(Reply::Table { table }),
        r => reply_json(r),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Deposit {
    amount: i64,
    key: String,
}

pub(super) async fn deposit(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(player): Id<UserId>,
    Body(b): Body<Deposit>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    if b.amount <= 0 || b.amount > baccarat_rules::MAX_LIMIT {
        return Err(ApiError::bad("amount: must be positive minor units"));
    }
    let key = IdempotencyKey::parse(b.key).map_err(|e| ApiError::bad(e.to_string()))?;
    // Read under the people's gate until the deposit is answered: a disable
    // waits for it, or it sees the disable (`http/users.rs`).
    let _gate = s.users.gate.read().await;
    // Chips go only into a player's wallet: an id that is no one, or staff,
    // would put money where no one can play or cash it.
    match s.users.person(player).map_err(|e| ApiError::internal(e.to_string()))? {
        Some(p) if p.role == Role::Player && p.disabled => return Err(disabled(player)),
        Some(p) if p.role == Role::Player => {}
        Some(p) => {
            return Err(ApiError::new(
                axum::http::StatusCode::NOT_FOUND,
                "no_player",
                format!("{player} is a {}, not a player: chips go only to players", p.role.name()),
            ))
        }
        None => {
            return Err(ApiError::new(axum::http::StatusCode::NOT_FOUND, "no_player", format!("no player {player}")))
        }
    }
    reply_json(call(&s, Request::Deposit { player: player.as_player(), amount: Money(b.amount), key }).await?)
}

/// 409 `disabled`: nothing is paid into a disabled player's wallet (issue
/// 47; the rulebooks are silent: this server's choice, so that an account
/// closed by the casino takes in no money; the player's open wagers still
/// settle, and what the wallet holds stays theirs).
fn disabled(player: UserId) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::CONFLICT,
        "disabled",
        format!("player {player} is disabled: nothing is paid into their wallet until an admin enables them"),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewPlayer {
    name: String,
    password: String,
    #[serde(default)]
    chips: i64,
}

/// Admin: create a player, with play chips.
pub(super) async fn create_player(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Body(b): Body<NewPlayer>,
) -> Result<Json<PlayerCreated>, ApiError> {
    require(&sess, &[Role::Admin])?;
    limited(&s, &sess)?;
    if b.name.is_empty() || b.name.len() > 64 || b.password.chars().count() < 4 || b.password.len() > 128 {
        return Err(ApiError::bad("name: 1 to 64 bytes; password: 4 characters to 128 bytes (UTF-8)"));
    }
    if b.chips < 0 || b.chips > baccarat_rules::MAX_LIMIT {
        return Err(ApiError::bad("chips: 0 or more minor units"));
    }
    // Created as `POST /api/users` creates a player: recorded in the
    // casino's chain (`UserChanged`), naming the admin.
    let id = super::users::create_person(&s, &sess, &b.name, Role::Player, b.password).await.map_err(|e| {
        // A taken name is answered as this route always answered it.
        if e.code == "taken" {
            ApiError::conflict(e.message)
        } else {
            e
        }
    })?;
    if b.chips > 0 {
        let _deposited = reply_json(
            call(
                &s,
                Request::Deposit {
                    player: id.as_player(),
                    amount: Money(b.chips),
                    key: "opening chips".parse().expect("the server's own key is a valid idempotency key"),
                },
            )
            .await?,
        )?;
    }
    Ok(Json(PlayerCreated { player: id, name: b.name }))
}

/// Inspector or admin: the ledger's invariants as the database holds them
/// now, checked on a connection of its own from the latest checkpoint and the
/// tail after it (`verify::check_ledger`), so the writer does none of it.
pub(super) async fn ledger_check(State(s): State<AppState>, Auth(sess, _): Auth) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Inspector, Role::Admin])?;
    let (db, public) = (s.db.clone(), s.anchor_public.clone());
    let c = tokio::task::spawn_blocking(move || crate::verify::check_ledger_of(&db, &public))
        .await
        .map_err(|_| ApiError::internal("the ledger check failed"))?
        .map_err(|e| ApiError::internal(e.to_string()))?;
    reply_json(Reply::Ledger {
        ok: c.problem.is_none(),
        problem: c.problem,
        accounts: c.accounts,
        transfers: c.transfers as usize,
    })
}

/// The pit console's view of a table: every wager of the coup with its status
/// (and which wait for a supervisor's approval), the card due next, the recent
/// rule-bearing events, and every rule the profile cites with its text, for the
/// irregularity prompts.
pub(super) async fn pit(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
) -> Result<Json<PitView>, ApiError> {
    require(&sess, &[Role::Dealer, Role::Supervisor, Role::Admin])?;
    table_exists(&s, id)?;
    let table = {
        let v = s.views.read().expect("views lock");
        v.tables.iter().find(|t| t.id == id).cloned().expect("checked")
    };
    let rb = baccarat_rules::profiles::builtin(&table.rulebook).map_err(|e| ApiError::internal(e.to_string()))?;
    let rules = rb
        .config
        .citations
        .iter()
        .map(|(k, cite)| RuleQuote { key: k.clone(), cite: cite.clone(), quote: rb.config.quotes.get(k).cloned() })
        .collect();
    Ok(Json(PitView { push: pit_push(&s, id), table, rules }))
}

/// What the pit console needs beyond the table, as it changes: the coup's
/// wagers (approvals among them) with their players' names, the notices, the
/// shoes. The table's WebSocket carries it to staff after every durable
/// batch, so the console polls nothing; `GET …/pit` adds the table and the
/// rulebook's quotes (which do not change) for a first load.
pub(super) fn pit_push(s: &AppState, id: TableId) -> PitPush {
    let coup = s.feed.read().expect("feed lock").coups.get(&id).cloned().unwrap_or_default();
    let mut ids: Vec<UserId> = coup.wagers.iter().map(|w| UserId::from(w.player)).collect();
    ids.sort_unstable();
    ids.dedup();
    let names = ids.into_iter().filter_map(|p| s.users.name(p).map(|n| (p.to_string(), n))).collect();
    let f = s.feed.read().expect("feed lock");
    PitPush {
        coup,
        names,
        notices: f.notices.get(&id).map(|n| n.iter().rev().cloned().collect()).unwrap_or_default(),
        shoes: f.shoes.get(&id).cloned().unwrap_or_default(),
        // How long a player may hold a hand at an RNG table before the dealer
        // exposes it (the pit tells staff what the table is waiting for).
        squeeze_seconds: s.pace.squeeze.as_secs(),
    }
}

#[derive(Deserialize)]
pub(super) struct RecallQuery {
    #[serde(default)]
    last: Option<usize>,
}

/// Game recall for inspectors: the last coups of a table step by step, read
/// back from the durable audit chain (not from the current configuration). The
/// seed of a shoe still in play is withheld.
pub(super) async fn audit(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
    Q(q): Q<RecallQuery>,
) -> Result<Json<Recall>, ApiError> {
    require(&sess, &[Role::Inspector, Role::Admin])?;
    let last = q.last.unwrap_or(5).clamp(1, baccarat_casino::RECALL_COUPS);
    table_exists(&s, id)?;
    let from = s.feed.read().expect("feed lock").recall_from(id, last);
    let db = s.db.clone();
    let voids = {
        let db = db.clone();
        tokio::task::spawn_blocking(move || crate::verify::voids_in_db(&db, id))
            .await
            .map_err(|_| ApiError::internal("recall failed"))?
            .map_err(|e| ApiError::internal(e.to_string()))?
    };
    let voids = void_report(voids);
    let Some(from) = from else { return Ok(Json(Recall { table: id, coups: Vec::new(), voids })) };
    let records = tokio::task::spawn_blocking(move || baccarat_cluster::read_records_in(&db, id, from))
        .await
        .map_err(|_| ApiError::internal("recall failed"))?
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Json(Recall { table: id, coups: recalled(records), voids }))
}

/// The voids, and their counts by who voided and by shoe.
fn void_report(voids: Vec<crate::verify::Void>) -> VoidReport {
    let mut by_person = std::collections::BTreeMap::new();
    let mut by_shoe = std::collections::BTreeMap::new();
    for v in &voids {
        let who = match v.by {
            Some(crate::trust::Actor::Person { user, role }) => format!("{} {user}", role.name()),
            _ => "server".into(),
        };
        *by_person.entry(who).or_default() += 1;
        *by_shoe.entry(v.shoe).or_default() += 1;
    }
    let list = voids.iter().map(|v| serde_json::to_value(v).unwrap_or_default()).collect();
    VoidReport { list, by_person, by_shoe }
}

/// The records read back, grouped by coup from each coup's opening (a
/// record before the first opening read has no coup to go with: dropped),
/// with the seed of a shoe still in play blanked.
fn recalled(records: Vec<crate::audit::Record>) -> Vec<RecalledCoup> {
    let mut coups: Vec<RecalledCoup> = Vec::new();
    for r in records {
        let Ok(body) = crate::audit::Body::decode(&r.body) else { continue };
        let body = body.blanked();
        if let Some(baccarat_table::Event::BettingOpened { coup, .. }) = &body.event {
            coups.push(RecalledCoup {
                coup: *coup,
                rulebook: body.rulebook.clone(),
                rulebook_sha256: body.rulebook_sha256.clone(),
                engine: body.engine.clone(),
                records: Vec::new(),
            });
        }
        let event = match (&body.event, &body.casino) {
            (Some(e), _) => serde_json::to_value(e).ok(),
            (None, Some(c)) => serde_json::to_value(c).ok(),
            _ => None,
        };
        let by = body.by.as_ref().and_then(|b| serde_json::to_value(b).ok());
        if let Some(c) = coups.last_mut() {
            c.records.push(RecalledRecord { seq: r.seq, hash: r.hash, by, event });
        }
    }
    coups
}

/// A supervisor voids the coup of a table the server stopped because an
/// invariant broke: the interruption is recorded under the profile's
/// interrupted-coup rule, every stake goes back, and the table serves again.
pub(super) async fn void_halted(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Supervisor, Role::Admin])?;
    limited(&s, &sess)?;
    let by = crate::trust::Actor::Person { user: sess.user, role: sess.role };
    reply_json(call(&s, Request::VoidHalted { table: id, by }).await?)
}

/// Inspector or admin: run `baccarat verify` over the database as it is now.
pub(super) async fn verify(State(s): State<AppState>, Auth(sess, _): Auth) -> Result<Json<Verified>, ApiError> {
    require(&sess, &[Role::Inspector, Role::Admin])?;
    let db = s.db.clone();
    let anchors = s.anchor_file.clone();
    let (f, public) = tokio::task::spawn_blocking(move || match &db {
        crate::store::Db::Sqlite(path) => {
            crate::verify::verify_file(path, Some(&anchors), None).map_err(|e| e.to_string())
        }
        crate::store::Db::Postgres(url) => crate::migrate::verify_pg(url, &anchors, None).map_err(|e| e.to_string()),
    })
    .await
    .map_err(|_| ApiError::internal("verify failed"))?
    .map_err(ApiError::internal)?;
    Ok(Json(Verified::new(f, public)))
}
