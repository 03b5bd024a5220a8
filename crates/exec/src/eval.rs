//! Evaluation of compiled expressions against one row (or one group).

use std::sync::Arc;

use heapql_heap::{ObjIdx, ObjectKind, Value as HeapValue};

use crate::compile::{unknown_field_error, CExpr};
use crate::env::Env;
use crate::error::ExecError;
use crate::plan::{Attr, BinOp};
use crate::value::{arith, float_value, negate, values_compare, values_equal, Key, Value};

/// What a row exposes to expressions. Unused parts are empty slices.
#[derive(Clone, Copy, Default)]
pub(crate) struct Ctx<'r> {
    /// The row object (for grouped rows: the group's first row).
    pub obj: Option<ObjIdx>,
    /// Cells of a value-row source.
    pub cols: &'r [Value],
    pub keys: &'r [Value],
    pub aggs: &'r [Value],
    pub out: &'r [Value],
}

impl<'r> Ctx<'r> {
    pub fn object(o: ObjIdx) -> Ctx<'static> {
        Ctx { obj: Some(o), ..Ctx::default() }
    }
}

/// A decoded heap value as a row value. References resolve to dense indices; a reference to
/// an id that is not in the dump (dangling) reads as NULL. A char becomes a one-character string
/// (a lone surrogate stays that unit: `Value::Utf16`); a float reads as its shortest decimal
/// (`float_value`).
pub(crate) fn from_heap(env: &Env, v: HeapValue) -> Value {
    match v {
        HeapValue::Null => Value::Null,
        HeapValue::Object(0) => Value::Null,
        HeapValue::Object(id) => env.heap.index_of(id).map(Value::Obj).unwrap_or(Value::Null),
        HeapValue::Boolean(b) => Value::Bool(b),
        HeapValue::Char(c) => match char::from_u32(c as u32) {
            Some(ch) => Value::Str(Arc::from(ch.encode_utf8(&mut [0; 4]) as &str)),
            None => Value::Utf16(Arc::from([c].as_slice())),
        },
        HeapValue::Byte(b) => Value::Int(b as i64),
        HeapValue::Short(s) => Value::Int(s as i64),
        HeapValue::Int(i) => Value::Int(i as i64),
        HeapValue::Long(l) => Value::Int(l),
        HeapValue::Float(f) => Value::Float(float_value(f)),
        HeapValue::Double(d) => Value::Float(d),
    }
}

/// Text of a java.lang.String object, an unpaired surrogate read as U+FFFD (LIKE); None for
/// any other object.
pub(crate) fn object_text(env: &Env, o: ObjIdx) -> Option<String> {
    env.heap.string_value(o)
}

/// Text of a java.lang.String object as a value with its exact UTF-16 content (`Str`, or
/// `Utf16` when it holds an unpaired surrogate); None for any other object.
pub(crate) fn object_text_value(env: &Env, o: ObjIdx) -> Option<Value> {
    env.heap.string_text(o).map(Value::text)
}

/// `@displayName`: the class name for an instance (specification), the class name with the
/// length for an array (`char[10]`), the described class's name for a class object (so
/// `classof(x).getName()`, which the planner maps here, is the bare class name).
pub(crate) fn display_name(env: &Env, o: ObjIdx) -> String {
    let heap = env.heap;
    match heap.object_kind(o) {
        ObjectKind::Class => match heap.class_described_by(o) {
            Some(c) => heap.class(c).name.clone(),
            None => heap.class(heap.class_of(o)).name.clone(),
        },
        ObjectKind::ObjectArray | ObjectKind::PrimitiveArray(_) => {
            let name = &heap.class(heap.class_of(o)).name;
            let len = heap.array_length(o).unwrap_or(0);
            match name.find("[]") {
                Some(i) => format!("{}[{len}]{}", &name[..i], &name[i + 2..]),
                None => format!("{name}[{len}]"),
            }
        }
        ObjectKind::Instance => heap.class(heap.class_of(o)).name.clone(),
    }
}

fn objects(v: Vec<ObjIdx>) -> Value {
    Value::List(v.into_iter().map(Value::Obj).collect())
}

