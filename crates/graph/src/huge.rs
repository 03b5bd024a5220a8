//! Vectors for the arrays read and written at random (node -> preorder, whose memory then
//! serves as ancestor and idom):
//! backed by 2 MiB pages where the kernel allows it (`madvise(MADV_HUGEPAGE)`), so that a
//! random access over hundreds of MiB costs a cache miss instead of a cache miss plus a page
//! walk (a TLB entry covers 2 MiB, not 4 KiB). The contents and the memory used are the
//! same: the arrays are filled in full.

/// A vector of `n` copies of `value`, on huge pages where possible.
pub(crate) fn filled(n: usize, value: u32) -> Vec<u32> {
    let mut v: Vec<u32> = Vec::with_capacity(n);
    advise(v.as_ptr() as usize, n * 4);
    v.resize(n, value);
    v
}

/// Asks for huge pages over the 2 MiB-aligned part of `len` bytes at `at` (not touched yet).
/// Only a hint: without transparent huge pages nothing changes.
fn advise(at: usize, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let (lo, hi) = (at.next_multiple_of(HUGE), (at + len) / HUGE * HUGE);
        if hi > lo {
            // SAFETY: the range lies inside the vector's own allocation; the advice changes
            // only how its pages are backed, not their contents.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (at, len);
}

#[cfg(test)]
mod tests {
    #[test]
    fn filled_holds_the_value_everywhere() {
        // Small (no whole huge page inside) and large (several): the same contents.
        for n in [0, 1, 1000, 3 << 20] {
            let v = super::filled(n, 7);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 7));
        }
    }
}
