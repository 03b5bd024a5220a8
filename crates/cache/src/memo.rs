//! The one policy every cached step follows: use the cached result when it is valid, else
//! build it and write it; cache trouble is a warning line, never an error of the step.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::{Cancelled, Entry, EntryFile, EntryWriter, Lookup, Written};

/// What the cache did for one step (opening, analyzing, reporting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheUse {
    /// No cache (`--no-cache`, or none could be set up).
    Off,
    /// Read from the cache.
    Hit,
    /// Built and written to the cache.
    Written,
    /// Built, not written (another process was writing it, or writing failed).
    Built,
}

impl CacheUse {
    pub fn name(self) -> &'static str {
        match self {
            CacheUse::Off => "off",
            CacheUse::Hit => "hit",
            CacheUse::Written => "written",
            CacheUse::Built => "built",
        }
    }
}

impl Entry {
    /// The file (`kind`, `options`) read by `read`, or else `build` then `write`.
    /// `read` returns a reason when a verified file still does not fit (then it is rebuilt).
    /// Cancelled while the file is verified: `Cancelled` as the step's error, the file kept.
    pub fn load_or_build<T, E: From<Cancelled>>(
        &self,
        kind: &str,
        options: &str,
        warnings: &mut Vec<String>,
        read: impl FnOnce(&EntryFile) -> Result<T, String>,
        build: impl FnOnce() -> Result<T, E>,
        write: impl FnOnce(&T, &mut EntryWriter) -> std::io::Result<()>,
    ) -> Result<(T, CacheUse), E> {
        match self.open(kind, options) {
            Lookup::Hit(f) => match read(&f) {
                Ok(v) => return Ok((v, CacheUse::Hit)),
                Err(reason) => warnings.push(format!("cache: the cached {kind} in {} not used: {reason}; rebuilding", self.dir().display())),
            },
            Lookup::Invalid(w) => warnings.push(w),
            Lookup::Cancelled => return Err(Cancelled.into()),
            Lookup::Miss => {}
        }
        let value = build()?;
        let used = match self.write(kind, options, |w| write(&value, w)) {
            Written::Done(_) => CacheUse::Written,
            Written::Busy | Written::Interrupted => CacheUse::Built,
            Written::Failed(m) => {
                warnings.push(m);
                CacheUse::Built
            }
        };
        Ok((value, used))
    }

    /// `load_or_build` for a value stored whole (serde): report data and the like.
    pub fn blob_or_build<T: Serialize + DeserializeOwned, E: From<Cancelled>>(
        &self,
        kind: &str,
        options: &str,
        warnings: &mut Vec<String>,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<(T, CacheUse), E> {
        self.load_or_build(kind, options, warnings, |f| f.blob(kind).map_err(|e| e.0), build, |v, w| w.blob(kind, v))
    }
}
