//! The executor's error: a stable code (crosses the native boundary as the JS error's `code`)
//! and a message meant for the person who wrote the query.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub code: &'static str,
    pub message: String,
}

pub const ERR_PLAN: &str = "ERR_PLAN";
pub const ERR_UNKNOWN_CLASS: &str = "ERR_UNKNOWN_CLASS";
pub const ERR_UNKNOWN_FIELD: &str = "ERR_UNKNOWN_FIELD";
pub const ERR_NEEDS_ANALYSIS: &str = "ERR_NEEDS_ANALYSIS";
pub const ERR_QUERY: &str = "ERR_QUERY";
pub const ERR_CANCELLED: &str = "ERR_CANCELLED";
/// A value (a text, a list) longer than one result cell can hold.
pub const ERR_TOO_LARGE: &str = "ERR_TOO_LARGE";

impl ExecError {
    pub fn new(code: &'static str, message: impl Into<String>) -> ExecError {
        ExecError { code, message: message.into() }
    }
    pub fn plan(message: impl Into<String>) -> ExecError {
        ExecError::new(ERR_PLAN, message)
    }
    pub fn query(message: impl Into<String>) -> ExecError {
        ExecError::new(ERR_QUERY, message)
    }
    pub fn cancelled() -> ExecError {
        ExecError::new(ERR_CANCELLED, "the query was cancelled")
    }
    pub fn needs_analysis(what: &str) -> ExecError {
        ExecError::new(
            ERR_NEEDS_ANALYSIS,
            format!(
                "{what} needs the full analysis (object graph and dominator tree); \
                 run the analysis first (`heapql analyze`, `!analyze` in the REPL, POST /analyze)"
            ),
        )
    }
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ExecError {}

/// Expression evaluation carries errors boxed so a result is as small as a value (the hot
/// per-row path returns values through several levels).
impl From<Box<ExecError>> for ExecError {
    fn from(e: Box<ExecError>) -> ExecError {
        *e
    }
}
