//! Runs queries: a select (source → filter → retained set → grouping/aggregates → having →
//! output → distinct → order → limit, with non-correlated EXISTS guards first) and the set
//! operations over whole rows.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;

use crate::compile::{compile, CExpr, Scope};
use crate::env::{Env, CANCEL_EVERY};
use crate::error::ExecError;
use crate::eval::Ctx;
use crate::group::{fast_group, fast_plan, group_scan, AggSpec, GroupRow};
use crate::order::{Produced, TopK};
use crate::plan::{Output, Query, Select, SetOp, Source};
use crate::rows::{RowSet, Table};
use crate::scan::{collect_ids, par_scan};
use crate::source::{resolve, Input, ObjSet};
use crate::value::{key_eq, key_hash, PassThrough, Value};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// One output cell evaluated: counted where a test asked (`ExecContext::eval_counter`).
#[inline]
fn counted_eval(env: &Env) {
    if let Some(c) = &env.eval_counter {
        c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Scan steps per block when rows are streamed or a LIMIT may stop the scan early.
const BLOCK: usize = 1 << 18;

/// Receives streamed rows in order, with the number of rows of the whole result when it is
/// known already (a sorted select's, which has them all before the first is emitted; None
/// while rows come as the scan goes); returns false to stop.
pub(crate) type Emit<'a> = &'a mut dyn FnMut(RowSet, Option<usize>) -> Result<bool, ExecError>;

#[derive(Clone, Copy)]
enum SetKind {
    Union,
    Intersect,
    Except,
}

pub(crate) fn run_query(env: &Env, q: &Query) -> Result<RowSet, ExecError> {
    run_query_stream(env, q, None)
}

/// With `emit`, a select that needs no global step (grouping, ordering, distinct) streams its
/// rows through it as they are produced, and an ordered select that sorts late (`late.rs`)
/// hands its sorted rows through it a block at a time; they return only what was not emitted
/// (nothing). Any other query returns its whole result.
pub(crate) fn run_query_stream(env: &Env, q: &Query, emit: Option<Emit>) -> Result<RowSet, ExecError> {
    run_query_from(env, q, emit, 0)
}

/// `run_query_stream` that leaves out the result's first `skip` rows of a query that
/// `counts_alone` (streamed: `emit` given): it finds where its row `skip` is by the scan and
/// the filter alone, the outputs of the rows before it never evaluated. Any other query
/// ignores `skip` (its caller drops that many of its rows).
pub(crate) fn run_query_from(env: &Env, q: &Query, emit: Option<Emit>, skip: u64) -> Result<RowSet, ExecError> {
    env.check_cancel()?;
    match q {
        Query::Select(s) => run_select(env, s, emit, Want::Rows { skip }),
        Query::Union(o) => run_setop(env, SetKind::Union, o),
        Query::Intersect(o) => run_setop(env, SetKind::Intersect, o),
        Query::Except(o) => run_setop(env, SetKind::Except, o),
    }
}

fn output_names(s: &Select, input: Option<&Input>) -> Vec<String> {
    match &s.output {
        Output::Objects => match input {
            Some(Input::Values(t)) => t.names.clone(),
            _ => vec![s.alias.clone().unwrap_or_else(|| "*".into())],
        },
        Output::Columns { columns } => columns.iter().map(|c| c.name.clone()).collect(),
    }
}

fn empty_result(s: &Select, input: Option<&Input>) -> RowSet {
    let names = output_names(s, input);
    match (&s.output, input) {
        (Output::Objects, None | Some(Input::Objects(_))) => {
            RowSet::Objects { name: names.into_iter().next().unwrap_or_default(), ids: Vec::new() }
        }
        _ => RowSet::Table(Table::new(names)),
    }
}

/// Whether a query's row count is that of its scan's rows that pass the filter (up to its
/// LIMIT): a select without DISTINCT, GROUP BY, aggregates, HAVING or ORDER BY, whose output
/// columns then cannot change how many rows there are (`count_query`, and the seek of
/// `run_query_from`). A query that orders its rows has them all before its first one and says
/// its count with it (`Batch::total`); the others' rows are counted as they are made.
pub(crate) fn counts_alone(q: &Query) -> bool {
    match q {
        Query::Select(s) => {
            !s.distinct && s.group_by.is_empty() && s.aggregates.is_empty() && s.having.is_none() && s.order_by.is_empty()
        }
        _ => false,
    }
}

/// The row count of a query that `counts_alone` (None for any other): its scan and filter run
/// as for its rows, but of its output columns only what could fail is evaluated
/// (`OutputCheck`), so that the count fails where reading the rows would (the same errors:
/// ERR_TOO_LARGE, rule 12's field reads…), and only for rows the result has.
pub(crate) fn count_query(env: &Env, q: &Query) -> Result<Option<u64>, ExecError> {
    env.check_cancel()?;
    let Query::Select(s) = q else { return Ok(None) };
    if !counts_alone(q) {
        return Ok(None);
    }
    let mut n = 0u64;
    run_select(env, s, None, Want::Count(&mut n))?;
    Ok(Some(n))
}

/// What `run_select` is asked for: the rows (a streamed select that `counts_alone` leaves out
/// its first `skip`), or their count alone (`count_query`).
enum Want<'w> {
    Rows { skip: u64 },
    Count(&'w mut u64),
}

fn run_select(env: &Env, s: &Select, emit: Option<Emit>, want: Want) -> Result<RowSet, ExecError> {
    // A guard that yields nothing admits no row. Without GROUP BY, aggregates still make their
    // one row (COUNT 0, SUM 0, ...) from the empty input, as `WHERE 1 = 0` does.
    let mut admitted = true;
    for g in &s.guards {
        if run_query(env, g)?.len() == 0 {
            admitted = false;
            break;
        }
    }
    let one_group = s.group_by.is_empty() && !s.aggregates.is_empty();
    if s.limit == Some(0) || (!admitted && !one_group) {
        return Ok(empty_result(s, None));
    }
    let mut input = match &s.source {
        Source::Subquery { query } => match run_query(env, query)? {
            RowSet::Objects { ids, .. } => Input::Objects(ObjSet::List(ids)),
            RowSet::Table(t) => Input::Values(t),
        },
        other => resolve(env, other)?,
    };

    // Compile everything against what the source offers.
    let (src_classes, described) = source_classes(env, &s.source, &input);
    let columns: Option<Vec<String>> = match &input {
        Input::Values(t) => Some(t.names.clone()),
        Input::Objects(_) => None,
    };
    let base = Scope {
        source_classes: src_classes.as_deref(),
        described: described.as_deref(),
        columns: columns.as_deref(),
        probe_rows: matches!(s.source, Source::Subquery { .. }),
        ..Scope::default()
    };
    let mut filter = s.filter.as_ref().map(|f| compile(env, f, &base)).transpose()?;
    let grouped = !s.group_by.is_empty() || !s.aggregates.is_empty();
    // Rows of a retained set are not the source's classes: no static field check after it.
    let post_base = if s.retained_set { Scope { source_classes: None, described: None, probe_rows: false, ..base } } else { base };
    let keys = s.group_by.iter().map(|k| compile(env, k, &post_base)).collect::<Result<Vec<_>, _>>()?;
    let aggs = s
        .aggregates
        .iter()
        .map(|a| Ok(AggSpec { agg: a, arg: a.arg.as_ref().map(|e| compile(env, e, &post_base)).transpose()? }))
        .collect::<Result<Vec<_>, ExecError>>()?;
    for a in &aggs {
        crate::aggregate::Acc::new(a.agg)?;
    }
    let post = if grouped { Scope { keys: keys.len(), aggs: aggs.len(), ..post_base } } else { post_base };
    let having = s.having.as_ref().map(|h| compile(env, h, &post)).transpose()?;
    let names = output_names(s, Some(&input));
    // After the names and the compile checks, which read the source's classes.
    input = crate::source::narrow_to_pinned(env, input, s.filter.as_ref());
    if !admitted {
        input = match input {
            Input::Objects(_) => Input::Objects(ObjSet::List(Vec::new())),
            Input::Values(t) => Input::Values(Table::new(t.names)),
        };
    }
    let outputs: Option<Vec<CExpr>> = match (&s.output, &input) {
        // A retained set's rows are objects, whatever the source's columns were.
        (Output::Objects, Input::Values(_)) if s.retained_set => None,
        (Output::Objects, Input::Values(t)) => Some((0..t.width()).map(CExpr::Col).collect()),
        (Output::Objects, Input::Objects(_)) if grouped => {
            return Err(ExecError::plan("a grouped query must select columns, not objects"))
        }
        (Output::Objects, Input::Objects(_)) => None,
        (Output::Columns { columns }, _) => {
            Some(columns.iter().map(|c| compile(env, &c.expr, &post)).collect::<Result<Vec<_>, _>>()?)
        }
    };
    let n_out = outputs.as_ref().map_or(0, |o| o.len());
    let order_scope = Scope { outs: n_out.max(if outputs.is_none() { 1 } else { 0 }), ..post };
    let order = s.order_by.iter().map(|k| compile(env, &k.expr, &order_scope)).collect::<Result<Vec<_>, _>>()?;
    let desc: Vec<bool> = s.order_by.iter().map(|k| k.desc).collect();

    if s.retained_set {
        let g = env.graph("AS RETAINED SET")?;
        let ids = match &input {
            Input::Objects(_) => collect_ids(env, &input, filter.as_ref())?,
            Input::Values(t) => retained_set_members(t, filter.is_some())?,
        };
        let never = AtomicBool::new(false);
        let set = g.retained_set(&ids, env.cancel_flag().unwrap_or(&never)).ok_or_else(ExecError::cancelled)?;
        input = Input::Objects(ObjSet::List(set));
        filter = None;
    }

    let post_exprs = || having.iter().chain(outputs.iter().flatten()).chain(order.iter());
    let q = Post { having: having.as_ref(), outputs: outputs.as_deref(), order: &order, desc: &desc };
    if grouped {
        let row_read_later = post_exprs().any(CExpr::reads_row);
        let groups = match fast_plan(&input, &keys, &aggs, row_read_later) {
            Some(fp) => fast_group(env, &input, filter.as_ref(), &fp)?,
            None => {
                let keep_cols = matches!(input, Input::Values(_)) && row_read_later;
                group_scan(env, &input, filter.as_ref(), &keys, &aggs, keep_cols)?
            }
        };
        return finish_groups(env, &q, groups, names, s.distinct, s.limit);
    }
    match want {
        Want::Count(n) => {
            *n = count_ungrouped(env, &q, &names, &input, filter.as_ref(), s.limit)?;
            Ok(empty_result(s, None))
        }
        Want::Rows { skip } => ungrouped(env, &q, &input, filter.as_ref(), names, s.distinct, s.limit, emit, skip),
    }
}

/// What a count evaluates of one output column (`output_check`).
enum OutputCheck<'e> {
    /// Nothing: it cannot fail, nor make a cell too long for JavaScript.
    Skip,
    /// `toString(e)` of an `e` that cannot fail: `e`, and the check `toString` makes of a
    /// String's length before reading its text (`check_text_bound`), not the text.
    TextBound(&'e CExpr),
    /// Anything else: evaluated, and its cell's length checked as a batch's would be.
    Eval(&'e CExpr),
}

fn output_check<'e>(env: &Env, e: &'e CExpr) -> OutputCheck<'e> {
    if cannot_fail(env, e) {
        return OutputCheck::Skip;
    }
    match e {
        CExpr::ToString(inner) if cannot_fail(env, inner) => OutputCheck::TextBound(inner),
        _ => OutputCheck::Eval(e),
    }
}

/// Whether evaluating `e` can neither fail (eval.rs's errors) nor give a value too long for a
/// result cell: a whitelist of what reads a number, a boolean, an object or a short text from
/// the row (texts of a String's contents, lists and a FROM subquery's cells are not on it).
/// Keep in step with `eval.rs`: a node added there is left out here until shown safe.
fn cannot_fail(env: &Env, e: &CExpr) -> bool {
    use crate::plan::Attr as A;
    let mut ok = true;
    e.visit(&mut |x| {
        ok &= match x {
            CExpr::Lit(_) | CExpr::Row => true,
            // Rule 12 past the row fails (`x.name.count`); a probe's field may leave a note.
            CExpr::Field { name, probe, .. } => probe.is_none() && !matches!(&**name, "count" | "offset"),
            CExpr::Attr { attr, .. } | CExpr::AttrCmp { attr, .. } => match attr {
                A::ObjectId | A::ObjectAddress | A::UsedHeapSize | A::Length | A::DisplayName | A::Clazz | A::Heap | A::ClassLoader => true,
                A::RetainedHeapSize => env.graph.is_some(),
                A::SystemProperties | A::GcRoots | A::Inbounds | A::Outbounds => false,
            },
            // `+` concatenates when a side is a text or a String object: its length is the
            // String's, which a cell may not hold. The other operators give numbers or booleans.
            CExpr::Bin { op, .. } => !matches!(op, crate::plan::BinOp::Add),
            CExpr::Classof(_)
            | CExpr::Coalesce(_)
            | CExpr::Nullif(..)
            | CExpr::Not(_)
            | CExpr::Neg(_)
            | CExpr::Instanceof { .. }
            | CExpr::InObjects { .. }
            | CExpr::Case { .. }
            | CExpr::Like { .. }
            | CExpr::InValues { .. }
            | CExpr::Index { .. } => true,
            CExpr::Dominatorof(_) => env.graph.is_some(),
            _ => false,
        }
    });
    ok
}

/// The count of `ungrouped`'s rows (no DISTINCT, no ORDER BY): the same scan, in the same
/// blocks and parts under a LIMIT (so that the rows whose outputs are checked are those a
/// stream of the rows evaluates), each row's outputs checked (`OutputCheck`), none kept.
fn count_ungrouped(env: &Env, q: &Post, names: &[String], input: &Input, filter: Option<&CExpr>, limit: Option<u64>) -> Result<u64, ExecError> {
    let n = input.scan_len(env);
    env.add_to_scan(n as u64);
    let checks: Vec<(&str, OutputCheck)> = match q.outputs {
        Some(outs) => outs
            .iter()
            .zip(names)
            .map(|(e, name)| (name.as_str(), output_check(env, e)))
            .filter(|(_, c)| !matches!(c, OutputCheck::Skip))
            .collect(),
        None => Vec::new(),
    };
    let max = env.max_cell_units;
    let check = |cx: &Ctx| -> Result<(), ExecError> {
        for (name, c) in &checks {
            match c {
                OutputCheck::Skip => {}
                OutputCheck::TextBound(inner) => match inner.eval(env, cx)? {
                    Value::Obj(o) => crate::eval::check_text_bound(env, o)?,
                    v => crate::batch::check_value_length(name, &crate::eval::to_string_value(env, v)?, max)?,
                },
                OutputCheck::Eval(e) => {
                    counted_eval(env);
                    crate::batch::check_value_length(name, &e.eval(env, cx)?, max)?
                }
            }
        }
        Ok(())
    };
    let cap = limit.map(|l| l.min(usize::MAX as u64) as usize).unwrap_or(usize::MAX);
    // Without a LIMIT every row is checked, whatever the blocks: one scan of the whole input.
    let block = if limit.is_some() { BLOCK } else { n.max(1) };
    let mut counted = 0usize;
    let mut start = 0;
    while start < n && counted < cap {
        let end = (start + block).min(n);
        let parts = par_scan(env, input, filter, start..end, || 0usize, |c, _, cx| {
            check(cx)?;
            *c += 1;
            Ok(*c < cap)
        })?;
        counted = counted.saturating_add(parts.iter().sum());
        start = end;
    }
    Ok(counted.min(cap) as u64)
}

/// The classes of the rows a source yields when known before they are read (for the field
/// check), and, for the class object of `FROM OBJECTS 0x…`, the class it describes (whose
/// statics are its fields): the object's class for an address. None for the whole heap (a
/// query over every object may read fields that only some dumps have) and for a FROM subquery
/// (whose rows are checked as they are read: `FieldProbe`).
fn source_classes(env: &Env, source: &Source, input: &Input) -> (Option<Vec<u32>>, Option<Vec<u32>>) {
    let heap = env.heap;
    match (source, input) {
        (Source::Address { .. }, Input::Objects(ObjSet::List(ids))) => {
            let classes = ids.iter().map(|&o| heap.class_of(o)).collect();
            let described: Option<Vec<u32>> = ids.iter().map(|&o| heap.class_described_by(o)).collect();
            (Some(classes), described)
        }
        _ => (input.static_classes().map(|c| c.to_vec()), None),
    }
}

/// The objects whose retained set `SELECT e AS RETAINED SET` takes: the one column of the
/// query run without it (objects, lists of objects flattened, NULLs skipped), each once.
fn retained_set_members(t: &Table, filtered: bool) -> Result<Vec<u32>, ExecError> {
    if t.width() != 1 || filtered {
        return Err(ExecError::plan("AS RETAINED SET over a value source takes one column and no filter"));
    }
    fn add(v: &Value, name: &str, out: &mut Vec<u32>) -> Result<(), ExecError> {
        match v {
            Value::Null => Ok(()),
            Value::Obj(o) => {
                out.push(*o);
                Ok(())
            }
            Value::List(items) => items.iter().try_for_each(|i| add(i, name, out)),
            other => Err(ExecError::query(format!(
                "AS RETAINED SET needs objects, but {name} yields {} ({}): select a reference, not a value",
                other.kind_name(),
                other.plain_text().unwrap_or_default()
            ))),
        }
    }
    let mut out = Vec::new();
    for v in &t.cells {
        add(v, &t.names[0], &mut out)?;
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The per-row part after the filter (also the late ORDER BY's: `late.rs`).
pub(crate) struct Post<'p> {
    pub having: Option<&'p CExpr>,
    /// None: the rows are the objects themselves.
    pub outputs: Option<&'p [CExpr]>,
    pub order: &'p [CExpr],
    pub desc: &'p [bool],
}

impl Post<'_> {
    /// Evaluates output cells then order keys into `row`; false when HAVING drops the row.
    /// With `needed`, only the outputs it marks are evaluated (the others are NULL): the late
    /// ORDER BY works out just those its keys name while scanning.
    pub fn produce(&self, env: &Env, cx: &Ctx, needed: Option<&[bool]>, row: &mut Vec<Value>, keys: &mut Vec<Value>) -> Result<bool, ExecError> {
        if let Some(h) = self.having {
            if !h.test(env, cx)? {
                return Ok(false);
            }
        }
        row.clear();
        keys.clear();
        match self.outputs {
            Some(outs) => {
                for (i, e) in outs.iter().enumerate() {
                    row.push(if needed.is_none_or(|n| n[i]) {
                        counted_eval(env);
                        e.eval(env, cx)?
                    } else {
                        Value::Null
                    });
                }
            }
            None => {
                if let Some(o) = cx.obj {
                    row.push(Value::Obj(o));
                }
            }
        }
        if !self.order.is_empty() {
            let kcx = Ctx { out: row, ..*cx };
            for e in self.order {
                keys.push(e.eval(env, &kcx)?);
            }
        }
        Ok(true)
    }

    fn objects(&self) -> bool {
        self.outputs.is_none()
    }
    fn outs(&self) -> usize {
        self.outputs.map_or(0, |o| o.len())
    }
}

/// Pushes a produced row into `p` (objects: id + keys; table: cells + keys).
fn push_produced(p: &mut Produced, obj: Option<u32>, row: &[Value], keys: &[Value]) {
    if p.objects {
        p.ids.push(obj.expect("object rows"));
    } else {
        p.cells.extend_from_slice(row);
    }
    p.cells.extend_from_slice(keys);
}

fn topk_row(objects: bool, row: &mut Vec<Value>, keys: &mut Vec<Value>) -> Vec<Value> {
    if objects {
        std::mem::take(keys)
    } else {
        row.append(keys);
        std::mem::take(row)
    }
}

#[allow(clippy::too_many_arguments)]
fn ungrouped(
    env: &Env,
    q: &Post,
    input: &Input,
    filter: Option<&CExpr>,
    names: Vec<String>,
    distinct: bool,
    limit: Option<u64>,
    mut emit: Option<Emit>,
    skip: u64,
) -> Result<RowSet, ExecError> {
    // ORDER BY over rows that each come from one scan step: sort keys and steps, evaluate the
    // outputs after (`late.rs`); DISTINCT over columns and outputs with effects stay here.
    if crate::late::applies(env, q, input, distinct) {
        return crate::late::run(env, q, input, filter, names, limit, emit);
    }
    let n = input.scan_len(env);
    env.add_to_scan(n as u64);
    let (objects, outs, nkeys) = (q.objects(), q.outs(), q.order.len());

    if let (Some(k), false, false) = (limit, q.order.is_empty(), distinct) {
        let k = k.min(usize::MAX as u64) as usize;
        let parts = par_scan(
            env,
            input,
            filter,
            0..n,
            || (TopK::new(k, objects, outs, q.desc), Vec::new(), Vec::new()),
            |(top, row, keys), i, cx| {
                if q.produce(env, cx, None, row, keys)? {
                    let r = topk_row(objects, row, keys);
                    if let Some(back) = top.offer(r, cx.obj.unwrap_or(0), i) {
                        *row = back;
                    }
                }
                Ok(true)
            },
        )?;
        return Ok(TopK::merged(parts.into_iter().map(|(t, _, _)| t)).into_rowset(names));
    }

    let early_stop = limit.filter(|_| q.order.is_empty() && !distinct);
    let streaming = emit.is_some() && q.order.is_empty() && !distinct;
    let block = if streaming || early_stop.is_some() { BLOCK } else { n.max(1) };
    let cap = early_stop.map(|l| l.min(usize::MAX as u64) as usize).unwrap_or(usize::MAX);
    let mut all = Produced::new(objects, outs, nkeys);
    let mut emitted = 0usize;
    let mut start = 0;
    if streaming && skip > 0 {
        // A seek: the rows before row `skip` are found by the filter alone, their outputs
        // never evaluated; the rows from it on are counted from the result's start (the cap).
        let k = skip.min(usize::MAX as u64) as usize;
        if k >= cap {
            return Ok(empty_rowset(objects, names));
        }
        start = seek(env, input, filter, n, k)?;
        emitted = k;
    }
    while start < n {
        let end = (start + block).min(n);
        let parts = par_scan(
            env,
            input,
            filter,
            start..end,
            || (Produced::new(objects, outs, nkeys), Vec::new(), Vec::new()),
            |(p, row, keys), _, cx| {
                if q.produce(env, cx, None, row, keys)? {
                    push_produced(p, cx.obj, row, keys);
                }
                Ok(p.len() < cap)
            },
        )?;
        for (p, _, _) in parts {
            all.append(p);
        }
        start = end;
        if streaming {
            let emit = emit.as_mut().expect("streaming");
            let chunk = std::mem::replace(&mut all, Produced::new(objects, outs, nkeys));
            let mut rows = chunk.finish(names.clone(), &[], false, None);
            rows.truncate(cap - emitted);
            emitted += rows.len();
            if rows.len() > 0 && !emit(rows, None)? {
                break;
            }
            if emitted >= cap {
                break;
            }
        } else if all.len() >= cap {
            break;
        }
    }
    if streaming {
        return Ok(empty_rowset(objects, names));
    }
    Ok(all.finish(names, q.desc, distinct, limit))
}

/// The scan step of the row numbered `k` (from 0) of a scan's rows that pass `filter` (`n` when
/// there are no more): the rows are counted a block at a time, then the block that holds row
/// `k` is walked again to find it.
fn seek(env: &Env, input: &Input, filter: Option<&CExpr>, n: usize, k: usize) -> Result<usize, ExecError> {
    let mut seen = 0usize;
    let mut start = 0;
    while start < n {
        let end = (start + BLOCK).min(n);
        let parts = par_scan(env, input, filter, start..end, || 0usize, |c, _, _| {
            *c += 1;
            Ok(true)
        })?;
        let here: usize = parts.iter().sum();
        if seen + here > k {
            let mut left = k - seen;
            let mut found = end;
            crate::scan::scan_range(env, input, filter, start..end, None, &mut |i, _| {
                if left == 0 {
                    found = i;
                    return Ok(false);
                }
                left -= 1;
                Ok(true)
            })?;
            // Steps scanned twice, for the progress's total: this block's up to row `k` (walked
            // again), and from it to the block's end (the rows' scan goes on from row `k`).
            env.add_to_scan((end - start) as u64);
            return Ok(found);
        }
        seen += here;
        start = end;
    }
    Ok(n)
}

fn empty_rowset(objects: bool, names: Vec<String>) -> RowSet {
    if objects {
        RowSet::Objects { name: names.into_iter().next().unwrap_or_default(), ids: Vec::new() }
    } else {
        RowSet::Table(Table::new(names))
    }
}

fn finish_groups(
    env: &Env,
    q: &Post,
    groups: Vec<GroupRow>,
    names: Vec<String>,
    distinct: bool,
    limit: Option<u64>,
) -> Result<RowSet, ExecError> {
    let outs = q.outs();
    let (mut row, mut keys) = (Vec::new(), Vec::new());
    if let (Some(k), false, false) = (limit, q.order.is_empty(), distinct) {
        let mut top = TopK::new(k.min(usize::MAX as u64) as usize, false, outs, q.desc);
        for (i, g) in groups.iter().enumerate() {
            if i % CANCEL_EVERY == 0 {
                env.check_cancel()?;
            }
            if q.produce(env, &g.ctx(), None, &mut row, &mut keys)? {
                let r = topk_row(false, &mut row, &mut keys);
                if let Some(back) = top.offer(r, 0, i) {
                    row = back;
                }
            }
        }
        return Ok(top.into_rowset(names));
    }
    let mut p = Produced::new(false, outs, q.order.len());
    for (i, g) in groups.iter().enumerate() {
        if i % CANCEL_EVERY == 0 {
            env.check_cancel()?;
        }
        if q.produce(env, &g.ctx(), None, &mut row, &mut keys)? {
            push_produced(&mut p, None, &row, &keys);
        }
    }
    Ok(p.finish(names, q.desc, distinct, limit))
}

fn run_setop(env: &Env, kind: SetKind, o: &SetOp) -> Result<RowSet, ExecError> {
    let l = run_query(env, &o.left)?;
    let r = run_query(env, &o.right)?;
    if l.width() != r.width() {
        let op = match kind {
            SetKind::Union => "UNION",
            SetKind::Intersect => "INTERSECT",
            SetKind::Except => "EXCEPT",
        };
        return Err(ExecError::query(format!(
            "the two sides of {op} select {} and {} columns; they must select the same number",
            l.width(),
            r.width()
        )));
    }
    let combined = match (l, r) {
        (RowSet::Objects { name, ids: a }, RowSet::Objects { ids: b, .. }) => {
            let ids = match kind {
                SetKind::Union => [a, b].concat(),
                SetKind::Intersect | SetKind::Except => {
                    let right: HashSet<u32> = b.into_iter().collect();
                    let keep_if_in = matches!(kind, SetKind::Intersect);
                    a.into_iter().filter(|x| right.contains(x) == keep_if_in).collect()
                }
            };
            RowSet::Objects { name, ids }
        }
        (l, r) => {
            let mut lt = l.into_table();
            let rt = r.into_table();
            match kind {
                SetKind::Union => lt.cells.extend(rt.cells),
                SetKind::Intersect | SetKind::Except => {
                    let eq = SetEquality::new(env, &lt, &rt);
                    let mut index: HashMap<u64, Vec<usize>, BuildHasherDefault<PassThrough>> = HashMap::default();
                    for i in 0..rt.len() {
                        if i % CANCEL_EVERY == 0 {
                            env.check_cancel()?;
                        }
                        let row = rt.row(i);
                        let bucket = index.entry(eq.hash(row)).or_default();
                        if !bucket.iter().any(|&j| eq.rows_eq(rt.row(j), row)) {
                            bucket.push(i);
                        }
                    }
                    let keep_if_in = matches!(kind, SetKind::Intersect);
                    let mut cells = Vec::new();
                    for i in 0..lt.len() {
                        if i % CANCEL_EVERY == 0 {
                            env.check_cancel()?;
                        }
                        let row = lt.row(i);
                        let found = index.get(&eq.hash(row)).is_some_and(|b| b.iter().any(|&j| eq.rows_eq(row, rt.row(j))));
                        if found == keep_if_in {
                            cells.extend_from_slice(row);
                        }
                    }
                    lt.cells = cells;
                }
            }
            RowSet::Table(lt)
        }
    };
    finish_rowset(env, combined, o)
}

/// Row equality of INTERSECT and EXCEPT: a row of one side is in the other when a row there is
/// equal to it cell by cell as `=` and `IN` have it — the equality of GROUP BY and DISTINCT
/// (`value::key_eq`: an object is itself, a text its exact units, `1 = 1.0`), and besides a
/// java.lang.String object equal to a text that is its text (`SELECT s … INTERSECT SELECT
/// toString(t) …`) and an object equal to a number that is its address (`SELECT x … EXCEPT
/// SELECT y.@objectAddress …`). Unlike DISTINCT's, this is no partition (two Strings of one
/// text are both equal to it, not to each other), which a test of membership does not need.
///
/// Only the columns where one side has objects and the other texts or numbers compare so
/// (`columns`). In a column of texts, a String whose length is that of some text of the column
/// is hashed by its text's units, read as they stream (a text cell likewise), any other String
/// by itself as before, unread: it can only equal itself. In a column of numbers an object is
/// hashed as its address. A column that has both leaves the hash (its rows are told apart by
/// `rows_eq` alone). Nothing is made per row.
struct SetEquality<'e, 'a> {
    env: &'e Env<'a>,
    columns: Vec<ColumnEquality>,
}

/// How one column of a set operation compares an object with a value of the other side.
#[derive(Default)]
struct ColumnEquality {
    /// The lengths (UTF-16 units, sorted) of the column's texts on both sides, when one side
    /// has objects there and the other texts.
    text_lens: Option<Vec<usize>>,
    /// One side has objects there and the other numbers: an object equals its address.
    address: bool,
}

impl<'e, 'a> SetEquality<'e, 'a> {
    fn new(env: &'e Env<'a>, l: &Table, r: &Table) -> Self {
        let w = l.width();
        // Per side: (objects, texts, numbers) seen in column `c`.
        let kinds = |t: &Table, c: usize| {
            let (mut objs, mut texts, mut numbers) = (false, false, false);
            for i in 0..t.len() {
                match &t.row(i)[c] {
                    Value::Obj(_) => objs = true,
                    Value::Int(_) | Value::Float(_) => numbers = true,
                    v if v.is_text() => texts = true,
                    _ => {}
                }
            }
            (objs, texts, numbers)
        };
        let columns = (0..w)
            .map(|c| {
                let ((lo, lt, ln), (ro, rt, rn)) = (kinds(l, c), kinds(r, c));
                let text_lens = ((lo && rt) || (lt && ro)).then(|| {
                    let mut lens: Vec<usize> = [l, r]
                        .iter()
                        .flat_map(|t| (0..t.len()).filter_map(move |i| t.row(i)[c].utf16_len()))
                        .collect();
                    lens.sort_unstable();
                    lens.dedup();
                    lens
                });
                ColumnEquality { text_lens, address: (lo && rn) || (ln && ro) }
            })
            .collect();
        SetEquality { env, columns }
    }

    /// A hash that equal rows (`rows_eq`) share.
    fn hash(&self, row: &[Value]) -> u64 {
        let mut h = rustc_hash::FxHasher::default();
        row.len().hash(&mut h);
        for (v, col) in row.iter().zip(&self.columns) {
            match (v, col) {
                (_, ColumnEquality { text_lens: Some(_), address: true }) => {}
                (Value::Obj(o), ColumnEquality { address: true, .. }) => key_hash(&crate::eval::address(self.env, *o), &mut h),
                (Value::Str(s), ColumnEquality { text_lens: Some(_), .. }) => hash_units(s.encode_utf16(), &mut h),
                (Value::Utf16(u), ColumnEquality { text_lens: Some(_), .. }) => hash_units(u.iter().copied(), &mut h),
                (Value::Obj(o), ColumnEquality { text_lens: Some(lens), .. }) => {
                    match crate::eval::object_text_len(self.env, *o).filter(|n| lens.binary_search(n).is_ok()) {
                        Some(_) => match crate::eval::object_text_units(self.env, *o) {
                            Some(units) => hash_units(units, &mut h),
                            None => key_hash(v, &mut h),
                        },
                        None => key_hash(v, &mut h),
                    }
                }
                _ => key_hash(v, &mut h),
            }
        }
        h.finish()
    }

    fn rows_eq(&self, a: &[Value], b: &[Value]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).zip(&self.columns).all(|((x, y), col)| {
                key_eq(x, y)
                    || match (x, y) {
                        (Value::Obj(o), t) | (t, Value::Obj(o)) if col.text_lens.is_some() && t.is_text() => crate::eval::object_text_eq(self.env, *o, t),
                        (Value::Obj(o), n @ (Value::Int(_) | Value::Float(_))) | (n @ (Value::Int(_) | Value::Float(_)), Value::Obj(o)) if col.address => {
                            key_eq(&crate::eval::address(self.env, *o), n)
                        }
                        _ => false,
                    }
            })
    }
}

/// A text's hash in `SetEquality`: its UTF-16 units (a `Str` and a `Utf16` of the same units
/// are never equal, so sharing a hash costs only a comparison).
fn hash_units(units: impl Iterator<Item = u16>, h: &mut rustc_hash::FxHasher) {
    8u8.hash(h);
    let mut n = 0usize;
    for u in units {
        h.write_u16(u);
        n += 1;
    }
    n.hash(h);
}

/// DISTINCT, ORDER BY and LIMIT of a set operation; order keys see the row object (for object
/// rows) and the output cells.
fn finish_rowset(env: &Env, rows: RowSet, o: &SetOp) -> Result<RowSet, ExecError> {
    if o.order_by.is_empty() && !o.distinct && o.limit.is_none() {
        return Ok(rows);
    }
    let width = rows.width();
    let order = o
        .order_by
        .iter()
        .map(|k| compile(env, &k.expr, &Scope { outs: width, ..Scope::default() }))
        .collect::<Result<Vec<_>, _>>()?;
    let desc: Vec<bool> = o.order_by.iter().map(|k| k.desc).collect();
    let names = rows.names();
    let objects = matches!(rows, RowSet::Objects { .. });
    let mut p = Produced::new(objects, if objects { 0 } else { width }, order.len());
    for i in 0..rows.len() {
        if i % CANCEL_EVERY == 0 {
            env.check_cancel()?;
        }
        let cells = rows.row_values(i);
        let obj = match &rows {
            RowSet::Objects { ids, .. } => Some(ids[i]),
            RowSet::Table(_) => None,
        };
        let cx = Ctx { obj, out: &cells, ..Ctx::default() };
        let keys = order.iter().map(|e| e.eval(env, &cx)).collect::<Result<Vec<_>, _>>()?;
        push_produced(&mut p, obj, &cells, &keys);
    }
    Ok(p.finish(names, &desc, o.distinct, o.limit))
}
