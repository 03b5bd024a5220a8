//! Pages asked for ahead and given back in bulk, a system call for many pages.
//!
//! **Ahead** (`Pages::prefault`): an array's fresh pages made resident from an otherwise idle
//! core before a pass fills them.
//!
//! **Given back** (`release_pages`, `forget_pages`): dropping a mapped multi-gigabyte dump, or
//! freeing the index's arrays, leaves the kernel to take down every page-table entry on the one
//! thread that unmaps: 0.12 s for a 4.3 GB dump on this project's machines, a sixth of a cold
//! query's time. `MADV_DONTNEED` does the same work under a shared lock, so two threads can each
//! take down their share first and the unmapping that follows finds nothing left to do.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Pieces the two threads take in turn: small enough to share the work evenly, large enough
/// that one call's fixed cost does not count.
const PIECE: usize = 32 << 20;

/// The system's page size (4 KiB unless the kernel says otherwise).
pub(crate) fn page_size() -> usize {
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads a system constant.
        match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
            p if p > 0 => return p as usize,
            _ => {}
        }
    }
    4096
}

/// Where an array's pages lie, without a borrow of it: a thread can fault them in while
/// another fills them (`prefault`).
#[derive(Clone, Copy, Debug)]
pub struct Pages {
    start: usize,
    bytes: usize,
}

impl Pages {
    pub fn of<T>(v: &[T]) -> Pages {
        Pages { start: v.as_ptr() as usize, bytes: std::mem::size_of_val(v) }
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Makes every page resident and writable now (`MADV_POPULATE_WRITE`), so that the pass
    /// filling them takes no page fault. Meant for a core that would otherwise idle: on
    /// this project's machines a fresh page costs a fault worth more than the work done on
    /// it. Populating leaves the contents as they are, so it may run while another thread
    /// writes the same pages. Best effort: where the kernel cannot, they fault in as before.
    pub fn prefault(self) {
        self.prefault_while(|| true)
    }

    /// `prefault` a piece (`PIECE` bytes) at a time while `go()` says so: a cancelled pass
    /// does not wait for the rest.
    pub fn prefault_while(self, go: impl Fn() -> bool) {
        let mut at = 0;
        while at < self.bytes && go() {
            let len = PIECE.min(self.bytes - at);
            Pages { start: self.start + at, bytes: len }.prefault_all();
            at += len;
        }
    }

    fn prefault_all(self) {
        #[cfg(target_os = "linux")]
        {
            if self.bytes == 0 {
                return;
            }
            let from = self.start & !(page_size() - 1);
            // SAFETY: madvise only faults pages in; an address range that is no longer
            // mapped makes it fail, nothing more.
            unsafe { libc::madvise(from as *mut libc::c_void, self.start + self.bytes - from, libc::MADV_POPULATE_WRITE) };
        }
    }
}

/// Drops the pages behind `regions` with two threads.
///
/// # Safety
/// Nothing may read the regions afterwards except to free them: anonymous memory reads back
/// as zeros (a file mapping reads the file again). Callers drop the owners right after.
pub unsafe fn release_pages(regions: &[&[u8]]) {
    let pieces: Vec<(usize, usize)> = regions.iter().flat_map(|r| whole_pages(r)).flat_map(split_in_pieces).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        while let Some(&(start, len)) = pieces.get(next.fetch_add(1, Ordering::Relaxed)) {
            // SAFETY: the range lies inside a live region the caller gives up (see above).
            unsafe { drop_range(start, len) };
        }
    };
    if pieces.len() < 2 {
        work();
        return;
    }
    crate::both(work, work);
}

/// Gives back the whole pages inside `s` at once, on this thread (see `release_pages`).
///
/// # Safety
/// As for `release_pages`.
pub unsafe fn forget_pages(s: &[u8]) {
    if let Some((start, len)) = whole_pages(s) {
        // SAFETY: the caller's promise.
        unsafe { drop_range(start, len) };
    }
}

/// The pages lying wholly inside `r` (its partial first and last pages stay as they are:
/// they may hold an allocator's bookkeeping).
fn whole_pages(r: &[u8]) -> Option<(usize, usize)> {
    let page = page_size();
    let start = (r.as_ptr() as usize).next_multiple_of(page);
    let end = (r.as_ptr() as usize + r.len()) / page * page;
    // Not `then_some`: its argument is computed first, and `end - start` underflows when the
    // region lies inside one page.
    if end > start {
        Some((start, end - start))
    } else {
        None
    }
}

fn split_in_pieces((start, len): (usize, usize)) -> impl Iterator<Item = (usize, usize)> {
    (0..len).step_by(PIECE).map(move |at| (start + at, PIECE.min(len - at)))
}

#[cfg(target_os = "linux")]
unsafe fn drop_range(start: usize, len: usize) {
    // A failure only means the unmapping does the work later.
    unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
}

#[cfg(not(target_os = "linux"))]
unsafe fn drop_range(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_whole_pages_exactly() {
        let page = page_size();
        let buf = vec![7u8; 3 * PIECE + 3 * page + 100];
        let r = &buf[5..];
        let (start, len) = whole_pages(r).unwrap();
        assert_eq!(start % page, 0);
        assert!(start >= r.as_ptr() as usize && start - (r.as_ptr() as usize) < page);
        assert!(start + len <= r.as_ptr() as usize + r.len());
        assert!(r.as_ptr() as usize + r.len() - (start + len) < page);
        let pieces: Vec<_> = split_in_pieces((start, len)).collect();
        assert_eq!(pieces.len(), 4);
        let mut at = start;
        for &(s, l) in &pieces {
            assert_eq!(s, at);
            at += l;
        }
        assert_eq!(at, start + len);
        assert_eq!(whole_pages(&buf[..page / 2]), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn released_anonymous_pages_read_back_as_zeros_and_the_rest_stays() {
        // An anonymous map read with volatile loads: the compiler may not assume what the
        // bytes are after the kernel dropped some (a `Vec` read after `release_pages` would
        // break that function's contract).
        let mut map = memmap2::MmapMut::map_anon(70 << 20).unwrap();
        map.fill(0xab);
        let base = map.as_ptr();
        let region = &map[(1 << 20) + 5..map.len() - (1 << 20)];
        let (start, len) = whole_pages(region).unwrap();
        let (from, to) = (start - base as usize, start - base as usize + len);
        unsafe { release_pages(&[region]) };
        // SAFETY: every index is inside the live map.
        let at = |i: usize| unsafe { std::ptr::read_volatile(base.add(i)) };
        // Exactly the region's whole pages were dropped.
        assert!((0..from).all(|i| at(i) == 0xab));
        assert!((from..to).all(|i| at(i) == 0));
        assert!((to..map.len()).all(|i| at(i) == 0xab));
    }
}
