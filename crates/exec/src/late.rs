//! Late materialization for ORDER BY: an ungrouped select whose rows each come from one scan
//! step (an object, or a row of a FROM subquery's table) sorts its rows by their ORDER BY keys
//! and scan steps alone, then evaluates the output expressions for the rows in the sorted
//! order, a block at a time as they are handed on. An unbounded ORDER BY over every object
//! so holds its keys and a step per row, not every output cell of every row until the sort is
//! done; a LIMIT keeps the k best keys and evaluates the outputs of those k rows only.
//!
//! The result is the one of the path that evaluates everything first (`order::Produced`, kept
//! for grouped queries, DISTINCT over columns and set operations): the same rows in the same
//! order (a stable sort: equal keys keep the scan order), the same NULL ordering, the same
//! errors. What may differ is only when an output expression runs, so outputs whose evaluation
//! can do more than give a value (`has_effects`: fail, or leave a note) keep the old path.
//!
//! Keys that are integers (or NULL) are held as `i64`, not as `Value`s; a query with one such
//! key (`ORDER BY x.@usedHeapSize DESC`) holds 16 bytes per row while it sorts.

use std::borrow::Cow;
use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::compile::CExpr;
use crate::env::{Env, CANCEL_EVERY};
use crate::error::ExecError;
use crate::eval::Ctx;
use crate::order::TopK;
use crate::plan::Attr;
use crate::rows::{RowSet, Table};
use crate::scan::{par_scan, MIN_PER_THREAD};
use crate::select::{Emit, Post};
use crate::source::{Input, ObjSet};
use crate::value::{order_prefix, total_cmp, Value};

/// Rows evaluated and handed on at a time.
const BLOCK: usize = 1 << 16;

thread_local! {
    /// Set by `with_eager_order`: this thread's queries take the old path.
    static EAGER: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with late materialization off on this thread: ORDER BY evaluates every output
/// cell before it sorts, as it did before. For tests that compare the two paths row for row.
#[doc(hidden)]
pub fn with_eager_order<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            EAGER.with(|e| e.set(self.0));
        }
    }
    let _restore = Restore(EAGER.with(|e| e.replace(true)));
    f()
}

/// Whether the late path runs this ordered, ungrouped select (else the caller's old path).
pub(crate) fn applies(env: &Env, q: &Post, input: &Input, distinct: bool) -> bool {
    if q.order.is_empty() || EAGER.with(|e| e.get()) || u32::try_from(input.scan_len(env)).is_err() {
        return false;
    }
    // DISTINCT compares whole output rows, which needs them all; over objects it compares the
    // objects, and a class or whole-heap source yields each object once: nothing to remove.
    if distinct && !(q.outputs.is_none() && matches!(input, Input::Objects(ObjSet::All | ObjSet::Classes { .. }))) {
        return false;
    }
    !q.outputs.is_some_and(|outs| outs.iter().any(|e| has_effects(env, e)))
}

/// Whether evaluating `e` may do more than give a value: raise an error (rule 12's `count` /
/// `offset` read on a String past the row; a graph feature without the graph, which the
/// compile step refuses first) or leave a note (a field read on rows whose classes were not
/// known: its probe notes a field no row had). Such an output is evaluated while scanning, as
/// before, so the same row raises the same error and every row is seen by the probe, also
/// under a LIMIT. Keep in step with `eval.rs`: every `Err` it can return is listed here, but
/// two on purpose: ERR_TOO_LARGE (a text or list too long to be one result cell) and
/// `path()`'s note that a search gave up are about a cell being made, so a row that ORDER BY
/// and LIMIT leave out, whose cells are never made here, raises neither.
fn has_effects(env: &Env, e: &CExpr) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        found |= match x {
            CExpr::Field { name, probe, .. } => probe.is_some() || matches!(&**name, "count" | "offset"),
            CExpr::Dominators(_) | CExpr::Dominatorof(_) | CExpr::Path(..) => env.graph.is_none(),
            CExpr::Attr { attr, .. } | CExpr::AttrCmp { attr, .. } => {
                env.graph.is_none() && matches!(attr, Attr::RetainedHeapSize | Attr::Inbounds)
            }
            _ => false,
        }
    });
    found
}

