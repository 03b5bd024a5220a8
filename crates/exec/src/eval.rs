//! Evaluation of compiled expressions against one row (or one group).
//!
//! Two levels. `CExpr::scalar` is what runs: each node hands its parent a `Scalar` (a kind and
//! 64 bits, in registers), so a filter over millions of objects builds no `Value`, reads each
//! field through its place in the row's class (`FieldSlots`, found once per class) and the
//! row's class once. Whatever is no scalar (a text, a list) goes into a slot the caller hands
//! over, and every case a scalar path does not take itself falls back on the node's general
//! code (`CExpr::general`), which holds the semantics (the evaluator as it was before the
//! scalar paths). `eval_reference` runs the general code alone; `eval_exactness.rs` checks the
//! two against each other object for object on real dumps.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::sync::Arc;

use heapql_heap::{ClassIdx, ClassMemo, ObjIdx, ObjectKind, StringUnits, Units, Value as HeapValue};

use crate::compile::{unknown_field_error, CExpr, FieldSlots};
use crate::env::Env;
use crate::error::ExecError;
use crate::source::LikePattern;
use crate::plan::{Attr, BinOp};
use crate::value::{
    arith, float_value, negate, scalars_arith, scalars_compare, scalars_equal, values_compare, values_equal, Key, Kind, Scalar, Value,
};

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

/// Text of a value for LIKE: a string value or a String object's text; an unpaired surrogate
/// reads as U+FFFD (the regex engine matches valid text only). None for anything else: a
/// number or a boolean has no text to match, as it equals no text (`p.x = "1"` is false for an
/// int 1, and so is `p.x LIKE "1"`); `toString(p.x)` is its text, for both.
fn like_text(env: &Env, v: &Value) -> Option<String> {
    match v {
        Value::Obj(o) => object_text(env, *o),
        Value::Str(_) | Value::Utf16(_) => v.plain_text(),
        _ => None,
    }
}

/// Whether `v` matches a LIKE pattern: its text does (`like_text`); a list (`@GCRoots`,
/// `@outbounds`, a slice) stands for its elements, as in `IN`: it matches when one of them does
/// (an empty list when none). None where there is no text to match (NULL, an object that is not
/// a String): neither LIKE nor NOT LIKE holds.
fn like_match(env: &Env, v: &Value, re: &LikePattern) -> Option<bool> {
    match v {
        Value::List(items) => Some(items.iter().any(|x| like_one(env, x, re).unwrap_or(false))),
        Value::Obj(o) => like_object(env, *o, re),
        other => like_text(env, other).map(|t| re.is_match(&t)),
    }
}

/// LIKE on one value (not a list).
fn like_one(env: &Env, v: &Value, re: &LikePattern) -> Option<bool> {
    match v {
        Value::Obj(o) => like_object(env, *o, re),
        other => like_text(env, other).map(|t| re.is_match(&t)),
    }
}

/// LIKE on an object: on a String's text, read only when its length lets the pattern match
/// (`LikePattern::may_match_units`: `s LIKE "ab."` reads no String longer than 3 characters);
/// None for any other object.
fn like_object(env: &Env, o: ObjIdx, re: &LikePattern) -> Option<bool> {
    let t = env.heap.string_units(o)?;
    if !re.may_match_units(t.len()) {
        return Some(false);
    }
    // A long String is matched as it is read (`LikePattern::match_chars`), an unpaired
    // surrogate read as U+FFFD as in `object_text`: no more of it than decides the match, and
    // never its whole text in memory.
    if t.len() > LIKE_STREAM_UNITS {
        let chars = char::decode_utf16(t.units()).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER));
        if let Some(m) = re.match_chars(chars) {
            return Some(m);
        }
    }
    // The text of `object_text`, from the String already found.
    let text = t.text().unwrap_or_else(|units| String::from_utf16_lossy(&units));
    Some(re.is_match(&text))
}

/// Strings longer than this (UTF-16 units) are matched by LIKE as they are read.
const LIKE_STREAM_UNITS: usize = 1 << 16;

