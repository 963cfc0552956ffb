//! The suite's results: each test's outcome, the checks, the run's report.

use baccarat_table::Seed;

use super::{Family, Procedure, ALPHA};

/// One test's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct TestResult {
    pub id: &'static str,
    pub name: &'static str,
    /// Where the test comes from.
    pub rule: &'static str,
    /// What `statistic` is: "chi2", "z" or "failures".
    pub statistic_kind: &'static str,
    pub statistic: f64,
    /// Degrees of freedom of a chi-square (of each first-level test, for a family).
    pub df: Option<f64>,
    pub p_value: f64,
    /// Further figures, in words.
    pub detail: String,
    pub family: Option<Family>,
}

impl TestResult {
    pub fn passed(&self) -> bool {
        self.p_value >= ALPHA
    }
}

/// A check that is true or false, with no distribution (a bound, a fixed
/// setting).
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub id: &'static str,
    pub name: &'static str,
    pub rule: &'static str,
    pub passed: bool,
    pub detail: String,
}

/// The suite's figures for one run.
#[derive(Clone, Debug)]
pub struct Report {
    pub master: Seed,
    pub shoes: u64,
    pub procedure: Procedure,
    pub tests: Vec<TestResult>,
    pub checks: Vec<Check>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.tests.iter().all(|t| t.passed()) && self.checks.iter().all(|c| c.passed)
    }

    pub fn test(&self, id: &str) -> Option<&TestResult> {
        self.tests.iter().find(|t| t.id == id)
    }

    pub fn check(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// The ids of failing tests and checks.
    pub fn failures(&self) -> Vec<&'static str> {
        let t = self.tests.iter().filter(|t| !t.passed()).map(|t| t.id);
        t.chain(self.checks.iter().filter(|c| !c.passed).map(|c| c.id)).collect()
    }
}

/// A p-value for reading: four significant figures, or `<1e-300`.
pub fn fmt_p(p: f64) -> String {
    if p <= 0.0 {
        "<1e-300".into()
    } else if p < 1e-3 {
        format!("{p:.3e}")
    } else {
        format!("{p:.4}")
    }
}
