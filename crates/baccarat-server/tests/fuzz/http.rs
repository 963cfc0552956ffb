//! Target 3: the command JSON of every route, through the real router and
//! writer (the server in-process on a fresh database, over loopback).
//!
//! Every POST route gets bodies made from its corpus (`fuzz/corpus/http/<route>/`)
//! filled with fresh values and mutated, as a user of each role (mostly the one
//! the route is for), with mutated path ids, content types and now and then a
//! wrong method or an oversized body.
//!
//! Invariants: no 5xx and no dropped connection; every error is JSON with an
//! `"error"` string; a refused request (4xx) changes nothing: the table views,
//! the fuzzing players' balances and available funds, and the live tables' pit
//! views are the same after it as before. Nothing moves without a request: the
//! RNG tables' betting window is an hour, and the live tables move only by
//! command. The ledger check stays ok throughout, and `verify` passes at the end.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use super::common::{spawn_app_with, App};
use super::gen::{self, Ctx};
use super::harness::{corpus_dir, corpus_files, execs, iteration_rng, only, Report};
use super::mutate::{self, weird_string, Rng};

/// The POST routes: corpus folder, path template (`{id}`: a table; `{player}`:
/// a player), the roles the route is for, and a weight (how often it is tried).
const ROUTES: &[(&str, &str, &[&str], u32)] = &[
    ("login", "/api/login", &["none"], 2),
    ("logout", "/api/logout", &["throwaway", "none", "garbage"], 1),
    ("wagers", "/api/tables/{id}/wagers", &["player", "player-b"], 8),
    ("withdraw", "/api/tables/{id}/withdraw", &["player", "player-b"], 3),
    ("hand", "/api/tables/{id}/hand", &["player", "player-b"], 2),
    ("commands", "/api/tables/{id}/commands", &["dealer", "supervisor", "admin"], 12),
    ("open", "/api/tables/{id}/open", &["supervisor", "admin"], 1),
    ("void", "/api/tables/{id}/void", &["supervisor", "admin"], 1),
    ("tables", "/api/tables", &["admin"], 2),
    ("players", "/api/players", &["admin"], 1),
    ("deposit", "/api/players/{player}/deposit", &["admin"], 2),
];

const ROLES: &[&str] =
    &["none", "garbage", "player", "player-b", "dealer", "supervisor", "inspector", "admin", "throwaway"];

/// A request as sent (and as written to the failures folder).
#[derive(Clone, Debug)]
struct Req {
    method: Method,
    path: String,
    role: &'static str,
    content_type: Option<String>,
    body: Vec<u8>,
}

impl Req {
    fn file(&self) -> Vec<u8> {
        let mut out = format!(
            "{} {} as {} content-type: {}\n",
            self.method,
            self.path,
            self.role,
            self.content_type.as_deref().unwrap_or("(none)")
        )
        .into_bytes();
        out.extend_from_slice(&self.body);
        out
    }
}

struct Answer {
    status: StatusCode,
    content_type: String,
    body: Vec<u8>,
}

struct Fuzz {
    app: App,
    /// A client without a connection pool: a request the server answers
    /// without reading its body closes its connection, and a pooled client
    /// would then fail the next request on it.
    client: reqwest::Client,
    tokens: BTreeMap<&'static str, Option<String>>,
    throwaway: Vec<String>,
    live: Vec<u32>,
    rng_tables: Vec<u32>,
    players: Vec<u32>,
    wagers: Vec<u64>,
    corpus: BTreeMap<&'static str, Vec<Value>>,
    raw: BTreeMap<&'static str, Vec<Vec<u8>>>,
}

