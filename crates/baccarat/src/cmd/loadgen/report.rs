//! The run's report: one JSON document (what `--json` prints), and the same
//! read back as a few lines for a person.

use std::sync::atomic::Ordering;

use serde_json::{json, Value};

use super::coups::CoupCount;
use super::hist::Hist;
use super::rss::{slope_mb_per_million, RSS_EVERY, WARM_UP_SECONDS};
use super::setup::Player;
use super::stats::Stats;
use super::{Args, Shared};

/// What a run measured, as `drive` gathered it once the load had stopped.
pub(super) struct Measured<'a> {
    pub(super) urls: &'a [String],
    pub(super) secs: f64,
    pub(super) tables: &'a [(u32, i64)],
    pub(super) players: &'a [Player],
    pub(super) shared: &'a Shared,
    pub(super) load: &'a Stats,
    pub(super) probe_stats: Option<&'a Stats>,
    pub(super) probe_table: Option<u32>,
    pub(super) coups_before: u64,
    pub(super) coups_after: u64,
    pub(super) coup_counts: &'a [CoupCount],
    pub(super) rss_samples: Option<&'a [(f64, u64, f64)]>,
    /// `--viewers`: what the watching sockets measured (`viewers.rs`).
    pub(super) viewers: Option<&'a Value>,
    pub(super) ledger: &'a Value,
    /// `--counters`: who the surveillance report flagged (`counters.rs`).
    pub(super) counters: Option<&'a Value>,
}

/// The report as JSON, from the run's arguments and what it measured.
pub(super) fn build(a: &Args, m: Measured) -> Value {
    let Measured {
        urls,
        secs,
        tables,
        players,
        shared,
        load,
        probe_stats,
        probe_table,
        coups_before,
        coups_after,
        coup_counts,
        rss_samples,
        viewers,
        ledger,
        counters,
    } = m;
    let accepted = shared.accepted.load(Ordering::Relaxed);
    json!({
        "servers": urls,
        "seconds": secs,
        "tables": tables.len(),
        "players": players.len(),
        "concurrency": a.concurrency,
        "slip": a.slip,
        "accepted_bets": accepted,
        "refused_bets": shared.refused.load(Ordering::Relaxed),
        "refused_bets_betting_closed": shared.refused_closed.load(Ordering::Relaxed),
        "accepted_bets_per_second": accepted as f64 / secs,
        // The requests with at least one wager accepted (as before).
        "ack_latency_ms": load.accepted_latency.summary(),
        "requests": load.outcomes(),
        "latency_ms": {
            "all": load.all_latency.summary(),
            "accepted": load.accepted_latency.summary(),
            "betting_closed": load.closed_latency.summary(),
        },
        "probe": probe_stats.map(|p| probe_json(a, p, probe_table)),
        "hot_table": a.hot_table.then(|| tables[0].0),
        "coups": coups_json(coup_counts, (coups_after - coups_before) as f64 / secs),
        "coups_per_second": (coups_after - coups_before) as f64 / secs,
        "soak_minutes": a.soak,
        "rss": rss_samples.map(|s| rss_json(a, s)),
        "viewers": viewers,
        "counters": counters,
        "ledger": ledger,
    })
}

/// The probe's counts and latencies, at its table and interval.
fn probe_json(a: &Args, p: &Stats, probe_table: Option<u32>) -> Value {
    let mut v = p.outcomes();
    v["table"] = json!(probe_table);
    v["interval_ms"] = json!(a.probe_interval_ms);
    v["skipped"] = json!(p.skipped);
    v["latency_ms"] = p.all_latency.summary();
    v["count"] = json!(p.all_latency.count());
    v["max_ms"] = json!(p.all_latency.max_ms());
    v["p9999_ms"] = json!(p.all_latency.quantile_ms(0.9999));
    v
}

/// Coups per second, and the wagers per coup as loadgen counted them: the
/// largest coup and the mean over coups that took any.
fn coups_json(coup_counts: &[CoupCount], per_second: f64) -> Value {
    let largest = coup_counts.iter().map(|c| c.wagers).max();
    let with_wagers: Vec<u64> = coup_counts.iter().map(|c| c.wagers).filter(|&w| w > 0).collect();
    let mean_coup =
        (!with_wagers.is_empty()).then(|| with_wagers.iter().sum::<u64>() as f64 / with_wagers.len() as f64);
    let largest_at = coup_counts.iter().max_by_key(|c| c.wagers);
    json!({
        "per_second": per_second,
        "observed": coup_counts.len(),
        "largest_coup_wagers": largest,
        "largest_coup": largest_at.map(|c| json!({"table": c.table, "coup": c.coup, "complete": c.complete})),
        "mean_coup_wagers": mean_coup,
        "how": "accepted wagers counted by loadgen between closes of betting at each load table",
    })
}

/// The server's RSS samples and their slope after the warm-up.
fn rss_json(a: &Args, s: &[(f64, u64, f64)]) -> Value {
    let slope = slope_mb_per_million(s);
    json!({
        "pid": a.server_pid,
        "every_seconds": RSS_EVERY.as_secs(),
        "samples": s.iter().map(|(t, n, mb)| json!({"t_s": t, "accepted_bets": n, "rss_mb": mb})).collect::<Vec<_>>(),
        "warm_up_seconds": WARM_UP_SECONDS,
        "slope_mb_per_million_bets": slope,
    })
}