/// Runs the select: keys and steps while scanning, sort (or top-k), then the outputs of the
/// sorted rows, a block at a time, through `emit` when given (then nothing is returned).
pub(crate) fn run(
    env: &Env,
    q: &Post,
    input: &Input,
    filter: Option<&CExpr>,
    names: Vec<String>,
    limit: Option<u64>,
    emit: Option<Emit>,
) -> Result<RowSet, ExecError> {
    let n = input.scan_len(env);
    env.add_to_scan(n as u64);
    // The outputs the keys read (`ORDER BY` an output column): evaluated while scanning too.
    let mut needed = vec![false; q.outputs.map_or(0, |o| o.len())];
    for k in q.order {
        k.visit(&mut |x| {
            if let CExpr::Out(j) = x {
                if let Some(n) = needed.get_mut(*j) {
                    *n = true;
                }
            }
        });
    }
    // A LIMIT keeps its k best rows in a heap, entries of some 100 bytes; a limit near the row
    // count is cheaper as a full sort (16 bytes a row with one integer key) cut after.
    let top_k = limit.map(|k| k.min(usize::MAX as u64) as usize).filter(|&k| k < n / 4);
    let mut steps = match top_k {
        Some(k) => {
            let parts = par_scan(
                env,
                input,
                filter,
                0..n,
                || (TopK::new(k, true, 0, q.desc), Vec::new(), Vec::new()),
                |(top, out, keys), i, cx| {
                    if q.produce(env, cx, Some(&needed), out, keys)? {
                        if let Some(back) = top.offer(std::mem::take(keys), i as u32, i) {
                            *keys = back;
                        }
                    }
                    Ok(true)
                },
            )?;
            TopK::merged(parts.into_iter().map(|(t, _, _)| t)).into_ids()
        }
        None => {
            let parts = par_scan(
                env,
                input,
                filter,
                0..n,
                || (KeyRun::new(q.desc), Vec::new(), Vec::new()),
                |(run, out, keys), i, cx| {
                    if q.produce(env, cx, Some(&needed), out, keys)? {
                        run.push(i as u32, keys);
                    }
                    Ok(true)
                },
            )?;
            let runs: Vec<KeyRun> = parts.into_iter().map(|(r, _, _)| r).collect();
            merge(sort_runs(env, runs)?, q.desc, &|| env.check_cancel())?
        }
    };
    if let Some(k) = limit {
        steps.truncate(k.min(usize::MAX as u64) as usize);
    }
    deliver(env, q.outputs, input, names, steps, emit)
}

/// The outputs of the rows at `steps`, in that order: all at once, or through `emit` a block
/// at a time, each with the number of rows of the whole result (`steps.len()`).
fn deliver(
    env: &Env,
    outputs: Option<&[CExpr]>,
    input: &Input,
    names: Vec<String>,
    steps: Vec<u32>,
    emit: Option<Emit>,
) -> Result<RowSet, ExecError> {
    if outputs.is_some() {
        // Evaluating the outputs is work the scan no longer does: it counts in the progress.
        env.add_to_scan(steps.len() as u64);
    }
    let Some(emit) = emit else {
        // The whole result: its cells in one vector sized once, filled a block at a time.
        let Some(outs) = outputs else { return materialize(env, None, input, &names, &steps) };
        let mut cells = Vec::with_capacity(steps.len() * outs.len());
        for block in steps.chunks(BLOCK) {
            if let RowSet::Table(t) = materialize(env, outputs, input, &names, block)? {
                cells.extend(t.cells);
            }
        }
        return Ok(RowSet::Table(Table { names, cells }));
    };
    // Every row is known now: the whole result's count goes with each block.
    for block in steps.chunks(BLOCK) {
        if !emit(materialize(env, outputs, input, &names, block)?, Some(steps.len()))? {
            break;
        }
    }
    Ok(match outputs {
        None => RowSet::Objects { name: names.into_iter().next().unwrap_or_default(), ids: Vec::new() },
        Some(_) => RowSet::Table(Table::new(names)),
    })
}