/// Text of a value for LIKE: strings, string objects, numbers, booleans; an unpaired surrogate
/// reads as U+FFFD (the regex engine matches valid text only).
fn like_text(env: &Env, v: &Value) -> Option<String> {
    match v {
        Value::Obj(o) => object_text(env, *o),
        other => other.plain_text(),
    }
}

/// Text of a value for concatenation, exact: a string value as it is, a string object's text,
/// the text of a number or a boolean.
fn text_value(env: &Env, v: &Value) -> Option<Value> {
    match v {
        Value::Obj(o) => object_text_value(env, *o),
        Value::Str(_) | Value::Utf16(_) => Some(v.clone()),
        other => other.plain_text().map(|s| Value::Str(s.into())),
    }
}

/// `a + b` of two texts: UTF-16 units joined, so that two halves of a pair make the character
/// again and a lone surrogate stays one.
fn concat(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => {
            let mut s = String::with_capacity(x.len() + y.len());
            s.push_str(x);
            s.push_str(y);
            Value::Str(s.into())
        }
        _ => {
            let mut units: Vec<u16> = Vec::new();
            for v in [a, b] {
                match v {
                    Value::Str(s) => units.extend(s.encode_utf16()),
                    Value::Utf16(u) => units.extend_from_slice(u),
                    _ => {}
                }
            }
            Value::text_of_units(&units)
        }
    }
}

/// A string value or a java.lang.String object: the operands that make `+` a concatenation.
#[inline]
fn is_text(env: &Env, v: &Value) -> bool {
    match v {
        Value::Str(_) | Value::Utf16(_) => true,
        Value::Obj(o) => env.is_string_class(env.heap.class_of(*o)),
        _ => false,
    }
}

/// An object compared with a string compares its string text (NULL for non-strings); compared
/// with a number, its address (`x = 0x7f00…`, `x > @objectAddress`).
fn coerce(env: &Env, a: Value, b: Value) -> (Value, Value) {
    match (&a, &b) {
        (Value::Obj(o), other) | (other, Value::Obj(o)) if !matches!(other, Value::Obj(_)) => {
            let o = *o;
            let as_other = match other {
                Value::Str(_) | Value::Utf16(_) => object_text_value(env, o).unwrap_or(Value::Null),
                Value::Int(_) | Value::Float(_) => address(env, o),
                _ => return (a, b),
            };
            if matches!(a, Value::Obj(_)) {
                (as_other, b)
            } else {
                (a, as_other)
            }
        }
        _ => (a, b),
    }
}

/// `@objectAddress` of an object: its id in the dump.
fn address(env: &Env, o: ObjIdx) -> Value {
    Value::Int(env.heap.object_id(o) as i64)
}

/// The object at an address (an integral number), if the dump has one there.
fn object_at(env: &Env, v: &Value) -> Option<ObjIdx> {
    let a = match v {
        Value::Int(i) => u64::try_from(*i).ok()?,
        Value::Float(f) if *f >= 0.0 && *f == f.trunc() && *f < u64::MAX as f64 => *f as u64,
        _ => return None,
    };
    env.heap.index_of(a)
}

fn as_index(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Float(f) if *f == f.trunc() => Some(*f as i64),
        _ => None,
    }
}

/// Result of evaluating an expression (see `From<Box<ExecError>> for ExecError`).
pub(crate) type EvalResult<T = Value> = Result<T, Box<ExecError>>;

