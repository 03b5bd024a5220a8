//! `GrowArray`: a large array built by appending, whose final length is known only at the end
//! (the heap pass's object lists), in anonymous memory or in a mapped scratch file.
//!
//! In a file, the values go straight to page cache as they are written: no anonymous copy to
//! make the process's peak, and no second copy into a file once the array is complete (on a
//! 4 GB dump, 600 MB moved from memory to a file took 0.5–2.3 s). Disk space is reserved a
//! step at a time, ahead of the writes, so a full disk is an error at a step (the array then
//! moves to memory and goes on), never a SIGBUS on a write through the mapping; address space
//! is reserved for the expected length once and mapped again, larger, only past it.

use crate::{reserve_disk, BigArray, Placement, Plain, Repr};
use memmap2::{MmapMut, MmapOptions};
use std::fs::File;
use std::path::Path;

/// Disk space reserved at a time (and the smallest mapping).
const STEP_BYTES: usize = 32 << 20;

pub struct GrowArray<T: Plain> {
    /// The values: `len` of them at `ptr`, room for `room` there without a slow step (the
    /// push of the heap pass, per object, is one comparison and one store in both forms).
    ptr: *mut T,
    len: usize,
    room: usize,
    repr: Grow<T>,
}

// SAFETY: `ptr` points into memory the array owns (its `Vec` or its mapping), and plain
// values are safe to move and share between threads.
unsafe impl<T: Plain> Send for GrowArray<T> {}
unsafe impl<T: Plain> Sync for GrowArray<T> {}

enum Grow<T> {
    /// An allocation of `room` values whose own length stays 0 (the array's is `len`).
    Memory(Vec<T>),
    Mapped(MappedGrow),
}

struct MappedGrow {
    file: File,
    /// Address space for `cap` values; the file holds `reserved` of them (disk space taken).
    map: MmapMut,
    cap: usize,
    reserved: usize,
    /// Whether its mappings get the scratch mappings' paging advice (`crate::advice`).
    advised: bool,
    /// Tests: disk space beyond this many bytes is refused, as by a full disk.
    #[cfg(test)]
    disk_limit: usize,
}

impl<T: Plain> GrowArray<T> {
    /// Empty, with room for `cap` values: a `Vec` with that capacity for `Placement::Memory`
    /// (or when no scratch file can be made), else a scratch file in the placement's directory.
    pub fn with_capacity(cap: usize, place: &Placement) -> GrowArray<T> {
        if let Placement::Files(dir) = place {
            if let Some(m) = MappedGrow::create::<T>(dir, cap) {
                return GrowArray::over(Grow::Mapped(m), 0);
            }
            crate::fell_back();
        }
        GrowArray::over(Grow::Memory(Vec::with_capacity(cap)), 0)
    }

    fn over(repr: Grow<T>, len: usize) -> GrowArray<T> {
        let mut a = GrowArray { ptr: std::ptr::null_mut(), len, room: 0, repr };
        a.refresh();
        a
    }

