//! GROUP BY and aggregates: a hash on the key values per worker, merged in source order (so
//! groups come out in order of first appearance), and a class-indexed fast path for the
//! whole-heap histogram shapes (`GROUP BY classof(x)` or no grouping, with COUNT and
//! SUM/MIN/MAX/AVG of `@usedHeapSize`) that allocates nothing per object.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use heapql_heap::ClassIdx;

use crate::aggregate::Acc;
use crate::compile::CExpr;
use crate::env::{Env, CANCEL_EVERY};
use crate::error::ExecError;
use crate::eval::Ctx;
use crate::plan::{AggFn, Aggregate, Attr};
use crate::scan::{par_scan, MIN_PER_THREAD};
use crate::source::{Input, ObjSet};
use crate::value::{row_hash, rows_key_eq, PassThrough, Value};

/// A finished group: key values, a representative row (the first), aggregate values.
pub(crate) struct GroupRow {
    pub keys: Vec<Value>,
    pub rep: Option<u32>,
    pub cols: Vec<Value>,
    pub aggs: Vec<Value>,
}

struct Group {
    keys: Vec<Value>,
    rep: Option<u32>,
    cols: Vec<Value>,
    accs: Vec<Acc>,
}

#[derive(Default)]
struct Groups {
    index: HashMap<u64, Vec<usize>, BuildHasherDefault<PassThrough>>,
    list: Vec<Group>,
}

impl Groups {
    fn find(&self, hash: u64, keys: &[Value]) -> Option<usize> {
        self.index.get(&hash)?.iter().copied().find(|&g| rows_key_eq(&self.list[g].keys, keys))
    }
    fn insert(&mut self, hash: u64, g: Group) -> usize {
        let i = self.list.len();
        self.list.push(g);
        self.index.entry(hash).or_default().push(i);
        i
    }
}

pub(crate) struct AggSpec<'p> {
    pub agg: &'p Aggregate,
    pub arg: Option<CExpr>,
}

/// General grouping over a scan.
pub(crate) fn group_scan(
    env: &Env,
    input: &Input,
    filter: Option<&CExpr>,
    keys: &[CExpr],
    aggs: &[AggSpec],
    keep_cols: bool,
) -> Result<Vec<GroupRow>, ExecError> {
    let n = input.scan_len(env);
    env.add_to_scan(n as u64);
    let parts = par_scan(
        env,
        input,
        filter,
        0..n,
        || (Groups::default(), Vec::<Value>::with_capacity(keys.len())),
        |(groups, scratch), _, cx| {
            scratch.clear();
            for k in keys {
                scratch.push(k.eval(env, cx)?);
            }
            let h = row_hash(scratch);
            let g = match groups.find(h, scratch) {
                Some(g) => g,
                None => {
                    let accs = aggs.iter().map(|a| Acc::new(a.agg)).collect::<Result<Vec<_>, _>>()?;
                    let cols = if keep_cols { cx.cols.to_vec() } else { Vec::new() };
                    groups.insert(h, Group { keys: scratch.clone(), rep: cx.obj, cols, accs })
                }
            };
            let group = &mut groups.list[g];
            for (acc, spec) in group.accs.iter_mut().zip(aggs) {
                let v = match &spec.arg {
                    None => Value::Bool(true),
                    Some(e) => e.eval(env, cx)?,
                };
                acc.add(v, spec.agg.func)?;
            }
            Ok(true)
        },
    )?;
    let mut merged = Groups::default();
    for (part, _) in parts {
        for g in part.list {
            let h = row_hash(&g.keys);
            match merged.find(h, &g.keys) {
                Some(i) => {
                    for (a, b) in merged.list[i].accs.iter_mut().zip(g.accs) {
                        a.merge(b);
                    }
                }
                None => {
                    merged.insert(h, g);
                }
            }
        }
    }
    if keys.is_empty() && merged.list.is_empty() {
        let accs = aggs.iter().map(|a| Acc::new(a.agg)).collect::<Result<Vec<_>, _>>()?;
        merged.list.push(Group { keys: Vec::new(), rep: None, cols: Vec::new(), accs });
    }
    Ok(merged
        .list
        .into_iter()
        .map(|g| GroupRow { keys: g.keys, rep: g.rep, cols: g.cols, aggs: g.accs.into_iter().map(|a| finish_noted(env, a)).collect() })
        .collect())
}

