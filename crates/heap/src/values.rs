//! Decoding object contents on demand: fields, array elements, strings, outbound references.

use crate::ids;
use crate::{ClassIdx, FieldSlot, FieldType, Heap, ObjIdx, ObjectKind, PrimType, Value};
use heapql_hprof::subrecords::{instance_data_offset, obj_array_data_offset, prim_array_data_offset};
use heapql_hprof::types::{be_id, be_u16, be_u32, be_u64};
use heapql_hprof::BasicType;
use std::borrow::Cow;

pub(crate) fn prim_from_code(code: u8) -> PrimType {
    match code {
        4 => PrimType::Boolean,
        5 => PrimType::Char,
        6 => PrimType::Float,
        7 => PrimType::Double,
        8 => PrimType::Byte,
        9 => PrimType::Short,
        10 => PrimType::Int,
        _ => PrimType::Long,
    }
}

pub(crate) fn prim_size(t: PrimType) -> u32 {
    match t {
        PrimType::Boolean | PrimType::Byte => 1,
        PrimType::Char | PrimType::Short => 2,
        PrimType::Float | PrimType::Int => 4,
        PrimType::Double | PrimType::Long => 8,
    }
}

pub(crate) fn prim_of(t: BasicType) -> Option<PrimType> {
    Some(match t {
        BasicType::Object => return None,
        BasicType::Boolean => PrimType::Boolean,
        BasicType::Char => PrimType::Char,
        BasicType::Float => PrimType::Float,
        BasicType::Double => PrimType::Double,
        BasicType::Byte => PrimType::Byte,
        BasicType::Short => PrimType::Short,
        BasicType::Int => PrimType::Int,
        BasicType::Long => PrimType::Long,
    })
}

pub(crate) fn field_type(t: BasicType) -> FieldType {
    match prim_of(t) {
        Some(p) => FieldType::Prim(p),
        None => FieldType::Object,
    }
}

/// A value from raw bits of a field of type `ty`.
pub(crate) fn value_of(ty: FieldType, bits: u64) -> Value {
    match ty {
        FieldType::Object => {
            if bits == 0 {
                Value::Null
            } else {
                Value::Object(bits)
            }
        }
        FieldType::Prim(p) => match p {
            PrimType::Boolean => Value::Boolean(bits != 0),
            PrimType::Char => Value::Char(bits as u16),
            PrimType::Float => Value::Float(f32::from_bits(bits as u32)),
            PrimType::Double => Value::Double(f64::from_bits(bits)),
            PrimType::Byte => Value::Byte(bits as u8 as i8),
            PrimType::Short => Value::Short(bits as u16 as i16),
            PrimType::Int => Value::Int(bits as u32 as i32),
            PrimType::Long => Value::Long(bits as i64),
        },
    }
}

fn read_bits(b: &[u8], at: usize, ty: FieldType, id_size: u32) -> Option<u64> {
    let w = match ty {
        FieldType::Object => id_size as usize,
        FieldType::Prim(p) => prim_size(p) as usize,
    };
    if at + w > b.len() {
        return None;
    }
    Some(match w {
        1 => b[at] as u64,
        2 => be_u16(b, at) as u64,
        4 => be_u32(b, at) as u64,
        _ => be_u64(b, at),
    })
}

/// The field bytes of an instance (empty for other kinds).
fn instance_data(h: &Heap, o: ObjIdx) -> Cow<'_, [u8]> {
    if h.objs.kind(o) != ids::K_INSTANCE {
        return Cow::Borrowed(&[]);
    }
    let off = h.objs.offset(o);
    let ids = h.id_size as u64;
    let len = h.src.bytes(off + 1 + 2 * ids + 4, 4);
    if len.len() < 4 {
        return Cow::Borrowed(&[]);
    }
    let n = be_u32(&len, 0) as usize;
    h.src.bytes(off + instance_data_offset(h.id_size), n)
}

pub(crate) fn field_slot(h: &Heap, c: ClassIdx, name: &str) -> Option<FieldSlot> {
    let e = h.ext.get(c as usize)?;
    let at = e.layout.0 as usize;
    let i = h.instance_layout(c).iter().position(|f| f.name == name)?;
    Some(FieldSlot { offset: e.offset(h.layouts.from_end[at + i]), ty: h.layouts.fields[at + i].ty })
}

