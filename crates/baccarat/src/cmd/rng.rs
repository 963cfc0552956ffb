//! `baccarat rng`: the shuffle's statistical evidence (issue 11 §5; 25 CFR
//! 547.14, 11VAC20-20-510, GLI-19).
//!
//! * `stream` writes the keystream words the shuffle consumes, for external
//!   batteries: `baccarat rng stream | dieharder -g 200 -a`.
//! * `positions` writes shuffled shoes' cards in dealing order, for an
//!   independent lab's own analysis.
//! * `report` runs the built-in suite (`baccarat_math::rng_evidence`) and
//!   exits 1 when a verdict fails.
//!
//! Shoe `i` of a run is shuffled from `Seed::derive(master, i)` exactly as an
//! RNG table shuffles from its fresh seed (shuffle, then the cut drawn from the
//! same stream, then the cutting card at the table's place), so every figure
//! can be replayed from the master seed the command prints.

use std::io::{BufWriter, ErrorKind, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use baccarat_math::rng_evidence::{
    fmt_p, matches_table_shoes, run as run_suite, Check, Procedure, Report, ShoeDraw, ShoeSource, TableShoes, ALPHA,
};
use baccarat_rules::Rulebook;
use baccarat_table::{Seed, SHUFFLE_ALGORITHM};

/// The most shoes one run may take (a bound, so a typo cannot run for days).
const MAX_SHOES: u64 = 1_000_000_000;

/// Shoes checked card for card against the table code's own shoe in a report.
const CROSS_CHECKED: u64 = 1_000;

#[derive(clap::Subcommand)]
pub enum RngCommand {
    /// Write, as binary to stdout, the 16-bit little-endian keystream words each
    /// shoe's shuffle and cut consume (rejected draws included), shoe after shoe.
    /// Unbounded without --bytes: `baccarat rng stream | dieharder -g 200 -a`.
    Stream(StreamArgs),
    /// Write shuffled shoes, one per line: the shoe number, the cut (cards moved
    /// to the back), the cards behind the cutting card, then each card in dealing
    /// order as 52·deck + 4·rank + suit (rank A=0 … K=12; suit C D H S = 0 … 3).
    /// With --binary: per shoe, the card numbers as 16-bit little-endian words.
    Positions(PositionsArgs),
    /// Run the statistical suite over shuffled shoes and print each test's
    /// statistic, p-value and verdict; exit 1 when a verdict fails.
    Report(ReportArgs),
}

#[derive(clap::Args)]
pub struct Common {
    /// Master seed: 64 hex digits or a number. Default: fresh from the OS, printed
    /// so the run can be replayed.
    #[arg(long)]
    seed: Option<String>,
    /// A built-in rulebook or a profile file: its cut bounds and cutting card.
    #[arg(long, default_value = "nsw-2021")]
    rulebook: String,
    /// Decks in the shoe. Default: the rulebook's largest.
    #[arg(long)]
    decks: Option<u32>,
}

#[derive(clap::Args)]
pub struct StreamArgs {
    #[command(flatten)]
    common: Common,
    /// Stop after this many bytes. Default: never (until the reader closes).
    #[arg(long)]
    bytes: Option<u64>,
}

#[derive(clap::Args)]
pub struct PositionsArgs {
    #[command(flatten)]
    common: Common,
    /// Number of shoes.
    #[arg(long, default_value_t = 1_000)]
    shoes: u64,
    /// Binary output: each shoe's card numbers as 16-bit little-endian words.
    #[arg(long)]
    binary: bool,
}

#[derive(clap::Args)]
pub struct ReportArgs {
    #[command(flatten)]
    common: Common,
    /// Number of shoes.
    #[arg(long, default_value_t = 1_000_000)]
    shoes: u64,
    /// Worker threads. Default: all cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(c: RngCommand) -> Result<()> {
    match c {
        RngCommand::Stream(a) => stream(a),
        RngCommand::Positions(a) => positions(a),
        RngCommand::Report(a) => report(a),
    }
}

fn parse_seed(s: &str) -> Result<Seed> {
    if let Ok(n) = s.parse::<u64>() {
        return Ok(Seed::from_u64(n));
    }
    Seed::from_hex(s).with_context(|| format!("--seed: {s:?} is neither a number nor 64 hex digits"))
}

/// The rulebook, the table's procedure and the master seed.
fn setup(c: &Common) -> Result<(Rulebook, Procedure, Seed)> {
    let rb = super::load_rulebook(&c.rulebook).context("--rulebook")?;
    let decks = c.decks.unwrap_or_else(|| rb.default_decks());
    if !rb.decks.contains(&decks) {
        bail!("--decks: {} allows {:?} decks, not {decks} ({})", rb.id, rb.decks, rb.decks_rule);
    }
    let proc = Procedure::for_rulebook(&rb, decks);
    let (lo, hi) = proc.cut_range();
    if lo >= hi {
        bail!(
            "--decks: {decks} decks ({} cards) leave no range for a cut at least {lo} cards from either end ({})",
            proc.cards(),
            rb.procedures.cut_rule
        );
    }
    let seed = match &c.seed {
        Some(s) => parse_seed(s)?,
        None => baccarat_core::os_seed().map_err(anyhow::Error::msg)?,
    };
    Ok((rb, proc, seed))
}

fn shoes_in_range(shoes: u64, min: u64) -> Result<()> {
    if shoes < min || shoes > MAX_SHOES {
        bail!("--shoes: {shoes} is outside {min} to {MAX_SHOES}");
    }
    Ok(())
}

/// A write that fails because the reader went away (dieharder closes its
/// input when done) ends the output quietly.
fn finished(r: std::io::Result<()>) -> Result<bool> {
    match r {
        Ok(()) => Ok(false),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(true),
        Err(e) => Err(e).context("writing to stdout"),
    }
}

fn stream(a: StreamArgs) -> Result<()> {
    let (_, proc, master) = setup(&a.common)?;
    if a.bytes == Some(0) {
        bail!("--bytes: 0 writes nothing; give at least 1");
    }
    eprintln!("rng stream: {SHUFFLE_ALGORITHM}, master seed {}", master.hex());
    let src = TableShoes(proc);
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut stack = vec![0u16; proc.cards()];
    let mut words = Vec::with_capacity(1024);
    let mut bytes = Vec::with_capacity(2048);
    let mut left = a.bytes.unwrap_or(u64::MAX);
    for shoe in 0u64.. {
        words.clear();
        src.consumed_words(&master, shoe, &mut stack, &mut words);
        bytes.clear();
        bytes.extend(words.iter().flat_map(|w| w.to_le_bytes()));
        let take = (bytes.len() as u64).min(left) as usize;
        if finished(out.write_all(&bytes[..take]))? {
            return Ok(());
        }
        left -= take as u64;
        if left == 0 {
            break;
        }
    }
    finished(out.flush())?;
    Ok(())
}

fn positions(a: PositionsArgs) -> Result<()> {
    let (_, proc, master) = setup(&a.common)?;
    shoes_in_range(a.shoes, 1)?;
    eprintln!("rng positions: {SHUFFLE_ALGORITHM}, master seed {}", master.hex());
    let src = TableShoes(proc);
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut d = ShoeDraw::new(proc.cards());
    let mut line = String::new();
    for shoe in 0..a.shoes {
        src.draw(&master, shoe, &mut d);
        let r = if a.binary {
            let bytes: Vec<u8> = d.dealing_order().iter().flat_map(|c| c.to_le_bytes()).collect();
            out.write_all(&bytes)
        } else {
            use std::fmt::Write as _;
            line.clear();
            let _ = write!(line, "{shoe} {} {}", d.cut.at, d.cut.from_back);
            for c in d.dealing_order() {
                let _ = write!(line, " {c}");
            }
            line.push('\n');
            out.write_all(line.as_bytes())
        };
        if finished(r)? {
            return Ok(());
        }
    }
    finished(out.flush())?;
    Ok(())
}

fn report(a: ReportArgs) -> Result<()> {
    let (rb, proc, master) = setup(&a.common)?;
    shoes_in_range(a.shoes, 2)?;
    let threads = a.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 || threads > 256 {
        bail!("--threads: {threads} is outside 1 to 256");
    }
    let done = AtomicU64::new(0);
    let finished = AtomicBool::new(false);
    let start = Instant::now();
    let src = TableShoes(proc);
    let mut r = std::thread::scope(|s| {
        if std::io::stderr().is_terminal() && std::io::stdout().is_terminal() {
            s.spawn(|| progress(&done, &finished, a.shoes));
        }
        let r = run_suite(&src, &proc, &master, a.shoes, threads, &done);
        finished.store(true, Ordering::Relaxed);
        r
    });
    let secs = start.elapsed().as_secs_f64();
    let checked = a.shoes.min(CROSS_CHECKED);
    let same = matches_table_shoes(&proc, &master, checked);
    r.checks.push(Check {
        id: "table-shoes",
        name: "the evidence's shoes are the table code's",
        rule: "25 CFR 547.14 (the RNG tested as used)",
        passed: same.is_ok(),
        detail: match &same {
            Ok(()) => {
                format!("the first {checked} shoes equal shoe::shuffled, CutRules::random and Shoe::cut card for card")
            }
            Err(e) => e.clone(),
        },
    });
    let per_sec = r.shoes as f64 / secs;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&json(&r, &rb, threads, secs))?);
    } else {
        print_text(&r, &rb, threads, secs, per_sec);
    }
    if !r.passed() {
        std::io::stdout().flush()?;
        eprintln!("rng report: failed: {}", r.failures().join(", "));
        baccarat_core::exit::exit(1);
    }
    Ok(())
}

