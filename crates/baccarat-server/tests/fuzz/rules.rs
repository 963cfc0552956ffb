//! Targets 1 and 2: a rulebook profile's TOML, and a table configuration's TOML
//! checked against each built-in profile. No panic; a refusal lists at least one
//! problem, each naming where; what is accepted can run a coup without panic,
//! and an accepted configuration written back out is accepted again.

use baccarat_rules::{profiles, Bet, Card, Money, Problems, Rulebook, TableConfig, TableConfigSpec};
use baccarat_table::Seed;
use baccarat_table::{Command, PlayerId, ShoeSource, Spot, Table, TableSetup};

use super::harness::{corpus, corpus_dir, corpus_files, run, Report};
use super::mutate::{bytes, dictionary, lines, replace_word, Rng};

/// A refusal must say something, and say where.
fn check_problems(p: &Problems) -> Result<(), String> {
    if p.problems.is_empty() {
        return Err(format!("refused with no problem listed: {p:?}"));
    }
    if let Some(q) = p.problems.iter().find(|q| q.path.trim().is_empty() || q.message.trim().is_empty()) {
        return Err(format!("a problem that does not say where or what: {q:?} (in {})", p.subject));
    }
    let _ = p.to_string();
    Ok(())
}

/// Mutate a text corpus entry: lines, bytes, words, or several of them.
fn mutate_text(rng: &mut Rng, corpus: &[Vec<u8>], dict: &[String]) -> Vec<u8> {
    let a = &corpus[rng.below(corpus.len())];
    let b = &corpus[rng.below(corpus.len())];
    let text = String::from_utf8_lossy(a);
    let other = String::from_utf8_lossy(b);
    match rng.below(10) {
        0..=3 => lines(rng, &text, &other, dict, 4).into_bytes(),
        4..=5 => bytes(rng, a, b, dict, 4),
        6..=7 => {
            let mut t = text.into_owned();
            for _ in 0..rng.range(1, 3) {
                t = replace_word(rng, &t, dict);
            }
            t.into_bytes()
        }
        _ => {
            let t = lines(rng, &text, &other, dict, 3);
            bytes(rng, t.as_bytes(), b, dict, 2)
        }
    }
}

/// Play what a rulebook and a configuration allow for a moment: a live coup
/// with a wager on every offer, and a shuffled coup dealt out. Refusals are
/// fine; a panic is not, and a refusal must leave the table as it was.
pub fn smoke(rb: Rulebook, cfg: TableConfig) -> Result<(), String> {
    let Ok(setup) = TableSetup::new(rb, cfg, None) else { return Ok(()) };
    let decks = setup.config.decks;
    let offers: Vec<(Bet, Money)> = setup.config.offers.iter().map(|o| (o.bet, o.min)).collect();
    let burn = setup.rulebook.procedures.burn.first().copied();
    let dealt = ["6H", "3S", "KD", "KC", "2C", "9D", "AS", "4H"];
    for live in [true, false] {
        let mut t = Table::new(setup.clone());
        let source = if live { ShoeSource::Live { decks } } else { ShoeSource::Shuffle { seed: Seed::from_u64(3) } };
        let mut cmds = vec![
            Command::StartShoe { source, cut: None, burn: if live { None } else { burn }, show_burn: false },
            Command::OpenBetting { no_bet: false, closes_at: None },
        ];
        for (i, (bet, min)) in offers.iter().enumerate() {
            cmds.push(Command::PlaceWager {
                player: PlayerId(1 + i as u32),
                spot: Spot::Box(1 + (i % 7) as u8),
                bet: *bet,
                amount: *min,
                ante: Money(0),
                token: false,
                at_ms: None,
            });
        }
        if live {
            for c in dealt {
                cmds.push(Command::CardIn { card: c.parse::<Card>().expect("card"), to: None, face_up: true });
            }
        } else {
            cmds.push(Command::CloseBetting);
            cmds.extend(std::iter::repeat_n(Command::DealNext, 8));
        }
        let mut log = Vec::new();
        for c in cmds {
            let before = t.clone();
            match t.execute(c.clone()) {
                Ok(ev) => log.extend(ev),
                Err(_) if t == before => {}
                Err(r) => return Err(format!("{c:?} was refused ({r}) but changed the table")),
            }
        }
        if Table::replay(setup.clone(), &log) != t {
            return Err("the table replayed from its events differs from the table".into());
        }
    }
    Ok(())
}

