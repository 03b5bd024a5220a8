//! The file header (hprof-format.md §2).

/// `JAVA PROFILE 1.0.x`, identifier size, timestamp, and where the records start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub format: String,
    pub id_size: u32,
    pub timestamp_ms: u64,
    pub records_start: u64,
}

/// The last millisecond of the year 9999 (`9999-12-31T23:59:59.999Z`). A header timestamp past
/// it is damage, not a time: it has no four-digit ISO 8601 year, and from 8.64e15 on JavaScript
/// cannot even make a date of it.
pub const MAX_TIMESTAMP_MS: u64 = 253_402_300_799_999;

impl Header {
    /// Byte offset of the timestamp in the file (the 8 bytes before the records).
    pub fn timestamp_offset(&self) -> u64 {
        self.records_start - 8
    }

    /// The dump time in milliseconds since the epoch: `None` when the header records none (0)
    /// or holds no valid time (past the year 9999: `MAX_TIMESTAMP_MS`).
    pub fn dump_time_ms(&self) -> Option<u64> {
        (self.timestamp_ms > 0 && self.timestamp_ms <= MAX_TIMESTAMP_MS).then_some(self.timestamp_ms)
    }

    /// Why the header's timestamp is ignored, when it is not 0 and not a valid time.
    pub fn timestamp_problem(&self) -> Option<String> {
        (self.timestamp_ms > MAX_TIMESTAMP_MS).then(|| {
            format!(
                "the header's timestamp 0x{:016x} ({} ms since 1970) at byte offset {} is not a valid time (after the year 9999); ignored, the dump time is shown as not recorded",
                self.timestamp_ms,
                self.timestamp_ms,
                self.timestamp_offset()
            )
        })
    }
}

const KNOWN: [&str; 4] = ["JAVA PROFILE 1.0", "JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3"];

/// Parses the header from the first bytes of the file; the error is the reason it is not HPROF.
pub fn parse_header(b: &[u8]) -> Result<Header, String> {
    if b.is_empty() {
        return Err("file is empty".into());
    }
    const PREFIX: &[u8] = b"JAVA PROFILE ";
    let n = PREFIX.len().min(b.len());
    if b[..n] != PREFIX[..n] {
        return Err("no 'JAVA PROFILE 1.0.x' header at the start of the file".into());
    }
    let limit = b.len().min(64);
    let nul = match b[..limit].iter().position(|&c| c == 0) {
        Some(p) => p,
        None if b.len() < 64 => return Err("file ends inside the 'JAVA PROFILE' header".into()),
        None => return Err("the 'JAVA PROFILE' header has no terminating zero byte".into()),
    };
    let format = String::from_utf8_lossy(&b[..nul]).into_owned();
    if !KNOWN.contains(&format.as_str()) {
        return Err(format!("unknown format version '{format}' (known: 1.0, 1.0.1, 1.0.2, 1.0.3)"));
    }
    let p = nul + 1;
    if b.len() < p + 12 {
        return Err("file ends inside the header (identifier size and timestamp missing)".into());
    }
    let id_size = crate::types::be_u32(b, p);
    if id_size != 4 && id_size != 8 {
        return Err(format!("identifier size {id_size} at byte offset {p} is not 4 or 8: the header is damaged, or the file was not written by a JVM; copy it again from where the dump was taken, or take a new heap dump"));
    }
    let timestamp_ms = crate::types::be_u64(b, p + 4);
    Ok(Header { format, id_size, timestamp_ms, records_start: (p + 12) as u64 })
}
