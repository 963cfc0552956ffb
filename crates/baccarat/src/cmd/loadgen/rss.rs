//! The server's resident memory (`--soak`, `--server-pid`): sampled from
//! /proc while the load runs, and its least-squares slope against accepted
//! wagers after the warm-up, which is what a leak would show as.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::Shared;

/// How often the server's RSS is sampled.
pub(super) const RSS_EVERY: Duration = Duration::from_secs(10);
/// RSS samples before this are the warm-up, left out of the slope. The
/// server holds the last two minutes' idempotency keys in memory (`keys.rs`),
/// so its RSS grows until that window is full: the warm-up lasts past it.
/// (At 60 s, a ten-minute soak's slope was 5.8 MB per million wagers; the
/// same samples from 150 s on, 2.7, and from 300 s on, 1.0.)
pub(super) const WARM_UP_SECONDS: f64 = 150.0;

/// Sample the server's RSS every [`RSS_EVERY`] from the start until told to
/// stop: (seconds since `start`, wagers accepted by then, MB).
pub(super) async fn sample(
    pid: u32,
    start: Instant,
    shared: Arc<Shared>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Vec<(f64, u64, f64)> {
    let mut samples = Vec::new();
    let mut tick = tokio::time::interval(RSS_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.wait_for(|s| *s) => return samples,
        }
        if let Ok(mb) = rss_mb(pid) {
            samples.push((start.elapsed().as_secs_f64(), shared.accepted.load(Ordering::Relaxed), mb));
        }
    }
}

/// The resident memory of process `pid` in MB (VmRSS of /proc/PID/status).
pub(super) fn rss_mb(pid: u32) -> Result<f64> {
    status_mb(pid, "VmRSS:")
}

/// A line of /proc/PID/status in MB: `VmRSS:` (resident now) or `VmHWM:`
/// (the most it has been resident).
pub(super) fn status_mb(pid: u32, key: &str) -> Result<f64> {
    let path = format!("/proc/{pid}/status");
    let text = std::fs::read_to_string(&path).with_context(|| path.clone())?;
    let kb: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .with_context(|| format!("{path} has no {key} line"))?;
    Ok(kb / 1024.0)
}

/// The least-squares slope of RSS (MB) against accepted wagers (millions),
/// over the samples after the warm-up; None with fewer than two such samples
/// or no wagers accepted between them.
pub(super) fn slope_mb_per_million(samples: &[(f64, u64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> =
        samples.iter().filter(|s| s.0 >= WARM_UP_SECONDS).map(|&(_, n, mb)| (n as f64 / 1e6, mb)).collect();
    if pts.len() < 2 {
        return None;
    }
    let k = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_after_warm_up() {
        // The window filling (steep), then a gentle slope after the warm-up.
        let s: Vec<(f64, u64, f64)> = (0..20)
            .map(|i| {
                let t = i as f64 * 10.0;
                (t, i * 1_000_000, if t < WARM_UP_SECONDS { 10.0 * t } else { 1500.0 + 2.0 * i as f64 })
            })
            .collect();
        assert!((slope_mb_per_million(&s).unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(slope_mb_per_million(&s[..16]), None, "one sample after the warm-up");
    }
}
