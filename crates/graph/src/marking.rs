//! What a node reaches, marked by several threads at once: each walks depth-first from its own
//! stack over one shared bitmap (a node is taken by the thread that sets its bit), and a
//! thread whose stack runs dry takes half of a busy thread's stack. The marked set is the one
//! a single walk marks; only who marks what differs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Condvar, Mutex};

use crate::control::{Cancelled, Control};
use crate::{FixedBitSet, Graph};

/// Nodes a thread walks between two looks at the cancel flag.
pub(crate) const CHECK_EVERY: u32 = 1 << 16;

// The shared bitmap's words are the `FixedBitSet`'s blocks.
const _: () = assert!(usize::BITS == 64, "64-bit targets only");

/// A stack hands half of itself to an idle thread once it holds this many nodes.
const SHARE_FROM: usize = 64;

/// Marks in `marked` every node reachable from `from` (marked itself before), on `threads`
/// threads. Each thread looks at `ctl`'s cancel flag every `CHECK_EVERY` nodes; one that sees
/// it set stops the others (`marked` then holds part of the set).
pub(crate) fn mark_reachable<G: Graph + Sync>(g: &G, from: u32, marked: &mut FixedBitSet, threads: usize, ctl: &Control) -> Result<(), Cancelled> {
    let bits: Vec<AtomicU64> = marked.as_slice().iter().map(|&w| AtomicU64::new(w as u64)).collect();
    let walk = Walk { g, bits: &bits, threads: threads.max(1), work: Mutex::new(Work { pool: Vec::new(), idle: 0, failed: false }), woken: Condvar::new(), hungry: AtomicBool::new(false), ctl, stopped: AtomicBool::new(false) };
    std::thread::scope(|scope| {
        for k in 1..walk.threads {
            let walk = &walk;
            std::thread::Builder::new()
                .name(format!("heapql-mark-{k}"))
                .spawn_scoped(scope, move || walk.run_guarded(Vec::new()))
                .expect("cannot start a marking thread");
        }
        walk.run_guarded(vec![from]);
    });
    let stopped = walk.stopped.load(Relaxed);
    drop(walk);
    let len = marked.len();
    *marked = FixedBitSet::with_capacity_and_blocks(len, bits.into_iter().map(|w| w.into_inner() as usize));
    if stopped {
        return Err(Cancelled);
    }
    Ok(())
}

struct Walk<'a, G> {
    g: &'a G,
    bits: &'a [AtomicU64],
    threads: usize,
    work: Mutex<Work>,
    woken: Condvar,
    /// A thread waits for work (read without the lock while walking).
    hungry: AtomicBool,
    /// Its cancel flag is looked at every `CHECK_EVERY` nodes per thread.
    ctl: &'a Control,
    /// A thread saw the cancel flag set: the others stop too.
    stopped: AtomicBool,
}

/// Stacks handed over and not yet taken, the number of threads waiting for one, and whether
/// a thread panicked (the others then stop instead of waiting for it forever).
struct Work {
    pool: Vec<Vec<u32>>,
    idle: usize,
    failed: bool,
}

/// Tells the other threads when its thread unwinds from a panic.
struct Unwinding<'w>(&'w Mutex<Work>, &'w Condvar);

impl Drop for Unwinding<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.lock().unwrap_or_else(|e| e.into_inner()).failed = true;
            self.1.notify_all();
        }
    }
}

