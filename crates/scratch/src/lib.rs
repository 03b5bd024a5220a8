//! Large arrays that may live in a scratch file instead of anonymous memory.
//!
//! The full analysis holds a few arrays of 4–12 bytes per object that are written once and
//! then only read: the object index, the graph's adjacency lists, the predecessor lists of
//! the dominator computation. Kept in anonymous memory they make the peak of the process.
//! Placed in an unlinked, pre-allocated file and memory-mapped, they are page cache: as fast
//! while memory is plentiful, written back and evicted by the kernel under pressure instead
//! of making the process run out of memory — the role MAT's index files play. Arrays that
//! are read and written at random all through a phase (the dominator scratch arrays) stay in
//! memory: paging those would thrash. Every scratch file's mapping asks for a small
//! read-around of evicted pages (`advice`; a cache entry's, `map_file`, does not).

mod advice;
mod append;
mod fill;
mod grow;
mod pages;
mod par;
mod spare;
mod timing;

pub use append::{Appender, PieceArray};
pub use fill::write_in_pieces;
pub use grow::GrowArray;
pub use pages::{forget_pages, release_pages, Pages};
pub use par::both;
pub use spare::memory_to_spare;
pub use timing::Laps;
use memmap2::MmapMut;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Arrays (or parts of one) that were to go to a scratch file and stayed in, or moved to,
/// memory because the file could not be made or written (a full disk, an unwritable
/// directory), in this process so far.
static FELL_BACK: AtomicU64 = AtomicU64::new(0);

/// How many times, in this process so far, an array asked for in a scratch file stayed in
/// memory or moved there because the file could not be made or written: a caller compares two
/// readings to tell whether its work could not have all its scratch files (and warn).
pub fn memory_fallbacks() -> u64 {
    FELL_BACK.load(Ordering::Relaxed)
}

/// Counts one fallback to memory (`memory_fallbacks`).
pub(crate) fn fell_back() {
    FELL_BACK.fetch_add(1, Ordering::Relaxed);
}

/// Where big arrays go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// Anonymous memory (a `Vec`).
    #[default]
    Memory,
    /// Unlinked files in this directory, memory-mapped.
    Files(Arc<Path>),
}

impl Placement {
    /// Files in `dir` if given, else in the first directory of the OS temp directory and
    /// `~/.cache/heapql` that is on a disk (a tmpfs would only turn the arrays into
    /// unswappable shared memory); `Memory` when there is none.
    pub fn files(dir: Option<&Path>) -> Placement {
        if let Some(d) = dir {
            return Placement::Files(Arc::from(d));
        }
        let mut candidates = vec![std::env::temp_dir()];
        if let Some(home) = std::env::var_os("HOME") {
            candidates.push(PathBuf::from(home).join(".cache").join("heapql"));
        }
        for c in candidates {
            if std::fs::create_dir_all(&c).is_ok() && !in_memory_fs(&c) {
                return Placement::Files(Arc::from(c.as_path()));
            }
        }
        Placement::Memory
    }
}

/// Is `dir` on a file system that lives in memory (tmpfs, ramfs)?
#[cfg(target_os = "linux")]
fn in_memory_fs(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else { return true };
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid NUL-terminated path and a zeroed out-parameter of the right type.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return true;
    }
    let t = st.f_type as i64;
    t == TMPFS_MAGIC || t == RAMFS_MAGIC
}

#[cfg(not(target_os = "linux"))]
fn in_memory_fs(_dir: &Path) -> bool {
    false
}

/// Plain integers: any bit pattern is a value, so file bytes can be viewed as `[T]`.
///
/// # Safety
/// Implement only for types without padding, invalid bit patterns or pointers.
pub unsafe trait Plain: Copy + Default + Send + Sync + 'static {}
unsafe impl Plain for u8 {}
unsafe impl Plain for u16 {}
unsafe impl Plain for u32 {}
unsafe impl Plain for u64 {}
unsafe impl Plain for [u32; 2] {}
unsafe impl Plain for [u64; 2] {}

/// A fixed-length array in memory or in a mapped scratch file (see `Placement`).
pub struct BigArray<T: Plain> {
    repr: Repr<T>,
}