impl CExpr {
    pub(crate) fn eval(&self, env: &Env, cx: &Ctx) -> EvalResult {
        let heap = env.heap;
        Ok(match self {
            CExpr::Lit(v) => v.clone(),
            CExpr::Row => match cx.obj {
                Some(o) => Value::Obj(o),
                None if cx.cols.len() == 1 => cx.cols[0].clone(),
                None if cx.cols.is_empty() => Value::Null,
                None => Value::List(cx.cols.iter().cloned().collect()),
            },
            CExpr::Col(i) => cx.cols.get(*i).cloned().unwrap_or(Value::Null),
            CExpr::Field { base, name, probe } => {
                let b = base.eval(env, cx)?;
                match probe {
                    None => read_field(env, b, name)?.unwrap_or(Value::Null),
                    Some(p) => match read_field(env, b, name)? {
                        Found::Value(v) => {
                            p.hit();
                            v
                        }
                        Found::Missing => {
                            p.miss();
                            Value::Null
                        }
                        Found::NoObject => Value::Null,
                    },
                }
            }
            CExpr::Attr { base, attr } => {
                let b = base.eval(env, cx)?;
                attribute(env, b, *attr)?
            }
            CExpr::Classof(e) => match e.eval(env, cx)? {
                Value::Obj(o) => Value::Obj(heap.class(heap.class_of(o)).object),
                _ => Value::Null,
            },
            CExpr::ToString(e) => match e.eval(env, cx)? {
                Value::Obj(o) => object_text_value(env, o).unwrap_or(Value::Null),
                s @ (Value::Str(_) | Value::Utf16(_)) => s,
                other => other.plain_text().map(|s| Value::Str(s.into())).unwrap_or(Value::Null),
            },
            CExpr::Coalesce(args) => {
                for a in args {
                    let v = a.eval(env, cx)?;
                    if !v.is_null() {
                        return Ok(v);
                    }
                }
                Value::Null
            }
            CExpr::Nullif(a, b) => {
                let va = a.eval(env, cx)?;
                let vb = b.eval(env, cx)?;
                let (ca, cb) = coerce(env, va.clone(), vb);
                if !ca.is_null() && values_equal(&ca, &cb) {
                    Value::Null
                } else {
                    va
                }
            }
            CExpr::Dominators(e) => match e.eval(env, cx)? {
                Value::Obj(o) => env.graph("dominators(x)")?.dominated(o).map_or(Value::Null, objects),
                _ => Value::Null,
            },
            CExpr::Dominatorof(e) => match e.eval(env, cx)? {
                Value::Obj(o) => env.graph("dominatorof(x)")?.immediate_dominator(o).map(Value::Obj).unwrap_or(Value::Null),
                _ => Value::Null,
            },
            CExpr::Path(a, b) => match (a.eval(env, cx)?, b.eval(env, cx)?) {
                (Value::Obj(x), Value::Obj(y)) => env.graph("path(a, b)")?.path(x, y).map(objects).unwrap_or(Value::Null),
                _ => Value::Null,
            },
            CExpr::Bin { op, l, r } => binary(env, *op, l, r, cx)?,
            CExpr::AttrCmp { attr, op, lit, general } => match cx.obj {
                // As `binary` answers: a NULL attribute (outside the dominator tree, not an
                // array) makes every comparison with a number false, `!=` too.
                Some(o) => Value::Bool(int_attribute(env, o, *attr)?.is_some_and(|v| match op {
                    BinOp::Lt => v < *lit,
                    BinOp::Le => v <= *lit,
                    BinOp::Gt => v > *lit,
                    BinOp::Ge => v >= *lit,
                    BinOp::Eq => v == *lit,
                    _ => v != *lit,
                })),
                None => general.eval(env, cx)?,
            },
            CExpr::Not(e) => match e.eval(env, cx)? {
                Value::Null => Value::Null,
                v => Value::Bool(!v.truthy()),
            },
            CExpr::Neg(e) => negate(&e.eval(env, cx)?),
            CExpr::Like { e, re, negate } => match like_text(env, &e.eval(env, cx)?) {
                Some(t) => Value::Bool(re.is_match(&t) != *negate),
                None => Value::Bool(false),
            },
            CExpr::Instanceof { e, by_class } => match e.eval(env, cx)? {
                Value::Obj(o) => Value::Bool(by_class[heap.class_of(o) as usize]),
                _ => Value::Bool(false),
            },
            // The left side meets the subquery's column the way `=` does: an object matches
            // itself, its address or (for a string) its text; an address matches its object.
            CExpr::InObjects { e, bits } => {
                let v = e.eval(env, cx)?;
                match if let Value::Obj(o) = v { Some(o) } else { object_at(env, &v) } {
                    Some(o) => Value::Bool(bits.get(o as usize / 64).is_some_and(|w| w >> (o % 64) & 1 == 1)),
                    None => Value::Bool(false),
                }
            }
            CExpr::InValues { e, set, by_address, by_text } => match e.eval(env, cx)? {
                Value::Null => Value::Bool(false),
                Value::Obj(o) => Value::Bool(
                    set.contains(&Key(Value::Obj(o)))
                        || (*by_address && set.contains(&Key(address(env, o))))
                        || (*by_text && object_text_value(env, o).is_some_and(|t| set.contains(&Key(t)))),
                ),
                v => Value::Bool(set.contains(&Key(v))),
            },
            CExpr::Case { whens, else_ } => {
                for (w, t) in whens {
                    if w.eval(env, cx)?.truthy() {
                        return t.eval(env, cx);
                    }
                }
                match else_ {
                    Some(e) => e.eval(env, cx)?,
                    None => Value::Null,
                }
            }
            CExpr::Index { e, i } => {
                let base = e.eval(env, cx)?;
                let i = i.eval(env, cx)?;
                index(env, &base, &i)
            }
            CExpr::Slice { e, from, to } => {
                let base = e.eval(env, cx)?;
                let from = from.eval(env, cx)?;
                let to = to.eval(env, cx)?;
                slice(env, &base, &from, &to)
            }
            CExpr::Agg(i) => cx.aggs.get(*i).cloned().unwrap_or(Value::Null),
            CExpr::Key(i) => cx.keys.get(*i).cloned().unwrap_or(Value::Null),
            CExpr::Out(i) => cx.out.get(*i).cloned().unwrap_or(Value::Null),
        })
    }

