//! What the edge's own routes answer, as types (issue 46): each handler
//! (`http/`) serialises one of these rather than a `json!` tree, and the API document
//! takes each schema from the type (`openapi::schema::derived`), so a field
//! added here is documented with no line written there, and one renamed
//! cannot leave the document behind. The casino's replies are typed already
//! (`casino::Reply`, `openapi/replies.rs`).
//!
//! Below both `http` and `openapi`, which each use it (the document is
//! served by `http`, so it cannot live there).
//!
//! Ids and amounts are described as the bare integers they serialise as;
//! doc comments become the fields' descriptions in the document.

pub mod help;
pub mod recall;
pub mod rulebooks;

use baccarat_core::UserId;
use baccarat_rules::Money;
use schemars::JsonSchema;
use serde::Serialize;

use crate::auth::Role;

/// `GET /api/exposure`: everything the exposure monitor shows: each
/// table, and the alerts (`http/exposure.rs`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ExposureView {
    pub tables: Vec<baccarat_casino::TableWatch>,
    /// The alerts after `after`, oldest first (the last 500 are kept).
    pub alerts: Vec<baccarat_casino::ExposureAlert>,
}

/// `POST /api/login`: signed in.
#[derive(Serialize, JsonSchema)]
pub struct SignedIn {
    /// For API clients (`Authorization: Bearer`); the pages use the cookie.
    pub token: String,
    #[schemars(with = "u32")]
    pub user: UserId,
    pub name: String,
    pub role: Role,
    /// A session unused this long ends.
    pub idle_seconds: u64,
    /// A session ends this long after sign-in, used or not.
    pub max_seconds: u64,
}

/// `POST /api/logout`: this session has ended.
#[derive(Serialize, JsonSchema)]
pub struct SignedOut {
    #[schemars(extend("enum" = [true]))]
    pub revoked: bool,
}

/// `GET /api/me`: who I am, my wallet and my promotional tokens.
#[derive(Serialize, JsonSchema)]
pub struct Me {
    #[schemars(with = "u32")]
    pub user: UserId,
    pub name: String,
    pub role: Role,
    /// The wallet (at this partition, on a partitioned casino).
    #[schemars(with = "i64")]
    pub balance: Money,
    /// What open wagers leave free of it.
    #[schemars(with = "i64")]
    pub available: Money,
    /// Promotional tokens available.
    #[schemars(with = "i64")]
    pub tokens: Money,
    /// The player's money at the casino's bank (minor units); null without
    /// partitions.
    pub bank: Option<i64>,
}

/// `POST /api/me/password`: changed; every other session has ended.
#[derive(Serialize, JsonSchema)]
pub struct PasswordChanged {
    /// A fresh session for this client.
    pub token: String,
    #[schemars(extend("enum" = [true]))]
    pub revoked_others: bool,
}

/// `POST /api/users`: a person created, enabled.
#[derive(Serialize, JsonSchema)]
pub struct PersonCreated {
    #[schemars(with = "u32")]
    pub id: UserId,
    pub name: String,
    pub role: Role,
    #[schemars(extend("enum" = [false]))]
    pub disabled: bool,
}

/// `POST /api/users/{id}/password`: reset; the person's sessions ended.
#[derive(Serialize, JsonSchema)]
pub struct PasswordReset {
    #[schemars(with = "u32")]
    pub id: UserId,
    pub sessions_ended: usize,
}

/// `POST /api/players`: a player created (with their opening chips).
#[derive(Serialize, JsonSchema)]
pub struct PlayerCreated {
    #[schemars(with = "u32")]
    pub player: UserId,
    pub name: String,
}

/// `GET /api/verify`: `baccarat verify` over the database now.
#[derive(Serialize, JsonSchema)]
pub struct Verified {
    /// No problem found.
    pub ok: bool,
    pub tables: usize,
    pub records: usize,
    pub shoes: usize,
    pub coups: usize,
    pub settlements: usize,
    pub problems: Vec<String>,
    /// Coups voided after their cards were out: table, shoe, coup, by whom.
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub voids: Vec<crate::verify::Void>,
    pub unanchored: Vec<String>,
    pub notes: Vec<String>,
    /// The public key the anchors were checked with, if any.
    pub anchor_key: Option<String>,
}

