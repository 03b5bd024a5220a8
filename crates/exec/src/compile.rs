//! Plan expressions compiled once per execution: LIKE regexes built, INSTANCEOF turned into a
//! class bitmap, IN subqueries run into an object bitmap or a value set, column names resolved,
//! full-path features checked against the availability of the graph, and field names checked
//! against the classes of the source.

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use heapql_heap::{ClassIdx, FieldSlot, Heap};

use crate::env::{Env, FieldProbe};
use crate::error::{ExecError, NameKind, UnknownName};
use crate::plan::{Attr, BinOp, Expr, Func};
use crate::rows::RowSet;
use crate::source::{class_bitmap, classes_for_pattern, classes_of_name, like_pattern, LikePattern};
use crate::value::{Key, Value};

#[derive(Debug)]
pub(crate) enum CExpr {
    Lit(Value),
    Row,
    Col(usize),
    /// `probe`: set when the classes of the objects read were not known when compiled.
    /// `slots`: where the field lies in the instances of each class, found once per class.
    Field { base: Box<CExpr>, name: Box<str>, probe: Option<Arc<FieldProbe>>, slots: FieldSlots },
    Attr { base: Box<CExpr>, attr: Attr },
    Classof(Box<CExpr>),
    ToString(Box<CExpr>),
    Coalesce(Vec<CExpr>),
    Nullif(Box<CExpr>, Box<CExpr>),
    Dominators(Box<CExpr>),
    Dominatorof(Box<CExpr>),
    Path(Box<CExpr>, Box<CExpr>),
    Bin { op: BinOp, l: Box<CExpr>, r: Box<CExpr> },
    /// `row.@attr <op> lit` for a numeric attribute and an integer literal, the commonest
    /// filter (`x.@retainedHeapSize > 1000000`): read and compared without building values
    /// (58 against 13 ns per object on bench-1g). `general` is the same comparison as a `Bin`,
    /// evaluated when the row is not an object.
    AttrCmp { attr: Attr, op: BinOp, lit: i64, general: Box<CExpr> },
    Not(Box<CExpr>),
    Neg(Box<CExpr>),
    Like { e: Box<CExpr>, re: LikePattern, negate: bool },
    Instanceof { e: Box<CExpr>, by_class: Arc<Vec<bool>> },
    InObjects { e: Box<CExpr>, bits: Arc<Vec<u64>> },
    /// `by_address` / `by_text`: the set holds numbers / strings, which an object on the left
    /// meets by its address / string text; `text_lens`: the lengths (UTF-16 units) of those
    /// strings, sorted, so that a String of another length is refused unread.
    InValues { e: Box<CExpr>, set: Arc<HashSet<Key>>, by_address: bool, by_text: bool, text_lens: Arc<[usize]> },
    Case { whens: Vec<(CExpr, CExpr)>, else_: Option<Box<CExpr>> },
    Index { e: Box<CExpr>, i: Box<CExpr> },
    Slice { e: Box<CExpr>, from: Box<CExpr>, to: Box<CExpr> },
    Agg(usize),
    Key(usize),
    Out(usize),
}

/// Where one named instance field lies in the instances of each class (`Heap::field_slot`),
/// looked up the first time an instance of the class is read and kept for the execution: a
/// field read over millions of objects compares no names. Shared by the scan's threads (a
/// class looked up twice at once gets the same answer twice).
#[derive(Default)]
pub(crate) struct FieldSlots {
    by_class: OnceLock<Box<[OnceLock<Option<FieldSlot>>]>>,
}

impl FieldSlots {
    /// Field `name` of class `c`'s instances; None when they have no such field.
    #[inline]
    pub fn get(&self, heap: &Heap, c: ClassIdx, name: &str) -> Option<FieldSlot> {
        let table = self.by_class.get_or_init(|| (0..heap.class_count()).map(|_| OnceLock::new()).collect());
        match table.get(c as usize) {
            Some(cell) => *cell.get_or_init(|| heap.field_slot(c, name)),
            None => heap.field_slot(c, name),
        }
    }
}

impl std::fmt::Debug for FieldSlots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FieldSlots")
    }
}

impl CExpr {
    /// Whether evaluating this reads the row itself (not only group keys and aggregates).
    pub fn reads_row(&self) -> bool {
        let mut found = false;
        self.visit(&mut |e| found |= matches!(e, CExpr::Row | CExpr::Col(_)));
        found
    }

