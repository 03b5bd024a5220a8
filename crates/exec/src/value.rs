//! Row values and their semantics (`docs/physical-plan.md`, "Value semantics").
//!
//! Decisions written down here because the specification leaves them open:
//! - integer arithmetic wraps on overflow; `Int / Int` is integer division (truncating) and
//!   `x / 0`, `x % 0` on integers is NULL; as soon as a float takes part the operation is IEEE;
//! - `+` with a string on either side concatenates (a NULL side gives NULL);
//! - a comparison (`=`, `<`, ...) with NULL on one side is false, `NULL = NULL` is true;
//!   comparing values of unrelated kinds (a number with a string, an object with a number) is false;
//! - sort order (ORDER BY, MIN/MAX) is total: NULL < booleans < numbers < strings < objects < lists,
//!   so NULLs come first ascending and last descending;
//! - strings keep their exact UTF-16 content: a Java string may hold an unpaired surrogate, which
//!   no Rust string can, so such a text is a `Utf16` value (its units), every other one a `Str`.
//!   A text has one form only (`Value::text_of_units`), so `=`, GROUP BY and DISTINCT tell texts
//!   apart exactly; strings are ordered as Java's `String.compareTo` orders them, by UTF-16
//!   unit (`text_cmp`).
//!
//! Comparisons between an object and a string use the object's string text; that needs the heap,
//! so those cases live in `eval.rs` and this module only sees plain values.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Arc<str>),
    /// A text that is not valid UTF-16: it holds an unpaired surrogate (never a text a `Str`
    /// can hold: made only by `Value::text_of_units`).
    Utf16(Arc<[u16]>),
    /// A heap object by dense index.
    Obj(u32),
    List(Arc<[Value]>),
}

impl Value {
    pub fn str(s: &str) -> Value {
        Value::Str(Arc::from(s))
    }
    /// The text of UTF-16 units, exactly: a `Str` when they are valid UTF-16, else `Utf16`.
    pub fn text_of_units(units: &[u16]) -> Value {
        match String::from_utf16(units) {
            Ok(s) => Value::Str(s.into()),
            Err(_) => Value::Utf16(Arc::from(units)),
        }
    }
    /// A text as the heap decodes it (`Heap::string_text`): valid text, or the units of one
    /// that is not valid UTF-16.
    pub fn text(t: Result<String, Vec<u16>>) -> Value {
        match t {
            Ok(s) => Value::Str(s.into()),
            Err(units) => Value::text_of_units(&units),
        }
    }
    /// The length of a text in UTF-16 units (Java's `length()`); None for other values.
    pub fn utf16_len(&self) -> Option<usize> {
        match self {
            Value::Str(s) => Some(s.encode_utf16().count()),
            Value::Utf16(u) => Some(u.len()),
            _ => None,
        }
    }
    /// A string value (`Str` or `Utf16`).
    pub fn is_text(&self) -> bool {
        matches!(self, Value::Str(_) | Value::Utf16(_))
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        }
    }
    /// Truthiness used by WHERE, HAVING, AND, OR, NOT and CASE: NULL is false, numbers are true
    /// when non-zero (NaN false), strings when non-empty, objects and lists always.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0 && !f.is_nan(),
            Value::Str(s) => !s.is_empty(),
            Value::Utf16(u) => !u.is_empty(),
            Value::Obj(_) | Value::List(_) => true,
        }
    }
    fn rank(&self) -> u8 {
        match self {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int(_) | Value::Float(_) => 2,
            Value::Str(_) | Value::Utf16(_) => 3,
            Value::Obj(_) => 4,
            Value::List(_) => 5,
        }
    }

    /// What kind of value this is, for messages ("a number", "text", ...).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::Float(_) => "a number",
            Value::Str(_) | Value::Utf16(_) => "text",
            Value::Obj(_) => "an object",
            Value::List(_) => "a list",
        }
    }

    /// The text a value contributes to LIKE and messages (objects are resolved by the caller);
    /// an unpaired surrogate reads as U+FFFD here.
    pub fn plain_text(&self) -> Option<String> {
        match self {
            Value::Null | Value::Obj(_) | Value::List(_) => None,
            Value::Bool(b) => Some(b.to_string()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(format_float(*f)),
            Value::Str(s) => Some(s.to_string()),
            Value::Utf16(u) => Some(String::from_utf16_lossy(u)),
        }
    }

    /// JSON form of a value: objects are `{"o": idx}`; an unpaired surrogate reads as U+FFFD
    /// (a JSON string of serde_json holds valid text only; the cells of `list` columns keep it:
    /// `batch::write_cell_json`).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or_else(|| serde_json::Value::String(format_float(*f))),
            Value::Str(s) => serde_json::Value::String(s.to_string()),
            Value::Utf16(u) => serde_json::Value::String(String::from_utf16_lossy(u)),
            Value::Obj(o) => serde_json::json!({ "o": o }),
            Value::List(items) => serde_json::Value::Array(items.iter().map(Value::to_json).collect()),
        }
    }
}