pub(crate) fn field_at(h: &Heap, o: ObjIdx, slot: FieldSlot) -> Option<Value> {
    let data = instance_data(h, o);
    read_bits(&data, slot.offset as usize, slot.ty, h.id_size).map(|b| value_of(slot.ty, b))
}

pub(crate) fn field(h: &Heap, o: ObjIdx, name: &str) -> Option<Value> {
    match h.object_kind(o) {
        ObjectKind::Instance => field_at(h, o, field_slot(h, h.class_of(o), name)?),
        ObjectKind::Class => {
            let c = h.class_described_by(o)?;
            h.classes[c as usize].statics.iter().find(|s| s.name == name).map(|s| s.value)
        }
        _ => None,
    }
}

pub(crate) fn fields(h: &Heap, o: ObjIdx) -> Vec<(&str, Value)> {
    match h.object_kind(o) {
        ObjectKind::Instance => {
            let c = h.class_of(o);
            let e = &h.ext[c as usize];
            let data = instance_data(h, o);
            let at = e.layout.0 as usize;
            h.instance_layout(c)
                .iter()
                .zip(&h.layouts.from_end[at..at + e.layout.1 as usize])
                .map(|(f, &from_end)| {
                    let at = e.offset(from_end);
                    let v = read_bits(&data, at as usize, f.ty, h.id_size).map(|b| value_of(f.ty, b)).unwrap_or(Value::Null);
                    (f.name.as_str(), v)
                })
                .collect()
        }
        ObjectKind::Class => match h.class_described_by(o) {
            Some(c) => h.classes[c as usize].statics.iter().map(|s| (s.name.as_str(), s.value)).collect(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

pub(crate) fn array_element(h: &Heap, o: ObjIdx, i: u32) -> Option<Value> {
    let n = h.array_length(o)?;
    if i >= n {
        return None;
    }
    let off = h.objs.offset(o);
    match h.objs.kind(o) {
        ids::K_OBJ_ARRAY => {
            let at = off + obj_array_data_offset(h.id_size) + i as u64 * h.id_size as u64;
            let b = h.src.bytes(at, h.id_size as usize);
            read_bits(&b, 0, FieldType::Object, h.id_size).map(|x| value_of(FieldType::Object, x))
        }
        ids::K_PRIM_NODATA => None,
        k => {
            let t = prim_from_code(k as u8);
            let w = prim_size(t);
            let at = off + prim_array_data_offset(h.id_size) + i as u64 * w as u64;
            let b = h.src.bytes(at, w as usize);
            read_bits(&b, 0, FieldType::Prim(t), h.id_size).map(|x| value_of(FieldType::Prim(t), x))
        }
    }
}

pub(crate) fn primitive_array_bytes(h: &Heap, o: ObjIdx) -> Option<Cow<'_, [u8]>> {
    primitive_array_at(h, primitive_array_record(h, o)?).map(|(_, bytes)| bytes)
}

/// Where a primitive array's record lies in the dump and what its elements are, so that a
/// pass which met the array can read it again later without the object index (which a memory
/// limit may have pushed out of the page cache meanwhile): `Heap::primitive_array_at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayRecord(u64);

impl ArrayRecord {
    /// Kind code in the top byte, file offset below (dumps are far under 2^56 bytes).
    const OFFSET_BITS: u32 = 56;

    fn new(offset: u64, kind: u64) -> ArrayRecord {
        debug_assert!(offset < 1 << Self::OFFSET_BITS);
        ArrayRecord(kind << Self::OFFSET_BITS | offset)
    }
    fn kind(self) -> u64 {
        self.0 >> Self::OFFSET_BITS
    }
    fn offset(self) -> u64 {
        self.0 & ((1 << Self::OFFSET_BITS) - 1)
    }
    /// The record as one number, to be kept in a scratch array.
    pub fn to_bits(self) -> u64 {
        self.0
    }
    /// A record kept with `to_bits` (of the same heap).
    pub fn from_bits(bits: u64) -> ArrayRecord {
        ArrayRecord(bits)
    }
}

pub(crate) fn primitive_array_record(h: &Heap, o: ObjIdx) -> Option<ArrayRecord> {
    let k = h.objs.kind(o);
    (ids::K_PRIM_FIRST..=ids::K_PRIM_NODATA).contains(&k).then(|| ArrayRecord::new(h.objs.offset(o), k))
}

/// The length and data of the primitive array whose record is `r`; None when the dump ends
/// inside its header, and for an Android array dumped without its data (PRIMITIVE ARRAY NODATA,
/// 0xC3): its contents are unknown, nothing may be judged on them (they are no zeros, no
/// duplicate of another such array, no text).
pub(crate) fn primitive_array_at(h: &Heap, r: ArrayRecord) -> Option<(u32, Cow<'_, [u8]>)> {
    let (n, at, w) = primitive_array_header(h, r)?;
    Some((n, h.src.bytes(at, n as usize * w)))
}

/// A primitive array's stated length, where its elements start in the dump and their width;
/// None for an array dumped without its data (Android NODATA) and when the dump ends inside
/// its header.
fn primitive_array_header(h: &Heap, r: ArrayRecord) -> Option<(u32, u64, usize)> {
    if r.kind() == ids::K_PRIM_NODATA {
        return None;
    }
    let b = h.src.bytes(r.offset() + 1 + h.id_size as u64 + 4, 4);
    let n = u32::from_be_bytes(b.as_ref().try_into().ok()?);
    let w = prim_size(prim_from_code(r.kind() as u8)) as usize;
    Some((n, r.offset() + prim_array_data_offset(h.id_size), w))
}

/// The text of UTF-16 units exactly: the string when they are valid UTF-16 (the common case,
/// decoded in one pass), else the units themselves (a Java string may hold an unpaired
/// surrogate, which no Rust string can).
fn utf16_exact<I: Iterator<Item = u16> + Clone>(units: I) -> Result<String, Vec<u16>> {
    let mut text = String::with_capacity(units.size_hint().0);
    for c in char::decode_utf16(units.clone()) {
        match c {
            Ok(c) => text.push(c),
            Err(_) => return Err(units.collect()),
        }
    }
    Ok(text)
}

/// How a String's text lies in its value array: `char`s `start .. start + count` (JDK ≤ 8,
/// Android), `n` UTF-16 units in a `byte[]` (JDK 9+ coder 1, the dumping machine's order), or
/// `n` Latin-1 bytes (JDK 9+ coder 0, an Android compressed string).
#[derive(Clone, Copy)]
enum StringForm {
    Chars { start: usize, count: usize },
    Utf16 { n: usize },
    Latin1 { n: usize },
}

/// Where a primitive array's elements lie in the dump and how many of their bytes the dump
/// holds (fewer than its length states when the dump ends inside it), without reading them;
/// None for an array dumped without its data (Android NODATA) and when the dump ends inside
/// its header.
fn primitive_array_extent(h: &Heap, r: ArrayRecord) -> Option<(u64, usize)> {
    let (n, at, w) = primitive_array_header(h, r)?;
    Some((at, (n as u64 * w as u64).min(h.src.len().saturating_sub(at)) as usize))
}

/// A java.lang.String's value array data (where it lies in the dump and how many bytes of it
/// the dump holds; None when the dump has no contents for it: Android NODATA) and the form of
/// its text; None for any other object, and for a String whose value is null or no char[] or
/// byte[]. With the data, the form counts what the data holds; without it, what the String's
/// fields and the array's stated length say. Reads no element of the array.
fn string_parts(h: &Heap, o: ObjIdx) -> Option<(Option<(u64, usize)>, StringForm)> {
    if h.object_kind(o) != ObjectKind::Instance {
        return None;
    }
    if h.classes[h.class_of(o) as usize].name != "java.lang.String" {
        return None;
    }
    let value = match field(h, o, "value")? {
        Value::Object(id) => h.index_of(id)?,
        _ => return None,
    };
    let int_field = |name: &str| match field(h, o, name) {
        Some(Value::Int(v)) => Some(v),
        _ => None,
    };
    let coder = match field(h, o, "coder") {
        Some(Value::Byte(b)) => Some(b),
        _ => None,
    };
    let kind = h.object_kind(value);
    let data = primitive_array_record(h, value).and_then(|r| primitive_array_extent(h, r));
    // Elements held: those of the data, or (no data) the array's stated length.
    let elements = |width: usize| match data {
        Some((_, held)) => Some(held / width),
        None => h.array_length(value).map(|n| n as usize),
    };
    let form = match kind {
        ObjectKind::PrimitiveArray(PrimType::Char) => {
            let n = elements(2)?;
            let (start, count) = match (int_field("offset"), int_field("count")) {
                (Some(off), Some(cnt)) if off >= 0 && cnt >= 0 && (off as usize + cnt as usize) <= n => (off as usize, cnt as usize),
                (None, Some(cnt)) if cnt >= 0 && (cnt as usize) <= n => (0, cnt as usize),
                _ => (0, n),
            };
            StringForm::Chars { start, count }
        }
        ObjectKind::PrimitiveArray(PrimType::Byte) if coder == Some(1) => StringForm::Utf16 { n: elements(1)? / 2 },
        ObjectKind::PrimitiveArray(PrimType::Byte) => {
            let len = elements(1)?;
            let n = match (coder, int_field("count")) {
                (None, Some(cnt)) if cnt >= 0 && (cnt as usize) <= len => cnt as usize,
                _ => len,
            };
            StringForm::Latin1 { n }
        }
        _ => return None,
    };
    Some((data, form))
}

/// How a String's UTF-16 units are stored in the bytes of its value array.
#[derive(Clone, Copy)]
enum UnitBytes {
    BigEndian,
    LittleEndian,
    Latin1,
}

impl UnitBytes {
    fn width(self) -> usize {
        match self {
            UnitBytes::Latin1 => 1,
            _ => 2,
        }
    }
}

/// The text of a java.lang.String read from the dump as it is needed (`Heap::string_units`):
/// its length without reading it, its units a block at a time, so that a comparison decided
/// on a prefix reads only that prefix.
#[derive(Clone, Copy)]
pub struct StringUnits<'h> {
    heap: &'h Heap,
    /// Offset in the dump of the first unit.
    at: u64,
    len: usize,
    bytes: UnitBytes,
}

/// Units read from the dump at a time by `Units`.
const UNITS_BLOCK: usize = 1 << 14;

impl<'h> StringUnits<'h> {
    /// The length in UTF-16 units (Java's `length()`).
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The whole text, as `Heap::string_text` gives it.
    pub fn text(&self) -> Result<String, Vec<u16>> {
        let bytes = self.heap.src.bytes(self.at, self.len * self.bytes.width());
        let n = self.len;
        match self.bytes {
            UnitBytes::BigEndian => utf16_exact((0..n).map(|i| be_u16(&bytes, 2 * i))),
            UnitBytes::LittleEndian => utf16_exact((0..n).map(|i| u16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]]))),
            UnitBytes::Latin1 => Ok(bytes[..n].iter().map(|&b| b as char).collect()),
        }
    }
    /// The units from the first, read a block at a time as the iteration goes on.
    pub fn units(&self) -> Units<'h> {
        self.units_from(0)
    }
    /// The units from unit `start` on (none past the end): those before it are not read.
    pub fn units_from(&self, start: usize) -> Units<'h> {
        Units { text: *self, next: start.min(self.len), block: Cow::Borrowed(&[]), pos: 0 }
    }
}