fn verdict(pass: bool) -> &'static str {
    if pass {
        "pass"
    } else {
        "FAIL"
    }
}

fn statistic(t: &baccarat_math::rng_evidence::TestResult) -> String {
    match (t.statistic_kind, &t.family, t.df) {
        ("failures", Some(f), _) => format!("{} of {} fail", f.failures, f.tests),
        ("chi2", _, Some(df)) => format!("chi2 {:.2} (df {df})", t.statistic),
        (kind, _, _) => format!("{kind} {:.3}", t.statistic),
    }
}

fn print_text(r: &Report, rb: &Rulebook, threads: usize, secs: f64, per_sec: f64) {
    let p = &r.procedure;
    let (lo, hi) = p.cut_range();
    println!(
        "RNG evidence: {SHUFFLE_ALGORITHM}, {} ({} decks, {} cards), {} shoes",
        rb.id,
        p.decks,
        p.cards(),
        r.shoes
    );
    println!("master seed {} (shoe i: Seed::derive(master, i))", r.master.hex());
    println!(
        "cut uniform on {lo}..={hi} ({}); cutting card {} from the back",
        rb.procedures.cut_rule, p.cutting_card_from_back
    );
    println!(
        "each verdict at the {}% level; a family of per-position tests is judged at the second level",
        ALPHA * 100.0
    );
    println!();
    println!("{:<58} {:>24} {:>10}  verdict", "test", "statistic", "p-value");
    for t in &r.tests {
        println!("{:<58} {:>24} {:>10}  {}", t.name, statistic(t), fmt_p(t.p_value), verdict(t.passed()));
        println!("    {}", t.detail);
    }
    println!();
    for c in &r.checks {
        println!("{:<58} {:>24} {:>10}  {}", c.name, "", "", verdict(c.passed));
        println!("    {}", c.detail);
    }
    println!();
    println!("{} shoes in {secs:.2} s on {threads} threads: {per_sec:.0} shoes/s", r.shoes);
    println!(
        "verdict: {} ({} tests, {} checks)",
        if r.passed() { "pass" } else { "FAIL" },
        r.tests.len(),
        r.checks.len()
    );
}