/// The object of scan step `s`.
fn object_at(input: &Input, s: u32) -> u32 {
    match input {
        Input::Objects(ObjSet::List(v)) => v[s as usize],
        _ => s,
    }
}

/// The rows of `steps` with their output cells.
fn materialize(env: &Env, outputs: Option<&[CExpr]>, input: &Input, names: &[String], steps: &[u32]) -> Result<RowSet, ExecError> {
    let Some(outs) = outputs else {
        let ids = steps.iter().map(|&s| object_at(input, s)).collect();
        return Ok(RowSet::Objects { name: names.first().cloned().unwrap_or_default(), ids });
    };
    let parts = env.par_ranges(steps.len(), MIN_PER_THREAD, |r| {
        let part = &steps[r.clone()];
        let cells = match input {
            Input::Objects(_) if !part.is_sorted() => cells_by_step(env, outs, input, part)?,
            _ => cells_in_turn(env, outs, input, part)?,
        };
        env.report_scanned(r.len() as u64);
        Ok(cells)
    })?;
    let mut it = parts.into_iter();
    let mut cells = it.next().unwrap_or_default();
    for p in it {
        cells.extend(p);
    }
    Ok(RowSet::Table(Table { names: names.to_vec(), cells }))
}

/// The output cells of the rows at `steps`, evaluated in that order.
fn cells_in_turn(env: &Env, outs: &[CExpr], input: &Input, steps: &[u32]) -> Result<Vec<Value>, ExecError> {
    let mut cells = Vec::with_capacity(steps.len() * outs.len());
    for (j, &s) in steps.iter().enumerate() {
        if j % CANCEL_EVERY == 0 {
            env.check_cancel()?;
        }
        let cx = match input {
            Input::Objects(_) => Ctx::object(object_at(input, s)),
            Input::Values(t) => Ctx { cols: t.row(s as usize), ..Ctx::default() },
        };
        for e in outs {
            cells.push(e.eval(env, &cx)?);
        }
    }
    Ok(cells)
}

/// `cells_in_turn` for objects in key order: evaluated in scan order, each row's cells put at
/// its place, so the dump and the index are read forward, not at random (1.86 M strings of
/// bench-1g in text order: the query 8.8-9.9 s against 11.9-14.1 s). A row that fails makes the rows be
/// evaluated again in turn, so that the error is the first row's in key order, as before.
fn cells_by_step(env: &Env, outs: &[CExpr], input: &Input, steps: &[u32]) -> Result<Vec<Value>, ExecError> {
    let w = outs.len();
    let mut by_step: Vec<u32> = (0..steps.len() as u32).collect();
    by_step.sort_unstable_by_key(|&j| steps[j as usize]);
    let mut cells = vec![Value::Null; steps.len() * w];
    for (n, &j) in by_step.iter().enumerate() {
        if n % CANCEL_EVERY == 0 {
            env.check_cancel()?;
        }
        let cx = Ctx::object(object_at(input, steps[j as usize]));
        for (c, e) in outs.iter().enumerate() {
            match e.eval(env, &cx) {
                Ok(v) => cells[j as usize * w + c] = v,
                Err(_) => return cells_in_turn(env, outs, input, steps),
            }
        }
    }
    Ok(cells)
}

/// A NULL bit per row, grown as NULLs come.
#[derive(Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn set(&mut self, i: usize) {
        if self.0.len() <= i / 64 {
            self.0.resize(i / 64 + 1, 0);
        }
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn get(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }
}

/// One ORDER BY key of the rows of a run.
enum KeyCol {
    /// Every key an integer or NULL (a placeholder 0, its bit set).
    Ints { v: Vec<i64>, nulls: Bits },
    Vals(Vec<Value>),
}

