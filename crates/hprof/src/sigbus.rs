//! A dump file cut short on disk while heapql reads it through its mapping: the first read of a
//! page past its new end raises SIGBUS, whose default action kills the process with no word
//! (`check_unchanged` catches a cut only before each piece of work, not during one). The
//! mapped ranges of the user's dump files are registered here; a SIGBUS at an address inside
//! one writes an error saying what happened and what to do on stderr and ends the process with
//! exit code 2, the code of a dump that cannot be read. Any other SIGBUS goes to the handler
//! that was installed before (or the default action) as if this one were not there (called
//! with this handler's mask: its own `sa_mask` and flags are not re-applied). An I/O error on
//! the file's device (a network file system gone, a bad sector) raises the same signal and is
//! said with the same words, which name the likeliest cause.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

/// How many mapped dump files at once can be told apart (each open `Source` of a plain file or
/// a JVM chunked gzip file holds one); past that a cut is the plain SIGBUS it was.
const SLOTS: usize = 64;

/// The registered ranges: start and end addresses; a slot is free when its start is 0, in use
/// once its end is set too.
static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
static ENDS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];

static INSTALL: Once = Once::new();
/// The handler before ours, set before ours is installed.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

const MESSAGE: &[u8] = b"error: the heap dump file was cut short on disk while heapql was reading it (a read past its new end raised SIGBUS), so it cannot be read any more. Open it again once it is complete; to replace a dump that is in use, write the new one elsewhere and rename it over the old\n";

/// A registered range, removed when dropped (before its mapping is unmapped).
pub(crate) struct Watch {
    slot: Option<usize>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            ENDS[i].store(0, Ordering::SeqCst);
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
    // SAFETY: plain sigaction calls on structures of our own.
    unsafe {
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

/// Whether `addr` lies in a registered range. A slot freed and taken again between the two
/// loads could pair one range's start with another's end; a mapping is unregistered before it
/// is unmapped, so no fault can come from a range in that state.
fn ours(addr: usize) -> bool {
    (0..SLOTS).any(|i| {
        let s = STARTS[i].load(Ordering::SeqCst);
        let e = ENDS[i].load(Ordering::SeqCst);
        s != 0 && addr >= s && addr < e
    })
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: only async-signal-safe calls (write, _exit, sigaction, raise) and atomic loads.
    unsafe {
        // Only a fault the kernel raised (si_code > 0) has an address; a SIGBUS another process
        // sent (kill, sigqueue: si_code ≤ 0) holds its pid and uid there instead.
        let fault = (*info).si_code > 0;
        if fault && ours((*info).si_addr() as usize) {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
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