/// Target 1: `Rulebook::from_toml` on mutated profiles.
pub fn profile_toml() {
    // The shipped profiles are the seeds, with any extra inputs kept in the corpus folder.
    let mut seeds: Vec<Vec<u8>> = profiles::BUILTIN.iter().map(|(_, t)| t.as_bytes().to_vec()).collect();
    seeds.extend(corpus_files(&corpus_dir("profile_toml")).into_iter().map(|(_, b)| b));
    let dict = dictionary(&seeds);
    let minimal = "chip = 100\nmin = 1000\nmax = 100000\n";
    run(
        "profile_toml",
        12_000,
        "toml",
        |rng, _| mutate_text(rng, &seeds, &dict),
        |input, report: &mut Report| {
            let text = String::from_utf8_lossy(input);
            match Rulebook::from_toml(&text) {
                Err(p) => {
                    report.count("refused");
                    check_problems(&p)
                }
                Ok(rb) => {
                    report.count("accepted");
                    // What validates must be usable: a table on it, with every
                    // wager it prints offered on its first pay table.
                    let mut cfg = format!("rulebook = {:?}\n{minimal}", rb.id);
                    for b in &rb.bets {
                        if let (true, Some(first)) = (b.bet == Bet::Tie || !b.bet.is_main(), b.pay_tables.first()) {
                            cfg.push_str(&format!("[bets.{}]\npay_table = {:?}\n", b.bet.id(), first.name));
                        }
                    }
                    let _ = rb.cite(baccarat_rules::Cite::Limits);
                    for text in [format!("rulebook = {:?}\n{minimal}", rb.id), cfg] {
                        match TableConfig::from_toml(&rb, &text) {
                            Ok(c) => {
                                report.count("played");
                                smoke(rb.clone(), c)?
                            }
                            Err(p) => check_problems(&p)?,
                        }
                    }
                    Ok(())
                }
            }
        },
    );
}

/// A configuration written from what the rulebook prints (its decks, variants,
/// dealing styles, wagers and pay tables), with amounts mostly sensible and now
/// and then not: most pass the parser, many pass the checks.
fn gen_table_config(rng: &mut Rng, rb: &Rulebook) -> String {
    let mut t = format!("rulebook = {:?}\n", rb.id);
    let amounts = [100i64, 500, 1000, 2000, 5000, 10_000, 100_000, 500_000];
    let chip = *rng.pick(&[1i64, 25, 100, 100, 100, 500]);
    let min = *rng.pick(&amounts);
    let max = min * rng.range(1, 200);
    if rng.chance(1, 2) {
        let d = if rng.chance(9, 10) { *rng.pick(&rb.decks) as i64 } else { rng.range(0, 10) };
        t.push_str(&format!("decks = {d}\n"));
    }
    if rng.chance(1, 3) {
        t.push_str(&format!("variant = {:?}\n", rng.pick(&rb.variants).id));
    }
    if rng.chance(1, 3) && !rb.layouts.is_empty() {
        t.push_str(&format!("layout = {:?}\n", rng.pick(&rb.layouts).name));
    }
    t.push_str(&format!("chip = {chip}\nmin = {min}\nmax = {max}\n"));
    if rng.chance(1, 3) {
        t.push_str(&format!("differential = {}\n", min * rng.range(1, 100)));
    }
    if rng.chance(1, 3) {
        let style = serde_json::to_value(rng.pick(&rb.procedures.dealing)).ok();
        if let Some(s) = style.as_ref().and_then(|v| v.as_str()) {
            t.push_str(&format!("dealing = {s:?}\n"));
        }
    }
    if rng.chance(1, 5) {
        t.push_str(&format!("side_bets_need_main_wager = {}\n", rng.chance(1, 2)));
    }
    for b in &rb.bets {
        let pick = if b.bet == Bet::Tie { rng.chance(4, 5) } else { !b.bet.is_main() && rng.chance(1, 4) };
        if !pick {
            continue;
        }
        t.push_str(&format!("[bets.{}]\n", b.bet.id()));
        if let Some(p) = (b.pay_tables.len() > 1 || rng.chance(1, 2)).then(|| rng.pick(&b.pay_tables)) {
            t.push_str(&format!("pay_table = {:?}\n", p.name));
        }
        if rng.chance(1, 4) {
            t.push_str(&format!("min = {}\nmax = {}\n", chip * rng.range(1, 10), min * rng.range(1, 10)));
        }
    }
    if rng.chance(1, 4) {
        t.push_str(&format!("[ante]\namount = {}\n", chip * rng.range(1, 3)));
        if rng.chance(1, 2) {
            t.push_str(&format!("waived_at = {}\n", min * rng.range(1, 10)));
        }
    }
    t
}