impl KeyCol {
    fn push(&mut self, key: Value) {
        match (&mut *self, key) {
            (KeyCol::Ints { v, .. }, Value::Int(i)) => v.push(i),
            (KeyCol::Ints { v, nulls }, Value::Null) => {
                nulls.set(v.len());
                v.push(0);
            }
            (KeyCol::Ints { .. }, other) => {
                let KeyCol::Ints { v, nulls } = std::mem::replace(self, KeyCol::Vals(Vec::new())) else { unreachable!() };
                let mut vals: Vec<Value> =
                    v.iter().enumerate().map(|(i, &x)| if nulls.get(i) { Value::Null } else { Value::Int(x) }).collect();
                vals.push(other);
                *self = KeyCol::Vals(vals);
            }
            (KeyCol::Vals(v), key) => v.push(key),
        }
    }
    fn get(&self, i: usize) -> KeyRef<'_> {
        match self {
            KeyCol::Ints { nulls, .. } if nulls.get(i) => KeyRef::Null,
            KeyCol::Ints { v, .. } => KeyRef::Int(v[i]),
            KeyCol::Vals(v) => KeyRef::Val(&v[i]),
        }
    }
}

/// A key as read from a run, without building a `Value` for integers.
#[derive(Clone, Copy)]
enum KeyRef<'a> {
    Null,
    Int(i64),
    Val(&'a Value),
}

impl KeyRef<'_> {
    fn value(&self) -> Cow<'_, Value> {
        match *self {
            KeyRef::Null => Cow::Owned(Value::Null),
            KeyRef::Int(i) => Cow::Owned(Value::Int(i)),
            KeyRef::Val(v) => Cow::Borrowed(v),
        }
    }
}

/// ORDER BY's order of two keys (`value::total_cmp`), ascending.
fn cmp_key(a: KeyRef, b: KeyRef) -> Ordering {
    match (a, b) {
        (KeyRef::Int(x), KeyRef::Int(y)) => x.cmp(&y),
        (KeyRef::Null, KeyRef::Null) => Ordering::Equal,
        _ => total_cmp(&a.value(), &b.value()),
    }
}

/// The keys and scan steps of the rows one scan part produced, in scan order.
struct KeyRun<'d> {
    desc: &'d [bool],
    store: Store,
}

enum Store {
    /// One key, every one an integer or NULL: (key, step) pairs, the key bit-inverted when
    /// descending (`!x` reverses the order of i64s), so that ascending pair order is the wanted
    /// order, ties in scan order; the steps of NULL keys apart (they sort first ascending, last
    /// descending, in scan order).
    OneInt { pairs: Vec<(i64, u32)>, nulls: Vec<u32> },
    General { steps: Vec<u32>, cols: Vec<KeyCol> },
}

