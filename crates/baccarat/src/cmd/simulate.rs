//! `baccarat simulate`: whole shoes through the real procedures, every offered
//! wager settled at a flat stake.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use baccarat_math::sim::{estimate, run, Procedure, Rows, SimWager, Totals};
use baccarat_rules::{BurnProcedure, Rulebook, TableConfig, TableConfigSpec};
use baccarat_table::Seed;

/// The most shoes one run may play (a bound, so a typo cannot run for days).
const MAX_SHOES: u64 = 1_000_000_000;

#[derive(clap::Args)]
pub struct Args {
    /// A built-in rulebook or a profile file (ignored when --table names one).
    #[arg(long, default_value = "nsw-2021")]
    rulebook: String,
    /// A table configuration (TOML): its decks, variant and offered wagers.
    /// Without it, every wager and pay table the rulebook permits is played.
    #[arg(long)]
    table: Option<String>,
    /// Deck count without --table. Default: the rulebook's largest.
    #[arg(long)]
    decks: Option<u32>,
    /// Number of shoes to play.
    #[arg(long, default_value_t = 10_000)]
    shoes: u64,
    /// Worker threads. Default: all cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Master seed: a number or 64 hex digits. Default: fresh from the OS, printed
    /// so the run can be replayed.
    #[arg(long)]
    seed: Option<String>,
    /// Cards behind the cutting card (at least the rulebook's minimum, NSW 4.6).
    #[arg(long)]
    cutting_card: Option<usize>,
    /// Burn procedure; default: the rulebook's first.
    #[arg(long, value_parser = parse_burn)]
    burn: Option<BurnProcedure>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Play a counting strategy from FILE (TOML, or JSON if it ends in .json) and
    /// report its advantage, share of coups bet, and win per shoe and per hour.
    ///
    /// The file names the shoe and the wager, the count and the bets:
    ///
    ///   rulebook = "au-casino"   # built-in or profile file: burn, cut bounds
    ///   decks = 8
    ///   cut_card = 14            # cards behind the cutting card
    ///   burn = "turn_and_burn"   # optional; default the rulebook's first
    ///   wager = "dragon_7"       # dragon_7, panda_8, or a rulebook wager id
    ///   pay_table = "table_1"    # for a rulebook wager with several tables
    ///   [count]
    ///   tags = [0, 0, 0, -1, -1, -1, -1, 2, 2, 0]   # A, 2..9, tens (or 13: A..K)
    ///   start = 0                # running count at the start of a shoe
    ///   kind = "true"            # "true" (÷ decks left) or "running"
    ///   [bet]
    ///   trigger = 4              # one unit at a count of at least this
    ///   ramp = [[6, 2], [8, 4]]  # optional [count, units] steps above it
    ///
    /// The count includes every coup's cards and a burn card turned face up;
    /// cards burned face down leave the shoe unseen. See docs/counting.md.
    #[arg(
        long,
        value_name = "FILE",
        verbatim_doc_comment,
        conflicts_with_all = ["table", "decks", "cutting_card", "burn"]
    )]
    count: Option<String>,
    /// Coups dealt an hour at the table, for the win per hour of --count.
    #[arg(long, default_value_t = 60, requires = "count")]
    decisions_per_hour: u32,
}

fn parse_burn(s: &str) -> Result<BurnProcedure, String> {
    baccarat_math::count_file::parse_burn(s)
}

fn parse_seed(s: &str) -> Result<Seed> {
    if let Ok(n) = s.parse::<u64>() {
        return Ok(Seed::from_u64(n));
    }
    Seed::from_hex(s).with_context(|| format!("--seed: {s:?} is neither a number nor 64 hex digits"))
}

/// The run's threads (the machine's cores unless given) and seed (the
/// operating system's unless given), once `--shoes` and `--threads` are
/// checked.
fn threads_and_seed(a: &Args) -> Result<(usize, Seed)> {
    if a.shoes == 0 || a.shoes > MAX_SHOES {
        bail!("--shoes: {} is outside 1 to {MAX_SHOES}", a.shoes);
    }
    let threads = a.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 || threads > 256 {
        bail!("--threads: {threads} is outside 1 to 256");
    }
    let seed = match &a.seed {
        Some(s) => parse_seed(s)?,
        None => baccarat_core::os_seed().map_err(anyhow::Error::msg)?,
    };
    Ok((threads, seed))
}

