//! Inputs the fuzzer found, each a regression test: the engine's own, and the
//! same input through the server's route where one reaches it.

use baccarat_rules::{profiles, Bet, Money, TableConfig};
use baccarat_table::Cut;
use baccarat_table::Seed;
use baccarat_table::{Command, Event, PlayerId, ShoeSource, Spot, Table, TableSetup};
use reqwest::StatusCode;
use serde_json::json;

use super::common::spawn_app;

fn table(rulebook: &str) -> Table {
    table_with(rulebook, "")
}

fn table_with(rulebook: &str, extra: &str) -> Table {
    let rb = profiles::builtin(rulebook).unwrap();
    let text = format!("rulebook = \"{rulebook}\"\nchip = 100\nmin = 1000\nmax = 100000\n{extra}");
    let cfg = TableConfig::from_toml(&rb, &text).unwrap();
    Table::new(TableSetup::new(rb, cfg, None).unwrap())
}

fn wager(player: u32) -> Command {
    Command::PlaceWager {
        player: PlayerId(player),
        spot: Spot::Box(player as u8),
        bet: Bet::Tie,
        amount: Money(3000),
        ante: Money(0),
        token: false,
        at_ms: None,
    }
}

/// card_input (50,000 executions, seed 0x6a428e18f5293004, iteration 44661,
/// minimized with `FUZZ_MINIMIZE`): wagers reopened after the first card
/// (`reopen_wagers`, AU 15.10 / NSW 12.12) stayed open after the coup was
/// voided and closed (`missing_or_foreign`, `misdeal`): wagers were accepted
/// between coups, even with the shoe over, into a coup already closed; the next
/// `open_betting` dropped them without a settlement or a return, so their
/// stakes were never released. `Event::CoupClosed` did not clear
/// `State::late_wagers` (crates/baccarat-table/src/engine/mod.rs, `apply`).
#[test]
fn wagers_reopened_end_with_their_coup() {
    let voids = [
        (
            "au-casino",
            "dealing = \"international\"\n[bets.tie]\npay_table = \"8_to_1\"\n",
            Command::MissingOrForeign { card: Some("2D".parse().unwrap()) },
        ),
        ("nsw-2021", "dealing = \"method_b\"\n", Command::Misdeal { reconstructed: None }),
    ];
    for (rulebook, extra, void) in voids {
        let mut t = table_with(rulebook, extra);
        let live =
            Command::StartShoe { source: ShoeSource::Live { decks: 8 }, cut: None, burn: None, show_burn: false };
        t.execute(live.clone()).unwrap();
        t.execute(Command::OpenBetting { no_bet: false, closes_at: None }).unwrap();
        t.execute(wager(1)).unwrap();
        t.execute(Command::CardIn { card: "AC".parse().unwrap(), to: None, face_up: true }).unwrap();
        t.execute(Command::ReopenWagers).unwrap_or_else(|r| panic!("{rulebook}: reopen refused: {r}"));
        let ev = t.execute(void.clone()).unwrap_or_else(|r| panic!("{rulebook}: {void:?} refused: {r}"));
        assert!(ev.iter().any(|e| matches!(e, Event::CoupClosed { .. })), "{rulebook}: {ev:?}");
        // Between coups (or with the shoe over), no wager is taken.
        let before = t.clone();
        let r = t.execute(wager(2));
        assert!(r.is_err(), "{rulebook}: a wager was taken after its coup closed: {r:?}");
        assert!(t == before);
    }
}

/// card_input, seed 0x6a428e18f5293004 iteration 13: a cut position near
/// `usize::MAX` overflowed `cut.at + min` in `CutRules::check`
/// (crates/baccarat-table/src/shoe.rs) instead of being refused.
#[test]
fn a_cut_past_the_end_of_the_shoe_is_refused() {
    for at in [usize::MAX, usize::MAX - 51, usize::MAX / 2] {
        let mut t = table("nsw-2021");
        let before = t.clone();
        let r = t.execute(Command::StartShoe {
            source: ShoeSource::Shuffle { seed: Seed::from_u64(1) },
            cut: Some(Cut { at, from_back: 20 }),
            burn: None,
            show_burn: false,
        });
        assert!(r.is_err(), "cut at {at}: {r:?}");
        assert!(t == before, "a refused cut changed the table");
    }
}

/// card_input, seed 0x6a428e18f5293004 iteration 31: `announce_minimum` with
/// `at_ms` near `u64::MAX` overflowed `at_ms + notice`
/// (crates/baccarat-table/src/engine/wagers.rs, `announce_minimum`). Through
/// the server (http_routes, seed 0x4872dfb8cd99f21c iteration 1780: `POST
/// /api/tables/1/commands` as admin, `{"at_ms":18446744073709551615,
/// "command":"announce_minimum","minimum":4000}`) the panic was in the writer
/// thread: every request after it was answered 503 "the table server stopped".
#[test]
fn a_minimum_announced_at_the_end_of_time_is_refused() {
    let mut t = table("nsw-2021");
    t.execute(Command::StartShoe { source: ShoeSource::Live { decks: 8 }, cut: None, burn: None, show_burn: false })
        .unwrap();
    let before = t.clone();
    let r = t.execute(Command::AnnounceMinimum { minimum: Money(2000), at_ms: u64::MAX });
    assert!(r.is_err(), "{r:?}");
    assert!(t == before, "a refused announcement changed the table");
}

