//! A player's routes: wagers (one or a bet slip), withdrawing a wager, squeezing
//! and exposing a hand they hold, their history, and the table's WebSocket.

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::Json;
use baccarat_core::{TableId, UserId};
use baccarat_rules::{Bet, Money, Side};
use baccarat_table::{Command, PlayerId, Spot, WagerId};
use futures_util::SinkExt;
use serde::Deserialize;

use super::extract::{token_of, Auth, Body, Id};
use super::table_push::Sending;
use super::{call, limited, reply_json, require, table_exists, ApiError, AppState};
use crate::auth::{Role, Session};
use crate::casino::{Reply, Request, MAX_SLIP};
use crate::ledger::keys::IdempotencyKey;
use crate::messages::{Gone, Mine, Seen, TableMessage};
use baccarat_casino::TableView;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SlipLine {
    bet: String,
    amount: i64,
    #[serde(default)]
    spot: Option<u8>,
    /// The ante with an initial wager at an Ante Up table (AU 14.5).
    #[serde(default)]
    ante: Option<i64>,
}

/// One wager (`bet`, `amount`, optional `spot`) or a slip (`wagers`), with the
/// client's idempotency `key`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WagerBody {
    #[serde(default)]
    bet: Option<String>,
    #[serde(default)]
    amount: Option<i64>,
    #[serde(default)]
    spot: Option<u8>,
    #[serde(default)]
    ante: Option<i64>,
    #[serde(default)]
    wagers: Option<Vec<SlipLine>>,
    /// Made with the player's promotional tokens (NSW 1.1): one wager only.
    #[serde(default)]
    token: Option<bool>,
    key: String,
}

fn line(
    sess: &Session,
    bet: &str,
    amount: i64,
    ante: Option<i64>,
    spot: Option<u8>,
    line: Option<usize>,
) -> Result<crate::casino::SlipLine, ApiError> {
    // The field's name, made only for a refusal.
    let field = || line.map_or(String::new(), |i| format!("wagers[{i}]."));
    let bet = Bet::from_id(bet).ok_or_else(|| ApiError::bad(format!("{}bet: unknown wager id {bet:?}", field())))?;
    if amount <= 0 || amount > baccarat_rules::MAX_LIMIT {
        return Err(ApiError::bad(format!("{}amount: must be positive minor units", field())));
    }
    if spot.is_some_and(|b| !(1..=14).contains(&b)) {
        return Err(ApiError::bad(format!("{}spot: a box from 1 to 14", field())));
    }
    let ante = ante.unwrap_or(0);
    if !(0..=baccarat_rules::MAX_LIMIT).contains(&ante) {
        return Err(ApiError::bad(format!("{}ante: zero or more minor units", field())));
    }
    // Without a box the player sits at one derived from their id (boxes 1-7
    // exist on every layout).
    let spot = Spot::Box(spot.unwrap_or(1 + (sess.user.0 % 7) as u8));
    Ok(crate::casino::SlipLine { spot, bet, amount: Money(amount), ante: Money(ante) })
}

/// The request a wager's body asks for: one wager, one with tokens (NSW
/// 1.1), or a slip; each line's fields checked, a body that is none of
/// these refused.
fn wager_request(sess: &Session, id: TableId, b: WagerBody, key: IdempotencyKey) -> Result<Request, ApiError> {
    let me = sess.user.as_player();
    let token = b.token.unwrap_or(false);
    Ok(match (b.wagers, b.bet, b.amount) {
        (Some(_), _, _) if token => return Err(ApiError::bad("token: a wager with tokens is one wager, not a slip")),
        (None, Some(bet), Some(amount)) if token => {
            if b.ante.is_some_and(|a| a != 0) {
                return Err(ApiError::bad("ante: not with tokens"));
            }
            let l = line(sess, &bet, amount, None, b.spot, None)?;
            Request::TokenWager { table: id, player: me, spot: l.spot, bet: l.bet, amount: l.amount, key }
        }
        (Some(_), _, _) if b.ante.is_some() => {
            return Err(ApiError::bad("ante: in a slip, each line carries its own ante"))
        }
        (Some(list), None, None) => {
            if list.is_empty() || list.len() > MAX_SLIP {
                return Err(ApiError::bad(format!("wagers: a slip holds 1 to {MAX_SLIP} wagers")));
            }
            let slip = list
                .iter()
                .enumerate()
                .map(|(i, l)| line(sess, &l.bet, l.amount, l.ante, l.spot.or(b.spot), Some(i)))
                .collect::<Result<Vec<_>, _>>()?;
            Request::Wagers { table: id, player: me, slip, key }
        }
        (None, Some(bet), Some(amount)) => {
            let l = line(sess, &bet, amount, b.ante, b.spot, None)?;
            Request::Wager { table: id, player: me, spot: l.spot, bet: l.bet, amount: l.amount, ante: l.ante, key }
        }
        _ => {
            return Err(ApiError::bad(
                "send either bet and amount, or wagers: [{bet, amount}], not both and not neither",
            ))
        }
    })
}