    /// Filter/HAVING truth value.
    #[inline]
    pub(crate) fn test(&self, env: &Env, cx: &Ctx) -> EvalResult<bool> {
        Ok(self.eval(env, cx)?.truthy())
    }
}

fn is_null_literal(e: &CExpr) -> bool {
    matches!(e, CExpr::Lit(Value::Null))
}

#[inline]
fn binary(env: &Env, op: BinOp, l: &CExpr, r: &CExpr, cx: &Ctx) -> EvalResult {
    use BinOp::*;
    match op {
        And => return Ok(Value::Bool(l.eval(env, cx)?.truthy() && r.eval(env, cx)?.truthy())),
        Or => return Ok(Value::Bool(l.eval(env, cx)?.truthy() || r.eval(env, cx)?.truthy())),
        _ => {}
    }
    let a = l.eval(env, cx)?;
    let b = r.eval(env, cx)?;
    Ok(match op {
        Eq => {
            let (a, b) = coerce(env, a, b);
            Value::Bool(values_equal(&a, &b))
        }
        Ne => {
            // `x != null` is "x is not null"; otherwise a comparison with NULL is false.
            if a.is_null() || b.is_null() {
                let literal_null_side = (a.is_null() && is_null_literal(l)) || (b.is_null() && is_null_literal(r));
                Value::Bool(a.is_null() != b.is_null() && literal_null_side)
            } else {
                let (a, b) = coerce(env, a, b);
                Value::Bool(!a.is_null() && !b.is_null() && !values_equal(&a, &b))
            }
        }
        Lt | Le | Gt | Ge => {
            // Two objects are ordered by their addresses, as ORDER BY and MIN/MAX order them.
            let (a, b) = match (&a, &b) {
                (Value::Obj(x), Value::Obj(y)) => (address(env, *x), address(env, *y)),
                _ => coerce(env, a, b),
            };
            Value::Bool(match values_compare(&a, &b) {
                None => false,
                Some(o) => match op {
                    Lt => o.is_lt(),
                    Le => o.is_le(),
                    Gt => o.is_gt(),
                    _ => o.is_ge(),
                },
            })
        }
        // Java: `+` with a String on either side concatenates, the other side as its text
        // (a number, a boolean, another String). A String object counts as a String, as a
        // string value does. NULL, and an object that is no String (whose toString() a dump
        // cannot run; `toString(x)` is NULL too), give NULL.
        Add if is_text(env, &a) || is_text(env, &b) => match (text_value(env, &a), text_value(env, &b)) {
            (Some(x), Some(y)) => concat(&x, &y),
            _ => Value::Null,
        },
        _ => arith(op, &a, &b),
    })
}

/// What a field read found: the value, an object without such a field, or no object to read.
pub(crate) enum Found {
    Value(Value),
    Missing,
    NoObject,
}

