//! The index cache: what a run built — the heap index, the full analysis, report data — kept
//! in files under the user's cache directory and memory-mapped by later runs on the same
//! unchanged dump instead of being rebuilt. The arrays are `heapql_scratch::BigArray`s:
//! the scratch files of a full analysis, made permanent.
//!
//! * `identity`: which dump (path, device and inode, size, modification and status-change
//!   times, sampled hash);
//! * `file`: one checksummed file (header, table of contents, page-aligned sections);
//! * `store`: the directory, entries per dump, locking, eviction, listing and clearing;
//! * `memo`: the policy of a cached step (load, else build and write).
//!
//! The heap and graph crates write and read their own parts (`persist` modules) through
//! `EntryWriter` / `EntryFile`.

mod file;
mod identity;
mod memo;
mod store;

pub use file::{Cancelled, EntryFile, EntryWriter, Invalid, Key, OpenError, FORMAT_VERSION};
pub use identity::{file_hash, DumpIdentity};
pub use memo::CacheUse;
pub use store::{cache_dir, Cache, Cleared, Entry, EntryInfo, EntryMeta, Leftover, Lookup, WriteWatch, Written};