/// A text as a comparison reads it: a String object's, from the dump as far as needed, or a
/// text value's.
#[derive(Clone, Copy)]
enum TextRef<'a> {
    Heap(StringUnits<'a>),
    Str(&'a str),
    Units(&'a [u16]),
}

/// The UTF-16 units of a `TextRef`.
enum TextIter<'a> {
    Heap(Units<'a>),
    Str(std::str::EncodeUtf16<'a>),
    Units(std::iter::Copied<std::slice::Iter<'a, u16>>),
}

impl Iterator for TextIter<'_> {
    type Item = u16;
    #[inline]
    fn next(&mut self) -> Option<u16> {
        match self {
            TextIter::Heap(u) => u.next(),
            TextIter::Str(u) => u.next(),
            TextIter::Units(u) => u.next(),
        }
    }
}

impl<'a> TextRef<'a> {
    /// The text of a value, when it is one.
    fn of_value(v: &'a Value) -> Option<TextRef<'a>> {
        match v {
            Value::Str(s) => Some(TextRef::Str(s)),
            Value::Utf16(u) => Some(TextRef::Units(u)),
            _ => None,
        }
    }
    fn units(self) -> TextIter<'a> {
        match self {
            TextRef::Heap(t) => TextIter::Heap(t.units()),
            TextRef::Str(s) => TextIter::Str(s.encode_utf16()),
            TextRef::Units(u) => TextIter::Units(u.iter().copied()),
        }
    }
    /// Whether its length in UTF-16 units is `n`, without reading a String from the dump.
    fn has_len(self, n: usize) -> bool {
        match self {
            TextRef::Heap(t) => t.len() == n,
            // From 1 to 3 UTF-8 bytes a unit: most lengths are told apart from the byte count.
            TextRef::Str(s) => s.len() >= n && s.len() <= n.saturating_mul(3) && s.encode_utf16().count() == n,
            TextRef::Units(u) => u.len() == n,
        }
    }
    fn len(self) -> usize {
        match self {
            TextRef::Heap(t) => t.len(),
            TextRef::Str(s) => s.encode_utf16().count(),
            TextRef::Units(u) => u.len(),
        }
    }
}

/// A comparison (`=`, `!=`, `<`, ...) of two texts, exactly as `binary_values` compares their
/// values (`=` on the exact UTF-16 content, order by UTF-16 unit: `value::text_cmp`), reading
/// only what decides it: `=` and `!=` compare the lengths first (a String of another length
/// is not read), an order reads up to the first unit that differs.
fn compare_texts(op: BinOp, a: TextRef, b: TextRef) -> bool {
    let heap_side = matches!(a, TextRef::Heap(_));
    let equal = || {
        let (known, other) = if heap_side { (a, b) } else { (b, a) };
        other.has_len(known.len()) && a.units().eq(b.units())
    };
    match op {
        BinOp::Eq => equal(),
        BinOp::Ne => !equal(),
        _ => order_holds(op, a.units().cmp(b.units())),
    }
}

/// A comparison of a String object's text with a text value, or with another String object's
/// text (`toString(a) = toString(b)`), read from the dump only as far as needed
/// (`compare_texts`); `text_side` tells which side is the value or the other object. False
/// when the object has no text (no String, or its contents are not in the dump), as the
/// comparison of NULL with a text is. None when `other` is neither a text nor an object.
fn compare_object_text(env: &Env, op: BinOp, o: ObjIdx, other: &Value, object_left: bool) -> Option<bool> {
    let other_text = match other {
        Value::Obj(p) => match env.heap.string_units(*p) {
            Some(t) => TextRef::Heap(t),
            None => return Some(false),
        },
        v => TextRef::of_value(v)?,
    };
    let Some(t) = env.heap.string_units(o) else { return Some(false) };
    let t = TextRef::Heap(t);
    Some(if object_left { compare_texts(op, t, other_text) } else { compare_texts(op, other_text, t) })
}

/// Whether a String object's text is the text `t` (a `Str` or a `Utf16`), as `=` has it:
/// the lengths first (a String of another length is not read), then the units up to the first
/// that differs. False for an object that is no String (or whose contents the dump lacks) and
/// for a value that is no text.
pub(crate) fn object_text_eq(env: &Env, o: ObjIdx, t: &Value) -> bool {
    compare_object_text(env, BinOp::Eq, o, t, true).unwrap_or(false) && t.is_text()
}

/// The length in UTF-16 units of a String object's text, from the dump (the text unread);
/// None for any other object.
pub(crate) fn object_text_len(env: &Env, o: ObjIdx) -> Option<usize> {
    env.heap.string_units(o).map(|t| t.len())
}

/// The UTF-16 units of a String object's text, as the dump holds them (read as they are
/// consumed); None for any other object.
pub(crate) fn object_text_units<'a>(env: &Env<'a>, o: ObjIdx) -> Option<impl Iterator<Item = u16> + 'a> {
    env.heap.string_units(o).map(|t| t.units())
}

fn is_comparison(op: BinOp) -> bool {
    matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
}

/// A comparison with `toString(e)` on a side (`toString(s) = "abc"`, `toString(a) < toString(b)`):
/// where `e` is a String object, its text is compared as the dump holds it (`compare_object_text`),
/// not made a value first: a long String is read only as far as needed, and makes no cell
/// (no ERR_TOO_LARGE). Other operands as `binary`. The same result as `binary`.
fn compare_to_string(env: &Env, op: BinOp, l: &CExpr, r: &CExpr, cx: &Ctx, route: Route) -> EvalResult {
    // Each side: (value, whether it is a String object standing for its text).
    let side = |e: &CExpr| -> EvalResult<(Value, bool)> {
        match e {
            CExpr::ToString(inner) => match inner.ev(route, env, cx)? {
                Value::Obj(o) if env.heap.string_units(o).is_some() => Ok((Value::Obj(o), true)),
                v => Ok((to_string_value(env, v)?, false)),
            },
            other => Ok((other.ev(route, env, cx)?, false)),
        }
    };
    let (a, a_text) = side(l)?;
    let (b, b_text) = side(r)?;
    if !a_text && !b_text {
        return binary_values(env, op, Cow::Owned(a), Cow::Owned(b), l, r);
    }
    let (o, other, object_left) = if a_text { (&a, &b, true) } else { (&b, &a, false) };
    let Value::Obj(o) = *o else { unreachable!("a text side is a String object") };
    // The other side a text, a String object standing for its text, or an object met with a
    // text (its text, as `coerce` does).
    if let Some(r) = compare_object_text(env, op, o, other, object_left) {
        return Ok(Value::Bool(r));
    }
    // Any other value (NULL, a number, a boolean, a list): the result does not depend on the
    // text, only on its being a text: an empty one stands for it, so no long text is read.
    let stand_in = Value::str("");
    if object_left {
        binary_values(env, op, Cow::Owned(stand_in), Cow::Borrowed(other), l, r)
    } else {
        binary_values(env, op, Cow::Borrowed(other), Cow::Owned(stand_in), l, r)
    }
}

/// `a + b` where a side is a text or a String object: the two texts joined (`concat`), NULL
/// when a side has none. The length of the result is worked out first, from the String's
/// length in the dump (its text unread) and the other side's: one longer than a result cell
/// can hold (`max_cell_units`) fails (ERR_TOO_LARGE) before anything is read or built, in an
/// output, a filter or an order key alike (no value that long can be made).
fn concatenation(env: &Env, a: &Value, b: &Value) -> EvalResult {
    let (Some(m), Some(n)) = (text_units_len(env, a), text_units_len(env, b)) else { return Ok(Value::Null) };
    let len = m.saturating_add(n);
    if len > env.max_cell_units as u64 {
        return Err(Box::new(crate::batch::text_too_long("a concatenation (`+`)", len, env.max_cell_units)));
    }
    Ok(match (text_value(env, a), text_value(env, b)) {
        (Some(x), Some(y)) => concat(&x, &y),
        _ => Value::Null,
    })
}

/// The length in UTF-16 units of the text `text_value` gives for `v`, without making it: a
/// String object's from the dump (its text unread); None where there is no text.
fn text_units_len(env: &Env, v: &Value) -> Option<u64> {
    let units = match v {
        Value::Obj(o) => object_text_len(env, *o),
        text if text.is_text() => text.utf16_len(),
        other => other.plain_text().map(|t| t.encode_utf16().count()),
    };
    units.map(|n| n as u64)
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
fn coerce<'v>(env: &Env, a: Cow<'v, Value>, b: Cow<'v, Value>) -> (Cow<'v, Value>, Cow<'v, Value>) {
    match (&*a, &*b) {
        (Value::Obj(o), other) | (other, Value::Obj(o)) if !matches!(other, Value::Obj(_)) => {
            let o = *o;
            let as_other = match other {
                Value::Str(_) | Value::Utf16(_) => object_text_value(env, o).unwrap_or(Value::Null),
                Value::Int(_) | Value::Float(_) => address(env, o),
                _ => return (a, b),
            };
            if matches!(*a, Value::Obj(_)) {
                (Cow::Owned(as_other), b)
            } else {
                (a, Cow::Owned(as_other))
            }
        }
        _ => (a, b),
    }
}

/// `@objectAddress` of an object: its id in the dump.
pub(crate) fn address(env: &Env, o: ObjIdx) -> Value {
    Value::Int(env.heap.object_id(o) as i64)
}

/// The object at an address (an integral number), if the dump has one there.
fn object_at(env: &Env, v: &Value) -> Option<ObjIdx> {
    let a = match v {
        // An address at or above 2^63 is a negative long (`@objectAddress`, a hex literal
        // 0x8000000000000000 and above): the same 64 bits.
        Value::Int(i) => *i as u64,
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

/// How the children of a node are evaluated by its general code (`CExpr::general`): as in
/// production (`eval`, which takes the scalar paths), or as the reference (`eval_reference`:
/// every node by its general code, the evaluator as it was before the scalar paths, kept to
/// check them against object for object).
#[derive(Clone, Copy)]
enum Route {
    Fast,
    #[cfg_attr(not(test), allow(dead_code))]
    Reference,
}

/// One evaluation of an expression by the scalar paths: the row, its class once known, and
/// the first error met. An error does not travel back as a `Result` (a result with a scalar in
/// it goes back through memory, a scalar alone in two registers): the node that meets it keeps
/// it here and answers NULL; the evaluation ends with it (`finish`), what was computed after
/// it unused.
struct Run<'r, 'a> {
    env: &'r Env<'a>,
    cx: &'r Ctx<'r>,
    /// `class_of` the row object, once asked (or given by the scan, which read it).
    row_class: Cell<Option<ClassIdx>>,
    /// The scan's memo of the classes met lately (`Heap::class_of_memo`), when it has one.
    memo: Option<&'r RefCell<ClassMemo>>,
    error: Cell<Option<Box<ExecError>>>,
}

impl<'r, 'a> Run<'r, 'a> {
    #[inline]
    fn new(env: &'r Env<'a>, cx: &'r Ctx<'r>, row: RowClass<'r>) -> Self {
        Run { env, cx, row_class: Cell::new(row.class), memo: row.memo, error: Cell::new(None) }
    }
    /// `Heap::class_of(o)`, read once per row for the row object (two fields of the row, or a
    /// field and its size, read the class of the same object), through the scan's memo when
    /// there is one.
    #[inline]
    fn class_of(&self, o: ObjIdx) -> ClassIdx {
        let row = self.cx.obj == Some(o);
        if row {
            if let Some(c) = self.row_class.get() {
                return c;
            }
        }
        let c = match self.memo {
            Some(m) => self.env.heap.class_of_memo(o, &mut m.borrow_mut()),
            None => self.env.heap.class_of(o),
        };
        if row {
            self.row_class.set(Some(c));
        }
        c
    }
    /// Keeps the first error.
    #[cold]
    fn fail(&self, e: Box<ExecError>) {
        let first = self.error.take().unwrap_or(e);
        self.error.set(Some(first));
    }
    /// `v`, or the error met on the way.
    #[inline]
    fn finish<T>(self, v: T) -> EvalResult<T> {
        match self.error.into_inner() {
            None => Ok(v),
            Some(e) => Err(e),
        }
    }
    /// The scalar of a node's general code (NULL on an error, kept).
    #[inline]
    fn boxed(&self, slot: &mut Value, v: EvalResult) -> Scalar {
        match v {
            Ok(v) => boxed(slot, v),
            Err(e) => {
                self.fail(e);
                Scalar::NULL
            }
        }
    }
    /// `child` for a side of a binary operator: a literal that is no scalar (a text) answers
    /// `Boxed` without being cloned into the slot (`operand_value` borrows it).
    #[inline(always)]
    fn operand(&self, e: &CExpr, slot: &mut Value) -> Scalar {
        match e {
            CExpr::Lit(v) => Scalar::of(v).unwrap_or(Scalar::BOXED),
            _ => self.child(e, slot),
        }
    }
    /// The scalar of child `e`, the row and a scalar literal without a call.
    #[inline(always)]
    fn child(&self, e: &CExpr, slot: &mut Value) -> Scalar {
        match (e, self.cx.obj) {
            (CExpr::Row, Some(o)) => Scalar::obj(o),
            (CExpr::Lit(v), _) => match Scalar::of(v) {
                Some(s) => s,
                None => e.scalar(self, slot),
            },
            _ => e.scalar(self, slot),
        }
    }
}

/// A side of a binary operator (`Run::operand`) as a value: a literal text borrowed from the
/// expression, anything else from its scalar and slot.
#[inline]
fn operand_value<'v>(e: &'v CExpr, s: Scalar, slot: Value) -> Cow<'v, Value> {
    match e {
        CExpr::Lit(v) if s.kind == Kind::Boxed => {
            drop(slot);
            Cow::Borrowed(v)
        }
        _ => Cow::Owned(s.into_value(slot)),
    }
}

/// What the scan knows of a row's object class: the class itself when it read it (a class
/// source), and its memo of the classes met lately, for the objects the filter reads.
#[derive(Clone, Copy, Default)]
pub(crate) struct RowClass<'m> {
    pub class: Option<ClassIdx>,
    pub memo: Option<&'m RefCell<ClassMemo>>,
}