impl Found {
    #[inline]
    fn unwrap_or(self, default: Value) -> Value {
        match self {
            Found::Value(v) => v,
            _ => default,
        }
    }
}

#[inline]
fn read_field(env: &Env, base: Value, name: &str) -> EvalResult<Found> {
    let Value::Obj(o) = base else { return Ok(Found::NoObject) };
    let heap = env.heap;
    match heap.object_kind(o) {
        ObjectKind::Instance => match heap.field(o, name) {
            Some(v) => Ok(Found::Value(from_heap(env, v))),
            // Rule 12 past the row (`x.name.count`): a string without the field is an error, as
            // on the row; other classes without it read NULL.
            None if (name == "count" || name == "offset") && env.is_string_class(heap.class_of(o)) => {
                Err(Box::new(unknown_field_error(env, heap.class_of(o), name, 1)))
            }
            None => Ok(Found::Missing),
        },
        // Statics of the described class, then of its superclasses.
        ObjectKind::Class => match heap.class_described_by(o).and_then(|c| env.statics_with_supers(c).find(|s| s.name == name)) {
            Some(s) => Ok(Found::Value(from_heap(env, s.value))),
            None => Ok(Found::Missing),
        },
        // Arrays have no fields.
        _ => Ok(Found::Missing),
    }
}

#[inline]
/// A numeric attribute of object `o` (`@objectId`, `@objectAddress`, `@usedHeapSize`,
/// `@retainedHeapSize`, `@length`); None where it is NULL. Any other attribute is a bug.
fn int_attribute(env: &Env, o: ObjIdx, attr: Attr) -> EvalResult<Option<i64>> {
    let heap = env.heap;
    Ok(match attr {
        Attr::ObjectId => Some(o as i64),
        Attr::ObjectAddress => Some(heap.object_id(o) as i64),
        Attr::UsedHeapSize => Some(heap.shallow_size(o) as i64),
        // NULL outside the dominator tree (`GraphView::retained_size`).
        Attr::RetainedHeapSize => env.graph("@retainedHeapSize")?.retained_size(o).map(|r| r as i64),
        // Arrays: their length. Strings: the length of the text in UTF-16 units (`s.length()`
        // is planned as `@length`), also of a String whose contents are not in the dump
        // (Android NODATA): the length its fields state. Anything else: NULL.
        Attr::Length => heap.array_length(o).map(u64::from).or_else(|| heap.string_length(o)).map(|l| l as i64),
        other => unreachable!("{other:?} is not a numeric attribute"),
    })
}

fn attribute(env: &Env, base: Value, attr: Attr) -> EvalResult {
    if attr == Attr::SystemProperties {
        return Ok(env.system_properties());
    }
    // A string value (`toString(s).@length`, `toString(s).length()`) has the length of the
    // string object it came from: UTF-16 units.
    match (&base, attr) {
        (Value::Str(t), Attr::Length) => return Ok(Value::Int(t.encode_utf16().count() as i64)),
        (Value::Utf16(u), Attr::Length) => return Ok(Value::Int(u.len() as i64)),
        _ => {}
    }
    let Value::Obj(o) = base else { return Ok(Value::Null) };
    let heap = env.heap;
    Ok(match attr {
        Attr::ObjectId | Attr::ObjectAddress | Attr::UsedHeapSize | Attr::RetainedHeapSize | Attr::Length => {
            int_attribute(env, o, attr)?.map_or(Value::Null, Value::Int)
        }
        Attr::DisplayName => Value::Str(display_name(env, o).into()),
        Attr::SystemProperties => unreachable!(),
        Attr::GcRoots => {
            let kinds = env.root_kinds(o);
            if kinds.is_empty() {
                Value::Null
            } else {
                Value::List(kinds.iter().map(|(_, k)| Value::str(k.label())).collect())
            }
        }
        Attr::Inbounds => objects(env.graph("@inbounds")?.inbounds(o)),
        Attr::Outbounds => match env.graph {
            Some(g) => objects(g.outbounds(o)),
            None => objects(heap_outbounds(env, o)),
        },
        Attr::Clazz => Value::Obj(heap.class(heap.class_of(o)).object),
        // The heap's shared name: no allocation per object.
        Attr::Heap => heap.heap_of(o).map_or(Value::Null, |k| Value::Str(heap.heap_names()[k as usize].clone())),
    })
}

