//! The file header (hprof-format.md §2).

/// `JAVA PROFILE 1.0.x`, identifier size, timestamp, and where the records start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub format: String,
    pub id_size: u32,
    pub timestamp_ms: u64,
    pub records_start: u64,
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
        return Err(format!("identifier size {id_size} is not 4 or 8"));
    }
    let timestamp_ms = crate::types::be_u64(b, p + 4);
    Ok(Header { format, id_size, timestamp_ms, records_start: (p + 12) as u64 })
}
