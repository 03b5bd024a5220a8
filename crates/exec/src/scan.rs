//! The scan: walk a source's rows, drop unreachable ones in reachable-only mode, apply the
//! filter, hand each surviving row to a sink. Splits over worker threads by contiguous ranges
//! so per-range results concatenate back in source order.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use std::cell::RefCell;

use heapql_heap::ClassMemo;

use crate::compile::CExpr;
use crate::env::{Env, CANCEL_EVERY};
use crate::error::ExecError;
use crate::eval::{Ctx, RowClass};
use crate::source::{Input, ObjSet};

/// Below this many scan steps per thread a scan stays on one thread.
pub(crate) const MIN_PER_THREAD: usize = 1 << 15;
const PROGRESS_EVERY: usize = 1 << 16;

/// Runs the rows `range` (scan steps) of `input` through `filter` into `sink`, which receives
/// the scan step (a global, increasing position usable for stable ordering) and the row.
/// The sink returns false to stop the scan early.
///
/// `remaining`, shared by the parts of one whole-input scan of a class source, counts the
/// instances not yet met; at zero every part stops (the rest of the heap holds none).
pub(crate) fn scan_range(
    env: &Env,
    input: &Input,
    filter: Option<&CExpr>,
    range: Range<usize>,
    remaining: Option<&AtomicU64>,
    sink: &mut dyn FnMut(usize, &Ctx) -> Result<bool, ExecError>,
) -> Result<(), ExecError> {
    let heap = env.heap;
    let reach = env.reachable_only;
    let mut unreported = 0usize;
    let start = range.start;
    let end = range.end;
    // Classes met lately, by the class id in their instances' records: a class source reads
    // every object's class, mostly from a few classes; so do field reads in the filter.
    let memo = RefCell::new(ClassMemo::default());
    for i in range {
        if (i - start) % CANCEL_EVERY == 0 {
            env.check_cancel()?;
            if unreported >= PROGRESS_EVERY {
                env.report_scanned(unreported as u64);
                unreported = 0;
            }
            if remaining.is_some_and(|r| r.load(Ordering::Relaxed) == 0) {
                unreported += end - i;
                break;
            }
        }
        unreported += 1;
        // The row, and its object's class when read here (the filter reads it again else).
        let (cx, class) = match input {
            Input::Objects(set) => {
                let (o, class) = match set {
                    ObjSet::All => (i as u32, None),
                    ObjSet::Classes { by_class, .. } => {
                        let o = i as u32;
                        let c = heap.class_of_memo(o, &mut memo.borrow_mut());
                        if !by_class[c as usize] {
                            continue;
                        }
                        if let Some(r) = remaining {
                            r.fetch_sub(1, Ordering::Relaxed);
                        }
                        (o, Some(c))
                    }
                    ObjSet::List(v) => (v[i], None),
                };
                if reach && !env.is_reachable(o) {
                    continue;
                }
                (Ctx::object(o), class)
            }
            Input::Values(t) => (Ctx { cols: t.row(i), ..Ctx::default() }, None),
        };
        if let Some(f) = filter {
            if !f.test_row(env, &cx, RowClass { class, memo: Some(&memo) })? {
                continue;
            }
        }
        if !sink(i, &cx)? {
            break;
        }
    }
    env.report_scanned(unreported as u64);
    Ok(())
}

/// Scans `range` split over the worker threads; each part builds its own state with `init`
/// and feeds it with `push`. States come back in range order.
pub(crate) fn par_scan<St: Send>(
    env: &Env,
    input: &Input,
    filter: Option<&CExpr>,
    range: Range<usize>,
    init: impl Fn() -> St + Sync,
    push: impl Fn(&mut St, usize, &Ctx) -> Result<bool, ExecError> + Sync,
) -> Result<Vec<St>, ExecError> {
    let base = range.start;
    let whole = range.start == 0 && range.end == input.scan_len(env);
    let remaining = match input {
        Input::Objects(ObjSet::Classes { instances: Some(n), .. }) if whole => Some(AtomicU64::new(*n)),
        _ => None,
    };
    env.par_ranges(range.len(), MIN_PER_THREAD, |r| {
        let mut st = init();
        scan_range(env, input, filter, base + r.start..base + r.end, remaining.as_ref(), &mut |i, cx| push(&mut st, i, cx))?;
        Ok(st)
    })
}

/// The objects that pass the filter, in source order.
pub(crate) fn collect_ids(env: &Env, input: &Input, filter: Option<&CExpr>) -> Result<Vec<u32>, ExecError> {
    let n = input.scan_len(env);
    env.add_to_scan(n as u64);
    let parts = par_scan(env, input, filter, 0..n, Vec::new, |v: &mut Vec<u32>, _, cx| {
        if let Some(o) = cx.obj {
            v.push(o);
        }
        Ok(true)
    })?;
    Ok(parts.concat())
}