    /// Calls `f` on this expression and every expression inside it.
    pub(crate) fn visit(&self, f: &mut dyn FnMut(&CExpr)) {
        f(self);
        match self {
            CExpr::Lit(_) | CExpr::Row | CExpr::Col(_) | CExpr::Agg(_) | CExpr::Key(_) | CExpr::Out(_) => {}
            CExpr::Field { base, .. } | CExpr::Attr { base, .. } => base.visit(f),
            CExpr::Classof(e)
            | CExpr::ToString(e)
            | CExpr::Dominators(e)
            | CExpr::Dominatorof(e)
            | CExpr::Not(e)
            | CExpr::Neg(e)
            | CExpr::Like { e, .. }
            | CExpr::Instanceof { e, .. }
            | CExpr::InObjects { e, .. }
            | CExpr::InValues { e, .. } => e.visit(f),
            CExpr::Coalesce(v) => v.iter().for_each(|e| e.visit(f)),
            CExpr::AttrCmp { general, .. } => general.visit(f),
            CExpr::Nullif(a, b) | CExpr::Path(a, b) | CExpr::Bin { l: a, r: b, .. } | CExpr::Index { e: a, i: b } => {
                a.visit(f);
                b.visit(f)
            }
            CExpr::Case { whens, else_ } => {
                for (w, t) in whens {
                    w.visit(f);
                    t.visit(f);
                }
                if let Some(e) = else_ {
                    e.visit(f)
                }
            }
            CExpr::Slice { e, from, to } => {
                e.visit(f);
                from.visit(f);
                to.visit(f)
            }
        }
    }
}

/// What an expression may refer to where it is compiled.
#[derive(Clone, Copy, Default)]
pub(crate) struct Scope<'s> {
    /// Classes of the source rows when statically known (field-name check).
    pub source_classes: Option<&'s [ClassIdx]>,
    /// The classes the source's class objects describe, when known (`FROM OBJECTS 0x…` of a
    /// class object): their statics are the fields of the row. None: any class of the dump.
    pub described: Option<&'s [ClassIdx]>,
    /// The rows are a FROM subquery's: a field read on them gets a `FieldProbe`.
    pub probe_rows: bool,
    /// Column names of a value-row source.
    pub columns: Option<&'s [String]>,
    pub keys: usize,
    pub aggs: usize,
    pub outs: usize,
}