impl Fuzz {
    async fn send(&self, r: &Req) -> Result<Answer, String> {
        let url = format!("{}{}", self.app.base, r.path);
        let mut rq = self.client.request(r.method.clone(), url).body(r.body.clone());
        if let Some(ct) = &r.content_type {
            rq = rq.header("content-type", ct.as_str());
        }
        let token = match r.role {
            "throwaway" => self.throwaway.last().cloned(),
            "garbage" => Some("not-a-token".to_string()),
            role => self.tokens.get(role).cloned().flatten(),
        };
        if let Some(t) = token {
            rq = rq.header("authorization", format!("Bearer {t}"));
        }
        let resp = rq.timeout(Duration::from_secs(30)).send().await.map_err(|e| format!("no answer: {e}"))?;
        let status = resp.status();
        let content_type =
            resp.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        let body = resp.bytes().await.map_err(|e| format!("answer cut short: {e}"))?.to_vec();
        Ok(Answer { status, content_type, body })
    }

    async fn get(&self, path: &str, role: &'static str) -> Value {
        let r = Req { method: Method::GET, path: path.into(), role, content_type: None, body: Vec::new() };
        match self.send(&r).await {
            Ok(a) => serde_json::from_slice(&a.body).unwrap_or(Value::Null),
            Err(e) => json!({ "unreachable": e }),
        }
    }

    /// What a refused request must not change; `deep` adds the number of
    /// audit records of every chain (from `verify`, which reads them all).
    async fn digest(&self, deep: bool) -> Value {
        let mut d = serde_json::Map::new();
        if deep {
            let v = self.get("/api/verify", "admin").await;
            d.insert("audit records".into(), json!({"records": v["records"], "tables": v["tables"]}));
        }
        d.insert("tables".into(), self.get("/api/tables", "none").await);
        for role in ["player", "player-b"] {
            let me = self.get("/api/me", role).await;
            d.insert(role.into(), json!({"balance": me["balance"], "available": me["available"]}));
        }
        for id in &self.live {
            d.insert(format!("pit {id}"), self.get(&format!("/api/tables/{id}/pit"), "admin").await);
        }
        Value::Object(d)
    }

    /// Every fuzzing player's held money (balance less available) against the
    /// open wagers (stake and ante) the tables' pit views list for them: money
    /// held for no wager is money a player cannot get back.
    async fn holds_match_wagers(&self) -> Result<(), String> {
        let tables = self.get("/api/tables", "none").await;
        let mut open: BTreeMap<u64, i64> = BTreeMap::new();
        for t in tables["tables"].as_array().into_iter().flatten() {
            let id = t["id"].as_u64().unwrap_or_default();
            let pit = self.get(&format!("/api/tables/{id}/pit"), "admin").await;
            for w in pit["coup"]["wagers"].as_array().into_iter().flatten().filter(|w| w["status"] == "open") {
                let held = w["amount"].as_i64().unwrap_or_default() + w["ante"].as_i64().unwrap_or_default();
                *open.entry(w["player"].as_u64().unwrap_or_default()).or_default() += held;
            }
        }
        for (role, id) in [("player", self.players[0]), ("player-b", self.players[1])] {
            let me = self.get("/api/me", role).await;
            let held = me["balance"].as_i64().unwrap_or_default() - me["available"].as_i64().unwrap_or_default();
            let listed = open.get(&u64::from(id)).copied().unwrap_or_default();
            if held != listed {
                return Err(format!("player {id} has {held} held but {listed} in open wagers: {me}"));
            }
        }
        Ok(())
    }