/// A value that needs no allocation, as the evaluator passes it between the nodes of an
/// expression (`CExpr::scalar`) so that a filter over millions of objects builds no `Value`:
/// what field reads, numeric attributes, comparisons, logic and arithmetic on numbers give.
/// Each stands for the `Value` `into_value` makes of it, with the same semantics (see `Kind`).
///
/// A kind and 64 bits rather than an enum with data: a function returns this in two
/// registers, where an enum with data (or a `Result`) goes through memory, stored by parts and
/// read back whole, which stalls the processor at every node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Scalar {
    pub kind: Kind,
    bits: u64,
}

/// What a `Scalar` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Null,
    Bool,
    Int,
    Float,
    /// An object by dense index.
    Obj,
    /// A Java `char` read from the heap: the one-unit text `Value::text_of_units(&[c])` (a
    /// `Str`, or a `Utf16` for a lone surrogate).
    Char,
    /// None of these (a text, a list): the evaluator put the value in the slot the caller
    /// handed it. A slot holds only such values, so a scalar value is never `Boxed`.
    Boxed,
}

impl Scalar {
    pub const NULL: Scalar = Scalar { kind: Kind::Null, bits: 0 };
    pub const BOXED: Scalar = Scalar { kind: Kind::Boxed, bits: 0 };
    #[inline(always)]
    pub fn bool(b: bool) -> Scalar {
        Scalar { kind: Kind::Bool, bits: b as u64 }
    }
    #[inline(always)]
    pub fn int(i: i64) -> Scalar {
        Scalar { kind: Kind::Int, bits: i as u64 }
    }
    #[inline(always)]
    pub fn float(f: f64) -> Scalar {
        Scalar { kind: Kind::Float, bits: f.to_bits() }
    }
    #[inline(always)]
    pub fn obj(o: u32) -> Scalar {
        Scalar { kind: Kind::Obj, bits: o as u64 }
    }
    #[inline(always)]
    pub fn char(c: u16) -> Scalar {
        Scalar { kind: Kind::Char, bits: c as u64 }
    }
    /// The object, for an `Obj`.
    #[inline(always)]
    pub fn as_obj(self) -> Option<u32> {
        (self.kind == Kind::Obj).then_some(self.bits as u32)
    }
    /// The payload of an `Int` (or a `Bool`, `Obj`, `Char`: their number).
    #[inline(always)]
    pub fn i(self) -> i64 {
        self.bits as i64
    }
    /// The payload of a `Float`.
    #[inline(always)]
    pub fn f(self) -> f64 {
        f64::from_bits(self.bits)
    }

    /// `v` as a scalar when it is one (never `Char`: a text value stays a `Value`).
    #[inline]
    pub fn of(v: &Value) -> Option<Scalar> {
        Some(match v {
            Value::Null => Scalar::NULL,
            Value::Bool(b) => Scalar::bool(*b),
            Value::Int(i) => Scalar::int(*i),
            Value::Float(f) => Scalar::float(*f),
            Value::Obj(o) => Scalar::obj(*o),
            Value::Str(_) | Value::Utf16(_) | Value::List(_) => return None,
        })
    }
    /// The value this stands for; `slot` is the one a `Boxed` was put in.
    #[inline]
    pub fn into_value(self, slot: Value) -> Value {
        match self.kind {
            Kind::Null => Value::Null,
            Kind::Bool => Value::Bool(self.bits != 0),
            Kind::Int => Value::Int(self.i()),
            Kind::Float => Value::Float(self.f()),
            Kind::Obj => Value::Obj(self.bits as u32),
            Kind::Char => char_value(self.bits as u16),
            Kind::Boxed => slot,
        }
    }
    /// `Value::truthy` of the value this stands for (a char is a text of one unit: true).
    #[inline(always)]
    pub fn truthy(self, slot: &Value) -> bool {
        match self.kind {
            Kind::Null => false,
            Kind::Bool | Kind::Int => self.bits != 0,
            Kind::Float => self.f() != 0.0 && !self.f().is_nan(),
            Kind::Obj | Kind::Char => true,
            Kind::Boxed => slot.truthy(),
        }
    }
    #[inline(always)]
    pub fn is_null(self) -> bool {
        self.kind == Kind::Null
    }
    /// `Value::as_f64`: numbers only.
    #[inline(always)]
    fn as_f64(self) -> Option<f64> {
        match self.kind {
            Kind::Int => Some(self.i() as f64),
            Kind::Float => Some(self.f()),
            _ => None,
        }
    }
}