/// Target 2: `TableConfig::from_toml` against each built-in profile. The input
/// names the profile on its first line (`# against <id>`), so a failing input
/// file reproduces alone.
pub fn table_config_toml() {
    let seeds = corpus("table_config_toml");
    let mut dict = dictionary(&seeds);
    for rb in profiles::all() {
        for b in &rb.bets {
            dict.push(b.bet.id().to_string());
            dict.extend(b.pay_tables.iter().map(|p| p.name.clone()));
        }
        dict.extend(rb.variants.iter().map(|v| v.id.clone()));
        dict.extend(rb.layouts.iter().map(|l| l.name.clone()));
    }
    let books: Vec<Rulebook> = profiles::all();
    run(
        "table_config_toml",
        100_000,
        "toml",
        |rng, i| {
            let id = &books[i as usize % books.len()].id;
            let mut out = format!("# against {id}\n").into_bytes();
            // Written from the rulebook (then sometimes mutated), or a mutated
            // seed; half the time the seed's rulebook is made the one checked
            // against, so the mutations reach past the `rulebook` line.
            if rng.chance(2, 5) {
                let t = gen_table_config(rng, &books[i as usize % books.len()]);
                let t = if rng.chance(1, 3) {
                    let one = [t.into_bytes()];
                    String::from_utf8_lossy(&mutate_text(rng, &one, &dict)).into_owned()
                } else {
                    t
                };
                out.extend(t.into_bytes());
                return out;
            }
            let body = mutate_text(rng, &seeds, &dict);
            let body = if rng.chance(1, 2) {
                let t = String::from_utf8_lossy(&body);
                t.lines()
                    .map(|l| if l.starts_with("rulebook") { format!("rulebook = {id:?}") } else { l.to_string() })
                    .collect::<Vec<_>>()
                    .join("\n")
                    .into_bytes()
            } else {
                body
            };
            out.extend(body);
            out
        },
        |input, report: &mut Report| {
            let text = String::from_utf8_lossy(input);
            let id = text.lines().next().and_then(|l| l.strip_prefix("# against ")).unwrap_or("nsw-2021");
            let rb = books.iter().find(|b| b.id == id).unwrap_or(&books[0]);
            match TableConfig::from_toml(rb, &text) {
                Err(p) => {
                    report.count("refused");
                    check_problems(&p)
                }
                Ok(cfg) => {
                    report.count("accepted");
                    // Written back out, the same configuration is accepted again.
                    let spec: TableConfigSpec = toml::from_str(&text).map_err(|e| format!("accepted but {e}"))?;
                    let again = toml::to_string(&spec).map_err(|e| format!("accepted but cannot be written: {e}"))?;
                    if let Err(p) = TableConfig::from_toml(rb, &again) {
                        return Err(format!("accepted, written out as {again:?}, then refused: {p}"));
                    }
                    smoke(rb.clone(), cfg)
                }
            }
        },
    );
}