/// The UTF-16 units of a String (`StringUnits::units`).
pub struct Units<'h> {
    text: StringUnits<'h>,
    /// Index of the first unit not yet read into `block`.
    next: usize,
    block: Cow<'h, [u8]>,
    /// Byte position in `block`.
    pos: usize,
}

impl Iterator for Units<'_> {
    type Item = u16;
    #[inline]
    fn next(&mut self) -> Option<u16> {
        let t = &self.text;
        let w = t.bytes.width();
        if self.pos + w > self.block.len() {
            if self.next >= t.len {
                return None;
            }
            let take = (t.len - self.next).min(UNITS_BLOCK);
            self.block = t.heap.src.bytes(t.at + (self.next * w) as u64, take * w);
            self.next += take;
            self.pos = 0;
            if self.block.len() < w {
                return None;
            }
        }
        let b = &self.block[self.pos..self.pos + w];
        self.pos += w;
        Some(match t.bytes {
            UnitBytes::Latin1 => b[0] as u16,
            UnitBytes::BigEndian => u16::from_be_bytes([b[0], b[1]]),
            UnitBytes::LittleEndian => u16::from_le_bytes([b[0], b[1]]),
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let w = self.text.bytes.width();
        let n = self.text.len - self.next + (self.block.len() - self.pos) / w;
        (n, Some(n))
    }
}

fn string_units(h: &Heap, o: ObjIdx) -> Option<StringUnits<'_>> {
    let (data, form) = string_parts(h, o)?;
    let (at, _) = data?;
    let utf16 = if h.utf16_big_endian { UnitBytes::BigEndian } else { UnitBytes::LittleEndian };
    let (at, len, bytes) = match form {
        StringForm::Chars { start, count } => (at + 2 * start as u64, count, UnitBytes::BigEndian),
        StringForm::Utf16 { n } => (at, n, utf16),
        StringForm::Latin1 { n } => (at, n, UnitBytes::Latin1),
    };
    Some(StringUnits { heap: h, at, len, bytes })
}

