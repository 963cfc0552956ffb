//! A promotion run through the server (NSW 16): published with its draw's
//! commitment before entries close, drawn after its time from the entries
//! the audit log gives, cash prizes paid from the cage into wallets, the
//! scrutineer a large prize needs (16.2), refused claims kept (16.9.1), kept
//! across a restart, and checked again by `verify`.

use baccarat_core::TableId;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use baccarat_casino::casino::promotions::{check_draw, RefusedClaim};
use baccarat_casino::casino::{recover, Code, Keys, Reply, Request};
use baccarat_core::audit::CasinoEvent;
use baccarat_rules::promotion::Terms;
use baccarat_rules::Money;
use baccarat_server::serve::{open, write_checkpoint};
use baccarat_server::verify::verify_file;
use baccarat_table::PlayerId;

use super::checkpoint::{config, deposits, play, step};

/// 2026-12-01T00:00:00Z.
const NOW: u64 = 1_796_083_200_000;
/// After the draw's time, 2026-12-04T09:00:00Z.
const AFTER_DRAW: u64 = 1_796_374_800_000;

fn refused(r: Reply, rule: &str) {
    match r {
        Reply::Refused { rule: Some(got), message, .. } => assert_eq!(got, rule, "{message}"),
        other => panic!("expected a refusal under {rule}: {other:?}"),
    }
}

