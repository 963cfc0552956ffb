//! The loop every target runs: a fixed number of executions (not a time: the
//! result does not depend on the machine's speed), each from a PRNG seeded by the
//! target's seed and the iteration, so a failure reproduces from those two
//! numbers alone. A panic or a broken invariant is recorded with the input
//! written to `<target dir>/fuzz-failures/`, and the target fails at the end
//! listing every distinct failure.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Once;
use std::time::{Duration, Instant};

use super::mutate::{mix, Rng};

/// The corpus folder of a target, at the repository root.
pub fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target)
}

/// Every file of a corpus folder (and its subfolders), sorted by path, with its path.
pub fn corpus_files(dir: &std::path::Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| !n.to_string_lossy().starts_with('.')) {
                out.push((p.clone(), std::fs::read(&p).expect("corpus file")));
            }
        }
    }
    out.sort();
    out
}

/// The corpus of a target, bytes only.
pub fn corpus(target: &str) -> Vec<Vec<u8>> {
    let c: Vec<Vec<u8>> = corpus_files(&corpus_dir(target)).into_iter().map(|(_, b)| b).collect();
    assert!(!c.is_empty(), "fuzz/corpus/{target} is empty");
    c
}

/// Where failing inputs are written: `<target dir>/fuzz-failures/`.
pub fn failures_dir() -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().map_or(tmp.clone(), |p| p.to_path_buf()).join("fuzz-failures")
}

/// How many executions: `FUZZ_EXECS_<TARGET>` (e.g. `FUZZ_EXECS_HTTP_ROUTES`)
/// if set, else `FUZZ_EXECS`, else the target's default.
pub fn execs(target: &str, default: u64) -> u64 {
    let own = format!("FUZZ_EXECS_{}", target.to_uppercase());
    [own.as_str(), "FUZZ_EXECS"]
        .iter()
        .find_map(|k| std::env::var(k).ok().and_then(|s| s.trim().replace('_', "").parse().ok()))
        .unwrap_or(default)
}

/// The base seed: `FUZZ_SEED` (decimal or 0x-hex) if set, else one fixed per target.
pub fn seed(target: &str) -> u64 {
    if let Ok(s) = std::env::var("FUZZ_SEED") {
        let s = s.trim();
        let v = match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16),
            None => s.parse(),
        };
        return v.unwrap_or_else(|_| panic!("FUZZ_SEED: {s:?} is not a number"));
    }
    target.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Only this iteration (`FUZZ_ONLY`), to reproduce one failure.
pub fn only() -> Option<u64> {
    std::env::var("FUZZ_ONLY").ok().and_then(|s| s.trim().parse().ok())
}

/// The PRNG of one iteration.
pub fn iteration_rng(seed: u64, i: u64) -> Rng {
    Rng::new(mix(seed) ^ mix(i.wrapping_add(0x5151)))
}

thread_local! {
    /// While a target runs on this thread, panics are recorded here rather than printed.
    static CAUGHT: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

/// Install (once) a panic hook that records a fuzzed panic's message and place
/// quietly, and leaves every other panic to the default hook.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let quiet = CAUGHT.with(|c| {
                let mut c = c.borrow_mut();
                match c.as_mut() {
                    Some(slot) => {
                        let msg = info
                            .payload()
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| info.payload().downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "(non-string panic)".into());
                        let at = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_default();
                        *slot = Some(format!("panicked at {at}: {msg}"));
                        true
                    }
                    None => false,
                }
            });
            if !quiet {
                default(info);
            }
        }));
    });
}

/// Run `f`, turning a panic into an `Err` with its message and place.
pub fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    CAUGHT.with(|c| *c.borrow_mut() = Some(None));
    let r = catch_unwind(AssertUnwindSafe(f));
    let msg = CAUGHT.with(|c| c.borrow_mut().take()).flatten();
    r.map_err(|_| msg.unwrap_or_else(|| "panicked".into()))
}

/// One target's failures and counts.
pub struct Report {
    pub target: &'static str,
    pub seed: u64,
    pub execs: u64,
    pub started: Instant,
    /// Distinct failures (by their first line): count, first iteration, message, file.
    pub failures: Vec<(u64, u64, String, PathBuf)>,
    /// Named counters printed with the summary (e.g. how many inputs were accepted).
    pub counters: std::collections::BTreeMap<&'static str, u64>,
}

impl Report {
    pub fn new(target: &'static str) -> Report {
        Report {
            target,
            seed: seed(target),
            execs: 0,
            started: Instant::now(),
            failures: Vec::new(),
            counters: Default::default(),
        }
    }

    pub fn count(&mut self, what: &'static str) {
        self.add(what, 1);
    }

    pub fn add(&mut self, what: &'static str, n: u64) {
        *self.counters.entry(what).or_default() += n;
    }