pub(crate) fn string_text(h: &Heap, o: ObjIdx) -> Option<Result<String, Vec<u16>>> {
    // None for a value array dumped without its data (Android NODATA): the text is unknown,
    // which is not the empty string.
    string_units(h, o).map(|t| t.text())
}

pub(crate) fn string_value(h: &Heap, o: ObjIdx) -> Option<String> {
    string_text(h, o).map(|t| t.unwrap_or_else(|units| String::from_utf16_lossy(&units)))
}

impl Heap {
    /// The text of a java.lang.String with its exact UTF-16 content: `Ok` with the text when it
    /// is valid UTF-16 (every string without an unpaired surrogate), `Err` with its UTF-16 units
    /// when it is not (Java strings may hold unpaired surrogates; `string_value` shows each as
    /// U+FFFD). None where `string_value` is None.
    pub fn string_text(&self, o: ObjIdx) -> Option<Result<String, Vec<u16>>> {
        string_text(self, o)
    }

    /// The text of a java.lang.String read as it is needed: its length at once, its UTF-16
    /// units (exactly those of `string_text`) a block at a time, so that a comparison decided
    /// on a prefix or on the length reads no more of the dump. None where `string_text` is None.
    pub fn string_units(&self, o: ObjIdx) -> Option<StringUnits<'_>> {
        string_units(self, o)
    }

    /// The length of a java.lang.String in UTF-16 units (Java's `length()`), without decoding
    /// its text: the units of `string_text`, and for a String over an array dumped without its
    /// contents (Android NODATA) the length its fields state (`count`, else the array's length;
    /// half of a JDK 9+ UTF-16 `byte[]`'s). None for any other object and for a String whose
    /// value is null.
    pub fn string_length(&self, o: ObjIdx) -> Option<u64> {
        Some(match string_parts(self, o)?.1 {
            StringForm::Chars { count, .. } => count,
            StringForm::Utf16 { n } | StringForm::Latin1 { n } => n,
        } as u64)
    }

    /// True for a primitive array dumped without its contents (Android PRIMITIVE ARRAY
    /// NODATA): its length is known (`array_length`), its elements are not.
    pub fn array_contents_missing(&self, o: ObjIdx) -> bool {
        self.objs.kind(o) == ids::K_PRIM_NODATA
    }
}

