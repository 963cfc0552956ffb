//! Who is taking it (issue 50, part 4): whether a player's stakes on a wager
//! follow that wager's value from the shoe.
//!
//! # The test
//!
//! A player who ignores the cards stakes the same way whatever the shoe
//! holds: the stake on a wager at a coup (0 when they let the coup pass) is
//! independent of the wager's EV at that coup. So over the coups of their
//! session at a table, from their first wager there to their last, the
//! statistic is the correlation of stake with EV, scaled to a z-score:
//! `z = r · √((n − 1) / f)` for `n` coups (`r` Pearson's), where `f` widens
//! the spread for runs in both series (the EV drifts through a shoe; a
//! player may sit in and out in runs): Bartlett's `1 + 2 Σ ρₓ(k)ρᵧ(k)`
//! over the lags ([`inflation`]). Under independence `z` is then close to a
//! standard normal. A counter who bets the
//! pairs only when they turn positive has stakes of 0 at every coup but
//! those of highest EV: `z` grows with every such wager.
//!
//! A player is flagged on a wager when `z` reaches [`Z_FLAG`] with at least
//! [`MIN_WAGERS`] wagers of it. The threshold is derived from simulation
//! (`calibrate.rs`: players who ignore the shoe, each through shoes dealt by
//! the real procedures), and its false-alarm rate is stated there and in
//! `docs/game-protection.md`. A player with the same stake at every coup has
//! no correlation to measure (`z` is 0): they cannot be counting by stake.
//! The rulebooks are silent on game protection; these are the casino's
//! choices.
//!
//! These are statistics about behaviour, not money: `f64` throughout.

/// The z-score at which a player is flagged on a wager (see `calibrate.rs`).
pub const Z_FLAG: f64 = 4.0;

/// The fewest wagers on one wager type a player is flagged on.
pub const MIN_WAGERS: u64 = 5;

/// One coup of a session on one wager: the player's stake (cents; 0: no
/// wager) and the wager's EV per unit staked at that coup.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub stake: f64,
    pub ev: f64,
}

/// What the test finds over a session's coups on one wager.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Found {
    pub coups: u64,
    pub wagers: u64,
    /// Wagers placed while the wager's EV was above 0.
    pub positive_wagers: u64,
    /// Coups of the session at which the wager's EV was above 0.
    pub positive_coups: u64,
    /// The stake-weighted mean EV of the wagers made.
    pub ev_taken: f64,
    /// Spearman's rank correlation of stake with EV (`None`: a constant).
    pub rank_correlation: Option<f64>,
    /// The least-squares slope of stake on EV: cents more staked per unit
    /// of EV (`None`: the EV never moved).
    pub slope: Option<f64>,
    pub z: f64,
    pub flagged: bool,
}

/// The test over `points` (see the module doc).
pub fn test(points: &[Point]) -> Found {
    let made = points.iter().filter(|p| p.stake > 0.0);
    let staked: f64 = made.clone().map(|p| p.stake).sum();
    let wagers = made.clone().count() as u64;
    let stakes: Vec<f64> = points.iter().map(|p| p.stake).collect();
    let evs: Vec<f64> = points.iter().map(|p| p.ev).collect();
    let r = pearson(&stakes, &evs);
    let n = points.len() as f64;
    let z = r.map_or(0.0, |r| r * ((n - 1.0).max(0.0) / inflation(&stakes, &evs)).sqrt());
    Found {
        coups: points.len() as u64,
        wagers,
        positive_wagers: made.clone().filter(|p| p.ev > 0.0).count() as u64,
        positive_coups: points.iter().filter(|p| p.ev > 0.0).count() as u64,
        ev_taken: if staked > 0.0 { made.map(|p| p.stake * p.ev).sum::<f64>() / staked } else { 0.0 },
        rank_correlation: pearson(&ranks(&stakes), &ranks(&evs)),
        slope: slope(&evs, &stakes),
        z,
        flagged: wagers >= MIN_WAGERS && z >= Z_FLAG,
    }
}

/// One player's tests on one wager at several tables in a gaming day,
/// taken together: the sessions' coups and wagers summed, and the combined
/// `z` (see [`across`]).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Across {
    pub coups: u64,
    pub wagers: u64,
    pub positive_wagers: u64,
    pub positive_coups: u64,
    pub z: f64,
    pub flagged: bool,
}