enum Repr<T> {
    Memory(Vec<T>),
    Mapped { map: MmapMut, len: usize },
}

impl<T: Plain> BigArray<T> {
    /// Takes `v`; with `Placement::Files` its contents move to a scratch file and the
    /// vector's memory is freed. Falls back to keeping the vector when the file cannot be
    /// made (no space left, read-only directory): slower to fail than to use more memory.
    pub fn from_vec(v: Vec<T>, place: &Placement) -> BigArray<T> {
        if let Placement::Files(dir) = place {
            if !v.is_empty() {
                if let Some(map) = map_copy(dir, as_bytes(&v)) {
                    return BigArray { repr: Repr::Mapped { map, len: v.len() } };
                }
                fell_back();
            }
        }
        BigArray { repr: Repr::Memory(v) }
    }

    /// `len` values stored at byte `offset` of `file` (a cache entry), mapped copy-on-write:
    /// reads come from the page cache and are paged by the kernel; writes, if any, stay
    /// private to the process and never reach the file.
    pub fn map_file(file: &std::fs::File, offset: u64, len: usize) -> std::io::Result<BigArray<T>> {
        if len == 0 {
            return Ok(BigArray::default());
        }
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| std::io::Error::other("array too long"))?;
        // Pages past the end of the file would be a SIGBUS at first touch, not an error.
        let file_len = file.metadata()?.len();
        if (offset as u128) + (bytes as u128) > file_len as u128 {
            return Err(std::io::Error::other(format!("{bytes} bytes at byte offset {offset} run past the end of the file ({file_len} bytes)")));
        }
        // SAFETY: a private mapping; cache files are only ever replaced by rename, never
        // written in place, so the bytes under the map do not change.
        let map = unsafe { memmap2::MmapOptions::new().offset(offset).len(bytes).map_copy(file) }?;
        if map.as_ptr() as usize % std::mem::align_of::<T>() != 0 {
            return Err(std::io::Error::other("array not aligned in the file"));
        }
        Ok(BigArray { repr: Repr::Mapped { map, len } })
    }

    /// `len` zeros.
    pub fn zeroed(len: usize, place: &Placement) -> BigArray<T> {
        if let Placement::Files(dir) = place {
            if len > 0 {
                if let Some(map) = map_zeroed(dir, len * std::mem::size_of::<T>()) {
                    return BigArray { repr: Repr::Mapped { map, len } };
                }
                fell_back();
            }
        }
        BigArray { repr: Repr::Memory(vec![T::default(); len]) }
    }

    /// Keeps the first `len` values (a mapped file keeps its size).
    pub fn truncate(&mut self, len: usize) {
        match &mut self.repr {
            Repr::Memory(v) => v.truncate(len),
            Repr::Mapped { len: l, .. } => *l = (*l).min(len),
        }
    }

    /// In a scratch file?
    pub fn is_mapped(&self) -> bool {
        matches!(self.repr, Repr::Mapped { .. })
    }

    /// Bytes of anonymous memory held (0 when mapped).
    pub fn heap_bytes(&self) -> usize {
        match &self.repr {
            Repr::Memory(v) => v.capacity() * std::mem::size_of::<T>(),
            Repr::Mapped { .. } => 0,
        }
    }

    /// Bytes of scratch file held (0 in memory).
    pub fn file_bytes(&self) -> usize {
        match &self.repr {
            Repr::Memory(_) => 0,
            Repr::Mapped { len, .. } => len * std::mem::size_of::<T>(),
        }
    }
}

impl<T: Plain> From<Vec<T>> for BigArray<T> {
    fn from(v: Vec<T>) -> Self {
        BigArray { repr: Repr::Memory(v) }
    }
}

impl<T: Plain> Default for BigArray<T> {
    fn default() -> Self {
        BigArray { repr: Repr::Memory(Vec::new()) }
    }
}

impl<T: Plain> Deref for BigArray<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match &self.repr {
            Repr::Memory(v) => v,
            // SAFETY: the mapping is page-aligned, holds `len` values of a `Plain` type and
            // lives as long as `self`.
            Repr::Mapped { map, len } => unsafe { std::slice::from_raw_parts(map.as_ptr() as *const T, *len) },
        }
    }
}