    /// Wait until nothing moves (after a request that may have set a pacer
    /// going): the tables the same three times running, 30 ms apart.
    async fn settle(&self) {
        let mut last = self.get("/api/tables", "none").await;
        let mut same = 0;
        let deadline = Instant::now() + Duration::from_secs(5);
        while same < 2 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(30)).await;
            let now = self.get("/api/tables", "none").await;
            same = if now == last { same + 1 } else { 0 };
            last = now;
        }
    }

    fn table_id(&self, rng: &mut Rng) -> String {
        match rng.below(20) {
            0..=13 => rng.pick(&self.live).to_string(),
            14..=16 => rng.pick(&self.rng_tables).to_string(),
            _ => rng
                .pick(&[
                    "0",
                    "99",
                    "4294967295",
                    "4294967296",
                    "-1",
                    "abc",
                    "1.5",
                    "%00",
                    "5%2F..%2F1",
                    "00005",
                    "+5",
                    "123456789012345678901234567890",
                    "%F0%9F%92%A5",
                ])
                .to_string(),
        }
    }

    /// A request that is well formed and often accepted, so the live tables go
    /// through their coups (shoe, betting, wagers, cards) between the fuzzed ones.
    fn well_formed(&self, rng: &mut Rng, i: u64) -> Req {
        let id = *rng.pick(&self.live);
        let (path, role, body) = match rng.below(10) {
            0 => (
                format!("/api/tables/{id}/commands"),
                "dealer",
                json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false}),
            ),
            1 => (format!("/api/tables/{id}/commands"), "dealer", json!({"command": "open_betting", "no_bet": false})),
            2..=4 => (
                format!("/api/tables/{id}/wagers"),
                *rng.pick(&["player", "player-b"]),
                json!({"bet": *rng.pick(&["player", "banker", "tie", "player_pair"]), "amount": 1000 * rng.range(1, 5), "key": format!("wf-{i}")}),
            ),
            5 => (format!("/api/tables/{id}/open"), "supervisor", json!({"open": true})),
            _ => (
                format!("/api/tables/{id}/commands"),
                "dealer",
                json!({"command": "card_in", "card": gen::card(rng), "to": null, "face_up": true}),
            ),
        };
        Req {
            method: Method::POST,
            path,
            role,
            content_type: Some("application/json".into()),
            body: body.to_string().into_bytes(),
        }
    }

    fn generate(&self, rng: &mut Rng, i: u64) -> Req {
        let total: u32 = ROUTES.iter().map(|r| r.3).sum();
        let mut k = rng.below(total as usize) as u32;
        let mut route = ROUTES[0];
        for r in ROUTES {
            if k < r.3 {
                route = *r;
                break;
            }
            k -= r.3;
        }
        let (name, template, roles, _) = route;
        // A real session signing out would leave the fuzzer without it: only
        // throwaway sessions (and none, and garbage) sign out.
        let role = if rng.chance(4, 5) || name == "logout" { *rng.pick(roles) } else { *rng.pick(ROLES) };
        if rng.chance(1, 6) {
            return self.well_formed(rng, i);
        }
        let path = template.replace("{id}", &self.table_id(rng)).replace(
            "{player}",
            &if rng.chance(5, 6) {
                rng.pick(&self.players).to_string()
            } else {
                weird_string(rng).replace('/', "").chars().take(300).collect()
            },
        );
        let path = if path.contains(|c: char| c.is_whitespace() || c.is_control() || !c.is_ascii()) {
            // Only what a URL can carry (reqwest would refuse the rest on our side).
            path.bytes()
                .map(|b| if b.is_ascii_graphic() { (b as char).to_string() } else { format!("%{b:02X}") })
                .collect()
        } else {
            path
        };
        let ctx = Ctx { players: self.players.clone(), wagers: self.wagers.clone(), chip: 100, min: 1000 };
        let seeds = &self.corpus[name];
        let seed = seeds[rng.below(seeds.len())].clone();
        let mut v = gen::fill_object(rng, &seed, &ctx);
        // Fresh idempotency keys and names, mostly: else the same one again.
        if let Some(m) = v.as_object_mut() {
            if m.contains_key("key") && rng.chance(3, 4) {
                m.insert("key".into(), json!(format!("fz-{i}")));
            }
            if name == "players" && rng.chance(2, 3) {
                m.insert("name".into(), json!(format!("fz-player-{i}")));
            }
            if name == "tables" && rng.chance(1, 2) {
                m.insert("name".into(), json!(format!("Fuzz {i}")));
            }
            if name == "login" && rng.chance(1, 2) {
                m.insert("name".into(), json!(rng.pick(&["player1", "fz-a", "dealer", "admin", "nobody"])));
            }
        }
        // Clean: the right shape with fresh values, sent as a client would
        // (plain JSON, POST, the JSON content type); so the values reach the
        // rules behind the parser. Otherwise mutated at every level.
        if rng.chance(2, 5) {
            let body = v.to_string().into_bytes();
            return Req { method: Method::POST, path, role, content_type: Some("application/json".into()), body };
        }
        if rng.chance(1, 2) {
            let other = rng.pick(seeds).clone();
            v = mutate::json(rng, &v, &other, 3);
        }
        if name == "tables" && rng.chance(1, 2) {
            // The configuration is TOML inside the JSON: mutate that too.
            if let Some(cfg) = v.get("config").and_then(Value::as_str) {
                let dict = mutate::dictionary(&[cfg.as_bytes().to_vec()]);
                let c = mutate::lines(rng, cfg, cfg, &dict, 3);
                v["config"] = json!(c);
            }
        }
        let mut body = mutate::json_text(rng, &v);
        match rng.below(20) {
            0..=2 => {
                let raw = &self.raw[name];
                let other = rng.pick(raw).clone();
                body = mutate::bytes(rng, &body, &other, &[], 3);
            }
            3 => {
                // Past the 16 KB bound.
                let pad = "A".repeat(*rng.pick(&[16 * 1024, 16 * 1024 + 1, 40_000]));
                body = json!({"pad": pad, "key": "x"}).to_string().into_bytes();
            }
            4 => body.clear(),
            _ => {}
        }
        let content_type = match rng.below(20) {
            0 => None,
            1 => Some("text/plain".to_string()),
            2 => Some(
                rng.pick(&[
                    "application/json; charset=utf-8",
                    "application/x-www-form-urlencoded",
                    "application/jsonx",
                    "APPLICATION/JSON",
                    "multipart/form-data; boundary=x",
                    "application/problem+json",
                    "",
                ])
                .to_string(),
            ),
            _ => Some("application/json".to_string()),
        };
        let method = match rng.below(50) {
            0 => Method::GET,
            1 => Method::PUT,
            2 => Method::DELETE,
            3 => Method::PATCH,
            _ => Method::POST,
        };
        Req { method, path, role, content_type, body }
    }
}