pub(super) async fn wager(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
    Body(mut b): Body<WagerBody>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Player])?;
    limited(&s, &sess)?;
    let key = IdempotencyKey::parse(std::mem::take(&mut b.key)).map_err(|e| ApiError::bad(e.to_string()))?;
    let req = wager_request(&sess, id, b, key)?;
    let ids = super::early::key_ids(&req);
    // The early refusal may read the store for the key (a stalled network
    // holds that read): if this server's turn ends on a fatal condition
    // first, nothing was taken, and the client is told so at once.
    let early = tokio::select! {
        biased;
        r = s.early.refuse(&s.views, &req, &ids) => r,
        _ = s.retired.until_failed() => return Err(ApiError::unavailable(
            "this server stopped serving the table (its database out of reach, or its lease lost) before the \
             wager reached it: nothing was taken; send it again once the table is served",
        )),
    };
    if let Some(refused) = early {
        super::metered::refused_early(&refused);
        return reply_json(refused);
    }
    // Its keys are on their way until the writer answers, or drops it
    // (`http/early.rs`).
    let on_way = s.early.on_way(ids);
    let (tx, rx) = tokio::sync::oneshot::channel();
    s.writer
        .send(req, move |r| {
            let _ = tx.send(r);
            drop(on_way);
        })
        .map_err(|e| ApiError::unavailable(e.to_string()))?;
    reply_json(super::answer(&s, rx).await?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WithdrawBody {
    wager: WagerId,
}

/// Take back one's own wager while betting is open (NSW 5.4).
pub(super) async fn withdraw(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
    Body(b): Body<WithdrawBody>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Player])?;
    let me = sess.user.as_player();
    limited(&s, &sess)?;
    reply_json(call(&s, Request::Withdraw { table: id, player: me, wager: b.wager }).await?)
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum HandAction {
    Expose,
    Decline,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HandBody {
    action: HandAction,
    /// The hand being exposed (`player` or `banker`); default: the one out.
    #[serde(default)]
    side: Option<Side>,
}

/// The player holding a hand exposes it after the squeeze, or declines it so it
/// passes on (NSW 8.9-8.15; AU 8.9-8.16).
pub(super) async fn hand(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Id(id): Id<TableId>,
    Body(b): Body<HandBody>,
) -> Result<Json<Reply>, ApiError> {
    require(&sess, &[Role::Player])?;
    let me = sess.user.as_player();
    limited(&s, &sess)?;
    let out = s.views.read().expect("views lock").tables.iter().find(|t| t.id == id).and_then(|t| t.out.clone());
    let command = match b.action {
        HandAction::Expose => {
            let side = b
                .side
                .or(out.map(|o| o.side))
                .ok_or_else(|| ApiError::conflict("no hand is out with a player to expose"))?;
            Command::Expose { side, player: Some(me) }
        }
        HandAction::Decline => Command::DeclineCards { player: me },
    };
    let by = crate::trust::Actor::Person { user: sess.user, role: sess.role };
    reply_json(call(&s, Request::Table { table: id, command, by }).await?)
}

/// The player's own settled wagers, newest first.
pub(super) async fn history(State(s): State<AppState>, Auth(sess, _): Auth) -> Response {
    let f = s.feed.read().expect("feed lock");
    let history = f.history.get(&sess.user.as_player()).map(|h| h.iter().rev().collect()).unwrap_or_default();
    axum::response::IntoResponse::into_response(Json(crate::bodies::History { player: sess.user, history }))
}

/// The table's WebSocket. A viewer is known by the session cookie sent with
/// the upgrade (from a page of the server's own origin only: `origin.rs`),
/// or by a first message `{"token": …}` (API clients); a token in the URL is
/// refused, since URLs end up in logs and history. `?deltas=1` asks for
/// numbered frames, the whole message once and then deltas
/// (`table_push.rs`); without it, whole messages as before.
pub(super) async fn ws(
    State(s): State<AppState>,
    Id(id): Id<TableId>,
    h: HeaderMap,
    uri: axum::http::Uri,
    up: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let query: Vec<&str> = uri.query().map(|q| q.split('&').collect()).unwrap_or_default();
    if query.iter().any(|kv| kv.starts_with("token=")) {
        return Err(ApiError::bad(
            "token: never in the URL; the session cookie signs the socket in, or send {\"token\": …} as the first message",
        ));
    }
    // Before the session is looked up: a page of another origin learns
    // nothing, and its request touches no session.
    s.origins.check(&h)?;
    let viewer = match token_of(&h) {
        Some(t) => Some((s.users.watching(&t).map_err(|e| ApiError::unauthorized(e.to_string()))?, t)),
        None => None,
    };
    table_exists(&s, id)?;
    // Not a WebSocket upgrade: refused through the contract, not by axum.
    let up = up.map_err(|r| {
        ApiError::new(r.status(), "upgrade", format!("a WebSocket upgrade is needed: {}", r.body_text()))
    })?;
    let deltas = match query.iter().find_map(|kv| kv.strip_prefix("deltas=")) {
        None | Some("0") => false,
        Some("1") => true,
        Some(other) => {
            return Err(ApiError::bad(format!("deltas: 1 (numbered deltas) or 0 (whole messages), not {other:?}")))
        }
    };
    Ok(upgrade(up, s, id, viewer, deltas))
}

/// A client sends a table's socket a token or `{"resync": true}` at most:
/// its read buffer is kept small (the default, 128 KiB a socket, would be
/// reserved ten thousand times at a watched table).
const READ_BUFFER: usize = 4 * 1024;

fn upgrade(
    up: WebSocketUpgrade,
    s: AppState,
    id: TableId,
    viewer: Option<(Session, String)>,
    deltas: bool,
) -> Response {
    up.read_buffer_size(READ_BUFFER).on_upgrade(move |sock| async move {
        let _counted = super::metered::Socket::open();
        s.clone().until_ended(push(sock, s, id, viewer, deltas)).await
    })
}

/// What one viewer is sent: the table as they may see it (a squeezing player
/// sees their own hand), their balance, and their wagers in this coup.
pub fn message(s: &AppState, id: TableId, viewer: Option<&Session>) -> TableMessage {
    let player = player_of(viewer);
    let v = s.views.read().expect("views lock");
    let Some(t) = v.tables.iter().find(|t| t.id == id) else { return TableMessage::Gone(Gone { table: None }) };
    let mut table = TableView { cards: t.cards_for(player).to_vec(), private: Vec::new(), ..t.clone() };
    let balance = player.and_then(|p| v.balances.get(&p).copied());
    drop(v);
    // Everyone at a table can see who is squeezing.
    if let Some(out) = table.out.as_mut() {
        out.name = s.users.name(UserId::from(out.player));
    }
    let f = s.feed.read().expect("feed lock");
    let coup = f.coups.get(&id);
    let mine = player.map(|p| Mine { coup: coup.map(|c| c.coup), wagers: coup.map(|c| c.of(p)).unwrap_or_default() });
    let mut seen = Seen {
        table,
        result: coup.and_then(|c| c.result.clone()),
        void: coup.and_then(|c| c.void.clone()),
        balance: balance.map(|b| b.0),
        available: balance.map(|b| b.1),
        mine,
        now_ms: (s.clock)(),
        squeeze_ms: s.pace.squeeze.as_millis() as u64,
        pit: None,
    };
    drop(f);
    // The pit's own data for the staff who may see it (as `GET …/pit`).
    if viewer.is_some_and(|v| matches!(v.role, Role::Dealer | Role::Supervisor | Role::Admin)) {
        seen.pit = Some(super::staff::pit_push(s, id));
    }
    TableMessage::Seen(Box::new(seen))
}

/// The player whose balance and wagers a viewer is shown: a player's own
/// (staff see the pit instead); also whose wallet wakes the socket.
fn player_of(viewer: Option<&Session>) -> Option<PlayerId> {
    viewer.filter(|v| v.role == Role::Player).map(|v| v.user.as_player())
}

/// A coup with more wagers than this has its pit messages paced (`push`).
const PIT_PACED_ABOVE: usize = 1_000;

/// Push the viewer's message after every durable batch that changed what
/// they see: the table, or their own wallet (`publish/wakes.rs`). Coalesced:
/// a slow client skips to the latest state rather than queueing every change
/// (with deltas, it is sent the deltas it missed or the whole message:
/// `table_push.rs`).
async fn push(mut sock: WebSocket, s: AppState, id: TableId, mut viewer: Option<(Session, String)>, deltas: bool) {
    let mut woken = wake_for(&s, id, viewer.as_ref().map(|v| &v.0));
    let mut sending = Sending::new(deltas, viewer.is_some());
    // A staff viewer's messages carry the coup's every wager (the pit's
    // data): at a coup of thousands they are paced like the console's old
    // fetches, at most four a second; smaller ones go at once.
    let mut next_at: Option<tokio::time::Instant> = None;
    loop {
        if let Some(at) = next_at.take() {
            tokio::time::sleep_until(at).await;
        }
        if let Some((_, token)) = &viewer {
            if s.users.watching(token).is_err() {
                let _ = sock.send(Message::Close(None)).await;
                return;
            }
        }
        let frames = sending.next(&s, id, viewer.as_ref().map(|v| &v.0), &mut woken);
        if send_all(&mut sock, &frames).await.is_err() {
            return;
        }
        if !frames.is_empty() && sending.pit_wagers() > PIT_PACED_ABOVE {
            next_at = Some(tokio::time::Instant::now() + std::time::Duration::from_millis(250));
        }
        tokio::select! {
            alive = woken.changed() => if !alive {
                return;
            },
            m = sock.recv() => match m {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(Message::Text(text))) => match read_text(&mut sock, &s, &text, &mut viewer).await {
                    Read::Gone => return,
                    Read::Resync => sending.resync(),
                    Read::Refused => {}
                    Read::Signed => {
                        // Its own messages from now on, the next one whole.
                        sending = Sending::new(deltas, true);
                        woken = wake_for(&s, id, viewer.as_ref().map(|v| &v.0));
                    }
                },
                _ => {}
            },
        }
    }
}