impl Verified {
    /// The findings as the route answers them.
    pub fn new(f: crate::verify::Findings, anchor_key: Option<String>) -> Verified {
        Verified {
            ok: f.problems.is_empty(),
            tables: f.tables,
            records: f.records,
            shoes: f.shoes,
            coups: f.coups,
            settlements: f.settlements,
            problems: f.problems,
            voids: f.voids,
            unanchored: f.unanchored,
            notes: f.notes,
            anchor_key,
        }
    }
}

/// `GET /healthz`: the process answers; whether it serves the casino now.
#[derive(Serialize, JsonSchema)]
pub struct Alive {
    pub status: AliveStatus,
    /// Whether this server serves the casino now (a standby does not).
    pub serving: bool,
    pub version: &'static str,
}

impl Alive {
    /// Alive, serving or not.
    pub fn new(serving: bool) -> Alive {
        Alive { status: AliveStatus::Ok, serving, version: env!("CARGO_PKG_VERSION") }
    }
}

/// What `/healthz` says of a process that answers: `"ok"`, nothing else.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AliveStatus {
    #[default]
    Ok,
}

/// What `/readyz` says of a server that serves: `"ready"` (any other
/// state is a refusal, 503, with the reason: `http/health.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadyStatus {
    #[default]
    Ready,
}

/// `GET /readyz`: this server serves the casino.
#[derive(Default, Serialize, JsonSchema)]
pub struct Ready {
    pub status: ReadyStatus,
}

/// `GET /api/casino`: how the casino was founded.
#[derive(Serialize, JsonSchema)]
pub struct CasinoFounding {
    pub founding: crate::audit::Founding,
    /// Founded as the demo: its tables and players are play things.
    pub demo: bool,
}

/// `GET /api/partitions`: the casino's partitions, and the one this server
/// serves (none on a casino without partitions, which lists none).
#[derive(Serialize, JsonSchema)]
pub struct Partitions {
    pub partition: Option<String>,
    pub partitions: Vec<crate::partition_route::Place>,
}

/// `GET /api/tables`: the lobby, every table's public view. Borrowed: it is
/// serialised while the views are read, with no copy of them and no JSON
/// tree between (its schema is the document's `TableView`s, `views.rs`).
#[derive(Serialize)]
pub struct Lobby<'a> {
    pub tables: &'a [baccarat_casino::TableView],
}

/// `GET`/`POST /api/casino/gaming-day`: the setting made last (the default, UTC
/// 06:00, until one is), the first gaming day it runs, and the day in
/// progress.
#[derive(Serialize, JsonSchema)]
pub struct GamingDayView {
    /// An IANA time zone.
    pub zone: String,
    /// The hour (0 to 23, local) at which one gaming day ends and the next begins.
    #[schemars(range(max = 23))]
    pub cutoff_hour: u8,
    /// The first gaming day this setting runs; null: the default, from the start.
    #[schemars(extend("format" = "date"))]
    pub from: Option<String>,
    /// The gaming day in progress.
    #[schemars(extend("format" = "date"))]
    pub today: String,
}

/// `POST /api/users/{id}/disable` and `/enable`: the person as changed, and
/// how many of their sessions ended.
#[derive(Serialize, JsonSchema)]
pub struct PersonSwitched {
    #[schemars(with = "u32")]
    pub id: UserId,
    pub name: String,
    pub role: Role,
    pub disabled: bool,
    pub sessions_ended: usize,
}

/// `GET /api/me/history`: a player's settled wagers, newest first, written
/// while the feed is read (the lines are borrowed from it).
#[derive(Serialize)]
pub struct History<'a> {
    pub player: UserId,
    pub history: Vec<&'a baccarat_casino::HistoryLine>,
}

/// `GET /api/tables/{id}/shoes`: the table's shoes and the shuffle that
/// made them, written while the feed is read.
#[derive(Serialize)]
pub struct Shoes<'a> {
    pub table: baccarat_core::TableId,
    pub algorithm: &'static str,
    pub shoes: &'a [baccarat_casino::ShoeLine],
}

/// `GET /api/promotions/{id}/refused-claims`: the refused claims kept (NSW
/// 16.9.1), written while the promotions are read.
#[derive(Serialize, JsonSchema)]
pub struct RefusedClaims<'a> {
    pub promotion: u32,
    pub refused: &'a [baccarat_casino::casino::promotions::RefusedClaim],
}
