//! HPROF reader: header, top-level records, heap dump sub-records, gzip input.
//! No graph notions: the heap index (`heapql-heap`) builds on these pieces.
//!
//! * [`Source`] — the uncompressed bytes: mmap, single-member gzip inflated to a temporary
//!   file, or the JVM's chunked `-gz` served member by member.
//! * [`parse_header`], [`records::walk`] — the top-level records and where each heap dump is.
//! * [`subrecords::scan_segment`] — the heap sub-records of one segment.
//! * `testkit` (feature `testkit`) — a small HPROF writer for tests.

pub mod control;
pub mod cursor;
pub mod dump_map;
pub mod error;
pub mod file_state;
mod gz;
pub mod header;
pub mod mutf8;
pub mod records;
#[cfg(unix)]
mod sigbus;
pub mod source;
pub mod subrecords;
pub mod types;

#[cfg(feature = "testkit")]
pub mod testkit;

pub use control::{Control, Ticker};
pub use cursor::Cursor;
pub use error::{Error, Warning};
pub use file_state::{ChangeKind, FileChange, FileState};
pub use header::{parse_header, Header, MAX_TIMESTAMP_MS};
pub use records::{Dump, Layout, Record, RecordVisitor, Segment};
pub use source::{Access, Compression, Source};
pub use subrecords::{ClassDump, RawStatic, Sub, SubVisitor};
pub use types::BasicType;
pub use dump_map::Fault;

/// Opens a file and reads its header.
pub fn open(path: &std::path::Path, ctl: Control<'_>) -> Result<(Source, Header), Error> {
    let src = Source::open(path, ctl)?;
    let header = read_header(&src)?;
    Ok((src, header))
}

/// Reads the header of an opened source.
pub fn read_header(src: &Source) -> Result<Header, Error> {
    let head = src.bytes(0, 64);
    parse_header(&head).map_err(|reason| Error::NotHprof { reason })
}
