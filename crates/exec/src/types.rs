//! The JSON type the query fixes for each result column, for a column whose values cannot tell
//! it (no rows, or NULLs only; `batch::build_column`): a literal's, an aggregate's, a built-in
//! attribute's, a function's or operator's with one result type, and a field's whose declared
//! type the source's classes give (`s.count` over `FROM java.lang.String s` is a number). None
//! where nothing tells (`s.user.name`: which class `user` holds is not known before a row is
//! read; `CASE` branches of two types; a subquery column of no fixed type).
//!
//! Worked out from the plan and the classes of the sources, once per execution: class-level
//! work only, nothing per object, no subquery run, and never an error (a source the dump lacks
//! has failed the query already).

use heapql_heap::{ClassIdx, FieldType, PrimType};

use crate::env::Env;
use crate::plan::{AggFn, Attr, BinOp, Expr, Func, Output, Query, Select, Source};
use crate::source::{classes_for_pattern, classes_of_name};

/// A column type as the TypeScript side names it (`ColumnData::type_name`).
pub type Fixed = Option<&'static str>;

const OBJECT: Fixed = Some("object");
const NUMBER: Fixed = Some("number");
const STRING: Fixed = Some("string");
const BOOL: Fixed = Some("bool");
const LIST: Fixed = Some("list");

/// The fixed type of each output column of `q`, in order.
pub(crate) fn query_types(env: &Env, q: &Query) -> Vec<Fixed> {
    shape(env, q).types
}

/// What a query yields, as far as the plan tells: its column names and their fixed types.
struct Shape {
    names: Vec<String>,
    types: Vec<Fixed>,
    /// Rows are objects (a list of objects), not value tuples.
    objects: bool,
}

fn shape(env: &Env, q: &Query) -> Shape {
    match q {
        Query::Select(s) => select_shape(env, s),
        // The rows of EXCEPT and INTERSECT are rows of the left side; UNION's are of both.
        Query::Except(o) | Query::Intersect(o) => shape(env, &o.left),
        Query::Union(o) => {
            let (l, r) = (shape(env, &o.left), shape(env, &o.right));
            let types = l.types.iter().zip(r.types.iter().chain(std::iter::repeat(&None))).map(|(a, b)| if a == b { *a } else { None }).collect();
            Shape { names: l.names, types, objects: l.objects && r.objects }
        }
    }
}

/// What the expressions of one select read: the source's rows, group keys and aggregates.
struct Scope {
    /// The classes of the row objects, when the source fixes them.
    classes: Option<Vec<ClassIdx>>,
    /// The rows are objects (else value tuples of a FROM subquery: `columns`).
    objects: bool,
    columns: Vec<(String, Fixed)>,
    keys: Vec<Fixed>,
    aggs: Vec<Fixed>,
}

fn select_shape(env: &Env, s: &Select) -> Shape {
    let heap = env.heap;
    let mut scope = Scope { classes: None, objects: true, columns: Vec::new(), keys: Vec::new(), aggs: Vec::new() };
    match &s.source {
        Source::Class { name, subclasses } => scope.classes = classes_of_name(env, name, *subclasses).ok().flatten(),
        Source::Regex { pattern, subclasses } => scope.classes = classes_for_pattern(env, pattern, *subclasses).ok().flatten(),
        Source::Address { address } => {
            scope.classes = crate::source::parse_address(address).ok().and_then(|id| heap.index_of(id)).map(|o| vec![heap.class_of(o)]);
        }
        Source::All => {}
        Source::Subquery { query } => {
            let sub = shape(env, query);
            if !sub.objects {
                scope.objects = false;
                scope.columns = sub.names.into_iter().zip(sub.types).collect();
            }
        }
    }
    // A retained set's rows are any objects, whatever the source's classes were.
    if s.retained_set {
        scope = Scope { classes: None, objects: true, columns: Vec::new(), keys: Vec::new(), aggs: Vec::new() };
    }
    scope.keys = s.group_by.iter().map(|k| type_of(env, k, &scope)).collect();
    scope.aggs = s
        .aggregates
        .iter()
        .map(|a| match a.func {
            AggFn::Count | AggFn::Sum | AggFn::Avg | AggFn::Median | AggFn::Percentile => NUMBER,
            AggFn::Min | AggFn::Max => a.arg.as_ref().and_then(|e| type_of(env, e, &scope)),
        })
        .collect();
    match &s.output {
        Output::Objects if !scope.objects => Shape {
            names: scope.columns.iter().map(|(n, _)| n.clone()).collect(),
            types: scope.columns.iter().map(|(_, t)| *t).collect(),
            objects: false,
        },
        Output::Objects => Shape { names: vec![s.alias.clone().unwrap_or_else(|| "*".into())], types: vec![OBJECT], objects: true },
        Output::Columns { columns } => Shape {
            names: columns.iter().map(|c| c.name.clone()).collect(),
            types: columns.iter().map(|c| type_of(env, &c.expr, &scope)).collect(),
            objects: false,
        },
    }
}