/// `v` as the result of a node: a scalar, or `Boxed` with `v` in `slot`.
#[inline]
fn boxed(slot: &mut Value, v: Value) -> Scalar {
    match Scalar::of(&v) {
        Some(s) => s,
        None => {
            *slot = v;
            Scalar::BOXED
        }
    }
}

/// Ends a child's slot once its result `s` is used. A node writes its slot only when it
/// answers `Boxed`: after any other answer the slot still holds NULL, which owns nothing, so
/// it is forgotten rather than dropped (which would cost a call per node and row).
#[inline(always)]
fn release(slot: Value, s: Scalar) {
    if s.kind == Kind::Boxed {
        drop(slot)
    } else {
        debug_assert!(slot.is_null(), "a slot written without a Boxed answer");
        std::mem::forget(slot)
    }
}

impl CExpr {
    /// The value of the expression for one row (or group).
    pub(crate) fn eval(&self, env: &Env, cx: &Ctx) -> EvalResult {
        let run = Run::new(env, cx, RowClass::default());
        let mut slot = Value::Null;
        let s = self.scalar(&run, &mut slot);
        run.finish(s.into_value(slot))
    }

    /// Filter/HAVING truth value.
    #[inline]
    pub(crate) fn test(&self, env: &Env, cx: &Ctx) -> EvalResult<bool> {
        self.test_row(env, cx, RowClass::default())
    }

    /// `test` of a row in a scan, with what the scan knows of the row's class.
    #[inline]
    pub(crate) fn test_row(&self, env: &Env, cx: &Ctx, row: RowClass) -> EvalResult<bool> {
        let run = Run::new(env, cx, row);
        let t = self.truth(&run);
        run.finish(t)
    }

    /// The value by the reference route: every node by its general code.
    #[cfg(test)]
    pub(crate) fn eval_reference(&self, env: &Env, cx: &Ctx) -> EvalResult {
        self.general(Route::Reference, env, cx)
    }

    #[inline]
    fn ev(&self, route: Route, env: &Env, cx: &Ctx) -> EvalResult {
        match route {
            Route::Fast => self.eval(env, cx),
            #[cfg(test)]
            Route::Reference => self.eval_reference(env, cx),
            #[cfg(not(test))]
            Route::Reference => unreachable!("the reference route is for tests"),
        }
    }