/// An aggregate's value; a SUM beyond a Java long (given as a double) adds the result's note.
fn finish_noted(env: &Env, acc: Acc) -> Value {
    if acc.beyond_long() {
        env.note(format!(
            "a SUM's exact total is beyond a Java long (-{} to {}): it is given as a double, rounded to about 16 digits, not wrapped around",
            1u64 << 63,
            i64::MAX
        ));
    }
    acc.finish()
}

// ---- class-indexed fast path ----

#[derive(Clone, Copy, PartialEq)]
enum FastArg {
    /// COUNT(*), COUNT(x): every object row counts.
    Rows,
    /// f(x.@usedHeapSize)
    Shallow,
}

/// The plan shape the fast path handles; None when it does not apply.
pub(crate) struct FastPlan {
    by_class: bool,
    aggs: Vec<(AggFn, FastArg)>,
}

fn is_row_classof(e: &CExpr) -> bool {
    match e {
        CExpr::Classof(b) => matches!(**b, CExpr::Row),
        CExpr::Attr { base, attr: Attr::Clazz } => matches!(**base, CExpr::Row),
        _ => false,
    }
}

pub(crate) fn fast_plan(input: &Input, keys: &[CExpr], aggs: &[AggSpec], row_read_later: bool) -> Option<FastPlan> {
    if !matches!(input, Input::Objects(_)) || row_read_later {
        return None;
    }
    let by_class = match keys {
        [] => false,
        [k] if is_row_classof(k) => true,
        _ => return None,
    };
    let mut out = Vec::new();
    for a in aggs {
        let arg = match &a.arg {
            None => FastArg::Rows,
            Some(CExpr::Row) => FastArg::Rows,
            Some(CExpr::Attr { base, attr: Attr::UsedHeapSize }) if matches!(**base, CExpr::Row) => FastArg::Shallow,
            Some(_) => return None,
        };
        match (a.agg.func, arg) {
            (AggFn::Count, _) => out.push((AggFn::Count, FastArg::Rows)),
            (AggFn::Sum | AggFn::Min | AggFn::Max | AggFn::Avg, FastArg::Shallow) => out.push((a.agg.func, arg)),
            _ => return None,
        }
    }
    Some(FastPlan { by_class, aggs: out })
}

/// Per-class counters of one worker.
struct ClassStats {
    count: Vec<u64>,
    sum: Vec<u64>,
    min: Vec<u64>,
    max: Vec<u64>,
}

impl ClassStats {
    fn new(classes: usize, sizes: bool) -> ClassStats {
        let n = if sizes { classes } else { 0 };
        ClassStats { count: vec![0; classes], sum: vec![0; n], min: vec![u64::MAX; n], max: vec![0; n] }
    }
    #[inline]
    fn add(&mut self, c: ClassIdx, size: Option<u64>) {
        let c = c as usize;
        self.count[c] += 1;
        if let Some(s) = size {
            self.sum[c] += s;
            self.min[c] = self.min[c].min(s);
            self.max[c] = self.max[c].max(s);
        }
    }
    fn merge(&mut self, o: ClassStats) {
        for (a, b) in self.count.iter_mut().zip(o.count) {
            *a += b
        }
        for (a, b) in self.sum.iter_mut().zip(o.sum) {
            *a += b
        }
        for (a, b) in self.min.iter_mut().zip(o.min) {
            *a = (*a).min(b)
        }
        for (a, b) in self.max.iter_mut().zip(o.max) {
            *a = (*a).max(b)
        }
    }
}

