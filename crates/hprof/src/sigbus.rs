//! A dump file cut short on disk (or its device failing) while heapql reads it through its
//! mapping: the first read of a page past the file's new end, or of a page the device cannot
//! deliver, raises SIGBUS, whose default action kills the process with no word — in a server,
//! every other session with it. `check_unchanged` catches a cut before each piece of work, not
//! during one.
//!
//! The mapped ranges of the user's dump files are registered here (`DumpMap`). A SIGBUS at an
//! address inside one is recovered from: the handler maps zero-filled pages over the rest of
//! that range (so the faulting read, run again on return, and every later one there read zeros
//! instead of faulting) and notes the cause on the range — cut short if the file (`fstat` of
//! its descriptor) now ends at or before the faulting offset, else a read error. The note
//! lasts: `Source::check_unchanged`, which the addon asks before and after every piece of work
//! on the dump, and `Source::read_fault`, which a stream asks before each batch it sends, turn
//! it into an error, so no answer read from those zeros goes out. Where the zero pages cannot
//! be mapped, the handler says what happened on stderr and ends the process with exit code 2.
//! Any other SIGBUS goes to the handler that was installed before (or the default action) as
//! if this one were not there (called with this handler's mask: its own `sa_mask` and flags are
//! not re-applied).

use std::sync::atomic::{AtomicI32, AtomicU8, AtomicUsize, Ordering};
use crate::dump_map::Fault;
use std::sync::{Once, OnceLock};

/// How many mapped dump files at once can be told apart (each open `Source` of a plain file or
/// a JVM chunked gzip file holds one); past that a cut is the plain SIGBUS it was.
const SLOTS: usize = 64;

/// The registered ranges: start and end addresses; a slot is free when its start is 0, in use
/// once its end is set too.
static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static ENDS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
/// The open descriptor of each range's file (-1 until known), to tell a cut from a read error.
static FILES: [AtomicI32; SLOTS] = [const { AtomicI32::new(-1) }; SLOTS];
/// What faulted in each range (`Fault` as a byte, 0: nothing yet).
static CAUSES: [AtomicU8; SLOTS] = [const { AtomicU8::new(0) }; SLOTS];
/// The page size, read when the handler is installed (`sysconf` is not async-signal-safe).
static PAGE: AtomicUsize = AtomicUsize::new(0);

static INSTALL: Once = Once::new();
/// The handler before ours, set before ours is installed.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

const FATAL: &[u8] = b"error: the heap dump file was cut short on disk (or could not be read) while heapql was reading it, so it cannot be read any more. Open it again once it is complete; to replace a dump that is in use, write the new one elsewhere and rename it over the old\n";

/// A registered range, removed when dropped (before its mapping is unmapped).
pub(crate) struct Watch {
    slot: Option<usize>,
}

impl Watch {
    /// No range (a mapping of a file of our own).
    pub(crate) fn none() -> Watch {
        Watch { slot: None }
    }

    /// Names the file the range maps (an open descriptor kept open while registered), so that
    /// a fault can tell a cut from a read error.
    pub(crate) fn set_file(&self, fd: i32) {
        if let Some(i) = self.slot {
            FILES[i].store(fd, Ordering::SeqCst);
        }
    }

    /// What faulted in this range, if anything did: its reads since then gave zeros.
    pub(crate) fn fault(&self) -> Option<Fault> {
        self.slot.and_then(|i| Fault::from_byte(CAUSES[i].load(Ordering::SeqCst)))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            ENDS[i].store(0, Ordering::SeqCst);
            FILES[i].store(-1, Ordering::SeqCst);
            CAUSES[i].store(0, Ordering::SeqCst);
            STARTS[i].store(0, Ordering::SeqCst);
        }
    }
}

/// Registers the mapping of `len` bytes at `start` (a user's dump file), installing the
/// handler the first time.
pub(crate) fn watch(start: *const u8, len: usize) -> Watch {
    let start = start as usize;
    if start == 0 || len == 0 {
        return Watch { slot: None };
    }
    INSTALL.call_once(install);
    for i in 0..SLOTS {
        if STARTS[i].compare_exchange(0, start, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            ENDS[i].store(start + len, Ordering::SeqCst);
            return Watch { slot: Some(i) };
        }
    }
    Watch { slot: None }
}