    /// Truth value (`Value::truthy`) of the expression, AND and OR short-circuited.
    fn truth(&self, run: &Run) -> bool {
        match self {
            CExpr::Bin { op: BinOp::And, l, r } => l.truth(run) && r.truth(run),
            CExpr::Bin { op: BinOp::Or, l, r } => l.truth(run) || r.truth(run),
            _ => {
                let mut slot = Value::Null;
                let s = self.scalar(run, &mut slot);
                let t = s.truthy(&slot);
                release(slot, s);
                t
            }
        }
    }

    /// The value of the expression as a scalar, built without a `Value` where the nodes allow
    /// (field reads through the per-class slots, numeric attributes, comparisons, logic,
    /// arithmetic, INSTANCEOF, IN over objects, CASE, COALESCE); any other value goes into
    /// `slot` (`Kind::Boxed`). Exactly what `general` gives, as a scalar: the semantics of
    /// each node live in its general code, which a scalar path falls back on for any case it
    /// does not take itself (a text, a list, an object met with a text).
    fn scalar(&self, run: &Run, slot: &mut Value) -> Scalar {
        let (env, cx) = (run.env, run.cx);
        let heap = env.heap;
        match self {
            CExpr::Lit(v) => match Scalar::of(v) {
                Some(s) => s,
                None => {
                    *slot = v.clone();
                    Scalar::BOXED
                }
            },
            CExpr::Row => match cx.obj {
                Some(o) => Scalar::obj(o),
                None => run.boxed(slot, self.general(Route::Fast, env, cx)),
            },
            CExpr::Field { base, name, probe, slots } => {
                let mut base_slot = Value::Null;
                let b = run.child(base, &mut base_slot);
                release(base_slot, b);
                // A `Boxed` base is a text or a list: no object to read (as `read_field`).
                let Some(o) = b.as_obj() else { return Scalar::NULL };
                match read_field_scalar(run, o, name, slots) {
                    Ok(Some(v)) => {
                        if let Some(p) = probe {
                            p.hit();
                        }
                        v
                    }
                    Ok(None) => {
                        if let Some(p) = probe {
                            p.miss();
                        }
                        Scalar::NULL
                    }
                    Err(e) => {
                        run.fail(e);
                        Scalar::NULL
                    }
                }
            }
            CExpr::Attr { base, attr: attr @ (Attr::ObjectId | Attr::ObjectAddress | Attr::UsedHeapSize | Attr::RetainedHeapSize | Attr::Length) } => {
                let mut base_slot = Value::Null;
                let b = run.child(base, &mut base_slot);
                let v = match b.kind {
                    Kind::Obj => match scalar_attribute(run, b.i() as u32, *attr) {
                        Ok(v) => v,
                        Err(e) => {
                            run.fail(e);
                            Scalar::NULL
                        }
                    },
                    // A string value's length in UTF-16 units, a list's element count (`attribute`).
                    Kind::Char if *attr == Attr::Length => Scalar::int(1),
                    Kind::Boxed => match (&base_slot, attr) {
                        (Value::Str(t), Attr::Length) => Scalar::int(t.encode_utf16().count() as i64),
                        (Value::Utf16(u), Attr::Length) => Scalar::int(u.len() as i64),
                        (Value::List(items), Attr::Length) => Scalar::int(items.len() as i64),
                        _ => Scalar::NULL,
                    },
                    _ => Scalar::NULL,
                };
                release(base_slot, b);
                v
            }
            CExpr::Attr { base, attr: Attr::Clazz } | CExpr::Classof(base) => {
                let mut base_slot = Value::Null;
                let b = run.child(base, &mut base_slot);
                release(base_slot, b);
                match b.as_obj() {
                    Some(o) => Scalar::obj(heap.class(run.class_of(o)).object),
                    None => Scalar::NULL,
                }
            }
            // No boxed value per row: GROUP BY c.@classLoader keys on the object alone.
            CExpr::Attr { base, attr: Attr::ClassLoader } => {
                let mut base_slot = Value::Null;
                let b = run.child(base, &mut base_slot);
                release(base_slot, b);
                b.as_obj().and_then(|o| class_loader(heap, o)).map_or(Scalar::NULL, Scalar::obj)
            }
            CExpr::Coalesce(args) => {
                for a in args {
                    let v = a.scalar(run, slot);
                    if !v.is_null() {
                        return v;
                    }
                }
                Scalar::NULL
            }
            CExpr::Bin { op: BinOp::And | BinOp::Or, .. } => Scalar::bool(self.truth(run)),
            // `e IS NULL` (`e = NULL`) and `e IS NOT NULL` (`e != NULL`), either side: whether
            // `e` is NULL, as `binary_values` answers (`NULL = NULL` is true, `NULL != NULL`
            // false; a text or a list is not NULL).
            CExpr::Bin { op: op @ (BinOp::Eq | BinOp::Ne), l, r } if is_null_literal(r) || is_null_literal(l) => {
                let e = if is_null_literal(r) { l } else { r };
                let mut e_slot = Value::Null;
                let v = run.child(e, &mut e_slot);
                release(e_slot, v);
                Scalar::bool(v.is_null() == (*op == BinOp::Eq))
            }
            // A comparison with `toString(e)`: `compare_to_string` (which reads a String's text
            // only as far as it needs).
            CExpr::Bin { op, l, r } if is_comparison(*op) && (matches!(**l, CExpr::ToString(_)) || matches!(**r, CExpr::ToString(_))) => {
                run.boxed(slot, compare_to_string(env, *op, l, r, cx, Route::Fast))
            }
            CExpr::Bin { op, l, r } => {
                let (mut l_slot, mut r_slot) = (Value::Null, Value::Null);
                let a = run.operand(l, &mut l_slot);
                let b = run.operand(r, &mut r_slot);
                match binary_scalars(run, *op, a, b, l, r) {
                    Some(v) => {
                        release(l_slot, a);
                        release(r_slot, b);
                        v
                    }
                    None => run.boxed(slot, binary_values(env, *op, operand_value(l, a, l_slot), operand_value(r, b, r_slot), l, r)),
                }
            }
            CExpr::AttrCmp { attr, op, lit, general } => match cx.obj {
                // As `binary` answers: a NULL attribute (outside the dominator tree, not an
                // array) makes every comparison with a number false, `!=` too.
                Some(o) => match scalar_attribute(run, o, *attr) {
                    Ok(v) if v.kind == Kind::Int => Scalar::bool(match op {
                        BinOp::Lt => v.i() < *lit,
                        BinOp::Le => v.i() <= *lit,
                        BinOp::Gt => v.i() > *lit,
                        BinOp::Ge => v.i() >= *lit,
                        BinOp::Eq => v.i() == *lit,
                        _ => v.i() != *lit,
                    }),
                    Ok(_) => Scalar::bool(false),
                    Err(e) => {
                        run.fail(e);
                        Scalar::NULL
                    }
                },
                None => general.scalar(run, slot),
            },
            CExpr::Not(e) => {
                let mut e_slot = Value::Null;
                let v = run.child(e, &mut e_slot);
                let t = v.truthy(&e_slot);
                release(e_slot, v);
                if v.is_null() {
                    Scalar::NULL
                } else {
                    Scalar::bool(!t)
                }
            }
            CExpr::Neg(e) => {
                let mut e_slot = Value::Null;
                let v = run.child(e, &mut e_slot);
                release(e_slot, v);
                match v.kind {
                    Kind::Int => Scalar::int(v.i().wrapping_neg()),
                    Kind::Float => Scalar::float(-v.f()),
                    _ => Scalar::NULL,
                }
            }
            // The text of `toString(e)` for LIKE is the text of `e` (`like_text`): an object's
            // is decoded once (`object_text`), not made a value and copied again.
            CExpr::Like { e, re, negate } => {
                let (target, to_string) = match &**e {
                    CExpr::ToString(inner) => (&**inner, true),
                    other => (other, false),
                };
                let mut t_slot = Value::Null;
                let v = run.child(target, &mut t_slot);
                let matched = match v.as_obj() {
                    Some(o) => {
                        release(t_slot, v);
                        like_object(env, o, re)
                    }
                    // `toString(e)` of a number or a boolean is its text.
                    None if to_string => match to_string_value(env, v.into_value(t_slot)) {
                        Ok(t) => like_match(env, &t, re),
                        Err(e) => {
                            run.fail(e);
                            None
                        }
                    },
                    None => like_match(env, &v.into_value(t_slot), re),
                };
                Scalar::bool(matched.is_some_and(|m| m != *negate))
            }
            CExpr::Instanceof { e, by_class } => {
                let mut e_slot = Value::Null;
                let v = run.child(e, &mut e_slot);
                release(e_slot, v);
                match v.as_obj() {
                    Some(o) => Scalar::bool(by_class[run.class_of(o) as usize]),
                    None => Scalar::bool(false),
                }
            }
            // As `general`: an object by itself, a number by the object at that address.
            CExpr::InObjects { e, bits } => {
                let mut e_slot = Value::Null;
                let v = run.child(e, &mut e_slot);
                release(e_slot, v);
                let o = match v.kind {
                    Kind::Obj => Some(v.i() as u32),
                    Kind::Int => object_at(env, &Value::Int(v.i())),
                    Kind::Float => object_at(env, &Value::Float(v.f())),
                    _ => None,
                };
                Scalar::bool(o.is_some_and(|o| bits.get(o as usize / 64).is_some_and(|w| w >> (o % 64) & 1 == 1)))
            }
            CExpr::Case { whens, else_ } => {
                for (w, t) in whens {
                    if w.truth(run) {
                        return t.scalar(run, slot);
                    }
                }
                match else_ {
                    Some(e) => e.scalar(run, slot),
                    None => Scalar::NULL,
                }
            }
            _ => run.boxed(slot, self.general(Route::Fast, env, cx)),
        }
    }

