//! Target 4: card-input streams to a live table, garbage tokens included.
//!
//! A stream is text, one token a line (the file a failure writes is the whole
//! input):
//!
//! - `@<setup>` (first line): which table (see [`SETUPS`]); default the first.
//! - `{...}`: a command as the API takes it (JSON), parsed as the server parses it.
//! - `!{...}`: the same, with the ledger refusing what it did (`execute_checked`).
//! - anything else: a card token as the dealer's console sends it, parsed as the
//!   server parses `card_in`'s card; `TOKEN@position` says where it was put and
//!   a trailing `~` that it was face down.
//!
//! Invariants: no panic; a token the card parser refuses is refused by the
//! command parser too, and the two agree on every card; a refused command
//! leaves the table exactly as it was; every event and command survives its
//! JSON round trip (the audit chain stores them so); and the table replayed
//! from its events equals the table.

use baccarat_rules::{profiles, Card, TableConfig};
use baccarat_table::{Command, Event, Refusal, ShoeSource, Table, TableSetup};
use serde_json::{json, Value};

use super::gen::{self, Ctx};
use super::harness::{corpus, corpus_dir, corpus_files, run, Report};
use super::mutate::{self, dictionary, Rng};

/// The tables a stream may name: each rulebook, each way of dealing that
/// changes who holds the cards, a small shoe (foreign cards), an ante.
pub const SETUPS: &[(&str, &str)] = &[
    (
        "nsw",
        "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\ndifferential = 50000\n[bets.player_pair]\n[bets.banker_pair]\n[bets.tiger_tie]\n",
    ),
    ("nsw-method-b", "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\ndealing = \"method_b\"\n[bets.super_six]\n"),
    ("nsw-method-c", "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\ndealing = \"method_c\"\n"),
    ("nsw-3-decks", "rulebook = \"nsw-2021\"\ndecks = 3\nchip = 100\nmin = 1000\nmax = 100000\n"),
    (
        "au-ante",
        "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"8_to_1\"\n[bets.dragon_bonus_player]\npay_table = \"table_1\"\n[ante]\namount = 100\nwaived_at = 5000\n",
    ),
    (
        "au-style-b",
        "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\ndealing = \"style_b\"\n[bets.tie]\npay_table = \"9_to_1\"\n",
    ),
    (
        "au-international",
        "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\ndealing = \"international\"\n[bets.tie]\npay_table = \"8_to_1\"\n",
    ),
    ("resort-squeeze", "rulebook = \"resort-house\"\nchip = 100\nmin = 1000\nmax = 100000\ndealing = \"squeeze\"\n[bets.player_pair]\n"),
    (
        "eu-hold",
        "rulebook = \"european-casino\"\nchip = 100\nmin = 1000\nmax = 100000\ndifferential = 50000\ndealing = \"players_hold_cards\"\n[bets.banker_pair]\n",
    ),
];

fn setups() -> Vec<(&'static str, TableSetup)> {
    SETUPS
        .iter()
        .map(|(name, text)| {
            let id = text.split('"').nth(1).expect("rulebook");
            let rb = profiles::builtin(id).expect("built-in");
            let cfg = TableConfig::from_toml(&rb, text).unwrap_or_else(|e| panic!("setup {name}: {e}"));
            (*name, TableSetup::new(rb, cfg, None).unwrap_or_else(|e| panic!("setup {name}: {e}")))
        })
        .collect()
}

