//! A list of problems, each with where it is and which rule it breaks.
//!
//! Profiles and table configurations are refused with every problem at once
//! (DESIGN principle 2), so an operator fixes a file in one pass.

use std::fmt;

/// One problem: the dotted path of the field, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

/// Every problem found in one document.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct Problems {
    /// What was being read, e.g. `profile nsw-2021` or `table config`.
    pub subject: String,
    pub problems: Vec<Problem>,
}

impl Problems {
    pub fn new(subject: impl Into<String>) -> Problems {
        Problems { subject: subject.into(), problems: Vec::new() }
    }

    pub fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem { path: path.into(), message: message.into() });
    }

    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    /// `Ok(value)` if nothing was found, else `Err(self)`.
    pub fn into_result<T>(self, value: T) -> Result<T, Problems> {
        if self.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        if let [p] = self.problems.as_slice() {
            // One problem: one line.
            return match p.path.is_empty() {
                true => write!(f, "{} is invalid: {}", self.subject, p.message),
                false => write!(f, "{} is invalid: {}: {}", self.subject, p.path, p.message),
            };
        }
        write!(f, "{} is invalid ({n} problem{}):", self.subject, if n == 1 { "" } else { "s" })?;
        for p in &self.problems {
            if p.path.is_empty() {
                write!(f, "\n  - {}", p.message)?;
            } else {
                write!(f, "\n  - {}: {}", p.path, p.message)?;
            }
        }
        Ok(())
    }
}

/// A TOML syntax or shape error as a problem list with line and column.
pub(crate) fn toml_problem(subject: &str, text: &str, e: &toml::de::Error) -> Problems {
    let mut p = Problems::new(subject);
    let at = e.span().map(|s| {
        let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
        let col = s.start - text[..s.start.min(text.len())].rfind('\n').map_or(0, |i| i + 1) + 1;
        format!("line {line}, column {col}")
    });
    p.push(at.unwrap_or_default(), e.message().trim().to_string());
    p
}