    /// The value by each node's general code, children evaluated by `route`.
    fn general(&self, route: Route, env: &Env, cx: &Ctx) -> EvalResult {
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
            CExpr::Field { base, name, probe, .. } => {
                let b = base.ev(route, env, cx)?;
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
                let b = base.ev(route, env, cx)?;
                attribute(env, b, *attr)?
            }
            CExpr::Classof(e) => match e.ev(route, env, cx)? {
                Value::Obj(o) => Value::Obj(heap.class(heap.class_of(o)).object),
                _ => Value::Null,
            },
            CExpr::ToString(e) => to_string_value(env, e.ev(route, env, cx)?)?,
            CExpr::Coalesce(args) => {
                for a in args {
                    let v = a.ev(route, env, cx)?;
                    if !v.is_null() {
                        return Ok(v);
                    }
                }
                Value::Null
            }
            CExpr::Nullif(a, b) => {
                let va = a.ev(route, env, cx)?;
                let vb = b.ev(route, env, cx)?;
                let (ca, cb) = coerce(env, Cow::Borrowed(&va), Cow::Owned(vb));
                if !ca.is_null() && values_equal(&ca, &cb) {
                    Value::Null
                } else {
                    va
                }
            }
            CExpr::Dominators(e) => match e.ev(route, env, cx)? {
                Value::Obj(o) => match env.graph("dominators(x)")?.dominated(o) {
                    Some(v) => bounded_objects(env, o, "dominators(x)", v)?,
                    None => Value::Null,
                },
                _ => Value::Null,
            },
            CExpr::Dominatorof(e) => match e.ev(route, env, cx)? {
                Value::Obj(o) => env.graph("dominatorof(x)")?.immediate_dominator(o).map(Value::Obj).unwrap_or(Value::Null),
                _ => Value::Null,
            },
            CExpr::Path(a, b) => match (a.ev(route, env, cx)?, b.ev(route, env, cx)?) {
                (Value::Obj(x), Value::Obj(y)) => match env.graph("path(a, b)")?.path(x, y, env.path_max_visited) {
                    heapql_graph::PathSearch::Found(p) => bounded_objects(env, x, "path(a, b)", p)?,
                    heapql_graph::PathSearch::NoPath => Value::Null,
                    heapql_graph::PathSearch::GaveUp => {
                        env.note(format!(
                            "path(a, b) gave up after visiting {} objects on some rows and is NULL there: \
                             no path was found within that bound, but there may be one (elsewhere NULL means there is none)",
                            env.path_max_visited
                        ));
                        Value::Null
                    }
                },
                _ => Value::Null,
            },
            CExpr::Bin { op, l, r } => binary(env, *op, l, r, cx, route)?,
            // The comparison as written (`AttrCmp` is its fast form).
            CExpr::AttrCmp { general, .. } => general.ev(route, env, cx)?,
            CExpr::Not(e) => match e.ev(route, env, cx)? {
                Value::Null => Value::Null,
                v => Value::Bool(!v.truthy()),
            },
            CExpr::Neg(e) => negate(&e.ev(route, env, cx)?),
            CExpr::Like { e, re, negate } => match like_match(env, &e.ev(route, env, cx)?, re) {
                Some(m) => Value::Bool(m != *negate),
                None => Value::Bool(false),
            },
            CExpr::Instanceof { e, by_class } => match e.ev(route, env, cx)? {
                Value::Obj(o) => Value::Bool(by_class[heap.class_of(o) as usize]),
                _ => Value::Bool(false),
            },
            // The left side meets the subquery's column the way `=` does: an object matches
            // itself, its address or (for a string) its text; an address matches its object.
            CExpr::InObjects { e, bits } => {
                let v = e.ev(route, env, cx)?;
                match if let Value::Obj(o) = v { Some(o) } else { object_at(env, &v) } {
                    Some(o) => Value::Bool(bits.get(o as usize / 64).is_some_and(|w| w >> (o % 64) & 1 == 1)),
                    None => Value::Bool(false),
                }
            }
            CExpr::InValues { e, set, by_address, by_text, text_lens } => match e.ev(route, env, cx)? {
                Value::Null => Value::Bool(false),
                Value::Obj(o) => Value::Bool(
                    set.contains(&Key(Value::Obj(o)))
                        || (*by_address && set.contains(&Key(address(env, o))))
                        // A String of a length no text of the set has is not read.
                        || (*by_text
                            && env.heap.string_units(o).is_some_and(|t| {
                                text_lens.binary_search(&t.len()).is_ok() && set.contains(&Key(Value::text(t.text())))
                            })),
                ),
                v => Value::Bool(set.contains(&Key(v))),
            },
            CExpr::Case { whens, else_ } => {
                for (w, t) in whens {
                    if w.ev(route, env, cx)?.truthy() {
                        return t.ev(route, env, cx);
                    }
                }
                match else_ {
                    Some(e) => e.ev(route, env, cx)?,
                    None => Value::Null,
                }
            }
            CExpr::Index { e, i } => {
                let base = e.ev(route, env, cx)?;
                let i = i.ev(route, env, cx)?;
                index(env, &base, &i)
            }
            CExpr::Slice { e, from, to } => {
                let base = e.ev(route, env, cx)?;
                let from = from.ev(route, env, cx)?;
                let to = to.ev(route, env, cx)?;
                slice(env, &base, &from, &to)?
            }
            CExpr::Agg(i) => cx.aggs.get(*i).cloned().unwrap_or(Value::Null),
            CExpr::Key(i) => cx.keys.get(*i).cloned().unwrap_or(Value::Null),
            CExpr::Out(i) => cx.out.get(*i).cloned().unwrap_or(Value::Null),
        })
    }

}