/// A field's declared type in every class of the source that declares it, when they agree
/// (an instance without the field reads NULL). None for class objects, whose "fields" are the
/// statics of the classes they describe.
fn field_type(env: &Env, classes: &[ClassIdx], name: &str) -> Fixed {
    let heap = env.heap;
    let mut found: Option<Fixed> = None;
    for &c in classes {
        if heap.class(c).name == "java.lang.Class" {
            return None;
        }
        let Some(f) = heap.instance_layout(c).iter().find(|f| f.name == name) else { continue };
        let t = match f.ty {
            FieldType::Object => OBJECT,
            FieldType::Prim(PrimType::Boolean) => BOOL,
            // A char reads as a one-character string.
            FieldType::Prim(PrimType::Char) => STRING,
            FieldType::Prim(_) => NUMBER,
        };
        match found {
            None => found = Some(t),
            Some(prev) if prev != t => return None,
            Some(_) => {}
        }
    }
    found.flatten()
}

fn is_null_literal(e: &Expr) -> bool {
    matches!(e, Expr::Lit { v } if v.is_null())
}

/// The one type of several expressions (CASE branches, COALESCE arguments), a literal NULL
/// among them aside; None when they differ or one has none.
fn common<'a>(env: &Env, exprs: impl Iterator<Item = &'a Expr>, scope: &Scope) -> Fixed {
    let mut out: Option<Fixed> = None;
    for e in exprs.filter(|e| !is_null_literal(e)) {
        let t = type_of(env, e, scope)?;
        match out {
            None => out = Some(Some(t)),
            Some(prev) if prev != Some(t) => return None,
            Some(_) => {}
        }
    }
    out.flatten()
}

fn type_of(env: &Env, e: &Expr, scope: &Scope) -> Fixed {
    match e {
        Expr::Lit { v } => match v {
            serde_json::Value::Bool(_) => BOOL,
            serde_json::Value::Number(_) => NUMBER,
            serde_json::Value::String(_) => STRING,
            _ => None,
        },
        Expr::Row => scope.objects.then_some("object"),
        Expr::Col { name } => scope.columns.iter().find(|(n, _)| n == name).and_then(|(_, t)| *t),
        Expr::Field { base, name } => match (&**base, &scope.classes) {
            (Expr::Row, Some(classes)) if scope.objects => field_type(env, classes, name),
            _ => None,
        },
        Expr::Attr { name, .. } => match name {
            Attr::ObjectId | Attr::ObjectAddress | Attr::UsedHeapSize | Attr::RetainedHeapSize | Attr::Length => NUMBER,
            Attr::DisplayName | Attr::Heap => STRING,
            Attr::SystemProperties | Attr::GcRoots | Attr::Inbounds | Attr::Outbounds => LIST,
            Attr::Clazz | Attr::ClassLoader => OBJECT,
        },
        Expr::Call { func, args } => match func {
            Func::Classof | Func::Dominatorof => OBJECT,
            Func::ToString => STRING,
            Func::Dominators | Func::Path => LIST,
            Func::Coalesce => common(env, args.iter(), scope),
            Func::Nullif => args.first().and_then(|a| type_of(env, a, scope)),
        },
        Expr::Bin { op, l, r } => match op {
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::And | BinOp::Or => BOOL,
            _ => match (type_of(env, l, scope), type_of(env, r, scope)) {
                // `+` with a text on either side joins texts (NULL when the other side has none).
                (STRING, _) | (_, STRING) if *op == BinOp::Add => STRING,
                (NUMBER, NUMBER) => NUMBER,
                _ => None,
            },
        },
        Expr::Not { .. } | Expr::Like { .. } | Expr::Instanceof { .. } | Expr::In { .. } => BOOL,
        Expr::Neg { e } => (type_of(env, e, scope) == NUMBER).then_some("number"),
        Expr::Case { whens, else_ } => common(env, whens.iter().map(|w| &w.then).chain(else_.as_deref()), scope),
        // A text's unit is a text; an array's or a list's element may be anything.
        Expr::Index { e, .. } => (type_of(env, e, scope) == STRING).then_some("string"),
        Expr::Slice { e, .. } => match type_of(env, e, scope) {
            t @ (STRING | LIST) => t,
            // An array object's slice is a list of its elements.
            OBJECT => LIST,
            _ => None,
        },
        Expr::Agg { i } => scope.aggs.get(*i).copied().flatten(),
        Expr::Key { i } => scope.keys.get(*i).copied().flatten(),
        Expr::Out { .. } => None,
    }
}