impl<'d> KeyRun<'d> {
    fn new(desc: &'d [bool]) -> KeyRun<'d> {
        let store = if desc.len() == 1 {
            Store::OneInt { pairs: Vec::new(), nulls: Vec::new() }
        } else {
            Store::General { steps: Vec::new(), cols: desc.iter().map(|_| KeyCol::Ints { v: Vec::new(), nulls: Bits::default() }).collect() }
        };
        KeyRun { desc, store }
    }

    fn push(&mut self, step: u32, keys: &mut Vec<Value>) {
        if let Store::OneInt { pairs, nulls } = &mut self.store {
            match keys[0] {
                Value::Int(i) => return pairs.push((if self.desc[0] { !i } else { i }, step)),
                Value::Null => return nulls.push(step),
                _ => self.generalize(),
            }
        }
        let Store::General { steps, cols } = &mut self.store else { unreachable!() };
        steps.push(step);
        for (c, k) in cols.iter_mut().zip(keys.drain(..)) {
            c.push(k);
        }
    }

    /// A one-integer-key run as a general one (a key that is no integer came).
    fn generalize(&mut self) {
        let Store::OneInt { pairs, nulls } = std::mem::replace(&mut self.store, Store::General { steps: Vec::new(), cols: Vec::new() }) else {
            return;
        };
        let desc = self.desc[0];
        let n = pairs.len() + nulls.len();
        let (mut steps, mut v, mut bits) = (Vec::with_capacity(n), Vec::with_capacity(n), Bits::default());
        // Both lists are in scan order: merge them by step.
        let (mut p, mut z) = (pairs.iter().peekable(), nulls.iter().peekable());
        loop {
            let take_null = match (p.peek(), z.peek()) {
                (Some(&&(_, a)), Some(&&b)) => b < a,
                (None, Some(_)) => true,
                (Some(_), None) => false,
                (None, None) => break,
            };
            if take_null {
                bits.set(v.len());
                steps.push(*z.next().unwrap());
                v.push(0);
            } else {
                let &(k, s) = p.next().unwrap();
                steps.push(s);
                v.push(if desc { !k } else { k });
            }
        }
        self.store = Store::General { steps, cols: vec![KeyCol::Ints { v, nulls: bits }] };
    }

    /// Sorted: the rows in ORDER BY order, equal keys in scan order.
    fn sort(self) -> Sorted {
        let desc = self.desc;
        match self.store {
            Store::OneInt { mut pairs, nulls } => {
                // Pairs are unique (steps are), so the unstable sort is a stable one.
                pairs.sort_unstable();
                Sorted::OneInt { pairs, nulls, desc: desc[0] }
            }
            Store::General { steps, cols } => {
                let (perm, prefixes) = match &cols[0] {
                    // Values (texts, most often): each row's `order_prefix` is sorted beside
                    // its number and decides most comparisons without reading the value (the
                    // 1.86 M strings of bench-1g in text order: the query took 30 s, 16 s with
                    // this, most of it cache misses on the texts); a tie compares the rows.
                    KeyCol::Vals(v) => {
                        let flip = if desc[0] { u64::MAX } else { 0 };
                        let mut pairs: Vec<(u64, u32)> = v.iter().zip(0..).map(|(x, i)| (order_prefix(x) ^ flip, i)).collect();
                        pairs.sort_unstable_by(|&(p, a), &(q, b)| {
                            p.cmp(&q).then_with(|| cmp_rows(&cols, a as usize, &cols, b as usize, desc)).then(a.cmp(&b))
                        });
                        pairs.into_iter().map(|(p, i)| (i, p)).unzip()
                    }
                    KeyCol::Ints { .. } => {
                        let mut perm: Vec<u32> = (0..steps.len() as u32).collect();
                        perm.sort_unstable_by(|&a, &b| cmp_rows(&cols, a as usize, &cols, b as usize, desc).then(a.cmp(&b)));
                        (perm, Vec::new())
                    }
                };
                Sorted::General { steps, cols, perm, prefixes }
            }
        }
    }
}

/// ORDER BY's order of row `a` of `ca` and row `b` of `cb`.
fn cmp_rows(ca: &[KeyCol], a: usize, cb: &[KeyCol], b: usize, desc: &[bool]) -> Ordering {
    for (k, (x, y)) in ca.iter().zip(cb).enumerate() {
        let c = cmp_key(x.get(a), y.get(b));
        if c != Ordering::Equal {
            return if desc[k] { c.reverse() } else { c };
        }
    }
    Ordering::Equal
}

/// A sorted run: its rows' steps and keys by rank.
enum Sorted {
    OneInt { pairs: Vec<(i64, u32)>, nulls: Vec<u32>, desc: bool },
    /// `prefixes`: the first key's `order_prefix` by rank, as sorted (flipped when descending),
    /// when it was sorted by them (else empty).
    General { steps: Vec<u32>, cols: Vec<KeyCol>, perm: Vec<u32>, prefixes: Vec<u64> },
}

impl Sorted {
    fn len(&self) -> usize {
        match self {
            Sorted::OneInt { pairs, nulls, .. } => pairs.len() + nulls.len(),
            Sorted::General { steps, .. } => steps.len(),
        }
    }
    /// The step of the row at rank `r` of a one-integer-key run, and its key (None: NULL).
    fn one_int(&self, r: usize) -> (u32, Option<i64>) {
        let Sorted::OneInt { pairs, nulls, desc } = self else { unreachable!() };
        let (first_nulls, z) = (!desc, nulls.len());
        let pair = |i: usize| {
            let (k, s) = pairs[i];
            (s, Some(if *desc { !k } else { k }))
        };
        match (first_nulls, r) {
            (true, r) if r < z => (nulls[r], None),
            (true, r) => pair(r - z),
            (false, r) if r < pairs.len() => pair(r),
            (false, r) => (nulls[r - pairs.len()], None),
        }
    }
    /// Key `k` of the row at rank `r`.
    fn key(&self, r: usize, k: usize) -> KeyRef<'_> {
        match self {
            Sorted::OneInt { .. } => self.one_int(r).1.map_or(KeyRef::Null, KeyRef::Int),
            Sorted::General { cols, perm, .. } => cols[k].get(perm[r] as usize),
        }
    }
    /// The first key's `order_prefix` at rank `r`, flipped by `flip` as the sort held it.
    fn prefix(&self, r: usize, flip: u64) -> u64 {
        match self {
            Sorted::General { prefixes, .. } if !prefixes.is_empty() => prefixes[r],
            _ => order_prefix(&self.key(r, 0).value()) ^ flip,
        }
    }
    fn step(&self, r: usize) -> u32 {
        match self {
            Sorted::OneInt { .. } => self.one_int(r).0,
            Sorted::General { steps, perm, .. } => steps[perm[r] as usize],
        }
    }
}