/// Play the shoes and print each wager's return with its 95% interval.
pub fn run_cmd(a: Args) -> Result<()> {
    let (threads, seed) = threads_and_seed(&a)?;
    if let Some(path) = &a.count {
        if a.decisions_per_hour == 0 || a.decisions_per_hour > 1_000 {
            bail!("--decisions-per-hour: {} is outside 1 to 1000", a.decisions_per_hour);
        }
        return super::simulate_count::run(super::simulate_count::CountRun {
            path,
            shoes: a.shoes,
            threads,
            seed,
            decisions_per_hour: a.decisions_per_hour,
            json: a.json,
        });
    }
    let (rb, decks, wagers) = wagers_to_play(&a)?;
    let (proc, from_back) = procedure(&a, &rb, decks)?;
    let rows = Rows::new(&wagers).map_err(|e| anyhow::anyhow!("simulate: {e}"))?;
    let start = Instant::now();
    let totals = play(&proc, &rows, &seed, a.shoes, threads);
    let secs = start.elapsed().as_secs_f64();
    let per_sec = totals.coups as f64 / secs;
    let results: Vec<_> = wagers
        .iter()
        .enumerate()
        .map(|(j, w)| {
            let (mean, lo, hi) = estimate(&totals, j);
            (w, mean, lo, hi)
        })
        .collect();
    if a.json {
        let v = serde_json::json!({
            "rulebook": rb.id,
            "decks": decks,
            "shoes": totals.shoes,
            "coups": totals.coups,
            "threads": threads,
            "seed": seed.hex(),
            "cutting_card_from_back": from_back,
            "burn": proc.burn.map(|b| format!("{b:?}")),
            "seconds": secs,
            "coups_per_second": per_sec,
            "coups_per_second_per_thread": per_sec / threads as f64,
            "bets": results.iter().map(|(w, mean, lo, hi)| serde_json::json!({
                "bet": w.table.bet.id(), "pay_table": w.table.name,
                "return": mean, "ci95": [lo, hi], "house_edge": -mean,
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!("{} — {} shoes of {decks} decks, {} coups, seed {}", rb.id, totals.shoes, totals.coups, seed.hex());
        println!("{:<22} {:<26} {:>10} {:>24}", "wager", "pay table", "return", "95% interval");
        for (w, mean, lo, hi) in &results {
            println!(
                "{:<22} {:<26} {:>9.4}% [{:>9.4}%, {:>9.4}%]",
                w.table.bet.id(),
                w.table.name,
                mean * 100.0,
                lo * 100.0,
                hi * 100.0
            );
        }
        println!(
            "{:.0} coups/s on {threads} threads ({:.0} per thread), {secs:.2} s",
            per_sec,
            per_sec / threads as f64
        );
    }
    Ok(())
}

/// The rulebook, decks and wagers to play: a table configuration's offers,
/// or every wager and pay table the rulebook permits at the decks given.
fn wagers_to_play(a: &Args) -> Result<(Rulebook, u32, Vec<SimWager>)> {
    Ok(match &a.table {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read table config {path}"))?;
            let spec: TableConfigSpec = toml::from_str(&text)
                .map_err(|e| anyhow::anyhow!("{path}: table config is invalid: {}", e.message().trim()))?;
            let rb = super::load_rulebook(&spec.rulebook)?;
            let t = TableConfig::new(&rb, &spec).map_err(|p| anyhow::anyhow!("{path}: {p}"))?;
            let w = t.offers.iter().map(|o| SimWager { table: o.pay_table.clone() }).collect();
            (rb, t.decks, w)
        }
        None => {
            let rb = super::load_rulebook(&a.rulebook)?;
            let decks = a.decks.unwrap_or_else(|| rb.default_decks());
            if !rb.decks.contains(&decks) {
                bail!("--decks: {} allows {:?} decks, not {decks} ({})", rb.id, rb.decks, rb.decks_rule);
            }
            let w = SimWager::every(&rb, decks);
            (rb, decks, w)
        }
    })
}

/// The shoe's procedure: the cutting card at least the rulebook's minimum
/// from the back (NSW 4.6) and a burn the rulebook names; with the cutting
/// card's place.
fn procedure(a: &Args, rb: &Rulebook, decks: u32) -> Result<(Procedure, usize)> {
    let min_back = rb.procedures.cutting_card_min_from_back as usize;
    let from_back = a.cutting_card.unwrap_or(min_back);
    let cards = 52 * decks as usize;
    if from_back < min_back || from_back + 52 > cards {
        bail!(
            "--cutting-card: {from_back} cards from the back is outside {min_back} to {} ({})",
            cards - 52,
            rb.procedures.cut_rule
        );
    }
    let mut proc = Procedure::for_rulebook(rb, decks, from_back);
    if let Some(b) = a.burn {
        if !rb.procedures.burn.contains(&b) {
            bail!("--burn: {} does not name {b:?} ({})", rb.id, rb.procedures.burn_rule);
        }
        proc.burn = Some(b);
    }
    Ok((proc, from_back))
}

/// Play `shoes` shoes on `threads` threads, with a progress bar while a
/// terminal watches.
fn play(proc: &Procedure, rows: &Rows, seed: &Seed, shoes: u64, threads: usize) -> Totals {
    let done = AtomicU64::new(0);
    let finished = AtomicBool::new(false);
    std::thread::scope(|s| {
        if watched() {
            s.spawn(|| progress(&done, &finished, shoes));
        }
        let t = run(proc, rows, seed, shoes, threads, &done);
        finished.store(true, Ordering::Relaxed);
        t
    })
}

/// Whether a terminal is watching (a progress bar is drawn only then).
pub(super) fn watched() -> bool {
    std::io::stderr().is_terminal() && std::io::stdout().is_terminal()
}

/// A progress bar on stderr while a terminal is watching (none when the output
/// is piped or redirected).
pub(super) fn progress(done: &AtomicU64, finished: &AtomicBool, total: u64) {
    while !finished.load(Ordering::Relaxed) {
        let d = done.load(Ordering::Relaxed);
        let filled = (d * 40 / total.max(1)) as usize;
        eprint!("\r[{}{}] {d}/{total} shoes", "#".repeat(filled), " ".repeat(40 - filled.min(40)));
        std::thread::sleep(Duration::from_millis(200));
    }
    eprint!("\r{}\r", " ".repeat(70));
}