pub(crate) fn for_each_reference<F: FnMut(u64, u32)>(h: &Heap, o: ObjIdx, mut f: F) {
    let ids = h.id_size;
    match h.objs.kind(o) {
        ids::K_INSTANCE => {
            let c = h.class_of(o) as usize;
            let e = &h.ext[c];
            let (first, n) = e.refs;
            if n == 0 {
                return;
            }
            let data = instance_data(h, o);
            let len = e.layout.1;
            for &(from_end, slot_from_end) in &h.layouts.refs[first as usize..(first + n) as usize] {
                let at = e.offset(from_end) as usize;
                let slot = len - slot_from_end;
                if at + ids as usize <= data.len() {
                    let id = be_id(&data, at, ids);
                    if id != 0 {
                        f(id, slot);
                    }
                }
            }
        }
        ids::K_OBJ_ARRAY => {
            let n = h.array_length(o).unwrap_or(0) as usize;
            let data = h.src.bytes(h.objs.offset(o) + obj_array_data_offset(ids), n * ids as usize);
            let w = ids as usize;
            for (i, ch) in data.chunks_exact(w).enumerate() {
                let id = be_id(ch, 0, ids);
                if id != 0 {
                    f(id, i as u32);
                }
            }
        }
        ids::K_CLASS => {
            let Some(c) = h.class_described_by(o) else { return };
            let ci = &h.classes[c as usize];
            if let Some(s) = ci.super_class {
                f(h.objs.id(h.classes[s as usize].object), u32::MAX - 1);
            }
            if ci.loader_id != 0 {
                f(ci.loader_id, u32::MAX - 2);
            }
            for (i, s) in ci.statics.iter().enumerate() {
                if let Value::Object(id) = s.value {
                    f(id, i as u32);
                }
            }
        }
        _ => {}
    }
}