/// Sorts each scan part's run, in parallel.
fn sort_runs(env: &Env, runs: Vec<KeyRun>) -> Result<Vec<Sorted>, ExecError> {
    let slots: Vec<std::sync::Mutex<Option<KeyRun>>> = runs.into_iter().map(|r| std::sync::Mutex::new(Some(r))).collect();
    let parts = env.par_ranges(slots.len(), 1, |r| {
        let mut out = Vec::with_capacity(r.len());
        for slot in &slots[r] {
            let run = slot.lock().unwrap_or_else(|e| e.into_inner()).take().expect("each run sorted once");
            out.push(run.sort());
        }
        Ok(out)
    })?;
    env.check_cancel()?;
    Ok(parts.into_iter().flatten().collect())
}

/// The head of a sorted run in the merge: a min-heap by (keys, run), through `Ord` reversed.
struct Head<'a> {
    runs: &'a [Sorted],
    desc: &'a [bool],
    run: usize,
    rank: usize,
}

impl Head<'_> {
    fn cmp_order(&self, other: &Self) -> Ordering {
        let (a, b) = (&self.runs[self.run], &other.runs[other.run]);
        // The prefixes first, as each run's sort did: most rows are told apart without
        // reading a text.
        let flip = if self.desc[0] { u64::MAX } else { 0 };
        let c = a.prefix(self.rank, flip).cmp(&b.prefix(other.rank, flip));
        if c != Ordering::Equal {
            return c;
        }
        for (k, &d) in self.desc.iter().enumerate() {
            let c = cmp_key(a.key(self.rank, k), b.key(other.rank, k));
            if c != Ordering::Equal {
                return if d { c.reverse() } else { c };
            }
        }
        // Runs come from consecutive ranges of the scan: the earlier run's row came first.
        self.run.cmp(&other.run)
    }
}

impl PartialEq for Head<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp_order(other) == Ordering::Equal
    }
}
impl Eq for Head<'_> {}
impl PartialOrd for Head<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Head<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        other.cmp_order(self)
    }
}

