//! The executor's error: a stable code (crosses the native boundary as the JS error's `code`)
//! and a message meant for the person who wrote the query; a name the dump lacks also as data.

use std::fmt;

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub code: &'static str,
    pub message: String,
    /// ERR_UNKNOWN_CLASS and ERR_UNKNOWN_FIELD: the name refused and what the message lists, as
    /// data (the fronts place the error by the name and quote the dump's names their own way;
    /// none reads them back out of the message).
    pub unknown: Option<Box<UnknownName>>,
}

/// What a name the dump lacks was used as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NameKind {
    /// A class name (`FROM`, `INSTANCEOF`).
    Class,
    /// An instance field read on objects.
    Field,
    /// A static field read on class objects (`classof(x).NAME`, `FROM java.lang.Class c … c.NAME`).
    Static,
}

/// A name the query uses that the dump lacks, with what the error's message lists beside it.
/// Crosses the native boundary as JSON (camelCase keys; ts/errors.ts `UnknownName`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnknownName {
    pub kind: NameKind,
    /// The name as the query writes it.
    pub name: String,
    /// A field: the class whose fields are listed (the source's first, when it has several);
    /// none for a static that no class of the dump has.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_name: Option<String>,
    /// A field: how many classes the source has (1, or the "none of the N classes" of the message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_count: Option<u32>,
    /// A field: the fields of `class_name`, with its superclasses' (its statics for a static);
    /// none for an array class.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<String>>,
    /// A class: up to three of the dump's classes by closeness; a static no class has: up to
    /// three statics' names of the dump.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<String>>,
    /// What the message adds in fixed words (no name of the dump in them): what an array has
    /// instead of fields, where a string's text is, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl UnknownName {
    /// The data as JSON, for the native boundary.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("names and lists serialize")
    }
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
        ExecError { code, message: message.into(), unknown: None }
    }
    /// ERR_UNKNOWN_CLASS or ERR_UNKNOWN_FIELD (by `unknown.kind`) with its data.
    pub fn unknown_name(message: impl Into<String>, unknown: UnknownName) -> ExecError {
        let code = if unknown.kind == NameKind::Class { ERR_UNKNOWN_CLASS } else { ERR_UNKNOWN_FIELD };
        ExecError { code, message: message.into(), unknown: Some(Box::new(unknown)) }
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