#[test]
fn a_promotion_is_published_drawn_from_the_log_paid_and_verified() {
    let (_dir, mut cfg) = config("promotion-draw");
    let now = Arc::new(AtomicU64::new(NOW));
    let n = now.clone();
    cfg.clock = Arc::new(move || n.load(Ordering::SeqCst));
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../promotions/friday-draw.toml")).unwrap();
    let text = example.replace("minimum_wager = 10000", "minimum_wager = 4000");
    // Bad terms are refused, naming the field.
    let r = step(&mut o, Request::CreatePromotion { terms: text.replace("closes = ", "closes_at = ") });
    assert_eq!(r.code(), Some(Code::Config), "{r:?}");
    let r = step(&mut o, Request::CreatePromotion { terms: text.clone() });
    assert_eq!(r, Reply::Promotion { promotion: 1 });
    let commitment = o.casino.promotions[&1].state.commitment.clone();
    play(&mut o, 3, 0, false);
    // Not before the draw's time (NSW 16.7.7).
    let terms = Terms::from_toml(&text).unwrap();
    let entries = baccarat_cluster::promotion_entries::entries(&cfg.db, &terms).unwrap();
    assert!(!entries.is_empty());
    let draw = |s: Option<&str>| Request::DrawPromotion {
        promotion: 1,
        entries: entries.clone(),
        scrutineer: s.map(String::from),
    };
    refused(step(&mut o, draw(None)), "NSW 16.7.7");
    now.store(AFTER_DRAW, Ordering::SeqCst);
    let before: Vec<i64> = (100..105).map(|p| o.casino.balance(PlayerId(p)).unwrap().0 .0).collect();
    assert_eq!(step(&mut o, draw(None)), Reply::Promotion { promotion: 1 });
    refused(step(&mut o, draw(None)), "NSW 16.7.1");
    let drawn = o.casino.promotions[&1].state.drawn.clone().unwrap();
    // The $25,000 cash prize's draw is overseen by the terms' scrutineer (NSW 16.2).
    assert_eq!(drawn.scrutineer.as_deref(), Some("J. Citizen, independent scrutineer"));
    // One prize per player: five prizes, five players with entries.
    assert_eq!(drawn.winners.len(), terms.draws().len().min(entries.len()));
    let mut winners: Vec<u32> = drawn.winners.iter().map(|w| w.player.0).collect();
    winners.sort();
    winners.dedup();
    assert_eq!(winners.len(), drawn.winners.len(), "one prize per player");
    // The cash prize went into its winner's wallet; nothing else moved.
    for (i, p) in (100..105u32).enumerate() {
        let cash: i64 = drawn.winners.iter().filter(|w| w.player.0 == p).map(|w| w.paid.0).sum();
        assert_eq!(o.casino.balance(PlayerId(p)).unwrap().0 .0, before[i] + cash, "player {p}");
    }
    assert_eq!(drawn.winners[0].paid, Money(2_500_000));
    assert_eq!(drawn.seed.commitment_hex(), commitment, "the seed revealed is the one committed to");
    // Claims at the desk (NSW 16.7.8): the suite's cash alternative (16.3) into
    // the wallet, once; none for the dinner, whose terms offer none; the cash
    // prize was paid at the draw.
    let claim = |prize: u32, cash_alternative: bool| Request::ClaimPrize { promotion: 1, prize, cash_alternative };
    let suite = drawn.winners[1].player;
    let before = o.casino.balance(suite).unwrap().0;
    assert_eq!(step(&mut o, claim(1, true)), Reply::Promotion { promotion: 1 });
    assert_eq!(o.casino.balance(suite).unwrap().0, before + Money(180_000));
    refused(step(&mut o, claim(1, false)), "NSW 16.7.8");
    refused(step(&mut o, claim(2, true)), "NSW 16.3");
    refused(step(&mut o, claim(0, false)), "NSW 16.4");
    refused(step(&mut o, claim(9, false)), "NSW 16.7.8");
    let dinner = drawn.winners[2].player;
    let before = o.casino.balance(dinner).unwrap().0;
    assert_eq!(step(&mut o, claim(2, false)), Reply::Promotion { promotion: 1 });
    assert_eq!(o.casino.balance(dinner).unwrap().0, before, "a prize claimed as itself moves no money");
    // A refused claim is kept with its reasons (NSW 16.9.1); an empty one is not.
    let refusal = |reasons: &str| RefusedClaim {
        claimant: "A. Claimant".into(),
        address: "1 Main St".into(),
        value: Money(40_000),
        reasons: reasons.into(),
    };
    assert_eq!(step(&mut o, Request::RefuseClaim { promotion: 1, claim: refusal("") }).code(), Some(Code::Bounds));
    let r = step(&mut o, Request::RefuseClaim { promotion: 1, claim: refusal("claimed after 30 days") });
    assert_eq!(r, Reply::Promotion { promotion: 1 });
    let r = step(&mut o, Request::RefuseClaim { promotion: 9, claim: refusal("x") });
    assert_eq!(r.code(), Some(Code::NoPromotion));

    // Kept across a restart (checkpoint and full replay); verify counts the
    // entries again and redraws.
    let live = o.casino.promotions[&1].state.clone();
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    drop(o);
    let again = open(&cfg).unwrap();
    assert_eq!(again.casino.promotions[&1].state, live);
    let full = recover(&again.store, None, Keys::Since(0), &Default::default()).unwrap();
    assert_eq!(full.casino.promotions[&1].state, live);
    drop(again);
    let (f, _) = verify_file(&cfg.db, None, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);

    // What verify catches: other winners, other entries, another seed.
    let e = CasinoEvent::PromotionDrawn {
        promotion: 1,
        entries: drawn.entries,
        entries_sha256: drawn.entries_sha256.clone(),
        seed: drawn.seed,
        scrutineer: drawn.scrutineer.clone(),
        winners: drawn.winners.clone(),
    };
    assert!(check_draw(&terms, &commitment, &e, &entries).is_empty());
    let mut swapped = e.clone();
    if let CasinoEvent::PromotionDrawn { winners, .. } = &mut swapped {
        let (a, b) = (winners[0].player, winners[1].player);
        winners[0].player = b;
        winners[1].player = a;
    }
    assert!(check_draw(&terms, &commitment, &swapped, &entries).iter().any(|p| p.contains("winners")));
    let fewer: Vec<(PlayerId, u64)> = entries.iter().map(|(p, n)| (*p, n.saturating_sub(1).max(1))).collect();
    assert!(check_draw(&terms, &commitment, &e, &fewer).iter().any(|p| p.contains("entries")));
    let other = baccarat_table::Seed::from_u64(1).commitment_hex();
    assert!(check_draw(&terms, &other, &e, &entries).iter().any(|p| p.contains("commitment")));
    // A draw recorded twice (a second payout) is named.
    let mut r = baccarat_casino::casino::tournaments::Replay::default();
    let published = CasinoEvent::PromotionPublished { promotion: 1, terms: String::new(), commitment, seed: None };
    r.feed(1, &published, None);
    r.feed(2, &e, None);
    r.feed(3, &e, None);
    assert!(r.problems.iter().any(|p| p.contains("second time")), "{:?}", r.problems);
}