fn json(r: &Report, rb: &Rulebook, threads: usize, secs: f64) -> serde_json::Value {
    let p = &r.procedure;
    let (lo, hi) = p.cut_range();
    let num = |x: f64| if x.is_finite() { serde_json::json!(x) } else { serde_json::Value::Null };
    serde_json::json!({
        "algorithm": SHUFFLE_ALGORITHM,
        "rulebook": rb.id,
        "decks": p.decks,
        "cards": p.cards(),
        "shoes": r.shoes,
        "master_seed": r.master.hex(),
        "cut_range": [lo, hi],
        "cutting_card_from_back": p.cutting_card_from_back,
        "alpha": ALPHA,
        "threads": threads,
        "seconds": secs,
        "shoes_per_second": r.shoes as f64 / secs,
        "passed": r.passed(),
        "tests": r.tests.iter().map(|t| serde_json::json!({
            "id": t.id,
            "name": t.name,
            "rule": t.rule,
            "statistic_kind": t.statistic_kind,
            "statistic": num(t.statistic),
            "df": t.df,
            "p_value": t.p_value,
            "passed": t.passed(),
            "detail": t.detail,
            "family": t.family.as_ref().map(|f| serde_json::json!({
                "tests": f.tests,
                "failures": f.failures,
                "expected_failures": f.expected_failures,
                "p_binomial": f.p_binomial,
                "ks": f.ks,
                "p_ks": f.p_ks,
                "min_p": f.min_p,
                "p_min": f.p_min,
            })),
        })).collect::<Vec<_>>(),
        "checks": r.checks.iter().map(|c| serde_json::json!({
            "id": c.id, "name": c.name, "rule": c.rule, "passed": c.passed, "detail": c.detail,
        })).collect::<Vec<_>>(),
    })
}

/// A progress bar on stderr while a terminal is watching.
fn progress(done: &AtomicU64, finished: &AtomicBool, total: u64) {
    while !finished.load(Ordering::Relaxed) {
        let d = done.load(Ordering::Relaxed);
        let filled = (d * 40 / total.max(1)) as usize;
        eprint!("\r[{}{}] {d}/{total} shoes", "#".repeat(filled.min(40)), " ".repeat(40 - filled.min(40)));
        std::thread::sleep(Duration::from_millis(200));
    }
    eprint!("\r{}\r", " ".repeat(70));
}
