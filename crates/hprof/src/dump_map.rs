//! A mapping of the user's dump file, registered with `sigbus` for exactly as long as it is
//! mapped: its fields drop in order, the registration before the mapping, wherever it is
//! dropped (an error part way through opening a gzip file, a single member inflated to a file
//! of our own), so that no fault is ever recovered from at an address no longer the dump's.

use memmap2::Mmap;
use std::ops::Deref;

pub(crate) struct DumpMap {
    #[cfg(unix)]
    watch: crate::sigbus::Watch,
    map: Mmap,
}

impl DumpMap {
    /// `map`, the user's dump file, registered so that a read fault in it is recovered from.
    pub(crate) fn watched(map: Mmap) -> DumpMap {
        DumpMap {
            #[cfg(unix)]
            watch: crate::sigbus::watch(map.as_ptr(), map.len()),
            map,
        }
    }

    /// `map`, a file of our own or anonymous memory: nothing to register.
    pub(crate) fn own(map: Mmap) -> DumpMap {
        DumpMap {
            #[cfg(unix)]
            watch: crate::sigbus::Watch::none(),
            map,
        }
    }

    pub(crate) fn map(&self) -> &Mmap {
        &self.map
    }

    #[cfg(unix)]
    pub(crate) fn watch(&self) -> &crate::sigbus::Watch {
        &self.watch
    }
}

impl Deref for DumpMap {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

/// Why a read of a registered mapping faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The file now ends at or before the page read.
    CutShort = 1,
    /// The file still reaches the page: its device failed to deliver it (a bad sector, a
    /// network file system gone), or it could not be looked at.
    ReadError = 2,
}

impl Fault {
    pub(crate) fn from_byte(b: u8) -> Option<Fault> {
        match b {
            1 => Some(Fault::CutShort),
            2 => Some(Fault::ReadError),
            _ => None,
        }
    }

    /// The error's words: what happened, that the answer was dropped, and what to do.
    pub fn message(self) -> &'static str {
        match self {
            Fault::CutShort => "the heap dump file was cut short on disk while heapql was reading it, so what that read gave was dropped and the file cannot be read any more; open it again once it is complete (to replace a dump that is in use, write the new one elsewhere and rename it over the old)",
            Fault::ReadError => "reading the heap dump file failed (the system could not deliver a page of it: a failing disk or a network file system gone), so what that read gave was dropped and the file cannot be read any more; check the device, or copy the dump to a local disk, and open it again",
        }
    }
}