/// A promotion's commitment must be public before entries close (NSW 16.7.6).
#[test]
fn a_promotion_is_not_published_after_entries_close() {
    let (_dir, mut cfg) = config("promotion-late");
    cfg.clock = Arc::new(|| AFTER_DRAW);
    let mut o = open(&cfg).unwrap();
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../promotions/friday-draw.toml")).unwrap();
    refused(step(&mut o, Request::CreatePromotion { terms: text }), "NSW 16.7.6");
    assert!(o.casino.promotions.is_empty());
}

/// Over HTTP: the public sees the commitment but never the seed before the
/// draw; only an admin publishes and draws; refused claims (names,
/// addresses) are for admins and inspectors only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn promotions_over_http_keep_the_seed_and_claimants_private() {
    use reqwest::StatusCode;
    use serde_json::json;
    let now = Arc::new(AtomicU64::new(NOW));
    let n = now.clone();
    let app = super::common::spawn_app_with(|c| c.clock = Arc::new(move || n.load(Ordering::SeqCst))).await;
    let terms =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../promotions/friday-draw.toml")).unwrap();
    let p1 = app.login("player1", "demo").await;
    let (s, _) = app.post("/api/promotions", Some(&p1), json!({ "terms": terms })).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, r) = app.post("/api/promotions", Some(&app.admin), json!({ "terms": terms })).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (_, one) = app.get("/api/promotions/1", None).await;
    assert_eq!(one["commitment"].as_str().unwrap().len(), 64, "{one}");
    assert!(one["drawn"].is_null() && !one.to_string().contains("\"seed\":\""), "{one}");
    let (s, e) = app.post("/api/promotions/1/draw", Some(&app.admin), json!({})).await;
    assert_eq!((s, e["rule"].as_str()), (StatusCode::CONFLICT, Some("NSW 16.7.7")), "{e}");
    now.store(AFTER_DRAW, Ordering::SeqCst);
    let admin = app.login("test-admin", "admin-pass").await;
    let (s, r) = app.post("/api/promotions/1/draw", Some(&admin), json!({})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (_, one) = app.get("/api/promotions/1", None).await;
    let seed = one["drawn"]["seed"].as_str().unwrap();
    let seed = baccarat_table::Seed::from_hex(seed).unwrap();
    assert_eq!(seed.commitment_hex(), one["commitment"].as_str().unwrap());
    let claim = json!({ "claimant": "A. Claimant", "address": "1 Main St", "value": 40000, "reasons": "late" });
    let (s, _) = app.post("/api/promotions/1/refused-claims", Some(&admin), claim).await;
    assert_eq!(s, StatusCode::OK);
    let p1 = app.login("player1", "demo").await;
    let (s, _) = app.get("/api/promotions/1/refused-claims", Some(&p1)).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    let (s, _) = app.get("/api/promotions/1/refused-claims", None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let inspector = app.login("inspector", "demo").await;
    let (s, r) = app.get("/api/promotions/1/refused-claims", Some(&inspector)).await;
    assert_eq!((s, r["refused"][0]["address"].as_str()), (StatusCode::OK, Some("1 Main St")), "{r}");
    let (s, e) = app.get("/api/promotions/7", None).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_promotion")), "{e}");
    let (_, v) = app.get("/api/verify", Some(&admin)).await;
    assert_eq!(v["ok"], true, "{v}");
}

/// Promotional tokens (NSW 1.1 "Casino Promotional Token") issued by a
/// promotion's draw and wagered at an NSW table: the stake is held from the
/// tokens, comes back as tokens on a win or a tie's push, is retired when
/// lost, and winnings are paid in chips into the wallet; a table whose
/// rulebook has no tokens refuses them; `verify` reconciles every movement.
#[test]
fn promotional_tokens_are_issued_by_a_draw_and_wagered_under_the_rule() {
    use baccarat_rules::Bet;
    use baccarat_table::{Command, Phase, Spot};
    let (_dir, mut cfg) = config("promotion-tokens");
    let now = Arc::new(AtomicU64::new(NOW));
    let n = now.clone();
    cfg.clock = Arc::new(move || n.load(Ordering::SeqCst));
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../promotions/friday-draw.toml")).unwrap();
    let head = example.split("[[prizes]]").next().unwrap().replace("minimum_wager = 10000", "minimum_wager = 4000");
    let text = format!(
        "{head}[[prizes]]\ndescription = \"Promotional tokens\"\nkind = \"promotional_tokens\"\nvalue = 50000\ncount = 5\n"
    );
    let terms = Terms::from_toml(&text).unwrap();
    assert_eq!(step(&mut o, Request::CreatePromotion { terms: text }), Reply::Promotion { promotion: 1 });
    play(&mut o, 2, 0, false);
    let entries = baccarat_cluster::promotion_entries::entries(&cfg.db, &terms).unwrap();
    now.store(AFTER_DRAW, Ordering::SeqCst);
    let r = step(&mut o, Request::DrawPromotion { promotion: 1, entries, scrutineer: None });
    assert_eq!(r, Reply::Promotion { promotion: 1 });
    let drawn = o.casino.promotions[&1].state.drawn.clone().unwrap();
    let winner = drawn.winners[0].player;
    assert_eq!(drawn.winners[0].tokens, Money(50_000));
    assert_eq!(o.casino.token_balance(winner), Some((Money(50_000), Money(50_000))));

    // A table whose rulebook has no promotional tokens refuses them (AU).
    let token_wager = |table: TableId, player: PlayerId, amount: i64, key: &str| Request::TokenWager {
        table,
        player,
        spot: Spot::Box(1),
        bet: Bet::Banker,
        amount: Money(amount),
        key: key.parse().unwrap(),
    };
    for table in [1, 2].map(TableId) {
        if matches!(o.casino.phase(table), Some(Phase::NoShoe | Phase::ShoeOver)) {
            step(&mut o, Request::NewShoe { table });
        }
        step(&mut o, super::checkpoint::server(table, Command::OpenBetting { no_bet: false, closes_at: None }));
    }
    let r = step(&mut o, token_wager(TableId(2), winner, 2000, "au"));
    assert!(matches!(&r, Reply::Refused { message, .. } if message.contains("no promotional tokens")), "{r:?}");
    // More than the tokens held; someone with none.
    assert_eq!(step(&mut o, token_wager(TableId(1), winner, 60_000, "big")).code(), Some(Code::Wallet));
    let other = (100..105).map(PlayerId).find(|p| drawn.winners.iter().all(|w| w.player != *p));
    if let Some(p) = other {
        assert_eq!(step(&mut o, token_wager(TableId(1), p, 2000, "none")).code(), Some(Code::Wallet));
    }
    let wallet_before = o.casino.balance(winner).unwrap().0;
    let r = step(&mut o, token_wager(TableId(1), winner, 20_000, "t1"));
    assert!(matches!(r, Reply::Wager { .. }), "{r:?}");
    // The same key again answers the same wager; as a cash wager it is refused.
    assert_eq!(step(&mut o, token_wager(TableId(1), winner, 20_000, "t1")), r);
    let cash = Request::Wager {
        table: TableId(1),
        player: winner,
        spot: Spot::Box(1),
        bet: Bet::Banker,
        amount: Money(20_000),
        ante: Money::ZERO,
        key: "t1".parse().unwrap(),
    };
    assert_eq!(step(&mut o, cash).code(), Some(Code::Idempotency));
    assert_eq!(o.casino.token_balance(winner), Some((Money(50_000), Money(30_000))), "held from the tokens");
    assert_eq!(o.casino.balance(winner).unwrap().0, wallet_before, "the wallet is untouched");
    step(&mut o, super::checkpoint::server(TableId(1), Command::CloseBetting));
    while matches!(o.casino.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
        step(&mut o, super::checkpoint::server(TableId(1), Command::DealNext));
    }
    let tokens = o.casino.token_balance(winner).unwrap();
    let wallet = o.casino.balance(winner).unwrap().0;
    // Win: tokens back, 19,000 in chips (NSW: banker pays 95%). Tie: a push,
    // tokens back. Lose: tokens retired, no chips.
    match (tokens.0 .0, wallet.0 - wallet_before.0) {
        (50_000, 19_000) | (50_000, 0) | (30_000, 0) => {}
        other => panic!("tokens and chips after the coup: {other:?}"),
    }
    assert_eq!(tokens.0, tokens.1, "nothing held once settled");
    drop(o);
    let (f, _) = verify_file(&cfg.db, None, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    let again = open(&cfg).unwrap();
    assert_eq!(again.casino.token_balance(winner), Some(tokens), "kept across a restart");
}