/// The steps of every row in ORDER BY order, from the sorted runs of consecutive scan ranges.
fn merge(runs: Vec<Sorted>, desc: &[bool], check_cancel: &dyn Fn() -> Result<(), ExecError>) -> Result<Vec<u32>, ExecError> {
    let total: usize = runs.iter().map(Sorted::len).sum();
    let mut out = Vec::with_capacity(total);
    let live: Vec<&Sorted> = runs.iter().filter(|r| r.len() > 0).collect();
    if live.len() <= 1 {
        if let Some(r) = live.first() {
            out.extend((0..r.len()).map(|i| r.step(i)));
        }
        return Ok(out);
    }
    let mut heap: BinaryHeap<Head> =
        (0..runs.len()).filter(|&i| runs[i].len() > 0).map(|run| Head { runs: &runs, desc, run, rank: 0 }).collect();
    while let Some(mut h) = heap.pop() {
        if out.len() % CANCEL_EVERY == 0 {
            check_cancel()?;
        }
        out.push(runs[h.run].step(h.rank));
        h.rank += 1;
        if h.rank < runs[h.run].len() {
            heap.push(h);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::cmp_keys;

    fn lcg(state: &mut u64) -> u64 {
        *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *state >> 33
    }

    /// A key from a small set so ties are frequent: integers (extremes included), NULL, and,
    /// in rows `odd_from..`, floats and texts too.
    fn key(s: &mut u64, odd: bool) -> Value {
        match lcg(s) % if odd { 9 } else { 5 } {
            0 => Value::Null,
            1 => Value::Int(i64::MIN + (lcg(s) % 2) as i64),
            2 => Value::Int(i64::MAX - (lcg(s) % 2) as i64),
            3 | 4 => Value::Int((lcg(s) % 5) as i64 - 2),
            5 => Value::Float((lcg(s) % 5) as f64 - 2.5),
            6 => Value::Float(f64::NAN),
            // Texts alike in their first units (the sorts' order prefixes tie) or told
            // apart only there, in UTF-16 order (U+FFFF after U+1F600), one not valid UTF-16.
            7 => match lcg(s) % 12 {
                11 => Value::text_of_units(&[0x61, 0xD800]),
                i => Value::str(["a", "b", "", "abcdefgh", "abcdefgi", "abcd", "abcd\0", "abc\u{FFFF}", "abc\u{1F600}", "\u{E000}", "\u{1F600}"][i as usize]),
            },
            _ => Value::Obj((lcg(s) % 3) as u32),
        }
    }

    /// Runs of consecutive scan ranges, sorted and merged, give the order of a stable sort of
    /// all rows by `cmp_keys` (the old path), whatever each run holds: one integer key with or
    /// without NULLs, a run that turned general midway, other runs that did not.
    #[test]
    fn runs_merge_to_the_stable_sort() {
        let mut s = 7u64;
        for round in 0..400 {
            let nkeys = 1 + (round % 3);
            let desc: Vec<bool> = (0..nkeys).map(|_| lcg(&mut s) % 2 == 0).collect();
            let n = (lcg(&mut s) % 300) as usize;
            // Rows from `odd_from` on may have keys that are no integers.
            let odd_from = if round % 4 == 0 { n } else { (lcg(&mut s) % (n as u64 + 1)) as usize };
            let rows: Vec<(u32, Vec<Value>)> = (0..n)
                .map(|i| (i as u32 * 3 + 1, (0..nkeys).map(|_| key(&mut s, i >= odd_from)).collect()))
                .collect();
            let parts = 1 + (lcg(&mut s) % 4) as usize;
            let mut runs = Vec::new();
            let mut at = 0;
            for p in 0..parts {
                let end = if p + 1 == parts { n } else { at + (lcg(&mut s) as usize % (n - at + 1)) };
                let mut run = KeyRun::new(&desc);
                for (step, keys) in &rows[at..end] {
                    run.push(*step, &mut keys.clone());
                }
                runs.push(run.sort());
                at = end;
            }
            let got = merge(runs, &desc, &|| Ok(())).unwrap();
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by(|&a, &b| cmp_keys(&rows[a].1, &rows[b].1, &desc));
            let want: Vec<u32> = want.into_iter().map(|i| rows[i].0).collect();
            assert_eq!(got, want, "round {round}: n={n} parts={parts} desc={desc:?}");
        }
    }

    #[test]
    fn walk_visits_every_expression() {
        let lit = || Box::new(CExpr::Lit(Value::Int(1)));
        let count = CExpr::Field { base: Box::new(CExpr::Field { base: Box::new(CExpr::Row), name: "name".into(), probe: None, slots: Default::default() }), name: "count".into(), probe: None, slots: Default::default() };
        let plain = CExpr::Bin { op: crate::plan::BinOp::Add, l: lit(), r: Box::new(CExpr::Field { base: Box::new(CExpr::Row), name: "size".into(), probe: None, slots: Default::default() }) };
        let mut found = Vec::new();
        CExpr::Coalesce(vec![plain, count]).visit(&mut |x| {
            if let CExpr::Field { name, .. } = x {
                found.push(name.to_string())
            }
        });
        assert_eq!(found, ["size", "count", "name"]);
    }
}