fn is_null_literal(e: &CExpr) -> bool {
    matches!(e, CExpr::Lit(Value::Null))
}

/// A text for `+` (which then concatenates): a char, or a java.lang.String object.
#[inline]
fn scalar_is_text(run: &Run, v: Scalar) -> bool {
    match v.kind {
        Kind::Char => true,
        Kind::Obj => run.env.is_string_class(run.class_of(v.i() as u32)),
        _ => false,
    }
}

/// `@objectAddress` of an object as a scalar.
#[inline]
fn scalar_address(env: &Env, o: Scalar) -> Scalar {
    Scalar::int(env.heap.object_id(o.i() as u32) as i64)
}

/// Whether `<`, `<=`, `>` or `>=` holds for two values ordered `o` (NULL and incomparable values
/// have no ordering: the comparison is false).
#[inline]
fn order_holds(op: BinOp, o: std::cmp::Ordering) -> bool {
    match op {
        BinOp::Lt => o.is_lt(),
        BinOp::Le => o.is_le(),
        BinOp::Gt => o.is_gt(),
        _ => o.is_ge(),
    }
}

/// `binary_values` of two scalars (`l`, `r`: the expressions they come from); None for what
/// only values answer: a `Boxed` side, an object met with a char (the object's text), `+` of
/// a text.
#[inline(always)]
fn binary_scalars(run: &Run, op: BinOp, a: Scalar, b: Scalar, l: &CExpr, r: &CExpr) -> Option<Scalar> {
    use BinOp::*;
    let env = run.env;
    if a.kind == Kind::Boxed || b.kind == Kind::Boxed {
        return None;
    }
    let number = |k: Kind| matches!(k, Kind::Int | Kind::Float);
    // As `coerce`: an object met with a number is its address.
    let coerce = |a: Scalar, b: Scalar| {
        if a.kind == Kind::Obj && number(b.kind) {
            (scalar_address(env, a), b)
        } else if number(a.kind) && b.kind == Kind::Obj {
            (a, scalar_address(env, b))
        } else {
            (a, b)
        }
    };
    if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) && matches!((a.kind, b.kind), (Kind::Obj, Kind::Char) | (Kind::Char, Kind::Obj)) {
        return None;
    }
    Some(match op {
        Eq => {
            let (a, b) = coerce(a, b);
            Scalar::bool(scalars_equal(a, b))
        }
        // `x != null` is "x is not null"; otherwise a comparison with NULL is false.
        Ne if a.is_null() || b.is_null() => {
            let literal_null_side = (a.is_null() && is_null_literal(l)) || (b.is_null() && is_null_literal(r));
            Scalar::bool(a.is_null() != b.is_null() && literal_null_side)
        }
        Ne => {
            let (a, b) = coerce(a, b);
            Scalar::bool(!scalars_equal(a, b))
        }
        Lt | Le | Gt | Ge => {
            // Two objects are ordered by their addresses: as unsigned 64-bit numbers, which is
            // the order of their indexes (objects are numbered in address order).
            if a.kind == Kind::Obj && b.kind == Kind::Obj {
                return Some(Scalar::bool(order_holds(op, a.i().cmp(&b.i()))));
            }
            let (a, b) = coerce(a, b);
            Scalar::bool(scalars_compare(a, b).is_some_and(|o| order_holds(op, o)))
        }
        Add if scalar_is_text(run, a) || scalar_is_text(run, b) => return None,
        Add | Sub | Mul | Div | Rem => scalars_arith(op, a, b),
        // Evaluated by `truth`, which short-circuits.
        And | Or => return None,
    })
}

#[inline]
fn binary(env: &Env, op: BinOp, l: &CExpr, r: &CExpr, cx: &Ctx, route: Route) -> EvalResult {
    use BinOp::*;
    match op {
        And => return Ok(Value::Bool(l.ev(route, env, cx)?.truthy() && r.ev(route, env, cx)?.truthy())),
        Or => return Ok(Value::Bool(l.ev(route, env, cx)?.truthy() || r.ev(route, env, cx)?.truthy())),
        _ => {}
    }
    if is_comparison(op) && (matches!(l, CExpr::ToString(_)) || matches!(r, CExpr::ToString(_))) {
        return compare_to_string(env, op, l, r, cx, route);
    }
    let a = l.ev(route, env, cx)?;
    let b = r.ev(route, env, cx)?;
    binary_values(env, op, Cow::Owned(a), Cow::Owned(b), l, r)
}