pub(crate) fn fast_group(env: &Env, input: &Input, filter: Option<&CExpr>, plan: &FastPlan) -> Result<Vec<GroupRow>, ExecError> {
    let heap = env.heap;
    let classes = heap.class_count() as usize;
    let sizes = plan.aggs.iter().any(|(_, a)| *a == FastArg::Shallow);
    let needs_min_max = plan.aggs.iter().any(|(f, _)| matches!(f, AggFn::Min | AggFn::Max));
    let Input::Objects(set) = input else { unreachable!("fast_plan checks the input") };

    let stats = if filter.is_none() && !env.reachable_only && !needs_min_max && !matches!(set, ObjSet::List(_)) {
        // The heap's histogram already has counts and shallow bytes per class.
        let mut st = ClassStats::new(classes, sizes);
        let wanted = |c: ClassIdx| match set {
            ObjSet::Classes { by_class, .. } => by_class[c as usize],
            _ => true,
        };
        for row in heap.class_histogram() {
            if wanted(row.class) {
                st.count[row.class as usize] += row.count;
                if sizes {
                    st.sum[row.class as usize] += row.shallow;
                }
            }
        }
        st
    } else if filter.is_none() {
        let n = input.scan_len(env);
        env.add_to_scan(n as u64);
        let reach = env.reachable_only;
        let parts = env.par_ranges(n, MIN_PER_THREAD, |r| {
            let mut st = ClassStats::new(classes, sizes);
            let (start, len) = (r.start, r.len());
            for i in r {
                if (i - start) % (CANCEL_EVERY * 16) == 0 {
                    env.check_cancel()?;
                }
                let (o, c) = match set {
                    ObjSet::All => (i as u32, heap.class_of(i as u32)),
                    ObjSet::Classes { by_class, .. } => {
                        let c = heap.class_of(i as u32);
                        if !by_class[c as usize] {
                            continue;
                        }
                        (i as u32, c)
                    }
                    ObjSet::List(v) => (v[i], heap.class_of(v[i])),
                };
                if reach && !env.is_reachable(o) {
                    continue;
                }
                st.add(c, sizes.then(|| heap.shallow_size(o)));
            }
            env.report_scanned(len as u64);
            Ok(st)
        })?;
        merge_stats(parts)
    } else {
        let n = input.scan_len(env);
        env.add_to_scan(n as u64);
        let parts = par_scan(env, input, filter, 0..n, || ClassStats::new(classes, sizes), |st, _, cx| {
            let o = cx.obj.expect("object input");
            st.add(heap.class_of(o), sizes.then(|| heap.shallow_size(o)));
            Ok(true)
        })?;
        merge_stats(parts)
    };

    let agg_values = |cs: &[usize]| -> Vec<Value> {
        let count: u64 = cs.iter().map(|&c| stats.count[c]).sum();
        plan.aggs
            .iter()
            .map(|(f, _)| match f {
                AggFn::Count => Value::Int(count as i64),
                AggFn::Sum => Value::Int(cs.iter().map(|&c| stats.sum[c]).sum::<u64>() as i64),
                AggFn::Avg if count == 0 => Value::Null,
                AggFn::Avg => Value::Float(cs.iter().map(|&c| stats.sum[c]).sum::<u64>() as f64 / count as f64),
                AggFn::Min if count == 0 => Value::Null,
                AggFn::Min => Value::Int(cs.iter().filter(|&&c| stats.count[c] > 0).map(|&c| stats.min[c]).min().unwrap_or(0) as i64),
                AggFn::Max if count == 0 => Value::Null,
                AggFn::Max => Value::Int(cs.iter().filter(|&&c| stats.count[c] > 0).map(|&c| stats.max[c]).max().unwrap_or(0) as i64),
                AggFn::Median | AggFn::Percentile => unreachable!("not a fast-path aggregate"),
            })
            .collect()
    };
    if plan.by_class {
        Ok((0..classes)
            .filter(|&c| stats.count[c] > 0)
            .map(|c| GroupRow {
                keys: vec![Value::Obj(heap.class(c as ClassIdx).object)],
                rep: None,
                cols: Vec::new(),
                aggs: agg_values(&[c]),
            })
            .collect())
    } else {
        let all: Vec<usize> = (0..classes).collect();
        Ok(vec![GroupRow { keys: Vec::new(), rep: None, cols: Vec::new(), aggs: agg_values(&all) }])
    }
}

fn merge_stats(parts: Vec<ClassStats>) -> ClassStats {
    let mut it = parts.into_iter();
    let mut first = it.next().expect("at least one part");
    for p in it {
        first.merge(p);
    }
    first
}

impl GroupRow {
    pub fn ctx(&self) -> Ctx<'_> {
        Ctx { obj: self.rep, cols: &self.cols, keys: &self.keys, aggs: &self.aggs, out: &[] }
    }
}