fn install() {
    // SAFETY: sysconf before any handler runs; plain sigaction calls on structures of our own.
    unsafe {
        PAGE.store(libc::sysconf(libc::_SC_PAGESIZE).max(0) as usize, Ordering::SeqCst);
        let mut previous: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous);
        let _ = PREVIOUS.set(previous);
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_sigbus as *const () as usize;
        act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut act.sa_mask);
        libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut());
    }
}

/// The registered range holding `addr`: (slot, start, end). A slot freed and taken again
/// between the two loads could pair one range's start with another's end; a mapping is
/// unregistered before it is unmapped, so no fault can come from a range in that state.
fn range_of(addr: usize) -> Option<(usize, usize, usize)> {
    (0..SLOTS).find_map(|i| {
        let s = STARTS[i].load(Ordering::SeqCst);
        let e = ENDS[i].load(Ordering::SeqCst);
        (s != 0 && addr >= s && addr < e).then_some((i, s, e))
    })
}

/// Why the read at `offset` of the file open as `fd` faulted (async-signal-safe: one `fstat`).
fn cause(fd: i32, offset: usize) -> Fault {
    if fd < 0 {
        return Fault::ReadError;
    }
    // SAFETY: fstat writes into a structure of our own.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Fault::ReadError;
    }
    if (st.st_size as u64) <= offset as u64 {
        Fault::CutShort
    } else {
        Fault::ReadError
    }
}

/// Maps zero-filled, read-only pages over `[addr's page, end)`: the reads there (the faulting
/// one, run again) give zeros instead of faulting. Whether it could.
fn zeros_over(addr: usize, end: usize) -> bool {
    let page = PAGE.load(Ordering::SeqCst);
    if page == 0 || !page.is_power_of_two() {
        return false;
    }
    let from = addr & !(page - 1);
    let to = (end + page - 1) & !(page - 1);
    // SAFETY: replaces pages of a read-only file mapping of ours (registered, so not unmapped
    // while registered) with anonymous zero pages; the mapping is unmapped whole later.
    let got = unsafe {
        libc::mmap(from as *mut libc::c_void, to - from, libc::PROT_READ, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED, -1, 0)
    };
    got as usize == from
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: only async-signal-safe calls (fstat, mmap, write, _exit, sigaction, raise) and
    // atomics.
    unsafe {
        // Only a fault the kernel raised (si_code > 0) has an address; a SIGBUS another process
        // sent (kill, sigqueue: si_code ≤ 0) holds its pid and uid there instead.
        let fault = (*info).si_code > 0;
        if let Some((i, start, end)) = fault.then(|| range_of((*info).si_addr() as usize)).flatten() {
            let addr = (*info).si_addr() as usize;
            let why = cause(FILES[i].load(Ordering::SeqCst), addr - start);
            // Noted first: a read of the zeros on another thread finds the note when it asks.
            let _ = CAUSES[i].compare_exchange(0, why as u8, Ordering::SeqCst, Ordering::SeqCst);
            if zeros_over(addr, end) {
                return;
            }
            libc::write(2, FATAL.as_ptr().cast(), FATAL.len());
            libc::_exit(2);
        }
        let (h, flags) = PREVIOUS.get().map_or((libc::SIG_DFL, 0), |p| (p.sa_sigaction, p.sa_flags));
        if h == libc::SIG_IGN && !fault {
            // Ignored before we came: a sent SIGBUS stays ignored.
        } else if h == libc::SIG_DFL || h == libc::SIG_IGN {
            // Back to the default action. A fault re-runs the faulting read on return, which
            // stops the process as it would have without us; a sent signal is raised again
            // (blocked until this handler returns, then delivered with the default action).
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
            if !fault {
                libc::raise(sig);
            }
        } else if flags & libc::SA_SIGINFO != 0 {
            let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(h);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
            f(sig);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::io::AsRawFd;

    #[test]
    fn a_fault_at_or_past_the_files_end_is_a_cut_and_before_it_a_read_error() {
        let file = tempfile::tempfile().unwrap();
        file.set_len(10_000).unwrap();
        let fd = file.as_raw_fd();
        assert_eq!(cause(fd, 10_000), Fault::CutShort);
        assert_eq!(cause(fd, 12_288), Fault::CutShort);
        assert_eq!(cause(fd, 8_192), Fault::ReadError);
        // No file to look at: the cause cannot be told, so no cut is claimed.
        assert_eq!(cause(-1, 12_288), Fault::ReadError);
    }
}