/// A path cut to a readable length for a message.
fn short(path: &str) -> String {
    if path.len() > 100 {
        format!("{}…({} bytes)", path.chars().take(100).collect::<String>(), path.len())
    } else {
        path.to_string()
    }
}

fn is_json_error(a: &Answer) -> bool {
    serde_json::from_slice::<Value>(&a.body).ok().is_some_and(|v| v["error"].is_string())
}

/// The keys whose values differ between two digests (for the report).
fn diff(a: &Value, b: &Value, at: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                diff(
                    &x.get(k).cloned().unwrap_or(Value::Null),
                    &y.get(k).cloned().unwrap_or(Value::Null),
                    &format!("{at}.{k}"),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff(p, q, &format!("{at}[{i}]"), out);
            }
        }
        _ if a != b => {
            let short = |v: &Value| v.to_string().chars().take(200).collect::<String>();
            out.push(format!("{at}: {} -> {}", short(a), short(b)))
        }
        _ => {}
    }
}

async fn setup() -> Fuzz {
    let app = spawn_app_with(|c| {
        // Nothing moves by the clock: an RNG table's betting stays open an hour.
        c.betting = Duration::from_secs(3600);
        c.deal = Duration::from_millis(1);
        c.squeeze = Duration::from_secs(3600);
        c.result_pause = Duration::from_millis(1);
    })
    .await;
    for t in 1..=4 {
        app.until_phase(t, "betting").await;
    }
    let admin = app.admin.clone();
    let (s, t) = app
        .post(
            "/api/tables",
            Some(&admin),
            json!({"name": "Fuzz live", "mode": "live", "config": "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\ndealing = \"international\"\n[bets.tie]\npay_table = \"8_to_1\"\n[ante]\namount = 100\nwaived_at = 5000\n"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    let fuzz_live = t["table"].as_u64().expect("table id") as u32;
    let mut players = Vec::new();
    for (name, chips) in [("fz-a", 10_000_000), ("fz-b", 500_000), ("fz-c", 0)] {
        let (s, p) = app
            .post("/api/players", Some(&admin), json!({"name": name, "password": "fuzz-pass", "chips": chips}))
            .await;
        assert_eq!(s, StatusCode::OK, "{p}");
        players.push(p["player"].as_u64().expect("player id") as u32);
    }
    let mut tokens = BTreeMap::new();
    tokens.insert("none", None);
    tokens.insert("player", Some(app.login("fz-a", "fuzz-pass").await));
    tokens.insert("player-b", Some(app.login("fz-b", "fuzz-pass").await));
    for (role, name) in [("dealer", "dealer"), ("supervisor", "supervisor"), ("inspector", "inspector")] {
        tokens.insert(role, Some(app.login(name, "demo").await));
    }
    tokens.insert("admin", Some(admin.clone()));
    let mut throwaway = Vec::new();
    for _ in 0..3 {
        throwaway.push(app.login("fz-c", "fuzz-pass").await);
    }
    // The live tables: a shoe in, betting open.
    let live = vec![5, fuzz_live];
    let dealer = tokens["dealer"].clone();
    for id in &live {
        let path = format!("/api/tables/{id}/commands");
        let (s, r) = app
            .post(&path, dealer.as_deref(), json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false}))
            .await;
        assert_eq!(s, StatusCode::OK, "{r}");
        let (s, r) = app.post(&path, dealer.as_deref(), json!({"command": "open_betting", "no_bet": false})).await;
        assert_eq!(s, StatusCode::OK, "{r}");
    }
    let mut corpus = BTreeMap::new();
    let mut raw = BTreeMap::new();
    for (name, ..) in ROUTES {
        let files = corpus_files(&corpus_dir("http").join(name));
        assert!(!files.is_empty(), "fuzz/corpus/http/{name} is empty");
        raw.insert(*name, files.iter().map(|(_, b)| b.clone()).collect());
        corpus.insert(
            *name,
            files
                .iter()
                .map(|(p, b)| serde_json::from_slice(b).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
                .collect(),
        );
    }
    let mut all_players = players.clone();
    all_players.push(1);
    Fuzz {
        app,
        client: reqwest::Client::builder().pool_max_idle_per_host(0).build().expect("client"),
        tokens,
        throwaway,
        live,
        rng_tables: vec![1, 2, 3, 4],
        players: all_players,
        wagers: (1..8).collect(),
        corpus,
        raw,
    }
}

pub async fn http_routes() {
    let mut report = Report::new("http_routes");
    let mut f = setup().await;
    let n = execs("http_routes", 2_500);
    let range = match only() {
        Some(i) => 0..i + 1,
        None => 0..n,
    };
    let mut before: Option<Value> = None;
    let mut statuses: BTreeMap<u16, u64> = BTreeMap::new();
    let verbose = std::env::var_os("FUZZ_VERBOSE").is_some();
    // Commands accepted, by name: how far into the game the fuzzed commands got.
    let mut commands: BTreeMap<String, u64> = BTreeMap::new();
    for i in range {
        let mut rng = iteration_rng(report.seed, i);
        let r = f.generate(&mut rng, i);
        // Every 50th request also counts the audit records (a refused request
        // writes none).
        let deep = i % 50 == 0;
        if before.is_none() || deep {
            let t0 = Instant::now();
            before = Some(f.digest(deep).await);
            report.add("ms digest", t0.elapsed().as_millis() as u64);
        }
        report.execs += 1;
        let t0 = Instant::now();
        let sent = f.send(&r).await;
        report.add("ms send", t0.elapsed().as_millis() as u64);
        let a = match sent {
            Ok(a) => a,
            Err(e) => {
                report.fail(
                    i,
                    &r.file(),
                    "http",
                    &format!("{} {}: {e} (a handler panicked?)", r.method, short(&r.path)),
                );
                before = None;
                continue;
            }
        };
        *statuses.entry(a.status.as_u16()).or_default() += 1;
        if verbose {
            eprintln!(
                "{i}: {} {} as {} -> {} {}",
                r.method,
                short(&r.path),
                r.role,
                a.status,
                String::from_utf8_lossy(&a.body).chars().take(160).collect::<String>()
            );
        }
        if a.status.is_server_error() {
            report.fail(
                i,
                &r.file(),
                "http",
                &format!(
                    "{} {} as {}: {} {}",
                    r.method,
                    short(&r.path),
                    r.role,
                    a.status,
                    String::from_utf8_lossy(&a.body)
                ),
            );
            if a.status == StatusCode::SERVICE_UNAVAILABLE {
                // The writer is gone (a panic in it, most likely): nothing after
                // this can pass, and the request that stopped it is this one.
                eprintln!("fuzz http_routes: the table server stopped at iteration {i}; stopping the run");
                break;
            }
        }
        if !a.status.is_success() && !is_json_error(&a) {
            let route = short(&r.path)
                .split('/')
                .filter(|s| !s.chars().any(|c| c.is_ascii_digit()))
                .collect::<Vec<_>>()
                .join("/");
            report.fail(
                i,
                &r.file(),
                "http",
                &format!(
                    "error not JSON with \"error\": {} {} → {} ({}): {}",
                    r.method,
                    route,
                    a.status,
                    a.content_type,
                    String::from_utf8_lossy(&a.body).chars().take(100).collect::<String>()
                ),
            );
        }
        if a.status.is_success() {
            report.count("accepted");
            if r.path.ends_with("/commands") {
                let c = serde_json::from_slice::<Value>(&r.body)
                    .ok()
                    .and_then(|v| v["command"].as_str().map(str::to_string));
                *commands.entry(c.unwrap_or_default()).or_default() += 1;
            }
            let v: Value = serde_json::from_slice(&a.body).unwrap_or(Value::Null);
            for w in v["results"].as_array().into_iter().flatten().chain(std::iter::once(&v)) {
                if let Some(id) = w["wager"].as_u64() {
                    f.wagers.push(id);
                }
            }
            if let Some(p) = v["player"].as_u64().filter(|_| r.path == "/api/players") {
                f.players.push(p as u32);
            }
            if r.path.starts_with("/api/logout") && r.role == "throwaway" {
                f.throwaway.pop();
            }
            let moving = r.path == "/api/tables"
                || (r.path.starts_with("/api/tables/")
                    && !f.live.iter().any(|l| r.path.starts_with(&format!("/api/tables/{l}/"))));
            if moving {
                let t0 = Instant::now();
                f.settle().await;
                report.add("ms settle", t0.elapsed().as_millis() as u64);
            }
            before = None;
        } else {
            report.count("refused");
            let t0 = Instant::now();
            let after = f.digest(deep).await;
            report.add("ms digest", t0.elapsed().as_millis() as u64);
            let was = before.take().expect("a digest before");
            if after != was {
                let mut d = Vec::new();
                diff(&was, &after, "", &mut d);
                report.fail(
                    i,
                    &r.file(),
                    "http",
                    &format!(
                        "{} {} as {} was refused ({}) but changed: {}",
                        r.method,
                        short(&r.path),
                        r.role,
                        a.status,
                        d.join("; ")
                    ),
                );
            }
            before = if deep { None } else { Some(after) };
        }
        if deep {
            if let Err(e) = f.holds_match_wagers().await {
                report.fail(i, &r.file(), "http", &format!("after this request: {e}"));
            }
        }
        if i % 250 == 249 {
            let check = f.get("/api/ledger/check", "admin").await;
            if check["ok"] != true {
                report.fail(i, &r.file(), "http", &format!("the ledger check failed after this request: {check}"));
            }
        }
    }
    let check = f.get("/api/ledger/check", "admin").await;
    if check["ok"] != true {
        report.fail(u64::MAX, b"", "http", &format!("the ledger check failed at the end: {check}"));
    }
    let verify = f.get("/api/verify", "admin").await;
    if verify["ok"] != true {
        report.fail(u64::MAX, b"", "http", &format!("verify failed at the end: {}", verify["problems"]));
    }
    println!("fuzz http_routes: statuses {statuses:?}");
    println!("fuzz http_routes: commands accepted {commands:?}");
    report.finish();
}
