//! Point look-ups on the index: one object's fields (name, declared type, value, declaring
//! class), the objects it refers to with the field that holds each reference, and what a
//! class is (fields, statics, superclass chain, instance counts). Every call reads only the
//! object or class asked for: no scan of the heap.

use crate::{values, ClassIdx, FieldType, Heap, ObjIdx, ObjectKind, PrimType, Value};

/// One field (or array element, or static) of an object.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldEntry {
    /// The field's name; `[i]` for an array element.
    pub name: String,
    /// `object`, `int`, `long`, … (HPROF records only the basic type of a field).
    pub ty: &'static str,
    /// The class that declares the field (instances and statics); None for array elements.
    pub declared_by: Option<ClassIdx>,
    pub value: Value,
}

/// A window of an object's fields and how many it has in all.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectFields {
    pub entries: Vec<FieldEntry>,
    pub total: u64,
}

/// One outbound reference: the target's id, its index when it is an object of the dump
/// (None for a dangling reference), and how it is held (`next`, `[3]`, `<class>`, …).
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub id: u64,
    pub object: Option<ObjIdx>,
    pub label: String,
}

/// What `!describe` shows for one class.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassDescription {
    pub class: ClassIdx,
    /// Superclasses, nearest first (`java.lang.Object` last).
    pub super_chain: Vec<ClassIdx>,
    /// Instance fields in layout order (own first, then inherited).
    pub fields: Vec<FieldEntry>,
    /// Static fields with their values.
    pub statics: Vec<FieldEntry>,
    pub instance_size: u64,
    /// Instances of exactly this class and their shallow bytes.
    pub instances: u64,
    pub instance_bytes: u64,
    /// Instances of this class and all its subclasses.
    pub instances_with_subclasses: u64,
    pub subclasses: u32,
    pub loader_id: u64,
}

/// The Java name of a basic type.
pub fn type_label(ty: FieldType) -> &'static str {
    match ty {
        FieldType::Object => "object",
        FieldType::Prim(p) => prim_label(p),
    }
}

fn prim_label(p: PrimType) -> &'static str {
    match p {
        PrimType::Boolean => "boolean",
        PrimType::Char => "char",
        PrimType::Float => "float",
        PrimType::Double => "double",
        PrimType::Byte => "byte",
        PrimType::Short => "short",
        PrimType::Int => "int",
        PrimType::Long => "long",
    }
}

/// The type of a decoded value (statics carry values, not declared types).
fn value_type(v: &Value) -> &'static str {
    match v {
        Value::Null | Value::Object(_) => "object",
        Value::Boolean(_) => "boolean",
        Value::Char(_) => "char",
        Value::Byte(_) => "byte",
        Value::Short(_) => "short",
        Value::Int(_) => "int",
        Value::Long(_) => "long",
        Value::Float(_) => "float",
        Value::Double(_) => "double",
    }
}

/// The class declaring each slot of `c`'s instance layout (own fields first, then the super's).
fn declaring_classes(heap: &Heap, c: ClassIdx) -> Vec<ClassIdx> {
    let mut out = Vec::with_capacity(heap.instance_layout(c).len());
    let mut cur = Some(c);
    while let Some(k) = cur {
        out.extend(std::iter::repeat_n(k, heap.class(k).fields.len()));
        cur = heap.class(k).super_class;
    }
    out
}

/// Fields `offset .. offset + limit` of an object: an instance's fields in layout order, an
/// array's elements (none, `total` 0, for an array whose contents are not in the dump), a class
/// object's statics.
pub fn object_fields(heap: &Heap, o: ObjIdx, offset: u64, limit: u64) -> ObjectFields {
    let end = |total: u64| offset.saturating_add(limit).min(total);
    match heap.object_kind(o) {
        ObjectKind::Instance => {
            let c = heap.class_of(o);
            let layout = heap.instance_layout(c);
            let owners = declaring_classes(heap, c);
            let total = layout.len() as u64;
            let entries = values::fields(heap, o)
                .into_iter()
                .enumerate()
                .skip(offset as usize)
                .take((end(total).saturating_sub(offset)) as usize)
                .map(|(i, (name, value))| FieldEntry {
                    name: name.to_string(),
                    ty: type_label(layout[i].ty),
                    declared_by: owners.get(i).copied(),
                    value,
                })
                .collect();
            ObjectFields { entries, total }
        }
        ObjectKind::Class => {
            let Some(c) = heap.class_described_by(o) else { return ObjectFields { entries: Vec::new(), total: 0 } };
            let statics = &heap.class(c).statics;
            let total = statics.len() as u64;
            let entries = statics[offset.min(total) as usize..end(total) as usize]
                .iter()
                .map(|s| FieldEntry { name: s.name.clone(), ty: value_type(&s.value), declared_by: Some(c), value: s.value })
                .collect();
            ObjectFields { entries, total }
        }
        // An array dumped without its contents (Android NODATA, `Heap::array_contents_missing`)
        // has no elements to list: none, not NULLs.
        _ if heap.array_contents_missing(o) => ObjectFields { entries: Vec::new(), total: 0 },
        kind => {
            let total = heap.array_length(o).unwrap_or(0) as u64;
            let ty = match kind {
                ObjectKind::PrimitiveArray(p) => prim_label(p),
                _ => "object",
            };
            let entries = (offset.min(total)..end(total))
                .map(|i| FieldEntry {
                    name: format!("[{i}]"),
                    ty,
                    declared_by: None,
                    value: heap.array_element(o, i as u32).unwrap_or(Value::Null),
                })
                .collect();
            ObjectFields { entries, total }
        }
    }
}