/// A binary operator other than AND and OR on the values of its sides (`l`, `r`: the
/// expressions they come from).
/// The sides come borrowed where they can (a literal text is not cloned per row).
fn binary_values(env: &Env, op: BinOp, a: Cow<Value>, b: Cow<Value>, l: &CExpr, r: &CExpr) -> EvalResult {
    use BinOp::*;
    // An object compared with a text: its text (`coerce`), read from the dump only as far as
    // the comparison needs (`compare_object_text`).
    if is_comparison(op) {
        match (&*a, &*b) {
            (Value::Obj(o), t @ (Value::Str(_) | Value::Utf16(_))) => return Ok(Value::Bool(compare_object_text(env, op, *o, t, true).unwrap_or(false))),
            (t @ (Value::Str(_) | Value::Utf16(_)), Value::Obj(o)) => return Ok(Value::Bool(compare_object_text(env, op, *o, t, false).unwrap_or(false))),
            _ => {}
        }
    }
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
            // Two objects are ordered by their addresses, as ORDER BY and MIN/MAX order them: as
            // unsigned 64-bit numbers, the order of their indexes (objects are numbered in
            // address order).
            if let (Value::Obj(x), Value::Obj(y)) = (&*a, &*b) {
                return Ok(Value::Bool(order_holds(op, x.cmp(y))));
            }
            let (a, b) = coerce(env, a, b);
            Value::Bool(values_compare(&a, &b).is_some_and(|o| order_holds(op, o)))
        }
        // Java: `+` with a String on either side concatenates, the other side as its text
        // (a number, a boolean, another String). A String object counts as a String, as a
        // string value does. NULL, and an object that is no String (whose toString() a dump
        // cannot run; `toString(x)` is NULL too), give NULL.
        Add if is_text(env, &a) || is_text(env, &b) => concatenation(env, &a, &b)?,
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

/// `read_field` of object `o` as a scalar, an instance field found through `slots` (no name
/// compared per object): None where `read_field` finds no such field (`Found::Missing`).
#[inline]
fn read_field_scalar(run: &Run, o: ObjIdx, name: &str, slots: &FieldSlots) -> EvalResult<Option<Scalar>> {
    let env = run.env;
    let heap = env.heap;
    match heap.object_kind(o) {
        ObjectKind::Instance => {
            let c = run.class_of(o);
            match slots.get(heap, c, name).and_then(|slot| heap.field_at(o, slot)) {
                Some(v) => Ok(Some(scalar_from_heap(env, v))),
                // Rule 12 past the row, as `read_field`.
                None if (name == "count" || name == "offset") && env.is_string_class(c) => {
                    Err(Box::new(unknown_field_error(env, c, name, 1)))
                }
                None => Ok(None),
            }
        }
        ObjectKind::Class => Ok(heap
            .class_described_by(o)
            .and_then(|c| env.statics_with_supers(c).find(|s| s.name == name))
            .map(|s| scalar_from_heap(env, s.value))),
        _ => Ok(None),
    }
}

/// `from_heap` as a scalar: a char stays its unit.
#[inline]
fn scalar_from_heap(env: &Env, v: HeapValue) -> Scalar {
    match v {
        HeapValue::Null | HeapValue::Object(0) => Scalar::NULL,
        HeapValue::Object(id) => env.heap.index_of(id).map_or(Scalar::NULL, Scalar::obj),
        HeapValue::Boolean(b) => Scalar::bool(b),
        HeapValue::Char(c) => Scalar::char(c),
        HeapValue::Byte(b) => Scalar::int(b as i64),
        HeapValue::Short(s) => Scalar::int(s as i64),
        HeapValue::Int(i) => Scalar::int(i as i64),
        HeapValue::Long(l) => Scalar::int(l),
        HeapValue::Float(f) => Scalar::float(float_value(f)),
        HeapValue::Double(d) => Scalar::float(d),
    }
}

/// A numeric attribute of object `o` as a scalar (`int_attribute`), the row's size from the
/// class already read.
#[inline]
fn scalar_attribute(run: &Run, o: ObjIdx, attr: Attr) -> EvalResult<Scalar> {
    let heap = run.env.heap;
    match attr {
        Attr::ObjectId => Ok(Scalar::int(o as i64)),
        Attr::ObjectAddress => Ok(Scalar::int(heap.object_id(o) as i64)),
        Attr::UsedHeapSize => {
            let size = match heap.object_kind(o) {
                ObjectKind::Instance | ObjectKind::ObjectArray => heap.shallow_size_of_class(o, run.class_of(o)),
                _ => heap.shallow_size(o),
            };
            Ok(Scalar::int(size as i64))
        }
        // An instance has a length when it is a String (`Heap::string_length` asks its class
        // by name; the row's class is known here), an array its own, a class object none.
        Attr::Length => Ok(match heap.object_kind(o) {
            ObjectKind::Instance if !run.env.is_string_class(run.class_of(o)) => Scalar::NULL,
            ObjectKind::Instance => heap.string_length(o).map_or(Scalar::NULL, |l| Scalar::int(l as i64)),
            ObjectKind::Class => Scalar::NULL,
            ObjectKind::ObjectArray | ObjectKind::PrimitiveArray(_) => heap.array_length(o).map_or(Scalar::NULL, |l| Scalar::int(l as i64)),
        }),
        _ => Ok(int_attribute(run.env, o, attr)?.map_or(Scalar::NULL, Scalar::int)),
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
    // string object it came from: UTF-16 units. A list (`x.@outbounds`, `dominators(x)`, a
    // slice) has its number of elements, as MAT gives the length of the id array these are.
    match (&base, attr) {
        (Value::Str(t), Attr::Length) => return Ok(Value::Int(t.encode_utf16().count() as i64)),
        (Value::Utf16(u), Attr::Length) => return Ok(Value::Int(u.len() as i64)),
        (Value::List(items), Attr::Length) => return Ok(Value::Int(items.len() as i64)),
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
        Attr::Inbounds => bounded_objects(env, o, "@inbounds", env.graph("@inbounds")?.inbounds(o))?,
        Attr::Outbounds => match env.graph {
            Some(g) => bounded_objects(env, o, "@outbounds", g.outbounds(o))?,
            None => bounded_objects(env, o, "@outbounds", heap_outbounds(env, o)?)?,
        },
        Attr::Clazz => Value::Obj(heap.class(heap.class_of(o)).object),
        // The heap's shared name: no allocation per object.
        Attr::Heap => heap.heap_of(o).map_or(Value::Null, |k| Value::Str(heap.heap_names()[k as usize].clone())),
        Attr::ClassLoader => class_loader(heap, o).map_or(Value::Null, Value::Obj),
    })
}

/// `@classLoader`: the defining loader of the class that class object `o` describes; None for
/// the bootstrap loader and for an object that is no class object.
fn class_loader(heap: &heapql_heap::Heap, o: ObjIdx) -> Option<ObjIdx> {
    heap.class_described_by(o).and_then(|c| heap.defining_loader(c))
}

/// Outbound references read from the heap alone: the class object first, then every
/// referenced object once, in field order (a set, not a scan of `out`: an array of a million
/// elements must not cost a million squared).
/// Stops (ERR_TOO_LARGE) once there are more than a result cell can list.
fn heap_outbounds(env: &Env, o: ObjIdx) -> EvalResult<Vec<ObjIdx>> {
    let heap = env.heap;
    let max = max_list_len(env, OBJECT_JSON_UNITS);
    let mut out = vec![heap.class(heap.class_of(o)).object];
    let mut seen: rustc_hash::FxHashSet<ObjIdx> = out.iter().copied().collect();
    let mut over = false;
    heap.for_each_reference(o, |id, _| {
        if over {
            return;
        }
        if let Some(t) = heap.index_of(id) {
            if seen.insert(t) {
                out.push(t);
                over = out.len() > max;
            }
        }
    });
    if over {
        return Err(list_too_large(env, o, "@outbounds", None, max));
    }
    Ok(out)
}