/// The command templates: the command corpus (`fuzz/corpus/http/commands`).
pub fn templates() -> Vec<Value> {
    corpus_files(&corpus_dir("http").join("commands"))
        .into_iter()
        .map(|(p, b)| serde_json::from_slice(&b).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .collect()
}

/// A fresh stream: a setup, then cards and commands, with well-formed coups
/// (open, wagers, cards) often enough to get deep into the irregularities.
fn generate(rng: &mut Rng, templates: &[Value]) -> String {
    let mut out = vec![format!("@{}", rng.pick(SETUPS).0)];
    let ctx = Ctx { players: vec![1, 2, 3, 4], wagers: (1..12).collect(), chip: 100, min: 1000 };
    let n = rng.range(1, 80);
    while (out.len() as i64) < n {
        match rng.below(20) {
            0..=8 => {
                let mut t = if rng.chance(1, 10) { gen::garbage_card(rng) } else { gen::card(rng) };
                if rng.chance(1, 10) {
                    t.push('@');
                    let pos = if rng.chance(9, 10) { *rng.pick(&gen::POSITIONS) } else { "player4" };
                    t.push_str(pos);
                }
                if rng.chance(1, 10) {
                    t.push('~');
                }
                out.push(t.replace('\n', " "));
            }
            9..=10 => {
                // A coup's opening: betting, a few wagers.
                out.push(json!({"command": "open_betting", "no_bet": false}).to_string());
                for p in 1..=rng.range(0, 4) {
                    let bet = rng.pick(&["player", "banker", "tie", "player_pair", "banker_pair", "super_six"]);
                    let amount = 1000 * rng.range(1, 5);
                    out.push(json!({"command": "place_wager", "player": p, "spot": {"box": p}, "bet": bet,
                        "amount": amount, "ante": if rng.chance(1, 3) { 100 } else { 0 }, "token": false}).to_string());
                }
            }
            11 => out.push(json!({"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": null, "burn": null, "show_burn": false}).to_string()),
            _ => {
                let c = gen::command(rng, templates, &ctx);
                let bang = if rng.chance(1, 10) { "!" } else { "" };
                let text = if rng.chance(1, 10) {
                    String::from_utf8_lossy(&mutate::json_text(rng, &c)).replace('\n', " ")
                } else {
                    c.to_string()
                };
                out.push(format!("{bang}{text}"));
            }
        }
    }
    out.join("\n")
}

/// A mutated corpus stream: lines moved, doubled, dropped, spliced; a command
/// line's fields changed; a card made garbage.
fn mutate_stream(rng: &mut Rng, corpus: &[Vec<u8>], dict: &[String], templates: &[Value]) -> String {
    let a = String::from_utf8_lossy(&corpus[rng.below(corpus.len())]).into_owned();
    let b = String::from_utf8_lossy(&corpus[rng.below(corpus.len())]).into_owned();
    let mut ls: Vec<String> = if rng.chance(2, 3) {
        mutate::lines(rng, &a, &b, dict, 4).lines().map(str::to_string).collect()
    } else {
        a.lines().map(str::to_string).collect()
    };
    let ctx = Ctx { players: vec![1, 2, 3, 4], wagers: (1..12).collect(), chip: 100, min: 1000 };
    for _ in 0..rng.range(1, 4) {
        if ls.is_empty() {
            break;
        }
        let i = rng.below(ls.len());
        let l = ls[i].clone();
        ls[i] = match serde_json::from_str::<Value>(l.trim_start_matches('!')) {
            Ok(v) if v.is_object() => {
                let v = if rng.chance(1, 2) {
                    gen::fill_object(rng, &v, &ctx)
                } else {
                    let other = rng.pick(templates).clone();
                    mutate::json(rng, &v, &other, 2)
                };
                String::from_utf8_lossy(&mutate::json_text(rng, &v)).replace('\n', " ")
            }
            _ if rng.chance(1, 2) => gen::garbage_card(rng).replace('\n', " "),
            _ => gen::card(rng),
        };
    }
    // Now and then another table.
    if rng.chance(1, 4) {
        if ls.first().is_some_and(|l| l.starts_with('@')) {
            ls.remove(0);
        }
        ls.insert(0, format!("@{}", rng.pick(SETUPS).0));
    }
    ls.join("\n")
}

/// One line of a stream: the command it makes, `None` if the API's parser
/// refuses it (nothing reaches the table), or a broken parser invariant.
fn parse_line(line: &str) -> Result<Option<(Command, bool)>, String> {
    let (ledger_refuses, body) = match line.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    if body.trim_start().starts_with('{') {
        return Ok(serde_json::from_str::<Command>(body).ok().map(|c| (c, ledger_refuses)));
    }
    let (body, face_up) = match body.strip_suffix('~') {
        Some(b) => (b, false),
        None => (body, true),
    };
    let (token, to) = match body.rsplit_once('@') {
        Some((t, p)) => (t, Value::String(p.to_string())),
        None => (body, Value::Null),
    };
    let parsed = token.parse::<Card>();
    let cmd =
        serde_json::from_value::<Command>(json!({"command": "card_in", "card": token, "to": to, "face_up": face_up}));
    match (&parsed, &cmd) {
        (Ok(c), Ok(Command::CardIn { card, .. })) if c != card => {
            return Err(format!("token {token:?}: the card parser reads {c}, the command parser {card}"))
        }
        (Err(_), Ok(_)) => {
            return Err(format!("token {token:?}: the card parser refuses it, the command parser takes it"))
        }
        // A card's text form parses back to the card.
        (Ok(c), _) if c.to_string().parse::<Card>().as_ref() != Ok(c) => {
            return Err(format!("card {c} does not parse back from its own text"))
        }
        _ => {}
    }
    Ok(cmd.ok().map(|c| (c, ledger_refuses)))
}

/// The wagers' lifecycle as the events tell it: each placed once, each
/// settled, withdrawn or returned once, none left open when the next coup's
/// betting opens, and every settlement's money consistent (`returned + lost ==
/// stake`, nothing negative, commission within the winnings, the stake the
/// wager's amount).
#[derive(Default)]
struct Wagers {
    open: std::collections::BTreeMap<u64, i64>,
    seen: std::collections::BTreeSet<u64>,
}

impl Wagers {
    fn absorb(&mut self, e: &Event) -> Result<(), String> {
        match e {
            Event::WagerPlaced { wager } => {
                if !self.seen.insert(wager.id.0) {
                    return Err(format!("wager {} placed twice", wager.id));
                }
                self.open.insert(wager.id.0, wager.amount.0);
            }
            Event::WagerReduced { wager, to, .. } => match self.open.get_mut(&wager.0) {
                Some(a) if to.0 > 0 && to.0 <= *a => *a = to.0,
                Some(a) => return Err(format!("wager {wager} of {a} reduced to {to}")),
                None => return Err(format!("wager {wager} reduced but not open")),
            },
            // The guard takes the wager out of the open ones; failing, it was not open.
            Event::WagerWithdrawn { wager } | Event::WagerReturned { wager, .. }
                if self.open.remove(&wager.0).is_none() =>
            {
                return Err(format!("wager {wager} withdrawn or returned but not open: {e:?}"));
            }
            Event::WagerSettled { wager, settlement: st, .. } => {
                let Some(amount) = self.open.remove(&wager.0) else {
                    return Err(format!("wager {wager} settled but not open: {e:?}"));
                };
                let parts = [st.stake, st.returned, st.lost, st.won, st.commission, st.void];
                if st.stake.0 != amount
                    || st.returned.0 + st.lost.0 != st.stake.0
                    || parts.iter().any(|m| m.0 < 0)
                    || st.commission > st.won
                    || st.void > st.returned
                {
                    return Err(format!("wager {wager} of {amount} settled inconsistently: {st:?}"));
                }
            }
            Event::BettingOpened { .. } if !self.open.is_empty() => {
                return Err(format!("betting opened with wagers of an earlier coup still open: {:?}", self.open));
            }
            _ => {}
        }
        Ok(())
    }
}

fn is_wager_command(c: &Command) -> bool {
    matches!(
        c,
        Command::PlaceWager { .. }
            | Command::WithdrawWager { .. }
            | Command::ApproveWager { .. }
            | Command::RefuseWager { .. }
    )
}

/// Run one stream.
fn play(text: &str, setups: &[(&'static str, TableSetup)], report: &mut Report) -> Result<(), String> {
    let mut lines = text.lines().peekable();
    let setup = match lines.peek().and_then(|l| l.strip_prefix('@')) {
        Some(name) => {
            let s = setups.iter().find(|(n, _)| *n == name.trim()).map(|(_, s)| s.clone());
            lines.next();
            s.unwrap_or_else(|| setups[0].1.clone())
        }
        None => setups[0].1.clone(),
    };
    let mut t = Table::new(setup.clone());
    let decks = setup.config.decks;
    let mut log = t
        .execute(Command::StartShoe { source: ShoeSource::Live { decks }, cut: None, burn: None, show_burn: false })
        .map_err(|r| format!("the live shoe did not start: {r}"))?;
    let mut wagers = Wagers::default();
    for (n, line) in lines.enumerate() {
        if line.starts_with('#') {
            continue;
        }
        let Some((cmd, ledger_refuses)) = parse_line(line).map_err(|e| format!("line {}: {e}", n + 2))? else {
            report.count("unparsed");
            continue;
        };
        let round = serde_json::to_string(&cmd).map_err(|e| format!("{cmd:?} does not serialise: {e}"))?;
        match serde_json::from_str::<Command>(&round) {
            Ok(c) if c == cmd => {}
            other => return Err(format!("command {round} does not round-trip: {other:?}")),
        }
        let before = t.clone();
        let r = if ledger_refuses && !is_wager_command(&cmd) {
            t.execute_checked(cmd.clone(), |_| Err(Refusal::new("ledger", "the fuzzer's ledger refuses")))
        } else {
            t.execute(cmd.clone())
        };
        match r {
            Ok(ev) => {
                report.count("accepted");
                for e in &ev {
                    wagers.absorb(e).map_err(|why| format!("line {}: {cmd:?}: {why}", n + 2))?;
                    let s = serde_json::to_string(e).map_err(|err| format!("{e:?} does not serialise: {err}"))?;
                    match serde_json::from_str::<Event>(&s) {
                        Ok(back) if back == *e => {}
                        other => return Err(format!("event {s} does not round-trip: {other:?}")),
                    }
                }
                log.extend(ev);
            }
            Err(r) => {
                report.count("refused");
                if t != before {
                    return Err(format!("line {}: {cmd:?} was refused ({r}) but changed the table", n + 2));
                }
                if r.rule().is_empty() && r.message.is_empty() {
                    return Err(format!("line {}: {cmd:?} refused with no rule and no message", n + 2));
                }
            }
        }
        // Whatever the state, these answer.
        let _ = (t.view(None), t.due(), t.shoe_progress(), t.phase());
    }
    if Table::replay(setup, &log) != t {
        return Err("the table replayed from its events differs from the table".into());
    }
    Ok(())
}

pub fn card_input() {
    let seeds = corpus("card_input");
    let templates = templates();
    let mut dict = dictionary(&seeds);
    dict.extend(gen::POSITIONS.iter().map(|p| p.to_string()));
    let setups = setups();
    run(
        "card_input",
        15_000,
        "txt",
        |rng, _| {
            if rng.chance(1, 2) {
                mutate_stream(rng, &seeds, &dict, &templates).into_bytes()
            } else {
                generate(rng, &templates).into_bytes()
            }
        },
        |input, report| play(&String::from_utf8_lossy(input), &setups, report),
    );
}