/// A Java `char` as a value: a one-character string, or the unit itself when it is a lone
/// surrogate (no Rust string holds one).
pub(crate) fn char_value(c: u16) -> Value {
    match char::from_u32(c as u32) {
        Some(ch) => Value::Str(Arc::from(ch.encode_utf8(&mut [0; 4]) as &str)),
        None => Value::Utf16(Arc::from([c].as_slice())),
    }
}

/// `values_equal` of two scalars, neither `Boxed` (objects equal by index; a char equals the
/// same char: one form per text).
#[inline(always)]
pub(crate) fn scalars_equal(a: Scalar, b: Scalar) -> bool {
    match (a.kind, b.kind) {
        (Kind::Null, Kind::Null) => true,
        (Kind::Null, _) | (_, Kind::Null) => false,
        (Kind::Bool, Kind::Bool) | (Kind::Obj, Kind::Obj) | (Kind::Char, Kind::Char) | (Kind::Int, Kind::Int) => a.bits == b.bits,
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

/// `values_compare` of two scalars, neither `Boxed`: two chars by their units (the code point
/// order of one-unit texts, a lone surrogate counting as its unit); None where the values are
/// not comparable.
#[inline(always)]
pub(crate) fn scalars_compare(a: Scalar, b: Scalar) -> Option<Ordering> {
    match (a.kind, b.kind) {
        (Kind::Null, _) | (_, Kind::Null) => None,
        (Kind::Bool, Kind::Bool) | (Kind::Char, Kind::Char) => Some(a.bits.cmp(&b.bits)),
        (Kind::Int, Kind::Int) => Some(a.i().cmp(&b.i())),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// `arith` of two scalars, neither `Boxed` nor a text for `+` (the caller concatenates those).
#[inline(always)]
pub(crate) fn scalars_arith(op: crate::plan::BinOp, a: Scalar, b: Scalar) -> Scalar {
    use crate::plan::BinOp::*;
    if a.kind == Kind::Int && b.kind == Kind::Int {
        let (x, y) = (a.i(), b.i());
        return match op {
            Add => Scalar::int(x.wrapping_add(y)),
            Sub => Scalar::int(x.wrapping_sub(y)),
            Mul => Scalar::int(x.wrapping_mul(y)),
            Div if y == 0 => Scalar::NULL,
            Div => Scalar::int(x.wrapping_div(y)),
            Rem if y == 0 => Scalar::NULL,
            Rem => Scalar::int(x.wrapping_rem(y)),
            _ => Scalar::NULL,
        };
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => Scalar::float(match op {
            Add => x + y,
            Sub => x - y,
            Mul => x * y,
            Div => x / y,
            Rem => x % y,
            _ => return Scalar::NULL,
        }),
        _ => Scalar::NULL,
    }
}

/// Floats print like JavaScript would for the common cases (`2` for 2.0, `NaN`, `Infinity`).
pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity".into() } else { "-Infinity".into() }
    } else if f == f.trunc() && f.abs() < 1e21 {
        format!("{}", f as i128)
    } else {
        format!("{f}")
    }
}

/// A Java `float` as a value: the double nearest to the float's shortest decimal (the digits
/// Java's `Float.toString` prints from JDK 19 on: of two shortest decimals equally near, the one
/// whose last digit is even), so `0.1f` reads as 0.1 and equals the literal `0.1`, not as the
/// float widened (`0.10000000149011612`). NaN and the infinities stay. No allocation: the
/// digits are written on the stack; about the cost of formatting a number, but for whole
/// numbers and the floats the thread read last.
pub fn float_value(f: f32) -> f64 {
    if !f.is_finite() {
        return f as f64;
    }
    // A whole number up to 2^24 is its own shortest decimal (0, 1, -0 included).
    if f == f.trunc() && f.abs() <= 16_777_216.0 {
        return f as f64;
    }
    // A heap holds a few floats many times over (load factors, 0.5f): the last ones read, by a
    // hash of their bits, per thread.
    thread_local! {
        static RECENT: std::cell::RefCell<[(u32, f64); 64]> = const { std::cell::RefCell::new([(u32::MAX, 0.0); 64]) };
    }
    let bits = f.to_bits();
    let slot = (bits.wrapping_mul(0x9E37_79B1) >> 26) as usize;
    RECENT.with_borrow_mut(|recent| {
        if recent[slot].0 == bits {
            return recent[slot].1;
        }
        let v = shortest_digits(f, |digits| digits.parse().unwrap_or(f as f64));
        recent[slot] = (bits, v);
        v
    })
}

/// `read` of the shortest digits that read back as the same float (`0.1` for 0.1f; `1e-40`),
/// written on the stack by serde_json's float writer (zmij); `f` widened if that fails.
fn shortest_digits(f: f32, read: impl FnOnce(&str) -> f64) -> f64 {
    use serde_json::ser::Formatter;
    let mut buf = [0u8; 32];
    let mut rest: &mut [u8] = &mut buf;
    if serde_json::ser::CompactFormatter.write_f32(&mut rest, f).is_err() {
        return f as f64;
    }
    let len = 32 - rest.len();
    std::str::from_utf8(&buf[..len]).map_or(f as f64, read)
}

fn num_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// `a = b` on plain values (objects equal by index). NULL = NULL is true.
pub fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Str(x), Value::Str(y)) => x == y,
        // One form per text: a `Utf16` text is never equal to a `Str` one.
        (Value::Utf16(x), Value::Utf16(y)) => x == y,
        (Value::Str(_), Value::Utf16(_)) | (Value::Utf16(_), Value::Str(_)) => false,
        (Value::Obj(x), Value::Obj(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| values_equal(p, q))
        }
        _ => num_cmp(a, b) == Some(Ordering::Equal),
    }
}

