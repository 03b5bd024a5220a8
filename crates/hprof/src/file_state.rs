//! Whether a dump file changed on disk since it was looked at: its length, last modification
//! and last status change then, against now. One rule for every place that asks (an open
//! source before each piece of work, an index that failed while its file changed).

use std::fs::Metadata;
use std::time::SystemTime;

/// A file's length, last modification and last status change as seen once. A file rewritten in
/// place with its modification time set back (`cp -p`, `touch -r`) keeps the first two; the
/// status-change time tells it.
#[derive(Clone, Debug)]
pub struct FileState {
    len: u64,
    modified: Option<SystemTime>,
    changed: Option<(i64, i64, u64)>,
}

/// How a file differs from a `FileState`, with its length now and then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileChange {
    pub kind: ChangeKind,
    pub now: u64,
    pub then: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// Shorter than it was.
    CutShort,
    /// Longer than it was.
    Grown,
    /// As long as it was, with another modification time.
    Modified,
    /// As long and as modified as it was, its status-change time moved with its links unchanged:
    /// rewritten with its modification time set back, renamed, or its mode or owner changed.
    StatusChanged,
}

/// A file's status-change time (`st_ctime` with its nanoseconds) and link count, where the
/// system has them. The link count is kept because removing a link also moves the status-change
/// time: the dump deleted, or a new one renamed over it (the safe way to replace an open dump),
/// changes no byte of the open file and must not count as a change.
fn status_changed(meta: &Metadata) -> Option<(i64, i64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.ctime(), meta.ctime_nsec(), meta.nlink()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

impl FileState {
    /// The file as `meta` describes it now.
    pub fn of(meta: &Metadata) -> FileState {
        FileState { len: meta.len(), modified: meta.modified().ok(), changed: status_changed(meta) }
    }

    /// How the file `now` describes differs from this state; None when it does not.
    pub fn change(&self, now: &Metadata) -> Option<FileChange> {
        let (len, then) = (now.len(), self.len);
        let kind = if len < then {
            ChangeKind::CutShort
        } else if len > then {
            ChangeKind::Grown
        } else if now.modified().ok() != self.modified {
            ChangeKind::Modified
        } else if matches!((status_changed(now), self.changed), (Some((s, ns, links)), Some((s0, ns0, links0))) if (s, ns) != (s0, ns0) && links == links0) {
            ChangeKind::StatusChanged
        } else {
            return None;
        };
        Some(FileChange { kind, now: len, then })
    }
}