/// A player's sessions on one wager at several tables (`found`, one a
/// table), combined by Stouffer's method: `Z = Σ zᵢ / √k`. The tables'
/// shoes are independent of one another, so for a player who ignores them
/// the zᵢ are independent and `Z` is spread as each of them is: a seat's
/// threshold and false-alarm rate carry over (`calibrate.rs` measures it
/// over four tables). A counter who takes two or three positive wagers at
/// each of several tables, too few at any one to be flagged there, adds up
/// here: flagged at [`Z_FLAG`] with [`MIN_WAGERS`] over all the tables.
pub fn across(found: &[Found]) -> Across {
    let k = found.len() as f64;
    let z = if found.is_empty() { 0.0 } else { found.iter().map(|f| f.z).sum::<f64>() / k.sqrt() };
    let wagers = found.iter().map(|f| f.wagers).sum();
    Across {
        coups: found.iter().map(|f| f.coups).sum(),
        wagers,
        positive_wagers: found.iter().map(|f| f.positive_wagers).sum(),
        positive_coups: found.iter().map(|f| f.positive_coups).sum(),
        z,
        flagged: wagers >= MIN_WAGERS && z >= Z_FLAG,
    }
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len().max(1) as f64
}

/// Σ (x − x̄)(y − ȳ), Σ (x − x̄)², Σ (y − ȳ)².
fn moments(x: &[f64], y: &[f64]) -> (f64, f64, f64) {
    let (mx, my) = (mean(x), mean(y));
    x.iter().zip(y).fold((0.0, 0.0, 0.0), |(sxy, sxx, syy), (a, b)| {
        let (da, db) = (a - mx, b - my);
        (sxy + da * db, sxx + da * da, syy + db * db)
    })
}

/// How much the two series' own runs widen the correlation's spread:
/// `1 + 2 Σₖ ρₓ(k)·ρᵧ(k)` over lags up to a fifth of the length (Bartlett's
/// approximation, as Pyper and Peterman 1998 use it for two autocorrelated
/// series), never below 1: it only ever makes the test more cautious.
fn inflation(x: &[f64], y: &[f64]) -> f64 {
    let lags = (x.len() / 5).min(MAX_LAG);
    let (ax, ay) = (autocorrelations(x, lags), autocorrelations(y, lags));
    (1.0 + 2.0 * ax.iter().zip(&ay).map(|(a, b)| a * b).sum::<f64>()).max(1.0)
}

/// The longest lag [`inflation`] looks at: about a shoe's coups.
const MAX_LAG: usize = 80;

/// The sample autocorrelations of `x` at lags 1 to `lags` (empty when `x`
/// is constant).
fn autocorrelations(x: &[f64], lags: usize) -> Vec<f64> {
    let m = mean(x);
    let d: Vec<f64> = x.iter().map(|a| a - m).collect();
    let c0: f64 = d.iter().map(|a| a * a).sum();
    if c0 <= 0.0 {
        return Vec::new();
    }
    (1..=lags).map(|k| d.iter().zip(&d[k..]).map(|(a, b)| a * b).sum::<f64>() / c0).collect()
}

/// Pearson's correlation; `None` when either is constant (or too short).
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let (sxy, sxx, syy) = moments(x, y);
    let tiny = |s: f64, v: &[f64]| s <= 1e-18 * v.iter().map(|a| a * a).sum::<f64>().max(f64::MIN_POSITIVE);
    if x.len() < 2 || tiny(sxx, x) || tiny(syy, y) {
        return None;
    }
    Some((sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0))
}

/// The slope of `y` on `x` by least squares; `None` when `x` is constant.
fn slope(x: &[f64], y: &[f64]) -> Option<f64> {
    let (sxy, sxx, _) = moments(x, y);
    (x.len() >= 2 && sxx > 0.0).then(|| sxy / sxx)
}

