//! Coups a second of the simulator on one thread, as `baccarat simulate
//! --rulebook nsw-2021 --decks 8 --threads 1` plays them (every NSW wager and
//! pay table, the cutting card 20 from the back), counted in the thread's own
//! CPU time (`/proc/thread-self/schedstat`) so that a shared machine's other
//! work disturbs it less; compare with `benches/c/bare_loop.c` (issue 50,
//! part 6).
//!
//! `cargo run --release -p baccarat-math --example sim_cpu [SHOES]`

use std::sync::atomic::AtomicU64;

use baccarat_math::sim::{run_shoes, Procedure, Rows, SimWager};
use baccarat_table::Seed;

/// Nanoseconds this thread has run on a CPU.
fn cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    s.split_whitespace().next().and_then(|x| x.parse().ok()).expect("a number")
}

fn main() {
    let shoes: u64 = std::env::args().nth(1).map_or(200_000, |a| a.parse().expect("a number of shoes"));
    let rb = baccarat_rules::profiles::builtin("nsw-2021").expect("a built-in rulebook");
    let rows = Rows::new(&SimWager::every(&rb, 8)).expect("rows");
    let proc = Procedure::for_rulebook(&rb, 8, 20);
    let seed = Seed::from_u64(1);
    for _ in 0..3 {
        let t = cpu_ns();
        let totals = run_shoes(&proc, &rows, &seed, 0..shoes, &AtomicU64::new(0));
        let secs = (cpu_ns() - t) as f64 / 1e9;
        println!(
            "{} wagers, {} shoes, {} coups: {:.2} M coups a CPU second (sum of the first wager {})",
            rows.wagers,
            totals.shoes,
            totals.coups,
            totals.coups as f64 / secs / 1e6,
            totals.sum[0]
        );
    }
}