/// The report for a person: rates, latencies, the probe, wagers per coup and
/// the RSS samples.
pub(super) fn print_human(r: &Value, load: &Stats, probe: Option<&Stats>, ok: bool) {
    println!(
        "{:.0} accepted bets/s ({} accepted, {} refused by the rules or limits, {} of them as betting was closed) over {:.1} s; {:.2} coups/s; ledger {}",
        num(&r["accepted_bets_per_second"]),
        r["accepted_bets"],
        r["refused_bets"],
        r["refused_bets_betting_closed"],
        num(&r["seconds"]),
        num(&r["coups_per_second"]),
        if ok { "balanced" } else { "NOT BALANCED" }
    );
    println!(
        "requests: {} ({} with a wager accepted, {} refused as betting was closed, {} refused otherwise (429: {}, 503: {}), {} errors)",
        load.total(),
        load.accepted,
        load.betting_closed,
        load.refused + load.rate_limited + load.busy,
        load.rate_limited,
        load.busy,
        load.errors
    );
    latency_line("every request", &load.all_latency);
    latency_line("accepted", &load.accepted_latency);
    latency_line("betting closed", &load.closed_latency);
    if let Some(p) = probe {
        print_probe(r, p);
    }
    print_coups(r);
    print_rss(r);
    print_viewers(r);
    print_counters(r);
}

/// `--counters`: who the surveillance report flagged.
fn print_counters(r: &Value) {
    let k = &r["counters"];
    if k.is_null() {
        return;
    }
    println!(
        "counters: {} of {} flagged (z >= {}), {} Player Pairs over {} coups wagered; other players flagged: {} of {} (gaming day {})",
        k["counters_flagged"], k["counters"], k["z_flag"], k["pair_wagers"], k["coups_wagered"], k["others_flagged"], k["others"], k["day"]
    );
    if k["refused"].as_object().is_some_and(|r| !r.is_empty()) {
        println!("counters' wagers refused: {}", k["refused"]);
    }
}

/// `--viewers`: the push's latency, the bytes per coup, the server's memory.
fn print_viewers(r: &Value) {
    let v = &r["viewers"];
    if v.is_null() {
        return;
    }
    let l = &v["push_latency_ms"];
    println!(
        "{} viewers at table {}: push p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms over {} frames; {:.2} KB per viewer per coup over {} coups; {} gaps",
        v["viewers"],
        v["table"],
        num(&l["p50"]),
        num(&l["p99"]),
        num(&l["max"]),
        l["count"],
        num(&v["kb_per_viewer_per_coup"]),
        v["coups"],
        v["gaps"]
    );
    let m = &v["server_memory"];
    if !m.is_null() {
        println!("  server RSS {:.0} MB (high-water mark {:.0} MB)", num(&m["rss_mb"]), num(&m["hwm_mb"]));
    }
    println!("  sentinel: {}", v["sentinel"]["check"]);
}

/// A number of the report, 0 where it has none.
fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

/// One latency histogram's percentiles on a line.
fn latency_line(name: &str, h: &Hist) {
    println!(
        "  {name:<14} p50 {:>8.2} ms   p99 {:>8.2} ms   p99.9 {:>8.2} ms   max {:>8.2} ms   ({} requests)",
        h.quantile_ms(0.5),
        h.quantile_ms(0.99),
        h.quantile_ms(0.999),
        h.max_ms(),
        h.count()
    )
}

/// The probe's wagers by outcome, and what it waited.
fn print_probe(r: &Value, p: &Stats) {
    println!(
        "probe at table {} every {} ms: {} wagers ({} accepted, {} refused as betting was closed, {} refused otherwise, {} errors, {} ticks skipped)",
        r["probe"]["table"],
        r["probe"]["interval_ms"],
        p.total(),
        p.accepted,
        p.betting_closed,
        p.refused + p.rate_limited + p.busy,
        p.errors,
        p.skipped
    );
    println!(
        "  probe          p50 {:>8.2} ms   p99 {:>8.2} ms   p99.99 {:>6.2} ms   max {:>8.2} ms",
        p.all_latency.quantile_ms(0.5),
        p.all_latency.quantile_ms(0.99),
        p.all_latency.quantile_ms(0.9999),
        p.all_latency.max_ms()
    );
}

/// Wagers per coup: the largest and the mean.
fn print_coups(r: &Value) {
    let coups = &r["coups"];
    let hot = match r["hot_table"].as_u64() {
        Some(t) => format!(" (hot table {t})"),
        None => String::new(),
    };
    match coups["largest_coup_wagers"].as_u64() {
        Some(n) => println!(
            "wagers per coup{hot}: largest {n}, mean {:.0} over {} coups (counted by loadgen between closes of betting)",
            num(&coups["mean_coup_wagers"]),
            coups["observed"]
        ),
        None => println!("wagers per coup{hot}: no coup observed"),
    }
}

/// The server's RSS samples and their slope, where it was sampled.
fn print_rss(r: &Value) {
    if let Some(samples) = r["rss"]["samples"].as_array() {
        println!("server RSS (pid {}), every {} s:", r["rss"]["pid"], r["rss"]["every_seconds"]);
        for s in samples {
            println!(
                "  {:>7.1} s  {:>12} accepted  {:>9.1} MB",
                num(&s["t_s"]),
                s["accepted_bets"].as_u64().unwrap_or(0),
                num(&s["rss_mb"])
            );
        }
        match r["rss"]["slope_mb_per_million_bets"].as_f64() {
            Some(s) => println!("  slope after the {WARM_UP_SECONDS} s warm-up: {s:.2} MB per million accepted wagers"),
            None => println!("  slope: too few samples after the {WARM_UP_SECONDS} s warm-up"),
        }
    }
}