/// `<`, `<=`, ... on plain values: Some(ordering) when the two are comparable, None otherwise
/// (NULL on either side, unrelated kinds, NaN). A None makes the comparison false.
pub fn values_compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Str(_) | Value::Utf16(_), Value::Str(_) | Value::Utf16(_)) => Some(text_cmp(a, b)),
        _ => num_cmp(a, b),
    }
}

/// Total order for ORDER BY, MIN/MAX, MEDIAN and PERCENTILE.
pub fn total_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Int(_) | Value::Float(_), Value::Int(_) | Value::Float(_)) => {
            let (x, y) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            x.total_cmp(&y)
        }
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Str(_) | Value::Utf16(_), Value::Str(_) | Value::Utf16(_)) => text_cmp(a, b),
        (Value::Obj(x), Value::Obj(y)) => x.cmp(y),
        (Value::List(x), Value::List(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                let c = total_cmp(p, q);
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        _ => a.rank().cmp(&b.rank()),
    }
}

/// A number whose order never contradicts `total_cmp`: `order_prefix(a) < order_prefix(b)`
/// only if `a` sorts before `b` (equal numbers say nothing). A sort compares these held inline
/// first and reads the values only on a tie, so sorting a million texts chases no pointer for
/// most comparisons (PostgreSQL's abbreviated keys). The kind's rank takes the top three bits;
/// a text puts its first three UTF-16 units and the top 13 bits of its fourth below (missing
/// units as 0, so a text and its extension by U+0000 tie); a boolean or an object its value;
/// numbers and lists nothing.
pub fn order_prefix(v: &Value) -> u64 {
    let rank = (v.rank() as u64) << 61;
    match v {
        Value::Str(s) => rank | units_prefix(s.encode_utf16()),
        Value::Utf16(u) => rank | units_prefix(u.iter().copied()),
        Value::Bool(b) => rank | *b as u64,
        Value::Obj(o) => rank | *o as u64,
        Value::Null | Value::Int(_) | Value::Float(_) | Value::List(_) => rank,
    }
}

