//! Which dump a cache entry belongs to: the file's place (canonical path, device, inode), its
//! size, modification time and status-change time, and a hash of its first bytes and a few
//! sampled blocks — so a dump rewritten in place with the same size and time (a copy with
//! `cp -p`, `rsync -t`, `touch -r`, an archive unpacked onto it) is still told apart, without
//! reading the whole file. The modification time can be set back by anyone; the status-change
//! time (`st_ctime`) cannot: every write, every `utime` and every change of mode, owner or link
//! count moves it to the kernel's clock. So a change outside the sampled blocks is caught too,
//! at the price of a rebuild after a mere `chmod`, `chown` or new hard link.

use serde::{Deserialize, Serialize};
use std::fs::File;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// Bytes hashed at the start of the file, at the end and at each sample.
const SAMPLE_BYTES: u64 = 64 * 1024;
/// Evenly spaced samples between the start and the end.
const SAMPLES: u64 = 14;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpIdentity {
    /// Canonical path (symbolic links resolved).
    pub path: String,
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status-change time (`st_ctime`, with its nanoseconds) since the epoch: what a user
    /// cannot set back (0 where the system has none).
    pub ctime_ns: i128,
    /// xxh3 of the header and the sampled blocks.
    pub sample_hash: u64,
}

impl DumpIdentity {
    /// Reads the metadata and about 1 MiB of the file.
    pub fn of(path: &Path) -> std::io::Result<DumpIdentity> {
        let canonical = std::fs::canonicalize(path)?;
        // Not opened unless a regular file: opening a FIFO blocks until a writer comes.
        if !std::fs::metadata(&canonical)?.is_file() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
        }
        let file = File::open(&canonical)?;
        let meta = file.metadata()?;
        let size = meta.len();
        let mtime_ns = match meta.modified()?.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        };
        let (dev, ino) = dev_ino(&meta);
        let ctime_ns = ctime_ns(&meta);
        Ok(DumpIdentity { path: canonical.display().to_string(), dev, ino, size, mtime_ns, ctime_ns, sample_hash: sample_hash(&file, size)? })
    }
}

#[cfg(unix)]
fn dev_ino(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn dev_ino(_meta: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

#[cfg(unix)]
fn ctime_ns(meta: &std::fs::Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128
}

#[cfg(not(unix))]
fn ctime_ns(_meta: &std::fs::Metadata) -> i128 {
    0
}

fn sample_hash(file: &File, size: u64) -> std::io::Result<u64> {
    let mut h = Xxh3::new();
    let mut buf = vec![0u8; SAMPLE_BYTES as usize];
    let mut offsets = vec![0u64];
    if size > SAMPLE_BYTES {
        let span = size - SAMPLE_BYTES;
        offsets.extend((1..=SAMPLES).map(|i| span / (SAMPLES + 1) * i));
        offsets.push(span);
    }
    for off in offsets {
        let n = crate::file::read_full(file, &mut buf, off)?;
        h.update(&off.to_le_bytes());
        h.update(&buf[..n]);
    }
    Ok(h.digest())
}

/// xxh3 of a whole file (a build's fingerprint: the addon that writes the cache).
pub fn file_hash(path: &Path) -> std::io::Result<u64> {
    let file = File::open(path)?;
    // SAFETY: read-only view, dropped before returning.
    let map = unsafe { memmap2::Mmap::map(&file) }?;
    Ok(xxhash_rust::xxh3::xxh3_64(&map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn identity_changes_with_content_of_the_same_size() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.hprof");
        let data = vec![7u8; 3_000_000];
        std::fs::write(&p, &data).unwrap();
        let a = DumpIdentity::of(&p).unwrap();
        assert_eq!(a, DumpIdentity::of(&p).unwrap());
        // Same size, same mtime restored, one byte changed inside the first sampled block.
        let mtime = std::fs::metadata(&p).unwrap().modified().unwrap();
        let mut changed = data.clone();
        changed[10] = 8;
        let mut f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        f.write_all(&changed).unwrap();
        f.set_modified(mtime).unwrap();
        drop(f);
        let b = DumpIdentity::of(&p).unwrap();
        assert_eq!((a.size, a.mtime_ns, a.ino), (b.size, b.mtime_ns, b.ino));
        assert_ne!(a.sample_hash, b.sample_hash);
    }
}