/// The fewest UTF-16 units one element takes in a list cell's JSON, its comma included: an
/// object is `{"o":N},`, anything else at least a digit and a comma.
const OBJECT_JSON_UNITS: usize = 8;
const VALUE_JSON_UNITS: usize = 2;

/// The most elements of `units_each` units a list cell can hold (`[` … `]` around them).
fn max_list_len(env: &Env, units_each: usize) -> usize {
    env.max_cell_units.saturating_sub(1) / units_each
}

fn too_large(message: String) -> Box<ExecError> {
    Box::new(ExecError::new(crate::error::ERR_TOO_LARGE, message))
}

/// `what` of `o` has `len` elements (None: more than `max`), more than a result cell holds.
fn list_too_large(env: &Env, o: ObjIdx, what: &str, len: Option<u64>, max: usize) -> Box<ExecError> {
    let heap = env.heap;
    let count = match len {
        Some(n) => format!("{n} elements"),
        None => format!("more than {max} elements"),
    };
    too_large(format!(
        "{what} of {} @ {:#x} has {count}, more than one result cell can hold ({max}: a cell crosses to JavaScript \
         as one string, at most {} UTF-16 units, whatever the output format, csv included); take a slice of at most \
         {max} (`a[0:1000]`) or read the elements in pages (`a[0:1000000]`, `a[1000000:2000000]`, …), or count them \
         with `@length`",
        display_name(env, o),
        heap.object_id(o),
        env.max_cell_units
    ))
}

/// `v` (a list of objects `what` gave for `o`) as a value, or ERR_TOO_LARGE when its JSON
/// could not be one result cell.
fn bounded_objects(env: &Env, o: ObjIdx, what: &str, v: Vec<ObjIdx>) -> EvalResult {
    let max = max_list_len(env, OBJECT_JSON_UNITS);
    if v.len() > max {
        return Err(list_too_large(env, o, what, Some(v.len() as u64), max));
    }
    Ok(objects(v))
}

/// `toString(v)`: an object's text (`bounded_text`), a text as it is, the text of a number or
/// a boolean; NULL otherwise.
pub(crate) fn to_string_value(env: &Env, v: Value) -> EvalResult {
    Ok(match v {
        Value::Obj(o) => bounded_text(env, o)?.unwrap_or(Value::Null),
        s @ (Value::Str(_) | Value::Utf16(_)) => s,
        other => other.plain_text().map(|s| Value::Str(s.into())).unwrap_or(Value::Null),
    })
}

/// `toString(o)` bounded: a String longer than a result cell can hold fails (ERR_TOO_LARGE)
/// before its text is read.
fn bounded_text(env: &Env, o: ObjIdx) -> EvalResult<Option<Value>> {
    check_text_bound(env, o)?;
    Ok(object_text_value(env, o))
}

/// The check `toString(o)` makes before it reads the text (`bounded_text`), alone: a count
/// (`select::count_query`) raises the same error without reading the text. A text that passes
/// fits a cell measured as every text cell is (`batch::text_cell_units`: as a JSON string,
/// quotes and escapes counted). Its length alone decides but for a String of more than
/// (max − 2) / 6 characters and at most max − 2: that one is read (as it streams, never held)
/// to count its escapes.
pub(crate) fn check_text_bound(env: &Env, o: ObjIdx) -> EvalResult<()> {
    let Some(n) = env.heap.string_length(o) else { return Ok(()) };
    let max = env.max_cell_units as u64;
    let units = if n.saturating_add(2) > max {
        None
    } else if n.saturating_mul(6).saturating_add(2) <= max {
        return Ok(());
    } else {
        match env.heap.string_units(o) {
            Some(t) => Some(crate::batch::text_cell_units(t.units())),
            None => return Ok(()),
        }
    };
    if units.is_some_and(|u| u <= max) {
        return Ok(());
    }
    let escaped = units.map_or(String::new(), |u| format!(" ({u} UTF-16 units written as a JSON string, its quotes and escapes counted)"));
    Err(too_large(format!(
        "toString() of {} @ {:#x}: the string is {n} characters{escaped}, more than one result cell can hold ({} UTF-16 units: \
         a cell crosses to JavaScript as one string, whatever the output format, csv included); select the \
         object `s` itself (its label shows how it starts), its length with `s.@length`, or test its text \
         with LIKE (`s LIKE \"abc.*\"`), which reads it without making a cell",
        display_name(env, o),
        env.heap.object_id(o),
        env.max_cell_units
    )))
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
                Some(_) => Value::Null,
                // A java.lang.String object is indexed as its text is (UTF-16 units).
                None => match heap.string_units(*o) {
                    Some(t) => t.units_from(i as usize).next().map(|u| Value::text_of_units(&[u])).unwrap_or(Value::Null),
                    None => Value::Null,
                },
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

/// An array's slice is bounded before it is read: more elements than one result cell can list
/// fail (ERR_TOO_LARGE) without building the list.
fn slice(env: &Env, base: &Value, from: &Value, to: &Value) -> EvalResult {
    Ok(match base {
        Value::Obj(o) => {
            let heap = env.heap;
            // A java.lang.String object is sliced as its text is (UTF-16 units), the slice
            // bounded by what one cell holds before it is read.
            if let Some(t) = heap.string_units(*o) {
                let Some((a, b)) = bounds(t.len(), from, to) else { return Ok(Value::Null) };
                if (b - a) as u64 > env.max_cell_units as u64 {
                    return Err(Box::new(crate::batch::text_too_long("a slice of a string (`s[i:j]`)", (b - a) as u64, env.max_cell_units)));
                }
                let units: Vec<u16> = t.units_from(a).take(b - a).collect();
                return Ok(Value::text_of_units(&units));
            }
            let Some(len) = heap.array_length(*o) else { return Ok(Value::Null) };
            let Some((a, b)) = bounds(len as usize, from, to) else { return Ok(Value::Null) };
            // The fewest units an element's JSON takes, its comma included: `{"o":N},`, a
            // char's `"x",`, a boolean's `true,`, a number's `0,`.
            let each = match heap.object_kind(*o) {
                ObjectKind::ObjectArray => OBJECT_JSON_UNITS,
                ObjectKind::PrimitiveArray(heapql_heap::PrimType::Char) => 4,
                ObjectKind::PrimitiveArray(heapql_heap::PrimType::Boolean) => 5,
                _ => VALUE_JSON_UNITS,
            };
            let max = max_list_len(env, each);
            if b - a > max {
                return Err(list_too_large(env, *o, "the slice", Some((b - a) as u64), max));
            }
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
    })
}

#[cfg(test)]
#[path = "eval_exactness.rs"]
mod exactness;

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