impl<G: Graph> Walk<'_, G> {
    /// Sets `v`'s bit; true when this call set it.
    #[inline]
    fn take(&self, v: u32) -> bool {
        let (word, bit) = (&self.bits[v as usize / 64], 1u64 << (v % 64));
        word.load(Relaxed) & bit == 0 && word.fetch_or(bit, Relaxed) & bit == 0
    }

    /// `run`, and should it panic, the others stop (the panic then reaches the caller).
    fn run_guarded(&self, stack: Vec<u32>) {
        let _guard = Unwinding(&self.work, &self.woken);
        self.run(stack);
    }

    /// The cancel flag is set: every thread stops, the waiting ones woken to see it.
    #[cold]
    fn stop(&self) {
        self.stopped.store(true, Relaxed);
        self.work.lock().unwrap_or_else(|e| e.into_inner()).failed = true;
        self.woken.notify_all();
    }

    fn run(&self, mut stack: Vec<u32>) {
        let mut until_check = CHECK_EVERY;
        loop {
            while let Some(u) = stack.pop() {
                until_check -= 1;
                if until_check == 0 {
                    until_check = CHECK_EVERY;
                    if self.stopped.load(Relaxed) {
                        return;
                    }
                    if self.ctl.check().is_err() {
                        self.stop();
                        return;
                    }
                }
                for &v in self.g.successors(u) {
                    if self.take(v) {
                        stack.push(v);
                    }
                }
                if stack.len() >= SHARE_FROM && self.hungry.load(Relaxed) {
                    // The bottom half: the shallowest nodes, most of the work behind them.
                    let half: Vec<u32> = stack.drain(..stack.len() / 2).collect();
                    let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
                    work.pool.push(half);
                    self.hungry.store(false, Relaxed);
                    self.woken.notify_one();
                }
            }
            let mut work = self.work.lock().unwrap_or_else(|e| e.into_inner());
            work.idle += 1;
            loop {
                if let Some(next) = work.pool.pop() {
                    work.idle -= 1;
                    self.hungry.store(work.idle > 0 && work.pool.is_empty(), Relaxed);
                    stack = next;
                    break;
                }
                if work.idle == self.threads || work.failed {
                    // Nobody walks and nothing is left: done (wake the others to see it).
                    self.woken.notify_all();
                    return;
                }
                self.hungry.store(true, Relaxed);
                work = self.woken.wait(work).unwrap_or_else(|e| e.into_inner());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Csr;

    fn random(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// The nodes one plain depth-first walk reaches.
    fn single_walk(g: &Csr, from: u32) -> FixedBitSet {
        let mut marked = FixedBitSet::with_capacity(g.node_count() as usize);
        marked.insert(from as usize);
        let mut stack = vec![from];
        while let Some(u) = stack.pop() {
            for &v in g.successors(u) {
                if !marked.put(v as usize) {
                    stack.push(v);
                }
            }
        }
        marked
    }

    /// A wide tree whose node `bad` cannot list its successors (a bug, say).
    struct Faulty {
        inner: Csr,
        bad: u32,
    }

    impl Graph for Faulty {
        fn node_count(&self) -> u32 {
            self.inner.node_count()
        }
        fn successors(&self, v: u32) -> &[u32] {
            assert_ne!(v, self.bad, "node {v} is broken");
            self.inner.successors(v)
        }
    }

    /// The cancel flag stops every thread's walk long before the end: a chain of 300 000
    /// nodes, marked one after the other, with the flag set from the start.
    #[test]
    fn the_cancel_flag_stops_the_walk() {
        let n = 300_000u32;
        let g = Csr::from_edges(n, |emit| (1..n).for_each(|v| emit(v - 1, v)));
        for threads in [1, 2, 3] {
            let mut marked = FixedBitSet::with_capacity(n as usize);
            marked.insert(0);
            let ctl = Control { cancel: Some(std::sync::Arc::new(AtomicBool::new(true))), ..Control::none() };
            assert_eq!(mark_reachable(&g, 0, &mut marked, threads, &ctl), Err(Cancelled), "{threads} threads");
            let count = marked.count_ones(..);
            assert!(count <= CHECK_EVERY as usize + 1, "{threads} threads: stopped at the first look, {count} marked");
            let mut all = FixedBitSet::with_capacity(n as usize);
            all.insert(0);
            mark_reachable(&g, 0, &mut all, threads, &Control::none()).unwrap();
            assert_eq!(all.count_ones(..), n as usize, "{threads} threads: everything without the flag");
        }
    }

    #[test]
    fn a_panicking_walk_stops_the_others_instead_of_hanging() {
        let n = 100_000u32;
        for threads in [2, 3, 8] {
            let g = Faulty { inner: Csr::from_edges(n, |emit| (1..n).for_each(|v| emit((v - 1) / 8, v))), bad: n - 1 };
            let mut marked = FixedBitSet::with_capacity(n as usize);
            marked.insert(0);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| mark_reachable(&g, 0, &mut marked, threads, &Control::none())));
            assert!(outcome.is_err(), "{threads} threads: the panic reaches the caller");
        }
    }

    #[test]
    fn threads_mark_what_one_walk_marks() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..40 {
            // Sparse to dense graphs, from a few nodes to enough for stacks to be shared.
            let n = 1 + (random(&mut seed) % 200_000) as u32;
            let degree = 1 + random(&mut seed) % 4;
            let g = Csr::from_edges(n, |emit| {
                let mut s = round as u64 + 1;
                for _ in 0..n as u64 * degree / 2 {
                    emit((random(&mut s) % n as u64) as u32, (random(&mut s) % n as u64) as u32);
                }
            });
            let from = (random(&mut seed) % n as u64) as u32;
            let want = single_walk(&g, from);
            for threads in [1, 2, 3, 8] {
                let mut marked = FixedBitSet::with_capacity(n as usize);
                marked.insert(from as usize);
                mark_reachable(&g, from, &mut marked, threads, &Control::none()).unwrap();
                assert_eq!(marked, want, "round {round}, {threads} threads, {} of {n} reached", want.count_ones(..));
            }
        }
    }
}