    /// Record a failure of iteration `i` on `input` (written with extension `ext`).
    pub fn fail(&mut self, i: u64, input: &[u8], ext: &str, why: &str) {
        let key = failure_key(why);
        if let Some(f) = self.failures.iter_mut().find(|f| failure_key(&f.2) == key) {
            f.0 += 1;
            return;
        }
        let dir = failures_dir();
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join(format!("{}-{:016x}-{i}.{ext}", self.target, self.seed));
        let _ = std::fs::write(&file, input);
        eprintln!(
            "fuzz {}: iteration {i} (FUZZ_SEED=0x{:016x} FUZZ_ONLY={i}) failed: {why}\n  input: {}",
            self.target,
            self.seed,
            file.display()
        );
        self.failures.push((1, i, why.to_string(), file));
    }

    /// Print the summary line (the executions run and the time) and fail the
    /// test if anything failed.
    pub fn finish(self) {
        let took = self.started.elapsed();
        let counters: Vec<String> = self.counters.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!(
            "fuzz {}: {} executions in {:.1} s ({:.0}/s), seed 0x{:016x}, {} distinct failures{}{}",
            self.target,
            self.execs,
            took.as_secs_f64(),
            self.execs as f64 / took.as_secs_f64().max(1e-9),
            self.seed,
            self.failures.len(),
            if counters.is_empty() { "" } else { "; " },
            counters.join(", ")
        );
        write_stats(self.target, self.execs, took);
        if !self.failures.is_empty() {
            let list: Vec<String> = self
                .failures
                .iter()
                .map(|(n, i, why, f)| format!("  - {n}× first at iteration {i} ({}):\n    {why}", f.display()))
                .collect();
            panic!(
                "fuzz {}: {} distinct failures (seed 0x{:016x}; reproduce one with FUZZ_SEED=0x{:016x} FUZZ_ONLY=<iteration>):\n{}",
                self.target,
                self.failures.len(),
                self.seed,
                self.seed,
                list.join("\n")
            );
        }
    }
}

/// Failures are the same when their first line is, ignoring numbers after
/// `iteration` and the like (so one bug is listed once).
fn failure_key(why: &str) -> String {
    why.lines().next().unwrap_or_default().chars().filter(|c| !c.is_ascii_digit()).take(160).collect()
}

/// Append a line to `<target dir>/fuzz-failures/../fuzz-stats.txt` (executions and time per target).
fn write_stats(target: &str, execs: u64, took: Duration) {
    use std::io::Write;
    let path = failures_dir().with_file_name("fuzz-stats.txt");
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{target} {execs} {:.2}", took.as_secs_f64());
    }
}

/// Drive a stateless target: `execs` iterations, each generating an input from
/// its own PRNG and checking it; `check` returns `Err` for a broken invariant
/// (and may panic: that is caught and recorded too).
pub fn run(
    target: &'static str,
    default_execs: u64,
    ext: &str,
    mut generate: impl FnMut(&mut Rng, u64) -> Vec<u8>,
    mut check: impl FnMut(&[u8], &mut Report) -> Result<(), String>,
) {
    let mut report = Report::new(target);
    if let Ok(path) = std::env::var("FUZZ_INPUT") {
        // One input from a file (a failure written earlier), and with
        // `FUZZ_MINIMIZE` its smallest failing subset of lines.
        let input = std::fs::read(&path).unwrap_or_else(|e| panic!("FUZZ_INPUT {path}: {e}"));
        let mut outcome = |i: &[u8], report: &mut Report| match guarded(|| check(i, report)) {
            Ok(Ok(())) => None,
            Ok(Err(why)) | Err(why) => Some(failure_key(&why)),
        };
        let Some(key) = outcome(&input, &mut report) else {
            println!("fuzz {target}: {path} passes");
            return;
        };
        if std::env::var_os("FUZZ_MINIMIZE").is_some() {
            let min = minimize(&input, |c| outcome(c, &mut report).as_ref() == Some(&key));
            let out = format!("{path}.min");
            std::fs::write(&out, &min).expect("write the minimized input");
            println!("fuzz {target}: minimized to {} bytes: {out}", min.len());
        }
        panic!("fuzz {target}: {path} fails: {key}");
    }
    let n = execs(target, default_execs);
    let range = match only() {
        Some(i) => i..i + 1,
        None => 0..n,
    };
    for i in range {
        let mut rng = iteration_rng(report.seed, i);
        let input = generate(&mut rng, i);
        let r = guarded(|| check(&input, &mut report));
        report.execs += 1;
        match r {
            Ok(Ok(())) => {}
            Ok(Err(why)) | Err(why) => report.fail(i, &input, ext, &why),
        }
    }
    report.finish();
}

/// The smallest subset of `input`'s lines (the first kept: it may name a
/// setup) that still fails the same way: chunks removed, halving their size.
pub fn minimize(input: &[u8], mut fails: impl FnMut(&[u8]) -> bool) -> Vec<u8> {
    let text = String::from_utf8_lossy(input);
    let mut lines: Vec<&str> = text.lines().collect();
    let join = |ls: &[&str]| ls.join("\n").into_bytes();
    let mut chunk = lines.len().div_ceil(2).max(1);
    loop {
        let mut i = 1;
        while i < lines.len() {
            let mut fewer = lines.clone();
            fewer.drain(i..(i + chunk).min(lines.len()));
            if fails(&join(&fewer)) {
                lines = fewer;
            } else {
                i += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    join(&lines)
}
