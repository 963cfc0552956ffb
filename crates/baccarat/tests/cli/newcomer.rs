//! The newcomer's path (issue 47, "done means"): an empty casino set up only
//! through `baccarat admin` — staff of every role, a player, two tables of
//! different rulebooks, a deposit — then a coup played by the player, a
//! cash-out, a fill and a credit, and the gaming day's report, which must
//! match the ledger to the cent and pass `baccarat verify --report`.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::TempDir;

const ADMIN_PW: &str = "newcomer-admin-password";

/// `baccarat admin --url URL ARGS --json` as the admin, with `new_password`
/// for the account it makes: the API's answer.
fn admin(url: &str, new_password: Option<&str>, args: &[&str]) -> Value {
    let mut c = Command::new(env!("CARGO_BIN_EXE_baccarat"));
    c.args(["admin", "--url", url]).args(args).arg("--json");
    c.env_remove("BACCARAT_ADMIN_USER").env("BACCARAT_ADMIN_PASSWORD", ADMIN_PW).env_remove("BACCARAT_NEW_PASSWORD");
    if let Some(p) = new_password {
        c.env("BACCARAT_NEW_PASSWORD", p);
    }
    let o: Output = c.stdin(Stdio::null()).output().unwrap();
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "admin {args:?}: {err}{out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("admin {args:?}: {e}: {out}"))
}

async fn as_player(c: &reqwest::Client, url: &str, token: &str, path: &str, body: Option<Value>) -> Value {
    let r = match body {
        Some(b) => c.post(format!("{url}{path}")).bearer_auth(token).json(&b),
        None => c.get(format!("{url}{path}")).bearer_auth(token),
    };
    r.send().await.unwrap().json().await.unwrap()
}

/// The player bets 10.00 on Banker at the first betting window of `table`
/// and waits for that coup to be over: the coup's number.
async fn play_a_coup(c: &reqwest::Client, url: &str, token: &str, table: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    let view = |_: ()| async { c.get(format!("{url}/api/tables/{table}")).send().await.unwrap().json::<Value>().await };
    let coup = loop {
        assert!(Instant::now() < deadline, "no betting window");
        let v = view(()).await.unwrap();
        if v["phase"] == "betting" {
            let w = json!({ "bet": "banker", "amount": 1000, "key": format!("first-bet-{}", v["coup"]) });
            let r = as_player(c, url, token, &format!("/api/tables/{table}/wagers"), Some(w)).await;
            if r["result"] == "wager" || r.get("wager").is_some() {
                break v["coup"].as_u64().unwrap();
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    while view(()).await.unwrap()["coup"].as_u64().unwrap() <= coup || as_held(c, url, token).await != 0 {
        assert!(Instant::now() < deadline, "the coup did not end");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    coup
}

/// What the player has held in open wagers.
async fn as_held(c: &reqwest::Client, url: &str, token: &str) -> i64 {
    let me = as_player(c, url, token, "/api/me", None).await;
    me["balance"].as_i64().unwrap() - me["available"].as_i64().unwrap()
}

#[test]
fn an_empty_casino_set_up_by_the_cli_closes_its_day_to_the_cent() {
    let dir = TempDir::new(&format!("baccarat-newcomer-{}", std::process::id()));
    let db = dir.join("casino.db");
    let pace = ["--betting-seconds", "1", "--deal-ms", "20", "--result-ms", "20"];
    let (server, rx) = crate::founding::serve(&db, Some(ADMIN_PW), &pace);
    let (_, url) = crate::founding::started(&rx);
    // People: one of every role, and a player.
    for (name, role) in [
        ("dan", "dealer"),
        ("sue", "supervisor"),
        ("ivy", "inspector"),
        ("tom", "tournament_manager"),
        ("amy", "admin"),
    ] {
        let v = admin(&url, Some("a-staff-password"), &["users", "add", name, "--role", role]);
        assert_eq!((v["name"].as_str(), v["role"].as_str()), (Some(name), Some(role)), "{v}");
    }
    let carol = admin(&url, Some("carols-password"), &["players", "add", "carol"])["player"].as_u64().unwrap();
    let listed = admin(&url, None, &["users", "list", "--all"]);
    assert_eq!(listed["users"].as_array().unwrap().len(), 7, "the first admin, five staff, a player: {listed}");
    // Two tables of different rulebooks.
    let nsw = dir.join("nsw.toml");
    std::fs::write(&nsw, "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\n").unwrap();
    let au = dir.join("au.toml");
    std::fs::write(
        &au,
        "rulebook = \"au-casino\"\nchip = 100\nmin = 2000\nmax = 500000\n[bets.tie]\npay_table = \"8_to_1\"\n",
    )
    .unwrap();
    let main =
        admin(&url, None, &["tables", "add", "Main", "--config", nsw.to_str().unwrap()])["table"].as_u64().unwrap();
    let salon = admin(&url, None, &["tables", "add", "Salon", "--config", au.to_str().unwrap(), "--mode", "live"]);
    assert!(salon["table"].as_u64().unwrap() != main);
    // Chips, a coup, the cage.
    let c = reqwest::Client::new();
    let rt = tokio::runtime::Runtime::new().unwrap();
    assert_eq!(
        admin(&url, None, &["players", "deposit", &carol.to_string(), "500", "--key", "cage-1"])["balance"],
        50_000
    );
    let token = rt.block_on(crate::common::login(&c, &url, "carol", "carols-password"));
    rt.block_on(play_a_coup(&c, &url, &token, main));
    let out = admin(&url, None, &["players", "cash-out", &carol.to_string(), "100", "--key", "cage-2"]);
    assert_eq!(out["cashed_out"], 10_000);
    let before =
        admin(&url, None, &["tables", "fill", &main.to_string(), "1000", "--key", "fill-1"])["float"].as_i64().unwrap();
    let after = admin(&url, None, &["tables", "credit", &main.to_string(), "500", "--key", "credit-1"])["float"]
        .as_i64()
        .unwrap();
    assert_eq!(before - after, 50_000);
    // The day's books, against the ledger.
    // Without a date, the gaming day in progress.
    let today = admin(&url, None, &["gaming-day", "show"])["today"].as_str().unwrap().to_string();
    let file = dir.join("day.json");
    assert_eq!(admin(&url, None, &["report", "day", "--out", file.to_str().unwrap()])["date"], today.as_str());
    let day: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let me = rt.block_on(as_player(&c, &url, &token, "/api/me", None));
    let row = day["players"].as_array().unwrap().iter().find(|p| p["player"] == carol).cloned().unwrap();
    assert_eq!(row["wagered"], 1_000, "{day}");
    // The wallet: 500.00 in, 100.00 out, and the coup's net, to the cent.
    assert_eq!(me["balance"].as_i64().unwrap(), 50_000 - 10_000 + row["won"].as_i64().unwrap(), "{day}");
    assert_eq!(day["casino"]["win"].as_i64().unwrap(), -row["won"].as_i64().unwrap(), "the house won what she lost");
    assert_eq!((day["cash"]["deposits"].clone(), day["cash"]["cash_outs"].clone()), (json!(50_000), json!(10_000)));
    let t = day["tables"].as_array().unwrap().iter().find(|t| t["table"] == main).cloned().unwrap();
    assert_eq!(
        (t["fills"].clone(), t["credits"].clone(), t["coups"].clone()),
        (json!(100_000), json!(50_000), json!(1))
    );
    assert_eq!(t["drop"], 1_000);
    drop(server);
    // verify: the records, and the saved report against them.
    let o = Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(["verify", "--db", db.to_str().unwrap(), "--report", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
}