/// Send `frames` in one write: a socket behind by several (the deltas of a
/// coup dealt in a few milliseconds) costs one system call, not one each.
async fn send_all(sock: &mut WebSocket, frames: &[Utf8Bytes]) -> Result<(), axum::Error> {
    for f in frames {
        sock.feed(Message::Text(f.clone())).await?;
    }
    match frames.is_empty() {
        true => Ok(()),
        false => sock.flush().await,
    }
}

/// What wakes a viewer's socket: the table's public view alone for no one
/// (a wager changes nothing they see), else the table's every change and
/// a player's own wallet (`publish/wakes.rs`).
fn wake_for(s: &AppState, id: TableId, viewer: Option<&Session>) -> crate::publish::TableWake {
    match viewer {
        None => s.wakes.table_view(id),
        Some(v) => s.wakes.table(id, player_of(Some(v))),
    }
}

/// What a client's text message on a table's socket came to.
enum Read {
    /// Signed in (or as someone else): its next message goes whole.
    Signed,
    /// `{"resync": true}`: the whole message next.
    Resync,
    /// Refused, and told why.
    Refused,
    /// The socket is gone.
    Gone,
}

/// A text message on a table's socket: `{"token": …}` signs the socket in
/// (API clients), and its next message is sent whole; `{"resync": true}`
/// asks for the whole message (a client that saw a gap in the deltas'
/// numbers); anything else is answered with a refusal.
async fn read_text(sock: &mut WebSocket, s: &AppState, text: &str, viewer: &mut Option<(Session, String)>) -> Read {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Asked {
        SignIn { token: String },
        Resync { resync: bool },
    }
    let refusal = match serde_json::from_str::<Asked>(text) {
        Ok(Asked::Resync { resync: true }) => return Read::Resync,
        Ok(Asked::SignIn { token }) => match s.users.watching(&token) {
            Ok(sess) => {
                *viewer = Some((sess, token));
                return Read::Signed;
            }
            Err(e) => ApiError::unauthorized(e.to_string()),
        },
        _ => ApiError::bad(
            "send {\"token\": …} to sign in, or {\"resync\": true} for the whole message; nothing else is read",
        ),
    };
    match sock.send(Message::Text(refusal.body().to_string().into())).await {
        Ok(()) => Read::Refused,
        Err(_) => Read::Gone,
    }
}