impl<T: Plain> DerefMut for BigArray<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.repr {
            Repr::Memory(v) => v,
            // SAFETY: as in `deref`; `&mut self` makes the access exclusive.
            Repr::Mapped { map, len } => unsafe { std::slice::from_raw_parts_mut(map.as_mut_ptr() as *mut T, *len) },
        }
    }
}

impl<T: Plain + std::fmt::Debug> std::fmt::Debug for BigArray<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BigArray").field("len", &self.len()).field("mapped", &self.is_mapped()).finish()
    }
}

/// This process's resident anonymous memory in bytes (`RssAnon`, Linux), 0 where unknown: the
/// private memory the budgets are about, unlike RSS, which counts mapped dump and scratch pages.
pub fn rss_anon_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("RssAnon:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()))
        .map_or(0, |kb| kb * 1024)
}

/// The bytes of a slice of plain values (what a scratch or cache file holds of it).
pub fn as_bytes<T: Plain>(v: &[T]) -> &[u8] {
    // SAFETY: `Plain` types have no padding; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// Appends `v`'s values to `file`.
fn write_values<T: Plain>(file: &mut std::fs::File, v: &[T]) -> std::io::Result<()> {
    fill::write_in_pieces(file, as_bytes(v))
}

/// Fills `into` with the next values of `file`, as `write_values` wrote them.
fn read_values<T: Plain>(file: &mut std::fs::File, into: &mut [T]) -> std::io::Result<()> {
    use std::io::Read;
    // SAFETY: `Plain` values accept any bytes; the slice covers exactly `into`.
    let bytes = unsafe { std::slice::from_raw_parts_mut(into.as_mut_ptr() as *mut u8, std::mem::size_of_val(into)) };
    file.read_exact(bytes)
}

/// Values appended in order to an unlinked scratch file, then read back the same way or
/// mapped: where a builder's finished output goes while the rest is being made. Every error
/// is returned (a full disk is the caller's cue to go on in memory); a failed `append`
/// leaves the values before it readable.
pub struct SpillFile<T: Plain> {
    file: std::fs::File,
    len: usize,
    /// Whether its mapping gets the scratch mappings' paging advice (`advice`).
    advised: bool,
    _values: std::marker::PhantomData<T>,
}

impl<T: Plain> SpillFile<T> {
    /// An empty file in `dir`.
    /// A failure counts as a fallback to memory (`memory_fallbacks`): the caller's cue to go on
    /// in memory.
    pub fn create(dir: &Path) -> std::io::Result<SpillFile<T>> {
        let file = tempfile::tempfile_in(dir).inspect_err(|_| fell_back())?;
        Ok(SpillFile { file, len: 0, advised: advice::small_read_around(dir), _values: std::marker::PhantomData })
    }

    /// Values appended so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A failure counts as a fallback to memory, as `create`'s does.
    pub fn append(&mut self, v: &[T]) -> std::io::Result<()> {
        write_values(&mut self.file, v).inspect_err(|_| fell_back())?;
        self.len += v.len();
        Ok(())
    }

    /// Calls `f` with the values in order, in pieces of at most `chunk` values (no more held
    /// in memory); the file stays as it is.
    pub fn for_each_chunk(&mut self, chunk: usize, mut f: impl FnMut(&[T])) -> std::io::Result<()> {
        use std::io::Seek;
        self.file.rewind()?;
        let mut buf = vec![T::default(); chunk.min(self.len)];
        let mut left = self.len;
        while left > 0 {
            let k = left.min(chunk);
            read_values(&mut self.file, &mut buf[..k])?;
            f(&buf[..k]);
            left -= k;
        }
        Ok(())
    }

    /// All the values, read into memory.
    pub fn into_vec(mut self) -> std::io::Result<Vec<T>> {
        use std::io::Seek;
        self.file.rewind()?;
        let mut v = vec![T::default(); self.len];
        read_values(&mut self.file, &mut v)?;
        Ok(v)
    }

    /// All the values, mapped writable and shared with the file (an array to change in place,
    /// as a `BigArray::zeroed`, without its pages turning into anonymous copies).
    pub fn map_shared(&self) -> std::io::Result<BigArray<T>> {
        if self.len == 0 {
            return Ok(BigArray::default());
        }
        // SAFETY: the file is unlinked and ours alone; nobody else can change it under the map.
        let map = unsafe { memmap2::MmapOptions::new().len(self.len * std::mem::size_of::<T>()).map_mut(&self.file) }?;
        if self.advised {
            advice::apply(&map);
        }
        Ok(BigArray { repr: Repr::Mapped { map, len: self.len } })
    }

    /// All the values, mapped from the file (page cache, not anonymous memory).
    pub fn map(&self) -> std::io::Result<BigArray<T>> {
        let array = BigArray::map_file(&self.file, 0, self.len)?;
        if let (true, Repr::Mapped { map, .. }) = (self.advised, &array.repr) {
            advice::apply(map);
        }
        Ok(array)
    }
}

/// An unlinked file in `dir` with `bytes` reserved on disk (so a full disk is an error here,
/// not a SIGBUS on a later write through the mapping).
fn reserved_file(dir: &Path, bytes: usize) -> Option<std::fs::File> {
    let file = tempfile::tempfile_in(dir).ok()?;
    reserve_disk(&file, 0, bytes).then_some(file)
}

/// Takes `bytes` of disk space for `file` from byte `offset` (the file grows to cover them):
/// false when the disk is full. Elsewhere than Linux the file only grows (sparse).
pub(crate) fn reserve_disk(file: &std::fs::File, offset: usize, bytes: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: a valid descriptor of a file we own.
        unsafe { libc::posix_fallocate(file.as_raw_fd(), offset as libc::off_t, bytes as libc::off_t) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    file.set_len((offset + bytes) as u64).is_ok()
}

fn map_zeroed(dir: &Path, bytes: usize) -> Option<MmapMut> {
    let file = reserved_file(dir, bytes)?;
    fill::lay_zeros(&file, 0, bytes);
    // SAFETY: the file is unlinked and ours alone; nobody else can change it under the map.
    let map = unsafe { MmapMut::map_mut(&file) }.ok()?;
    advice::advise(&map, dir);
    Some(map)
}

fn map_copy(dir: &Path, data: &[u8]) -> Option<MmapMut> {
    let mut file = reserved_file(dir, data.len())?;
    fill::write_in_pieces(&mut file, data).ok()?;
    // SAFETY: as in `map_zeroed`.
    let map = unsafe { MmapMut::map_mut(&file) }.ok()?;
    advice::advise(&map, dir);
    Some(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A temporary directory and a placement in files there.
    pub(crate) fn files() -> (tempfile::TempDir, Placement) {
        let dir = tempfile::tempdir().unwrap();
        let place = Placement::Files(Arc::from(dir.path()));
        (dir, place)
    }

    #[test]
    fn moved_vector_keeps_its_values_and_leaves_memory() {
        let (_dir, place) = files();
        let v: Vec<u64> = (0..100_000u64).map(|i| i * 3 + (i << 40)).collect();
        let a = BigArray::from_vec(v.clone(), &place);
        assert!(a.is_mapped());
        assert_eq!(a.heap_bytes(), 0);
        assert_eq!(a.file_bytes(), 800_000);
        assert_eq!(&a[..], &v[..]);
    }

    #[test]
    fn zeroed_arrays_are_writable() {
        let (_dir, place) = files();
        let mut a: BigArray<u32> = BigArray::zeroed(5000, &place);
        assert!(a.is_mapped());
        assert!(a.iter().all(|&x| x == 0));
        a[4999] = 7;
        a[0] = 1;
        assert_eq!((a[0], a[1], a[4999]), (1, 0, 7));
        a.truncate(2);
        assert_eq!(&a[..], &[1, 0]);
        let m: BigArray<u32> = BigArray::zeroed(3, &Placement::Memory);
        assert_eq!((&m[..], m.is_mapped()), (&[0u32, 0, 0][..], false));
    }

    #[test]
    fn unusable_directory_falls_back_to_memory() {
        let place = Placement::Files(Arc::from(Path::new("/nonexistent/heapql-scratch")));
        let a = BigArray::from_vec(vec![1u32, 2, 3], &place);
        assert!(!a.is_mapped());
        assert_eq!(&a[..], &[1, 2, 3]);
        let z: BigArray<u16> = BigArray::zeroed(4, &place);
        assert_eq!(&z[..], &[0, 0, 0, 0]);
    }

    #[test]
    fn arrays_map_from_a_file_range() {
        let mut f = tempfile::tempfile().unwrap();
        let mut bytes = vec![0u8; 4096];
        bytes.extend((0..10u32).flat_map(|i| (i * 7).to_le_bytes()));
        f.write_all(&bytes).unwrap();
        let mut a: BigArray<u32> = BigArray::map_file(&f, 4096, 10).unwrap();
        assert!(a.is_mapped());
        assert_eq!(a[9], 63);
        a[0] = 5;
        let again: BigArray<u32> = BigArray::map_file(&f, 4096, 10).unwrap();
        assert_eq!((a[0], again[0]), (5, 0), "writes stay private");
        assert!(BigArray::<u32>::map_file(&f, 4096, 0).unwrap().is_empty());
        let past = BigArray::<u32>::map_file(&f, 4096, 11).err().expect("one value past the end is refused");
        assert!(past.to_string().contains("past the end of the file"), "{past}");
    }

    #[test]
    fn spill_files_give_back_what_was_appended() {
        let (_dir, place) = files();
        let Placement::Files(dir) = &place else { unreachable!() };
        let mut f: SpillFile<u64> = SpillFile::create(dir).unwrap();
        assert!(f.is_empty() && f.map().unwrap().is_empty());
        let values: Vec<u64> = (0..10_000u64).map(|k| k * 7919).collect();
        for part in values.chunks(999) {
            f.append(part).unwrap();
        }
        assert_eq!(f.len(), values.len());
        let mut pieces = Vec::new();
        f.for_each_chunk(4096, |c| pieces.push(c.to_vec())).unwrap();
        assert_eq!(pieces.iter().map(|p| p.len()).collect::<Vec<_>>(), [4096, 4096, 1808]);
        assert_eq!(pieces.concat(), values);
        let mapped = f.map().unwrap();
        assert!(mapped.is_mapped());
        assert_eq!(&mapped[..], &values[..]);
        assert_eq!(f.into_vec().unwrap(), values);
        assert!(SpillFile::<u32>::create(&dir.join("missing")).is_err(), "no directory, no file");
    }

    /// Every kind of array that cannot have its scratch file counts a fallback to memory
    /// (`memory_fallbacks`): what the analysis reads to warn that its directory filled up.
    #[test]
    fn every_fallback_to_memory_is_counted() {
        let place = Placement::Files(Arc::from(Path::new("/nonexistent/heapql-scratch")));
        let Placement::Files(dir) = &place else { unreachable!() };
        let counted = |what: &str, make: &dyn Fn()| {
            let before = memory_fallbacks();
            make();
            assert!(memory_fallbacks() > before, "{what}: not counted");
        };
        counted("from_vec", &|| assert!(!BigArray::from_vec(vec![1u32], &place).is_mapped()));
        counted("zeroed", &|| assert!(!BigArray::<u32>::zeroed(4, &place).is_mapped()));
        counted("GrowArray", &|| assert!(!GrowArray::<u32>::with_capacity(4, &place).is_mapped()));
        counted("Appender", &|| assert!(!Appender::<u32>::new(4, &place).finish().is_mapped()));
        counted("PieceArray", &|| assert!(!PieceArray::<u32>::new(4, &place).finish().is_mapped()));
        counted("SpillFile", &|| assert!(SpillFile::<u32>::create(dir).is_err()));
    }

    #[test]
    fn empty_arrays_stay_in_memory() {
        let (_dir, place) = files();
        let a: BigArray<u32> = BigArray::from_vec(Vec::new(), &place);
        assert!(!a.is_mapped() && a.is_empty());
        let z: BigArray<u32> = BigArray::zeroed(0, &place);
        assert!(z.is_empty());
    }

    #[test]
    fn files_placement_picks_a_disk_directory() {
        match Placement::files(None) {
            Placement::Files(d) => assert!(d.is_dir() && !in_memory_fs(&d)),
            Placement::Memory => {}
        }
        let given = Path::new("/some/where");
        assert_eq!(Placement::files(Some(given)), Placement::Files(Arc::from(given)));
    }
}