pub(crate) fn compile(env: &Env, e: &Expr, sc: &Scope) -> Result<CExpr, ExecError> {
    let c = |x: &Expr| compile(env, x, sc).map(Box::new);
    Ok(match e {
        Expr::Lit { v } => CExpr::Lit(literal(v)?),
        Expr::Row => CExpr::Row,
        Expr::Col { name } => match sc.columns {
            Some(cols) => match cols.iter().position(|c| c == name) {
                Some(i) => CExpr::Col(i),
                None => {
                    return Err(ExecError::query(format!(
                        "the subquery has no column '{name}'; its columns are: {}",
                        cols.join(", ")
                    )))
                }
            },
            None => return Err(ExecError::plan(format!("column '{name}' read outside a subquery source"))),
        },
        Expr::Field { base, name } => {
            let base_c = c(base)?;
            let mut probe = None;
            match (&*base_c, sc.source_classes) {
                (CExpr::Row, Some(classes)) => check_field(env, classes, sc.described, name)?,
                // `classof(x).NAME`: a static of the row's class or of its superclasses.
                (b, Some(classes)) if is_row_class(b) => check_static(env, classes, name)?,
                // Rows whose classes are known only once read (a FROM subquery's objects or
                // columns, a retained set): a note when no object read has the field.
                (CExpr::Row, None) if sc.probe_rows => probe = Some(env.field_probe(name)),
                (CExpr::Col(_), _) => probe = Some(env.field_probe(name)),
                _ => {}
            }
            CExpr::Field { base: base_c, name: name.as_str().into(), probe, slots: FieldSlots::default() }
        }
        Expr::Attr { base, name } => {
            match name {
                Attr::RetainedHeapSize => {
                    env.graph("@retainedHeapSize")?;
                }
                Attr::Inbounds => {
                    env.graph("@inbounds")?;
                }
                _ => {}
            }
            CExpr::Attr { base: c(base)?, attr: *name }
        }
        Expr::Call { func, args } => compile_call(env, *func, args, sc)?,
        Expr::Bin { op, l, r } => attr_cmp(CExpr::Bin { op: *op, l: c(l)?, r: c(r)? }),
        Expr::Not { e } => CExpr::Not(c(e)?),
        Expr::Neg { e } => CExpr::Neg(c(e)?),
        Expr::Like { e, pattern, negate } => CExpr::Like { e: c(e)?, re: like_pattern(pattern)?, negate: *negate },
        Expr::Instanceof { e, class, pattern } => {
            // The classes once per query, as FROM INSTANCEOF resolves them (None: every object,
            // for java.lang.Object); each row is then one look-up by its class.
            let classes = match (class, pattern) {
                (Some(name), None) => classes_of_name(env, name, true)?,
                (None, Some(pattern)) => classes_for_pattern(env, pattern, true)?,
                _ => return Err(ExecError::plan("instanceof takes one of \"class\" and \"pattern\"")),
            };
            let by_class = match classes {
                Some(classes) => class_bitmap(env, &classes),
                None => vec![true; env.heap.class_count() as usize],
            };
            CExpr::Instanceof { e: c(e)?, by_class: Arc::new(by_class) }
        }
        Expr::In { e, query } => {
            let inner = crate::select::run_query(env, query)?;
            compile_in(env, c(e)?, inner)?
        }
        Expr::Case { whens, else_ } => CExpr::Case {
            whens: whens
                .iter()
                .map(|w| Ok((compile(env, &w.when, sc)?, compile(env, &w.then, sc)?)))
                .collect::<Result<_, ExecError>>()?,
            else_: match else_ {
                Some(x) => Some(c(x)?),
                None => None,
            },
        },
        Expr::Index { e, i } => CExpr::Index { e: c(e)?, i: c(i)? },
        Expr::Slice { e, from, to } => CExpr::Slice { e: c(e)?, from: c(from)?, to: c(to)? },
        Expr::Agg { i } => {
            if *i >= sc.aggs {
                return Err(ExecError::plan(format!("aggregate slot {i} does not exist here ({} aggregates)", sc.aggs)));
            }
            CExpr::Agg(*i)
        }
        Expr::Key { i } => {
            if *i >= sc.keys {
                return Err(ExecError::plan(format!("group key {i} does not exist here ({} keys)", sc.keys)));
            }
            CExpr::Key(*i)
        }
        Expr::Out { i } => {
            if *i >= sc.outs {
                return Err(ExecError::plan(format!("output column {i} does not exist ({} columns)", sc.outs)));
            }
            CExpr::Out(*i)
        }
    })
}

/// A plan literal: null, a boolean, a number or a string.
fn literal(v: &serde_json::Value) -> Result<Value, ExecError> {
    match v {
        serde_json::Value::Array(_) | serde_json::Value::Object(_) => {
            Err(ExecError::plan(format!("a literal must be null, a boolean, a number or a string, not {v}")))
        }
        scalar => Ok(Value::from_json(scalar)),
    }
}

fn compile_call(env: &Env, func: Func, args: &[Expr], sc: &Scope) -> Result<CExpr, ExecError> {
    let want = |n: usize| -> Result<(), ExecError> {
        if args.len() != n {
            return Err(ExecError::plan(format!("{func:?} takes {n} argument(s), the plan gives {}", args.len())));
        }
        Ok(())
    };
    let arg = |i: usize| compile(env, &args[i], sc).map(Box::new);
    Ok(match func {
        Func::Classof => {
            want(1)?;
            CExpr::Classof(arg(0)?)
        }
        Func::ToString => {
            want(1)?;
            CExpr::ToString(arg(0)?)
        }
        Func::Coalesce => {
            if args.is_empty() {
                return Err(ExecError::plan("coalesce needs at least one argument"));
            }
            CExpr::Coalesce(args.iter().map(|a| compile(env, a, sc)).collect::<Result<_, _>>()?)
        }
        Func::Nullif => {
            want(2)?;
            CExpr::Nullif(arg(0)?, arg(1)?)
        }
        Func::Dominators => {
            want(1)?;
            env.graph("dominators(x)")?;
            CExpr::Dominators(arg(0)?)
        }
        Func::Dominatorof => {
            want(1)?;
            env.graph("dominatorof(x)")?;
            CExpr::Dominatorof(arg(0)?)
        }
        Func::Path => {
            want(2)?;
            env.graph("path(a, b)")?;
            CExpr::Path(arg(0)?, arg(1)?)
        }
    })
}

