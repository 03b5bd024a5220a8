//! Reader errors. The heap index adds the path and maps them onto its own error codes.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Not an HPROF file at all (empty, random bytes, text, cut inside the header).
    NotHprof { reason: String },
    /// The operating system refused (missing file, directory, permission, read failure).
    Io { reason: String },
    /// Structurally broken data that cannot be read past.
    Corrupt { offset: u64, reason: String },
    Cancelled,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotHprof { reason } => write!(f, "not an HPROF heap dump ({reason})"),
            Error::Io { reason } => write!(f, "{reason}"),
            Error::Corrupt { offset, reason } => {
                write!(f, "corrupt dump at byte offset {offset}: {reason}")
            }
            Error::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for Error {}

/// A non-fatal finding: truncated data, skipped unknown record, dropped root...
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub offset: u64,
    pub message: String,
}