/// Outbound references read from the heap alone: the class object first, then every
/// referenced object once, in field order (a set, not a scan of `out`: an array of a million
/// elements must not cost a million squared).
fn heap_outbounds(env: &Env, o: ObjIdx) -> Vec<ObjIdx> {
    let heap = env.heap;
    let mut out = vec![heap.class(heap.class_of(o)).object];
    let mut seen: rustc_hash::FxHashSet<ObjIdx> = out.iter().copied().collect();
    heap.for_each_reference(o, |id, _| {
        if let Some(t) = heap.index_of(id) {
            if seen.insert(t) {
                out.push(t);
            }
        }
    });
    out
}

fn index(env: &Env, base: &Value, i: &Value) -> Value {
    let Some(i) = as_index(i) else { return Value::Null };
    if i < 0 {
        return Value::Null;
    }
    match base {
        Value::Obj(o) => {
            let heap = env.heap;
            match heap.array_length(*o) {
                Some(len) if (i as u64) < len as u64 => {
                    heap.array_element(*o, i as u32).map(|v| from_heap(env, v)).unwrap_or(Value::Null)
                }
                _ => Value::Null,
            }
        }
        Value::List(items) => items.get(i as usize).cloned().unwrap_or(Value::Null),
        // Strings are indexed and sliced in UTF-16 units, like Java's `charAt` and `substring`
        // and like `@length`; a surrogate half cut from its pair is that unit (`Value::Utf16`).
        Value::Str(s) => s.encode_utf16().nth(i as usize).map(|u| Value::text_of_units(&[u])).unwrap_or(Value::Null),
        Value::Utf16(u) => u.get(i as usize).map(|&u| Value::text_of_units(&[u])).unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

/// `[from:to)` with `to` excluded; NULL bounds mean the start/end, negative bounds count from
/// the end, then both are clamped to the length.
fn bounds(len: usize, from: &Value, to: &Value) -> Option<(usize, usize)> {
    let resolve = |v: &Value, default: usize| -> Option<usize> {
        match v {
            Value::Null => Some(default),
            v => {
                let i = as_index(v)?;
                let i = if i < 0 { len as i64 + i } else { i };
                Some(i.clamp(0, len as i64) as usize)
            }
        }
    };
    let a = resolve(from, 0)?;
    let b = resolve(to, len)?;
    Some((a, b.max(a)))
}

fn slice(env: &Env, base: &Value, from: &Value, to: &Value) -> Value {
    match base {
        Value::Obj(o) => {
            let heap = env.heap;
            let Some(len) = heap.array_length(*o) else { return Value::Null };
            let Some((a, b)) = bounds(len as usize, from, to) else { return Value::Null };
            Value::List(
                (a..b)
                    .map(|i| heap.array_element(*o, i as u32).map(|v| from_heap(env, v)).unwrap_or(Value::Null))
                    .collect(),
            )
        }
        Value::List(items) => match bounds(items.len(), from, to) {
            Some((a, b)) => Value::List(items[a..b].iter().cloned().collect()),
            None => Value::Null,
        },
        Value::Str(s) => {
            let units: Vec<u16> = s.encode_utf16().collect();
            match bounds(units.len(), from, to) {
                Some((a, b)) => Value::text_of_units(&units[a..b]),
                None => Value::Null,
            }
        }
        Value::Utf16(units) => match bounds(units.len(), from, to) {
            Some((a, b)) => Value::text_of_units(&units[a..b]),
            None => Value::Null,
        },
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_bounds() {
        assert_eq!(bounds(6, &Value::Int(1), &Value::Int(3)), Some((1, 3)));
        assert_eq!(bounds(6, &Value::Null, &Value::Int(-1)), Some((0, 5)));
        assert_eq!(bounds(6, &Value::Int(4), &Value::Int(100)), Some((4, 6)));
        assert_eq!(bounds(6, &Value::Int(5), &Value::Int(2)), Some((5, 5)));
        assert_eq!(bounds(6, &Value::str("x"), &Value::Int(2)), None);
    }
}