/// IN over a subquery: its single column becomes an object bitmap when it holds objects only,
/// otherwise a set of values.
fn compile_in(env: &Env, e: Box<CExpr>, inner: RowSet) -> Result<CExpr, ExecError> {
    if inner.width() != 1 {
        return Err(ExecError::query(format!(
            "the subquery of IN must select one column, it selects {} ({})",
            inner.width(),
            inner.names().join(", ")
        )));
    }
    let n = env.heap.object_count() as usize;
    let mut bits = vec![0u64; n.div_ceil(64)];
    match inner {
        RowSet::Objects { ids, .. } => {
            for o in ids {
                bits[o as usize / 64] |= 1 << (o % 64);
            }
            Ok(CExpr::InObjects { e, bits: Arc::new(bits) })
        }
        RowSet::Table(t) => {
            // A list cell (`x.@inbounds`, `outbounds(x)`, `dominators(x)`, a slice) stands for
            // its elements, as for AS RETAINED SET: compared whole, no object was ever in it.
            let mut cells = Vec::with_capacity(t.cells.len());
            flatten_lists(t.cells, &mut cells);
            if cells.iter().all(|v| matches!(v, Value::Obj(_) | Value::Null)) {
                for v in &cells {
                    if let Value::Obj(o) = v {
                        bits[*o as usize / 64] |= 1 << (o % 64);
                    }
                }
                Ok(CExpr::InObjects { e, bits: Arc::new(bits) })
            } else {
                let set: HashSet<Key> = cells.into_iter().filter(|v| !v.is_null()).map(Key).collect();
                let by_address = set.iter().any(|k| matches!(k.0, Value::Int(_) | Value::Float(_)));
                let by_text = set.iter().any(|k| k.0.is_text());
                let mut text_lens: Vec<usize> = set.iter().filter_map(|k| k.0.utf16_len()).collect();
                text_lens.sort_unstable();
                text_lens.dedup();
                Ok(CExpr::InValues { e, set: Arc::new(set), by_address, by_text, text_lens: text_lens.into() })
            }
        }
    }
}

/// `values` with every list replaced by its elements (nested lists too), in order.
fn flatten_lists(values: impl IntoIterator<Item = Value>, out: &mut Vec<Value>) {
    for v in values {
        match v {
            Value::List(items) => flatten_lists(items.iter().cloned(), out),
            v => out.push(v),
        }
    }
}

/// `classof(row)` / `row.@clazz`: the class object of the row's class.
fn is_row_class(e: &CExpr) -> bool {
    match e {
        CExpr::Classof(b) => matches!(**b, CExpr::Row),
        CExpr::Attr { base, attr: Attr::Clazz } => matches!(**base, CExpr::Row),
        _ => false,
    }
}

/// A field read on the row: at least one class of the source must have an instance field of
/// that name. A class object's fields are the statics of the class it describes (and of its
/// superclasses): when the source yields class objects, the name must be a static of a class
/// they describe (`described`, else any class of the dump). Rule 12 follows the dump: `count`
/// and `offset` of java.lang.String are real fields up to JDK 8 and on Android, unknown from
/// JDK 9 on, like any field a class does not have.
fn check_field(env: &Env, classes: &[ClassIdx], described: Option<&[ClassIdx]>, name: &str) -> Result<(), ExecError> {
    if classes.is_empty() {
        return Ok(());
    }
    let heap = env.heap;
    // A class's layout holds the fields of it and its superclasses: each class is looked at
    // once, however many of the source's classes share it as a superclass.
    let mut seen = vec![false; heap.class_count() as usize];
    let declared = classes.iter().any(|&c| {
        let mut cur = Some(c);
        while let Some(k) = cur {
            if std::mem::replace(&mut seen[k as usize], true) {
                return false;
            }
            if heap.class(k).fields.iter().any(|f| f.name == name) {
                return true;
            }
            cur = heap.class(k).super_class;
        }
        false
    });
    if declared {
        return Ok(());
    }
    let yields_class_objects = classes.iter().any(|&c| heap.class(c).name == "java.lang.Class");
    if !yields_class_objects {
        return Err(unknown_field_error(env, classes[0], name, classes.len()));
    }
    match described {
        Some(described) => check_static(env, described, name),
        None => {
            if (0..heap.class_count()).any(|c| heap.class(c).statics.iter().any(|s| s.name == name)) {
                return Ok(());
            }
            let mut names: Vec<&str> = (0..heap.class_count())
                .flat_map(|c| heap.class(c).statics.iter().map(|s| s.name.as_str()))
                .filter(|n| !n.starts_with('<'))
                .collect();
            names.sort_unstable();
            names.dedup();
            let unknown = UnknownName {
                kind: NameKind::Static,
                name: name.to_string(),
                class_name: None,
                class_count: None,
                fields: None,
                suggestions: Some(crate::source::suggest(name, &names)),
                note: Some("the fields of a class object are its class's statics".to_string()),
            };
            Err(ExecError::unknown_name(unknown))
        }
    }
}