/// The first 61 bits of a text's UTF-16 units laid end to end (see `order_prefix`).
fn units_prefix(mut units: impl Iterator<Item = u16>) -> u64 {
    let mut p = 0;
    for shift in [45, 29, 13] {
        p |= (units.next().unwrap_or(0) as u64) << shift;
    }
    p | (units.next().unwrap_or(0) as u64) >> 3
}

/// The order of two texts: Java's `String.compareTo`, by UTF-16 unit (an unpaired surrogate is
/// its unit like any other). It differs from code point order (the order of UTF-8 bytes) only
/// between a character beyond U+FFFF, whose first unit is a surrogate (U+D800 to U+DBFF), and
/// one from U+E000 to U+FFFF: Java puts the former first.
pub fn text_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => str_cmp_utf16(x, y),
        (Value::Str(x), Value::Utf16(y)) => x.encode_utf16().cmp(y.iter().copied()),
        (Value::Utf16(x), Value::Str(y)) => x.iter().copied().cmp(y.encode_utf16()),
        (Value::Utf16(x), Value::Utf16(y)) => x.cmp(y),
        _ => unreachable!("text_cmp takes texts"),
    }
}

/// Two Rust strings in UTF-16 unit order, without encoding them: up to their first different
/// character the order is that of their bytes; there the two characters decide, a character
/// beyond U+FFFF counting as its first unit (a high surrogate, below U+E000).
pub fn str_cmp_utf16(x: &str, y: &str) -> Ordering {
    let (xb, yb) = (x.as_bytes(), y.as_bytes());
    let same = xb.iter().zip(yb).take_while(|(p, q)| p == q).count();
    // Back to the start of the character the first different byte belongs to (a boundary of
    // both: the bytes before are the same).
    let mut at = same;
    while !x.is_char_boundary(at) {
        at -= 1;
    }
    match (x[at..].chars().next(), y[at..].chars().next()) {
        (Some(c), Some(d)) => utf16_rank(c).cmp(&utf16_rank(d)),
        (p, q) => p.is_some().cmp(&q.is_some()),
    }
}

/// A number whose order is the UTF-16 order of single characters: U+E000..U+FFFF after every
/// character beyond U+FFFF, the rest by code point.
#[inline]
fn utf16_rank(c: char) -> u32 {
    let c = c as u32;
    if (0xE000..=0xFFFF).contains(&c) {
        c + 0x20_0000
    } else {
        c
    }
}

/// Arithmetic on plain values (string concatenation is handled by the caller, which can
/// resolve objects to text).
pub fn arith(op: crate::plan::BinOp, a: &Value, b: &Value) -> Value {
    use crate::plan::BinOp::*;
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => {
            let (x, y) = (*x, *y);
            match op {
                Add => Value::Int(x.wrapping_add(y)),
                Sub => Value::Int(x.wrapping_sub(y)),
                Mul => Value::Int(x.wrapping_mul(y)),
                Div if y == 0 => Value::Null,
                Div => Value::Int(x.wrapping_div(y)),
                Rem if y == 0 => Value::Null,
                Rem => Value::Int(x.wrapping_rem(y)),
                _ => Value::Null,
            }
        }
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => Value::Float(match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div => x / y,
                Rem => x % y,
                _ => return Value::Null,
            }),
            _ => Value::Null,
        },
    }
}

pub fn negate(v: &Value) -> Value {
    match v {
        Value::Int(i) => Value::Int(i.wrapping_neg()),
        Value::Float(f) => Value::Float(-f),
        _ => Value::Null,
    }
}

/// A value as a hash key with the equality of `=`, made total: integral floats equal the
/// integer of the same value, NaN equals NaN, NULL equals NULL. Used by GROUP BY, DISTINCT,
/// set operations and IN over values.
#[derive(Clone, Debug)]
pub struct Key(pub Value);

fn float_as_int(f: f64) -> Option<i64> {
    if f == f.trunc() && (-9.2e18..=9.2e18).contains(&f) {
        Some(f as i64)
    } else {
        None
    }
}

pub fn key_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::Int(x), Value::Float(y)) | (Value::Float(y), Value::Int(x)) => {
            float_as_int(*y) == Some(*x)
        }
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| key_eq(p, q))
        }
        _ => values_equal(a, b),
    }
}