/// Ranks from 1, ties given their mean rank (for Spearman's correlation).
pub fn ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut out = vec![0.0; x.len()];
    let mut i = 0;
    while i < order.len() {
        let j = (i..order.len()).take_while(|&j| x[order[j]] == x[order[i]]).last().unwrap_or(i);
        let rank = (i + j) as f64 / 2.0 + 1.0;
        order[i..=j].iter().for_each(|&k| out[k] = rank);
        i = j + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pts(v: &[(f64, f64)]) -> Vec<Point> {
        v.iter().map(|&(stake, ev)| Point { stake, ev }).collect()
    }

    #[test]
    fn ranks_share_ties() {
        assert_eq!(ranks(&[10.0, 0.0, 10.0, 5.0]), vec![3.5, 1.0, 3.5, 2.0]);
        assert_eq!(ranks(&[]), Vec::<f64>::new());
    }

    #[test]
    fn a_flat_bettor_has_nothing_to_measure() {
        let f = test(&pts(&[(100.0, -0.1), (100.0, 0.05), (100.0, -0.2), (100.0, 0.01), (100.0, -0.1)]));
        assert_eq!((f.z, f.rank_correlation, f.flagged), (0.0, None, false));
        assert_eq!((f.wagers, f.positive_wagers, f.positive_coups), (5, 2, 2));
        assert!((f.ev_taken - (-0.068)).abs() < 1e-12, "{}", f.ev_taken);
    }

    /// An EV that wanders in runs about -3%, as a shoe's does (seeded).
    fn walk(n: usize) -> Vec<f64> {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut ev = -0.04;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ev = -0.03 + 0.9 * (ev + 0.03) + ((x % 1000) as f64 / 1000.0 - 0.5) * 0.04;
                ev
            })
            .collect()
    }

    #[test]
    fn a_counter_who_bets_only_when_positive_is_flagged() {
        let ev = walk(300);
        let counter: Vec<(f64, f64)> = ev.iter().map(|&e| (if e > 0.0 { 500.0 } else { 0.0 }, e)).collect();
        let f = test(&pts(&counter));
        assert!(f.wagers >= 5 && f.positive_wagers == f.wagers && f.positive_coups == f.wagers, "{f:?}");
        assert!(f.z > Z_FLAG && f.flagged, "{f:?}");
        assert!(f.rank_correlation.unwrap() > 0.3 && f.slope.unwrap() > 0.0, "{f:?}");
        // As many wagers of the same stake at every seventh coup, whatever
        // the EV: not flagged.
        let blind: Vec<(f64, f64)> =
            ev.iter().enumerate().map(|(i, &e)| (if i % 7 == 3 { 500.0 } else { 0.0 }, e)).collect();
        let f = test(&pts(&blind));
        assert!(f.z.abs() < 2.0 && !f.flagged, "{f:?}");
    }

    /// A counter who takes three positive pair wagers at each of four
    /// tables (shoes of their own), too few to be flagged at any one, is
    /// flagged over the day; the same number of wagers placed blind is not.
    #[test]
    fn a_counter_spread_over_tables_is_flagged_across_them() {
        let seats = |pick: &dyn Fn(usize, f64, usize) -> bool| -> Vec<Found> {
            (0..4)
                .map(|t| {
                    let ev: Vec<f64> = walk(80 + 30 * t).into_iter().skip(30 * t).collect();
                    let mut made = 0;
                    let v: Vec<Point> = ev
                        .iter()
                        .enumerate()
                        .map(|(i, &e)| {
                            let bet = made < 3 && pick(i, e, t);
                            made += usize::from(bet);
                            Point { stake: if bet { 500.0 } else { 0.0 }, ev: e }
                        })
                        .collect();
                    test(&v)
                })
                .collect()
        };
        let counter = seats(&|_, e, _| e > 0.0);
        assert!(counter.iter().all(|f| f.wagers == 3 && !f.flagged), "{counter:?}");
        let a = across(&counter);
        assert_eq!((a.coups, a.wagers, a.positive_wagers), (counter.iter().map(|f| f.coups).sum(), 12, 12));
        assert!(a.z >= Z_FLAG && a.flagged, "{a:?}");
        let expected = counter.iter().map(|f| f.z).sum::<f64>() / 2.0;
        assert!((a.z - expected).abs() < 1e-12);
        let blind = across(&seats(&|i, _, t| i % 9 == 2 + t));
        assert_eq!(blind.wagers, 12);
        assert!(blind.z.abs() < 2.5 && !blind.flagged, "{blind:?}");
        assert_eq!(across(&[]), Across::default());
    }

    #[test]
    fn too_few_wagers_are_never_flagged() {
        let v: Vec<(f64, f64)> = (0..400).map(|i| if i < 4 { (100.0, 0.1) } else { (0.0, -0.1) }).collect();
        let f = test(&pts(&v));
        assert!(f.z > Z_FLAG && !f.flagged, "{f:?}");
    }
}