/// The names of the statics a class object describing `c` has: its class's, then its
/// superclasses'.
fn statics_of<'a>(env: &Env<'a>, c: ClassIdx) -> Vec<&'a str> {
    env.statics_with_supers(c).map(|s| s.name.as_str()).collect()
}

/// A static read on the class objects of `classes` (`classof(x).NAME`): at least one of them (or
/// a superclass) must declare it.
fn check_static(env: &Env, classes: &[ClassIdx], name: &str) -> Result<(), ExecError> {
    if classes.is_empty() || classes.iter().any(|&c| statics_of(env, c).contains(&name)) {
        return Ok(());
    }
    let first = classes[0];
    // Not the JVM's own entries such as `<resolved_references>`, which OQL cannot name.
    let mut statics: Vec<&str> = statics_of(env, first).into_iter().filter(|n| !n.starts_with('<')).collect();
    statics.dedup();
    let class_name = &env.heap.class(first).name;
    let unknown = UnknownName {
        kind: NameKind::Static,
        name: name.to_string(),
        class_name: Some(class_name.clone()),
        class_count: Some(classes.len() as u32),
        fields: Some(statics.iter().map(|s| s.to_string()).collect()),
        suggestions: None,
        note: None,
    };
    Err(ExecError::unknown_name(unknown))
}

pub(crate) fn unknown_field_error(env: &Env, class: ClassIdx, name: &str, class_count: usize) -> ExecError {
    let heap = env.heap;
    let info = heap.class(class);
    let mut fields: Vec<&str> = heap.instance_layout(class).iter().map(|f| f.name.as_str()).collect();
    fields.dedup();
    let is_array = info.name.ends_with("[]");
    // An array has no fields: what it has instead is said in the list's place.
    let mut note = is_array.then_some("arrays have @length and [i]");
    // Strings of JDK 9 and later: the text is `value` (bytes, with `coder`), no count or offset.
    if env.is_string_class(class) && (name == "count" || name == "offset") {
        note = Some("strings of this JVM keep their text in value: use toString(s) for the text, @length for its length");
    }
    let unknown = UnknownName {
        kind: NameKind::Field,
        name: name.to_string(),
        class_name: Some(info.name.clone()),
        class_count: Some(class_count as u32),
        fields: (!is_array).then(|| fields.iter().map(|f| f.to_string()).collect()),
        suggestions: None,
        note: note.map(str::to_string),
    };
    ExecError::unknown_name(unknown)
}


/// `bin` as an `AttrCmp` when it compares a numeric attribute of the row with an integer
/// literal (either side; the literal on the left flips the operator), else `bin` itself.
fn attr_cmp(bin: CExpr) -> CExpr {
    let CExpr::Bin { op, l, r } = &bin else { return bin };
    let numeric = |a: &Attr| matches!(a, Attr::ObjectId | Attr::ObjectAddress | Attr::UsedHeapSize | Attr::RetainedHeapSize | Attr::Length);
    let (attr, lit, op) = match (&**l, &**r) {
        (CExpr::Attr { base, attr }, CExpr::Lit(Value::Int(v))) if matches!(**base, CExpr::Row) && numeric(attr) => (*attr, *v, *op),
        (CExpr::Lit(Value::Int(v)), CExpr::Attr { base, attr }) if matches!(**base, CExpr::Row) && numeric(attr) => {
            let flipped = match op {
                BinOp::Lt => BinOp::Gt,
                BinOp::Le => BinOp::Ge,
                BinOp::Gt => BinOp::Lt,
                BinOp::Ge => BinOp::Le,
                other => *other,
            };
            (*attr, *v, flipped)
        }
        _ => return bin,
    };
    if !matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne) {
        return bin;
    }
    CExpr::AttrCmp { attr, op, lit, general: Box::new(bin) }
}
