//! How the kernel pages a scratch mapping back in after evicting it.
//!
//! A page fault on an evicted page of a file mapping makes the kernel read around it: the
//! device's whole readahead window (8 MiB on this project's machines), centred on the fault.
//! Inside a memory limit that window is mostly pages not needed yet, and reading them pushes
//! out pages that are: the arrays read at random (the graph during the depth-first search)
//! fault again and again. `MADV_RANDOM` alone turns the read-around off, which is far worse
//! (every fault one 4 KiB read: 12 s instead of 4.8 for the report inside 0.35 × bench-1g).
//! With `MADV_HUGEPAGE` as well, Linux reads exactly the aligned 2 MiB block around the fault
//! instead (the readahead of a mapping that asks for huge pages; one large folio where the file
//! system makes them, small pages elsewhere).
//! The CLI's report, three alternating pairs: inside 0.35 × bench-1g 4.0-5.2 s against
//! 4.5-6.1 s, inside 0.2 × 4.6-4.8 s against 7.1-9.0 s (bench-4g: 17.2-20.6 s against
//! 21.7-23.8 s); without a limit no different (nothing is evicted, nothing is read back).
//!
//! Whether the kernel does so is measured once per process (`small_read_around`): a fault on
//! a fresh sparse file mapped with both advices must bring in its whole 2 MiB block and no
//! page outside it. Where it does not, no mapping gets either advice.

use memmap2::MmapMut;
use std::path::Path;
use std::sync::OnceLock;

/// The block a fault brings back in under the advice.
const BLOCK: usize = 2 << 20;

/// The page size the probe counts in: with other sizes (16 or 64 KiB) a huge page is not 2 MiB
/// and the probe says no.
const PAGE: usize = 4096;

/// Asks the kernel to read back 2 MiB around a fault on an evicted page of `map` (a scratch
/// file's mapping), where it is known to do so.
pub(crate) fn advise(map: &MmapMut, dir: &Path) {
    if small_read_around(dir) {
        apply(map);
    }
}

/// Both advices on `map`, without asking again (callers that kept the verdict: `SpillFile`,
/// `GrowArray`). `MADV_RANDOM` only once `MADV_HUGEPAGE` is taken: alone it would turn the
/// read-around off, the slowest case of all.
pub(crate) fn apply(map: &MmapMut) {
    #[cfg(target_os = "linux")]
    {
        let (start, len) = (map.as_ptr() as *mut libc::c_void, map.len());
        // SAFETY: advice only changes how the kernel pages this mapping in; no data changes.
        if unsafe { libc::madvise(start, len, libc::MADV_HUGEPAGE) } == 0 {
            // SAFETY: as above.
            unsafe { libc::madvise(start, len, libc::MADV_RANDOM) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = map;
}

/// Whether scratch mappings get the advice: measured in `dir` the first time a probe can be
/// made there, then kept (the kernel's behaviour decides, not the directory's); no while no
/// probe file could be made.
pub(crate) fn small_read_around(dir: &Path) -> bool {
    static MEASURED: OnceLock<bool> = OnceLock::new();
    if let Some(&on) = MEASURED.get() {
        return on;
    }
    read_around_pages(dir).is_some_and(|pages| *MEASURED.get_or_init(|| exactly_the_block(pages)))
}

/// The probe's verdict on (pages inside the faulted block, pages outside it): the whole block
/// and nothing more.
fn exactly_the_block((inside, outside): (usize, usize)) -> bool {
    inside * PAGE == BLOCK && outside == 0
}

/// Pages of a fresh sparse file (three blocks long) made resident by one read fault in the
/// middle of its second block, mapped with the advice: (inside that block, outside it).
/// None where the probe cannot be made.
#[cfg(target_os = "linux")]
fn read_around_pages(dir: &Path) -> Option<(usize, usize)> {
    if crate::pages::page_size() != PAGE {
        return None;
    }
    let file = tempfile::tempfile_in(dir).ok()?;
    file.set_len(3 * BLOCK as u64).ok()?;
    // SAFETY: the file is unlinked and ours alone.
    let map = unsafe { MmapMut::map_mut(&file) }.ok()?;
    apply(&map);
    // SAFETY: in bounds; a volatile read so that the fault happens.
    unsafe { std::ptr::read_volatile(map.as_ptr().add(BLOCK + BLOCK / 2 + 100)) };
    let mut resident = vec![0u8; 3 * BLOCK / PAGE];
    // SAFETY: the mapping covers the range; one status byte per page.
    if unsafe { libc::mincore(map.as_ptr() as *mut libc::c_void, map.len(), resident.as_mut_ptr()) } != 0 {
        return None;
    }
    let (per_block, mut inside, mut outside) = (BLOCK / PAGE, 0, 0);
    for (page, &r) in resident.iter().enumerate() {
        if r & 1 == 1 {
            if page / per_block == 1 {
                inside += 1;
            } else {
                outside += 1;
            }
        }
    }
    Some((inside, outside))
}

#[cfg(not(target_os = "linux"))]
fn read_around_pages(_dir: &Path) -> Option<(usize, usize)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mapping's flags in /proc/self/smaps (`rr`: random reads, `hg`: huge pages asked for).
    #[cfg(target_os = "linux")]
    fn vm_flags(map: &MmapMut) -> Vec<String> {
        let start = format!("{:x}-", map.as_ptr() as usize);
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&start));
        assert!(lines.next().is_some(), "the mapping is in smaps");
        let flags = lines.find(|l| l.starts_with("VmFlags:")).expect("a VmFlags line");
        flags.split_whitespace().skip(1).map(str::to_string).collect()
    }

    /// A scratch mapping carries both advices exactly when the probe found the 2 MiB
    /// read-around, and the probe's own measurement agrees with its verdict.
    #[cfg(target_os = "linux")]
    #[test]
    fn mappings_are_advised_as_the_kernel_was_measured() {
        let dir = tempfile::tempdir().unwrap();
        let measured = read_around_pages(dir.path());
        let on = small_read_around(dir.path());
        assert_eq!(on, measured.is_some_and(exactly_the_block), "{measured:?}");
        assert!(!exactly_the_block((BLOCK / PAGE, 1)) && !exactly_the_block((1, 0)), "a wider or no read-around is refused");
        let file = tempfile::tempfile_in(dir.path()).unwrap();
        file.set_len(BLOCK as u64).unwrap();
        // SAFETY: the file is unlinked and ours alone.
        let map = unsafe { MmapMut::map_mut(&file) }.unwrap();
        advise(&map, dir.path());
        let flags = vm_flags(&map);
        assert_eq!(flags.iter().any(|f| f == "rr"), on, "{flags:?}");
        assert_eq!(flags.iter().any(|f| f == "hg"), on, "{flags:?}");
        eprintln!("read-around under the advice: {measured:?} (inside, outside its 2 MiB block); advice {}", if on { "on" } else { "off" });
        // Where the kernel is known to read the block (6.1 and later, transparent huge pages
        // built in), the advice must be on: a probe or an advice that broke would turn it off
        // silently and only the memory-limited benchmark would show it.
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
        let mut version = release.trim().split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse::<u32>().ok());
        let (major, minor) = (version.next().unwrap_or(0), version.next().unwrap_or(0));
        if (major, minor) >= (6, 1) && Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
            assert!(on, "Linux {major}.{minor} with transparent huge pages reads the aligned 2 MiB block: {measured:?}");
        }
    }
}