pub fn key_hash<H: Hasher>(v: &Value, h: &mut H) {
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => {
            1u8.hash(h);
            b.hash(h)
        }
        Value::Int(i) => {
            2u8.hash(h);
            i.hash(h)
        }
        Value::Float(f) => match float_as_int(*f) {
            Some(i) => {
                2u8.hash(h);
                i.hash(h)
            }
            None if f.is_nan() => 3u8.hash(h),
            None => {
                3u8.hash(h);
                f.to_bits().hash(h)
            }
        },
        Value::Str(s) => {
            4u8.hash(h);
            s.hash(h)
        }
        // Never equal to a `Str` (`values_equal`): its own tag.
        Value::Utf16(u) => {
            7u8.hash(h);
            u.hash(h)
        }
        Value::Obj(o) => {
            5u8.hash(h);
            o.hash(h)
        }
        Value::List(items) => {
            6u8.hash(h);
            items.len().hash(h);
            for i in items.iter() {
                key_hash(i, h)
            }
        }
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        key_eq(&self.0, &other.0)
    }
}
impl Eq for Key {}
impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        key_hash(&self.0, h)
    }
}

/// Hash of a whole row with `key_eq` semantics (GROUP BY, DISTINCT, set operations); a fast
/// non-cryptographic hash, the inputs are heap contents, not adversarial requests.
pub fn row_hash(row: &[Value]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    row.len().hash(&mut h);
    for v in row {
        key_hash(v, &mut h)
    }
    h.finish()
}

pub fn rows_key_eq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| key_eq(x, y))
}