    /// `ptr` and `room` after the storage changed.
    fn refresh(&mut self) {
        (self.ptr, self.room) = match &mut self.repr {
            Grow::Memory(v) => (v.as_mut_ptr(), v.capacity()),
            Grow::Mapped(m) => (m.map.as_mut_ptr() as *mut T, m.reserved),
        };
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// In a scratch file?
    pub fn is_mapped(&self) -> bool {
        matches!(self.repr, Grow::Mapped(_))
    }

    #[inline]
    pub fn push(&mut self, x: T) {
        if self.len == self.room {
            self.make_room(1);
        }
        // SAFETY: `len < room`: inside the allocation, or the mapping and the file.
        unsafe { self.ptr.add(self.len).write(x) };
        self.len += 1;
    }

    /// Room for `n` more values: more disk space for a file (which moves to memory when the
    /// disk is full), a larger allocation in memory.
    #[cold]
    fn make_room(&mut self, n: usize) {
        let len = self.len;
        if let Grow::Mapped(m) = &mut self.repr {
            let ok = m.reserve::<T>(len + n);
            // The mapping may have moved even when the disk space was refused.
            self.refresh();
            if !ok {
                crate::fell_back();
                self.to_memory();
            }
        }
        if let Grow::Memory(v) = &mut self.repr {
            if v.capacity() < len + n {
                // SAFETY: the first `len` values are written; the length goes back to 0 below.
                unsafe { v.set_len(len) };
                v.reserve(n.max(len / 2));
                unsafe { v.set_len(0) };
            }
        }
        self.refresh();
    }

    /// Appends `xs`.
    pub fn extend_from_slice(&mut self, xs: &[T]) {
        // SAFETY: every value of the tail is written.
        unsafe {
            self.append_with(xs.len(), |out| {
                for (o, &x) in out.iter_mut().zip(xs) {
                    o.write(x);
                }
            })
        }
    }

    /// Appends `n` zeros.
    pub fn extend_zeroed(&mut self, n: usize) {
        // SAFETY: every value of the tail is written.
        unsafe { self.append_with(n, |out| out.fill(std::mem::MaybeUninit::new(T::default()))) }
    }

    /// Appends `n` values written by `fill` into the new tail (a slice of `n`), without
    /// touching it first: a large copy can then be split between threads, each taking the
    /// page faults of its own part.
    ///
    /// # Safety
    /// `fill` must write every value of the tail.
    pub unsafe fn append_with(&mut self, n: usize, fill: impl FnOnce(&mut [std::mem::MaybeUninit<T>])) {
        if self.len + n > self.room {
            self.make_room(n);
        }
        // SAFETY: `len + n <= room`: the tail is inside the storage, seen as possibly
        // uninitialised values, which `fill` writes.
        let tail = unsafe { std::slice::from_raw_parts_mut(self.ptr.add(self.len) as *mut std::mem::MaybeUninit<T>, n) };
        fill(tail);
        self.len += n;
    }

    /// The values as a fixed-length array, with `extra` zeros appended: a scratch file stays
    /// where it is (the disk space past the end is given back); values in memory are placed by
    /// `place` (see `BigArray::from_vec`).
    pub fn into_big_array(mut self, extra: usize, place: &Placement) -> BigArray<T> {
        self.extend_zeroed(extra);
        let len = self.len;
        match std::mem::replace(&mut self.repr, Grow::Memory(Vec::new())) {
            Grow::Memory(mut v) => {
                // SAFETY: the first `len` values are written.
                unsafe { v.set_len(len) };
                v.shrink_to_fit();
                BigArray::from_vec(v, place)
            }
            Grow::Mapped(m) => m.finish(len),
        }
    }

    /// Moves the values into a `Vec` (the disk is full): the array goes on in memory.
    fn to_memory(&mut self) {
        if let Grow::Mapped(m) = &self.repr {
            let mut v: Vec<T> = Vec::with_capacity(m.cap.max(self.len));
            v.extend_from_slice(self);
            // SAFETY: plain values; the array's length is kept in `len`.
            unsafe { v.set_len(0) };
            self.repr = Grow::Memory(v);
            self.refresh();
        }
    }
}

impl<T: Plain> Default for GrowArray<T> {
    fn default() -> Self {
        GrowArray::over(Grow::Memory(Vec::new()), 0)
    }
}

impl<T: Plain> std::ops::Deref for GrowArray<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` values are written (or zeros from the file) and lie inside
        // the storage; `ptr` is non-null and aligned even when nothing was allocated.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: Plain> std::ops::DerefMut for GrowArray<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`; `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl MappedGrow {
    fn create<T>(dir: &Path, cap: usize) -> Option<MappedGrow> {
        let file = tempfile::tempfile_in(dir).ok()?;
        let cap = cap.max(STEP_BYTES / std::mem::size_of::<T>());
        let advised = crate::advice::small_read_around(dir);
        let map = map_values::<T>(&file, cap, advised)?;
        let mut m = MappedGrow {
            file,
            map,
            advised,
            cap,
            reserved: 0,
            #[cfg(test)]
            disk_limit: usize::MAX,
        };
        m.reserve::<T>(1).then_some(m)
    }

    /// Room for `need` values, on disk and in the mapping; false when the disk is full.
    fn reserve<T>(&mut self, need: usize) -> bool {
        if need <= self.reserved {
            return true;
        }
        let size = std::mem::size_of::<T>();
        let step = STEP_BYTES / size;
        let want = need.div_ceil(step) * step;
        if want > self.cap {
            // Past the expected length: a larger mapping of the same file.
            let cap = want.max(self.cap + self.cap / 2);
            match map_values::<T>(&self.file, cap, self.advised) {
                Some(map) => (self.map, self.cap) = (map, cap),
                None => return false,
            }
        }
        #[cfg(test)]
        if want * size > self.disk_limit {
            return false;
        }
        if !reserve_disk(&self.file, self.reserved * size, (want - self.reserved) * size) {
            return false;
        }
        crate::fill::lay_zeros(&self.file, self.reserved * size, (want - self.reserved) * size);
        self.reserved = want;
        true
    }

    /// The file cut to `len` values, mapped as a `BigArray`.
    fn finish<T: Plain>(self, len: usize) -> BigArray<T> {
        if len == 0 {
            return BigArray::default();
        }
        // Shrinking a file frees its tail; the mapping's pages past the new end are never
        // touched again (the array's length stops before them).
        let _ = self.file.set_len((len * std::mem::size_of::<T>()) as u64);
        BigArray { repr: Repr::Mapped { map: self.map, len } }
    }
}

/// A shared mapping of `file` with room for `cap` values (possibly past the file's end: only
/// the part the file covers is ever touched), with the scratch mappings' paging advice when
/// `advised` (`crate::advice`).
fn map_values<T>(file: &File, cap: usize, advised: bool) -> Option<MmapMut> {
    let bytes = cap.checked_mul(std::mem::size_of::<T>())?;
    // SAFETY: the file is unlinked and ours alone; nobody else can change it under the map.
    let map = unsafe { MmapOptions::new().len(bytes).map_mut(file) }.ok()?;
    if advised {
        crate::advice::apply(&map);
    }
    Some(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Values pushed one by one and appended in bulk read back the same in a file and in
    /// memory, past the expected length (the mapping grows) and across reservation steps.
    #[test]
    fn grows_past_its_capacity_and_keeps_every_value() {
        let dir = tempfile::tempdir().unwrap();
        for place in [Placement::Memory, Placement::Files(Arc::from(dir.path()))] {
            let mut a: GrowArray<u64> = GrowArray::with_capacity(1000, &place);
            assert_eq!(a.is_mapped(), place != Placement::Memory);
            let step = STEP_BYTES / 8;
            let n = 2 * step + 123;
            for k in 0..n as u64 {
                a.push(k * 3);
            }
            a.extend_from_slice(&[7, 8, 9]);
            a.extend_zeroed(5);
            a[0] = 42;
            assert_eq!(a.len(), n + 8);
            assert_eq!((a[0], a[1], a[n - 1]), (42, 3, (n as u64 - 1) * 3));
            // Every value, so that zeros laid down for a new step never land on written ones.
            assert!(a[1..n].iter().enumerate().all(|(k, &v)| v == (k as u64 + 1) * 3));
            assert_eq!(&a[n..], &[7, 8, 9, 0, 0, 0, 0, 0]);
            let b = a.into_big_array(2, &place);
            assert_eq!(b.is_mapped(), place != Placement::Memory);
            assert_eq!(b.len(), n + 10);
            assert_eq!((b[1], b[n + 2], b[n + 9]), (3, 9, 0));
        }
    }

    /// No scratch file can be made: the array lives in memory from the start.
    #[test]
    fn unusable_directory_falls_back_to_memory() {
        let place = Placement::Files(Arc::from(Path::new("/nonexistent/heapql-scratch")));
        let mut a: GrowArray<u32> = GrowArray::with_capacity(10, &place);
        assert!(!a.is_mapped());
        a.push(5);
        assert_eq!(&a.into_big_array(1, &Placement::Memory)[..], &[5, 0]);
    }

    /// The disk fills up while the array grows, on a push and on a bulk append: the values so
    /// far move to memory and the array goes on there.
    #[test]
    fn a_full_disk_moves_the_array_to_memory() {
        let dir = tempfile::tempdir().unwrap();
        for bulk in [false, true] {
            let mut a: GrowArray<u32> =
                GrowArray::with_capacity(10, &Placement::Files(Arc::from(dir.path())));
            let Grow::Mapped(m) = &mut a.repr else {
                panic!("a scratch file")
            };
            m.disk_limit = m.reserved * 4;
            let full = m.reserved;
            for k in 0..full as u32 {
                a.push(k);
            }
            assert!(
                a.is_mapped(),
                "the first step's space was taken at the start"
            );
            let fallbacks = crate::memory_fallbacks();
            if bulk {
                a.extend_from_slice(&[1, 2]);
            } else {
                a.push(1);
                a.push(2);
            }
            assert!(!a.is_mapped(), "moved to memory");
            assert!(crate::memory_fallbacks() > fallbacks, "the move to memory was counted");
            assert_eq!(a.len(), full + 2);
            assert_eq!(
                (a[0], a[full - 1], a[full], a[full + 1]),
                (0, full as u32 - 1, 1, 2)
            );
            assert!(!a.into_big_array(0, &Placement::Memory).is_mapped());
        }
    }
}