/// How `from` holds a reference in `slot` (as `for_each_reference` numbers slots): a field
/// name, `[i]`, a static's name, `<super>` or `<classloader>`.
pub fn slot_label(heap: &Heap, from: ObjIdx, slot: u32) -> String {
    match heap.object_kind(from) {
        ObjectKind::ObjectArray => format!("[{slot}]"),
        ObjectKind::Class => match slot {
            s if s == u32::MAX - 1 => "<super>".to_string(),
            s if s == u32::MAX - 2 => "<classloader>".to_string(),
            s => heap
                .class_described_by(from)
                .and_then(|c| heap.class(c).statics.get(s as usize))
                .map_or_else(|| format!("<static {s}>"), |f| f.name.clone()),
        },
        _ => heap
            .instance_layout(heap.class_of(from))
            .get(slot as usize)
            .map_or_else(|| format!("<field {slot}>"), |f| f.name.clone()),
    }
}

/// The first `limit` outbound references of `o` in field order (an instance's or array's
/// class object first, as `<class>`), and how many there are in all. Null fields are left out.
pub fn references(heap: &Heap, o: ObjIdx, limit: usize) -> (Vec<Reference>, u64) {
    let mut out = Vec::new();
    let mut total = 0u64;
    if heap.object_kind(o) != ObjectKind::Class {
        let class_object = heap.class(heap.class_of(o)).object;
        total += 1;
        if limit > 0 {
            out.push(Reference { id: heap.object_id(class_object), object: Some(class_object), label: "<class>".to_string() });
        }
    }
    heap.for_each_reference(o, |id, slot| {
        total += 1;
        if out.len() < limit {
            out.push(Reference { id, object: heap.index_of(id), label: slot_label(heap, o, slot) });
        }
    });
    (out, total)
}

/// Everything `!describe` shows about class `c`.
pub fn describe_class(heap: &Heap, c: ClassIdx) -> ClassDescription {
    let mut super_chain = Vec::new();
    let mut cur = heap.class(c).super_class;
    while let Some(s) = cur {
        if super_chain.contains(&s) || s == c {
            break; // a corrupt dump's cycle must not loop
        }
        super_chain.push(s);
        cur = heap.class(s).super_class;
    }
    let owners = declaring_classes(heap, c);
    let fields = heap
        .instance_layout(c)
        .iter()
        .enumerate()
        .map(|(i, f)| FieldEntry { name: f.name.clone(), ty: type_label(f.ty), declared_by: owners.get(i).copied(), value: Value::Null })
        .collect();
    let info = heap.class(c);
    let statics =
        info.statics.iter().map(|s| FieldEntry { name: s.name.clone(), ty: value_type(&s.value), declared_by: Some(c), value: s.value }).collect();
    // Per-class counts from the histogram (sparse, sorted by size): one pass, no search per class.
    let mut counts = vec![(0u64, 0u64); heap.class_count() as usize];
    for r in &heap.histogram {
        counts[r.class as usize] = (r.count, r.shallow);
    }
    let (instances, instance_bytes) = counts[c as usize];
    // The subclass tree: a worklist over the index's direct-subclass lists.
    let mut with_subclasses = 0u64;
    let mut seen = vec![false; counts.len()];
    seen[c as usize] = true;
    let mut stack = vec![c];
    while let Some(k) = stack.pop() {
        with_subclasses += counts[k as usize].0;
        for &s in heap.subclasses(k) {
            if !std::mem::replace(&mut seen[s as usize], true) {
                stack.push(s);
            }
        }
    }
    ClassDescription {
        class: c,
        super_chain,
        fields,
        statics,
        instance_size: heap.instance_size(c),
        instances,
        instance_bytes,
        instances_with_subclasses: with_subclasses,
        subclasses: heap.subclasses(c).len() as u32,
        loader_id: info.loader_id,
    }
}