/// The same two inputs through the supervisor's command route at the live
/// table: refused with a 4xx, and the table server goes on serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_overflowing_commands_are_refused_by_the_server() {
    let app = spawn_app().await;
    let sup = app.login("supervisor", "demo").await;
    let seed = Seed::from_u64(1).hex();
    // A person's `at_ms` is replaced by the server's clock, so the end of time
    // never reaches the engine: the sign goes up now, and nothing panics.
    let body = json!({"command": "announce_minimum", "minimum": 2000, "at_ms": u64::MAX});
    let (s, r) = app.post("/api/tables/5/commands", Some(&sup), body.clone()).await;
    assert!(!s.is_server_error(), "{body}: {s} {r}");
    let body = json!({"command": "start_shoe", "source": {"shuffle": {"seed": seed}}, "cut": {"at": u64::MAX, "from_back": 20}, "burn": null, "show_burn": false});
    let (s, r) = app.post("/api/tables/5/commands", Some(&sup), body.clone()).await;
    assert!(s.is_client_error(), "{body}: {s} {r}");
    assert!(r["error"].is_string(), "{body}: {r}");
    // A live shoe's cut is not checked (nor used): accepted as recorded, no panic.
    let live_cut = json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": {"at": u64::MAX, "from_back": 20}, "burn": null, "show_burn": false});
    let (s, r) = app.post("/api/tables/5/commands", Some(&sup), live_cut).await;
    assert!(!s.is_server_error(), "{s} {r}");
    // Still serving: a command goes through the writer and the ledger checks.
    let (s, r) = app
        .post(
            "/api/tables/5/commands",
            Some(&sup),
            json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (s, r) = app.get("/api/ledger/check", Some(&app.admin)).await;
    assert_eq!((s, &r["ok"]), (StatusCode::OK, &json!(true)), "{r}");
}

/// The same through the server: at a live international AU table, a wager taken
/// after the coup was voided would be held in escrow and never released.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_takes_no_wager_after_a_reopened_coup_closes() {
    let app = spawn_app().await;
    let config = "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\ndealing = \"international\"\n[bets.tie]\npay_table = \"8_to_1\"\n";
    let (s, r) =
        app.post("/api/tables", Some(&app.admin), json!({"name": "Intl", "mode": "live", "config": config})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let id = r["table"].as_u64().unwrap();
    let (dealer, sup, p) =
        (app.login("dealer", "demo").await, app.login("supervisor", "demo").await, app.login("player1", "demo").await);
    let cmd = |who: &str, body: serde_json::Value| {
        let path = format!("/api/tables/{id}/commands");
        let who = who.to_string();
        let app = &app;
        async move { app.post(&path, Some(&who), body).await }
    };
    let live = json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false});
    for (who, body) in [(&dealer, live.clone()), (&dealer, json!({"command": "open_betting", "no_bet": false}))] {
        let (s, r) = cmd(who, body).await;
        assert_eq!(s, StatusCode::OK, "{r}");
    }
    let bet = |key: &str| json!({"bet": "tie", "amount": 3000, "key": key});
    let (s, r) = app.post(&format!("/api/tables/{id}/wagers"), Some(&p), bet("first")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    for (who, body) in [
        (&dealer, json!({"command": "card_in", "card": "AC", "to": null, "face_up": true})),
        (&sup, json!({"command": "reopen_wagers"})),
        (&dealer, json!({"command": "missing_or_foreign", "card": "2D"})),
    ] {
        let (s, r) = cmd(who, body.clone()).await;
        assert_eq!(s, StatusCode::OK, "{body}: {r}");
    }
    let (s, r) = app.post(&format!("/api/tables/{id}/wagers"), Some(&p), bet("late")).await;
    let late_refused = s.is_client_error();
    for (who, body) in [(&dealer, live), (&dealer, json!({"command": "open_betting", "no_bet": false}))] {
        let (s, r) = cmd(who, body).await;
        assert_eq!(s, StatusCode::OK, "{r}");
    }
    let (_, me) = app.get("/api/me", Some(&p)).await;
    let (_, check) = app.get("/api/ledger/check", Some(&app.admin)).await;
    assert!(
        late_refused && me["balance"] == me["available"] && check["ok"] == true,
        "the late wager: {s} {r}; then {me}; ledger {check}"
    );
}

/// audit_record: a record whose `hash` or `prev` was respelled (`+0` for
/// `00`, upper case) still verified: the chain's hex parser
/// (`unhex` in crates/baccarat-server/src/audit.rs) took `from_str_radix`'s
/// sign and upper case, so a stored record could be changed without breaking
/// the chain. Only the lower-case spelling `hex` writes is the record.
#[test]
fn a_respelled_hash_or_link_breaks_the_chain() {
    use baccarat_core::audit::{verify, Chain};
    let mut c = Chain::new();
    let records: Vec<_> = (0..3).map(|i| c.append(format!("{{\"table\":1,\"n\":{i}}}"))).collect();
    assert!(verify(&records).is_ok());
    let respell = |h: &str| -> Vec<String> {
        let mut out = vec![h.to_uppercase()];
        if let Some(k) = (0..32).map(|k| 2 * k).find(|&k| &h[k..k + 1] == "0") {
            out.push(format!("{}+{}{}", &h[..k], &h[k + 1..k + 2], &h[k + 2..]));
        }
        out.into_iter().filter(|r| r != h).collect()
    };
    for field in ["hash", "prev"] {
        let original = if field == "hash" { records[1].hash.clone() } else { records[1].prev.clone() };
        for spelling in respell(&original) {
            let mut bad = records.clone();
            if field == "hash" {
                bad[1].hash = spelling.clone();
            } else {
                bad[1].prev = spelling.clone();
            }
            assert!(verify(&bad).is_err(), "record 2's {field} spelled {spelling} verified");
        }
    }
}
