//! `baccarat simulate --count FILE`: a counting strategy played through the
//! real shoe procedures (issue 50), with the advantage, share of coups bet, and
//! win per shoe and per hour, each with its 95% interval.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use baccarat_math::count::{run_count, CountPlan};
use baccarat_math::count_file::CountSpec;
use baccarat_math::count_report::{CountReport, Estimate};
use baccarat_rules::Rulebook;
use baccarat_table::Seed;

/// How a run is asked for: the strategy file and the `simulate` flags it uses.
pub struct CountRun<'a> {
    pub path: &'a str,
    pub shoes: u64,
    pub threads: usize,
    pub seed: Seed,
    pub decisions_per_hour: u32,
    pub json: bool,
}

/// Read a strategy file: TOML, or JSON when its name ends in `.json`.
fn read_spec(path: &str) -> Result<CountSpec> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read strategy file {path}"))?;
    let spec = if path.ends_with(".json") {
        serde_json::from_str(&text).map_err(|e| e.to_string())
    } else {
        CountSpec::from_toml(&text)
    };
    spec.map_err(|e| anyhow!("{path}: strategy file is invalid: {e}"))
}

/// Play the strategy and print its figures.
pub fn run(r: CountRun<'_>) -> Result<()> {
    let spec = read_spec(r.path)?;
    let rb = super::load_rulebook(&spec.rulebook).with_context(|| format!("{}: rulebook", r.path))?;
    let plan = spec.plan(&rb).map_err(|e| anyhow!("{}: {e}", r.path))?;
    let start = Instant::now();
    let totals = play(&plan, &r);
    let secs = start.elapsed().as_secs_f64();
    let report = totals.report(r.decisions_per_hour);
    let shoes_per_sec = totals.shoes as f64 / secs;
    if r.json {
        let v = json(&spec, &rb, &plan, &report, &r, secs, shoes_per_sec);
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print_text(&spec, &rb, &plan, &report, &r);
        println!("{shoes_per_sec:.0} shoes/s on {} threads, {secs:.2} s", r.threads);
    }
    Ok(())
}

/// Run on the threads, with `simulate`'s progress bar while a terminal watches.
fn play(plan: &CountPlan, r: &CountRun<'_>) -> baccarat_math::count::CountTotals {
    let done = AtomicU64::new(0);
    let finished = AtomicBool::new(false);
    std::thread::scope(|s| {
        if super::simulate::watched() {
            s.spawn(|| super::simulate::progress(&done, &finished, r.shoes));
        }
        let t = run_count(plan, &r.seed, r.shoes, r.threads, &done);
        finished.store(true, Ordering::Relaxed);
        t
    })
}

fn burn_name(plan: &CountPlan) -> String {
    plan.procedure.burn.map_or("none".into(), |b| baccarat_math::count_file::burn_id(b).into())
}

fn print_text(spec: &CountSpec, rb: &Rulebook, plan: &CountPlan, rep: &CountReport, r: &CountRun<'_>) {
    let name = spec.name.as_deref().unwrap_or(r.path);
    println!("{name}: {} on {}, {} decks, burn {}", plan.wager.id(), rb.id, spec.decks, burn_name(plan));
    let depth = format!("cutting card {} cards from the back", spec.cut_card);
    if spec.below_rulebook_minimum(rb) {
        println!(
            "{depth}: deeper than {} allows ({} at least, {}); a study, not a table's procedure",
            rb.id, rb.procedures.cutting_card_min_from_back, rb.procedures.cut_rule
        );
    } else {
        println!("{depth}");
    }
    println!("{} shoes, seed {}, {:.2} coups a shoe\n", rep.shoes, r.seed.hex(), rep.coups_per_shoe.value);
    println!("{:<34} {:>10}   95% interval", "", "value");
    let pct = |label: &str, e: Estimate| {
        println!("{label:<34} {:>+9.3}%   [{:+.3}%, {:+.3}%]", e.value * 100.0, e.lo * 100.0, e.hi * 100.0)
    };
    let units = |label: &str, e: Estimate| println!("{label:<34} {:>+10.4}   [{:+.4}, {:+.4}]", e.value, e.lo, e.hi);
    let plain = |label: &str, e: Estimate, k: f64, u: &str| {
        println!("{label:<34} {:>9.3}{u}   [{:.3}{u}, {:.3}{u}]", e.value * k, e.lo * k, e.hi * k)
    };
    pct("advantage per unit bet", rep.advantage);
    plain("share of coups bet", rep.share_bet, 100.0, "%");
    plain("bets per shoe", rep.bets_per_shoe, 1.0, " ");
    plain("units bet per shoe", rep.units_per_shoe, 1.0, " ");
    units("win per shoe (units)", rep.win_per_shoe);
    units(&format!("win per hour (units, {}/h)", rep.decisions_per_hour), rep.win_per_hour);
    pct("return of one unit on every coup", rep.flat_return);
}

fn est(e: Estimate) -> serde_json::Value {
    serde_json::json!({"value": e.value, "ci95": [e.lo, e.hi]})
}

fn json(
    spec: &CountSpec,
    rb: &Rulebook,
    plan: &CountPlan,
    rep: &CountReport,
    r: &CountRun<'_>,
    secs: f64,
    shoes_per_sec: f64,
) -> serde_json::Value {
    serde_json::json!({
        "strategy": spec.name.as_deref().unwrap_or(r.path),
        "rulebook": rb.id,
        "decks": spec.decks,
        "wager": plan.wager.id(),
        "cutting_card_from_back": spec.cut_card,
        "cutting_card_below_rulebook_minimum": spec.below_rulebook_minimum(rb),
        "burn": burn_name(plan),
        "shoes": rep.shoes,
        "seed": r.seed.hex(),
        "threads": r.threads,
        "decisions_per_hour": rep.decisions_per_hour,
        "advantage": est(rep.advantage),
        "share_of_coups_bet": est(rep.share_bet),
        "bets_per_shoe": est(rep.bets_per_shoe),
        "units_per_shoe": est(rep.units_per_shoe),
        "coups_per_shoe": est(rep.coups_per_shoe),
        "win_per_shoe": est(rep.win_per_shoe),
        "win_per_hour": est(rep.win_per_hour),
        "flat_return": est(rep.flat_return),
        "seconds": secs,
        "shoes_per_second": shoes_per_sec,
    })
}