impl Value {
    /// A value from its JSON form (plan literals, list cells): numbers that are whole become
    /// `Int`, an object `{"o": n}` is object `n`, any other object is null.
    pub fn from_json(j: &serde_json::Value) -> Value {
        match j {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => Value::str(s),
            serde_json::Value::Array(a) => Value::List(a.iter().map(Value::from_json).collect()),
            serde_json::Value::Object(m) => match m.get("o").and_then(|o| o.as_u64()) {
                Some(o) => Value::Obj(o as u32),
                None => Value::Null,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::BinOp;
    use std::collections::HashSet;

    #[test]
    fn null_rules() {
        assert!(values_equal(&Value::Null, &Value::Null));
        assert!(!values_equal(&Value::Null, &Value::Int(0)));
        assert_eq!(values_compare(&Value::Null, &Value::Int(1)), None);
        assert_eq!(values_compare(&Value::Int(1), &Value::Null), None);
        assert!(arith(BinOp::Add, &Value::Null, &Value::Int(1)).is_null());
        assert!(!Value::Null.truthy());
    }

    #[test]
    fn numeric_promotion_and_division() {
        assert!(values_equal(&Value::Int(2), &Value::Float(2.0)));
        assert_eq!(values_compare(&Value::Int(2), &Value::Float(2.5)), Some(Ordering::Less));
        assert!(matches!(arith(BinOp::Div, &Value::Int(7), &Value::Int(2)), Value::Int(3)));
        assert!(arith(BinOp::Div, &Value::Int(7), &Value::Int(0)).is_null());
        assert!(arith(BinOp::Rem, &Value::Int(7), &Value::Int(0)).is_null());
        match arith(BinOp::Div, &Value::Int(7), &Value::Float(2.0)) {
            Value::Float(f) => assert_eq!(f, 3.5),
            v => panic!("{v:?}"),
        }
        match arith(BinOp::Div, &Value::Float(1.0), &Value::Int(0)) {
            Value::Float(f) => assert!(f.is_infinite()),
            v => panic!("{v:?}"),
        }
        assert!(matches!(arith(BinOp::Add, &Value::Int(i64::MAX), &Value::Int(1)), Value::Int(i64::MIN)));
        assert!(matches!(arith(BinOp::Mul, &Value::Int(6), &Value::Int(7)), Value::Int(42)));
        assert!(arith(BinOp::Add, &Value::str("a"), &Value::Int(1)).is_null());
    }

    #[test]
    fn order_prefixes_never_contradict_the_order() {
        // Texts of up to five units from an alphabet that meets every case of the UTF-16
        // order (U+0000, a high and a low surrogate alone and paired, U+E000 and U+FFFF after
        // them), prefixes of one another included; beside every other kind.
        let alphabet: [&[u16]; 8] = [&[0], &[1], &[0x61], &[0xD800], &[0xDC00], &[0xD83D, 0xDE00], &[0xE000], &[0xFFFF]];
        let mut values = vec![Value::Null, Value::Bool(false), Value::Bool(true), Value::Int(-3), Value::Float(0.5)];
        values.extend([Value::Obj(0), Value::Obj(7), Value::List(Arc::from(vec![Value::Int(1)]))]);
        let mut texts: Vec<Vec<u16>> = vec![Vec::new()];
        for _ in 0..3 {
            let longer: Vec<Vec<u16>> = texts.iter().flat_map(|t| alphabet.iter().map(move |a| [t.as_slice(), a].concat())).collect();
            texts.extend(longer.into_iter().filter(|t| t.len() <= 5));
            texts.sort();
            texts.dedup();
        }
        values.extend(texts.iter().map(|t| Value::text_of_units(t)));
        assert!(values.iter().any(|v| matches!(v, Value::Utf16(_))) && values.len() > 400);
        let mut decided = 0;
        for a in &values {
            for b in &values {
                let (p, q) = (order_prefix(a), order_prefix(b));
                if p < q {
                    assert_eq!(total_cmp(a, b), Ordering::Less, "{a:?} {b:?}");
                    decided += 1;
                }
            }
        }
        // The prefix decides most pairs of distinct texts (else the sort gains nothing).
        assert!(decided > values.len() * values.len() / 3, "{decided}");
        assert!(order_prefix(&Value::str("a")) < order_prefix(&Value::str("b")));
        assert!(order_prefix(&Value::str("\u{FFFF}")) > order_prefix(&Value::str("\u{1F600}")));
    }

    #[test]
    fn unrelated_kinds_are_not_equal_or_ordered() {
        assert!(!values_equal(&Value::str("1"), &Value::Int(1)));
        assert_eq!(values_compare(&Value::str("1"), &Value::Int(1)), None);
        assert!(!values_equal(&Value::Obj(1), &Value::Int(1)));
        assert!(values_equal(&Value::Obj(1), &Value::Obj(1)));
        assert_eq!(values_compare(&Value::str("abc"), &Value::str("abd")), Some(Ordering::Less));
    }

    #[test]
    fn texts_are_ordered_by_utf16_unit_as_java_orders_them() {
        // Every pair of these, against the order of their UTF-16 units (Java's compareTo).
        let texts = ["", "a", "b", "ab", "a\u{e9}", "a\u{d7ff}", "a\u{e000}", "a\u{ff10}", "a\u{fffd}", "a\u{10000}",
            "a\u{1f600}", "a\u{1f600}b", "a\u{1f601}", "\u{10ffff}", "\u{ffff}", "\u{e000}z", "\u{7ff}", "\u{800}"];
        for x in texts {
            for y in texts {
                let want = x.encode_utf16().cmp(y.encode_utf16());
                assert_eq!(str_cmp_utf16(x, y), want, "{x:?} vs {y:?}");
                assert_eq!(text_cmp(&Value::str(x), &Value::str(y)), want, "{x:?} vs {y:?}");
                let units: Vec<u16> = y.encode_utf16().collect();
                assert_eq!(text_cmp(&Value::str(x), &Value::Utf16(units.into())), want, "{x:?} vs units of {y:?}");
            }
        }
        // U+1F600 (units D83D DE00) before U+E000, though its code point is greater.
        assert_eq!(text_cmp(&Value::str("\u{1f600}"), &Value::str("\u{e000}")), Ordering::Less);
        // A lone surrogate is its unit: U+DC00 after the pair D83D DE00, before U+E000.
        let lone = Value::Utf16(Arc::from(&[0xDC00u16][..]));
        assert_eq!(text_cmp(&lone, &Value::str("\u{1f600}")), Ordering::Greater);
        assert_eq!(text_cmp(&lone, &Value::str("\u{e000}")), Ordering::Less);
    }

    #[test]
    fn total_order_puts_null_first() {
        let mut v = [Value::str("b"), Value::Obj(3), Value::Int(5), Value::Null, Value::Float(1.5), Value::Bool(true)];
        v.sort_by(total_cmp);
        let kinds: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
        assert_eq!(kinds, vec!["Null", "Bool(true)", "Float(1.5)", "Int(5)", "Str(\"b\")", "Obj(3)"]);
    }

    #[test]
    fn keys_merge_integral_floats() {
        let mut s = HashSet::new();
        s.insert(Key(Value::Int(1)));
        assert!(s.contains(&Key(Value::Float(1.0))));
        assert!(!s.contains(&Key(Value::Float(1.5))));
        s.insert(Key(Value::Float(f64::NAN)));
        assert!(s.contains(&Key(Value::Float(f64::NAN))));
        assert!(s.insert(Key(Value::Null)));
        assert!(!s.insert(Key(Value::Null)));
        assert!(!s.contains(&Key(Value::Obj(1))));
    }

    #[test]
    fn floats_read_as_their_shortest_decimal() {
        for (f, want) in [(0.1f32, 0.1f64), (1.1, 1.1), (-0.3, -0.3), (1e-45, 1e-45), (f32::MAX, 3.4028235e38), (16777216.0, 16777216.0), (0.0, 0.0)] {
            assert_eq!(float_value(f), want, "{f}");
            assert_eq!(float_value(f) as f32, f, "{f} reads back");
        }
        assert!(float_value(-0.0).is_sign_negative());
        assert!(float_value(f32::NAN).is_nan());
        assert_eq!(float_value(f32::NEG_INFINITY), f64::NEG_INFINITY);
        // Of two shortest decimals equally near, the one with an even last digit, as Java's
        // `Float.toString` (JDK 19+) picks: 1916.28125f is 1916.2812, not 1916.2813.
        assert_eq!(float_value(1916.28125), 1916.2812);
        // Every float reads back as itself, and is the double nearest to its shortest digits
        // (read here without the whole-number short cut and the per-thread cache), also around
        // powers of two.
        let check = |f: f32| {
            if f.is_finite() {
                assert_eq!(float_value(f) as f32, f, "{f:e}");
                let digits = shortest_digits(f, |d| d.parse().unwrap());
                assert_eq!(float_value(f).to_bits(), digits.to_bits(), "{f:e}");
            }
        };
        for bits in (0..u32::MAX).step_by(9973) {
            check(f32::from_bits(bits));
        }
        for e in 0..255u32 {
            for m in [0, 1, 2, 0x7F_FFFF, 0x40_0000] {
                check(f32::from_bits(e << 23 | m));
                check(-f32::from_bits(e << 23 | m));
            }
        }
    }

    #[test]
    fn texts_with_unpaired_surrogates_are_exact() {
        let lone = Value::text_of_units(&[0xD800, 0x78]);
        assert!(matches!(lone, Value::Utf16(_)));
        assert!(matches!(Value::text_of_units(&[0xD83D, 0xDE00]), Value::Str(ref s) if &**s == "😀"));
        let lossy = Value::str("\u{fffd}x");
        assert!(!values_equal(&lone, &lossy));
        assert!(values_equal(&lone, &Value::text_of_units(&[0xD800, 0x78])));
        let mut set = HashSet::new();
        set.insert(Key(lone.clone()));
        assert!(!set.contains(&Key(lossy.clone())));
        assert!(set.contains(&Key(Value::text_of_units(&[0xD800, 0x78]))));
        // UTF-16 unit order (Java's), a lone surrogate being its unit: U+D7FF < D800 < 😀 (D83D
        // DE00) < DC00 < U+E000 < U+FFFD, whatever the forms meeting.
        let ordered = [Value::str("\u{d7ff}"), lone.clone(), Value::str("😀"), Value::text_of_units(&[0xDC00]), Value::str("\u{e000}"), lossy];
        for (i, a) in ordered.iter().enumerate() {
            for (j, b) in ordered.iter().enumerate() {
                assert_eq!(total_cmp(a, b), i.cmp(&j), "{a:?} {b:?}");
                assert_eq!(values_compare(a, b), Some(i.cmp(&j)));
            }
        }
        assert!(lone.truthy());
        assert_eq!(lone.plain_text().as_deref(), Some("\u{fffd}x"));
    }

    #[test]
    fn float_text() {
        assert_eq!(format_float(2.0), "2");
        assert_eq!(format_float(2.5), "2.5");
        assert_eq!(format_float(f64::NAN), "NaN");
    }
}

/// Hasher for maps keyed by a `row_hash`: the key already is a hash.
#[derive(Default)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}
