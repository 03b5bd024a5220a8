//! Point look-ups across the boundary: one object (fields, referents, referrers, path to a GC
//! root, dominator) and one class. The work is in `heapql_heap::inspect` and
//! `heapql_graph::lookup`; this file converts. Each call runs off the event loop, since the
//! first referrer or path look-up after the analysis builds its index once.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::json;

use heapql_heap::inspect::{self, FieldEntry};
use heapql_heap::{Heap, ObjIdx, ObjectKind, Value};
use heapql_graph::lookup::TopOfTree;

use crate::analysis::SharedState;
use crate::convert::{coded, on_dump, JsCell};
use crate::heap_handle::HeapHandle;

/// A reference to one heap object, as query results carry it.
#[napi(object)]
pub struct JsObjectRef {
    pub object_id: u32,
    pub address: String,
    pub class_name: String,
    pub label: String,
}

/// One field, array element or static.
#[napi(object)]
pub struct JsField {
    pub name: String,
    /// `object`, `int`, `long`, …
    #[napi(js_name = "type")]
    pub ty: String,
    /// The declaring class (absent for array elements).
    pub declared_by: Option<String>,
    /// null, a boolean, a number, a string (a char, exactly: a lone surrogate is that one unit;
    /// a long beyond 2^53; a dangling reference as `0x… (not in the dump)`), or an object
    /// reference {objectId, address, className, label}. A float is its shortest decimal (`0.1f`
    /// is 0.1), as in OQL.
    #[napi(ts_type = "null | boolean | number | string | JsObjectRef")]
    pub value: JsCell,
}

#[napi(object)]
pub struct JsObjectDetail {
    pub object: JsObjectRef,
    /// instance | object-array | primitive-array | class
    pub kind: String,
    pub shallow_size: f64,
    /// After analyze() only, and only for an object in the dominator tree (null for an
    /// unreachable one when the analysis left those out).
    pub retained_size: Option<f64>,
    /// After analyze() only: reachable from a GC root.
    pub reachable: Option<bool>,
    pub array_length: Option<u32>,
    /// For a class object: the class it describes.
    pub described_class: Option<String>,
    /// The GC root kinds of the object's root records (empty when it is no root).
    pub gc_roots: Vec<String>,
    /// Android: the heap the object is in (`app`, `zygote`, `image`); absent for a dump
    /// without HEAP DUMP INFO records.
    pub heap: Option<String>,
    pub fields: Vec<JsField>,
    /// Fields (elements, statics) in all; `fields` holds the window asked for.
    pub field_count: f64,
    /// An array dumped without its contents (Android PRIMITIVE ARRAY NODATA): its length is
    /// known (`arrayLength`), its elements are not, so `fields` is empty and `fieldCount` 0.
    pub contents_missing: bool,
}

#[napi(object)]
pub struct JsObjectLookupOptions {
    /// First field (array element) shown, default 0.
    pub field_offset: Option<u32>,
    /// Fields shown, default 100.
    pub field_limit: Option<u32>,
}

#[napi(object)]
pub struct JsReference {
    /// The other object; absent for a reference to an id that is not in the dump.
    pub object: Option<JsObjectRef>,
    pub address: String,
    /// The field that holds the reference (`next`, `[3]`, `<class>`, a static's name).
    pub field: String,
}

#[napi(object)]
pub struct JsReferenceList {
    pub items: Vec<JsReference>,
    pub total: f64,
}

#[napi(object)]
pub struct JsPathStep {
    pub object: JsObjectRef,
    /// For the first step the GC root kinds, then the referrer's field.
    pub via: String,
    /// Steps of a long path left out just before this one (0 for none).
    pub skipped: f64,
}

#[napi(object)]
pub struct JsDominated {
    pub object: JsObjectRef,
    pub retained_size: f64,
    pub shallow_size: f64,
}

/// Android: the part of an object's retained size in one heap.
#[napi(object)]
pub struct JsHeapBytes {
    /// `app`, `zygote`, `image` or `default`.
    pub name: String,
    pub retained: f64,
}

#[napi(object)]
pub struct JsDominatorView {
    pub object: JsObjectRef,
    /// Absent for an object outside the tree.
    pub retained_size: Option<f64>,
    /// Absent for a GC root (a child of the tree's root) or an object outside the tree.
    pub dominator: Option<JsObjectRef>,
    /// False for an unreachable object when the analysis left those out.
    pub in_tree: bool,
    /// Why an object of the tree has no dominator; absent when it has one or is outside the tree.
    #[napi(ts_type = "'root' | 'shared' | 'unreachable'")]
    pub top: Option<String>,
    pub children: Vec<JsDominated>,
    pub child_count: f64,
}

#[napi(object)]
pub struct JsClassDescription {
    pub name: String,
    /// The class object.
    pub class_object: JsObjectRef,
    /// Superclass names, nearest first.
    pub super_chain: Vec<String>,
    /// Instance fields in layout order (own first); `value` is null.
    pub fields: Vec<JsField>,
    pub statics: Vec<JsField>,
    pub instance_size: f64,
    pub instances: f64,
    pub instance_bytes: f64,
    pub instances_with_subclasses: f64,
    pub subclasses: u32,
    /// The class loader's address (`0x0` = bootstrap).
    pub loader: String,
}

fn object_ref(heap: &Heap, o: ObjIdx) -> JsObjectRef {
    let (address, class_name, label) = heapql_exec::describe(heap, o);
    JsObjectRef { object_id: o, address, class_name, label }
}

/// A field's value for JavaScript (`JsField::value`).
fn js_value(heap: &Heap, v: Value) -> JsCell {
    const SAFE: i64 = 1 << 53;
    JsCell::Json(match v {
        Value::Null => serde_json::Value::Null,
        Value::Object(id) => match heap.index_of(id) {
            Some(o) => {
                let r = object_ref(heap, o);
                json!({ "objectId": r.object_id, "address": r.address, "className": r.class_name, "label": r.label })
            }
            None => json!(format!("0x{id:x} (not in the dump)")),
        },
        Value::Boolean(b) => json!(b),
        Value::Char(c) => match char::from_u32(c as u32) {
            Some(c) => json!(c.to_string()),
            // A lone surrogate: that one UTF-16 unit, as Java holds it.
            None => return JsCell::Utf16(vec![c]),
        },
        Value::Byte(x) => json!(x),
        Value::Short(x) => json!(x),
        Value::Int(x) => json!(x),
        Value::Long(x) if (-SAFE..=SAFE).contains(&x) => json!(x),
        Value::Long(x) => json!(x.to_string()),
        Value::Float(x) if x.is_finite() => json!(heapql_exec::float_value(x)),
        Value::Double(x) if x.is_finite() => json!(x),
        Value::Float(x) => json!(x.to_string()),
        Value::Double(x) => json!(x.to_string()),
    })
}

fn field(heap: &Heap, f: FieldEntry, with_value: bool) -> JsField {
    JsField {
        name: f.name,
        ty: f.ty.to_string(),
        declared_by: f.declared_by.map(|c| heap.class(c).name.clone()),
        value: if with_value { js_value(heap, f.value) } else { JsCell::Json(serde_json::Value::Null) },
    }
}

/// The JavaScript name of why an object of the tree has no dominator.
fn top_name(top: TopOfTree) -> String {
    match top {
        TopOfTree::GcRoot => "root",
        TopOfTree::Shared => "shared",
        TopOfTree::Unreachable => "unreachable",
    }
    .to_string()
}

fn check_object(heap: &Heap, o: u32) -> Result<ObjIdx> {
    let count = heap.object_count();
    if o >= count {
        // The session's words (session.ts objectIndex) and the HTTP server's, for an empty heap too.
        let has = match count {
            0 => "the heap has no objects".to_string(),
            n => format!("the heap has objects 0 to {}", n - 1),
        };
        return Err(coded("ERR_NO_SUCH_OBJECT", format!("object {o} does not exist ({has})")));
    }
    Ok(o)
}

fn needs_analysis(what: &str) -> Error {
    coded("ERR_NEEDS_ANALYSIS", format!("{what} need the full analysis: run analyze() (!analyze in the REPL) first"))
}

/// One look-up run on the libuv pool.
pub struct Lookup<T: Send + 'static> {
    state: Arc<SharedState>,
    what: &'static str,
    work: Option<Box<dyn FnOnce(&SharedState) -> Result<T> + Send>>,
}

impl<T: ToNapiValue + TypeName + Send + 'static> Task for Lookup<T> {
    type Output = T;
    type JsValue = T;

    fn compute(&mut self) -> Result<T> {
        let work = self.work.take().ok_or_else(|| coded("ERR_INTERNAL", "a look-up ran twice"))?;
        on_dump(&self.state.heap, self.what, || work(&self.state))
    }

    fn resolve(&mut self, _env: Env, value: T) -> Result<T> {
        Ok(value)
    }
}

impl HeapHandle {
    fn lookup<T: ToNapiValue + TypeName + Send + 'static>(
        &self,
        what: &'static str,
        work: impl FnOnce(&SharedState) -> Result<T> + Send + 'static,
    ) -> Result<AsyncTask<Lookup<T>>> {
        Ok(AsyncTask::new(Lookup { state: self.state()?, what, work: Some(Box::new(work)) }))
    }
}

#[napi]
impl HeapHandle {
    /// One object: class, address, sizes, GC root kinds and a window of its fields with names,
    /// types and values (an array's elements, a class object's statics).
    #[napi(ts_return_type = "Promise<JsObjectDetail>")]
    pub fn object(&self, object: u32, options: Option<JsObjectLookupOptions>) -> Result<AsyncTask<Lookup<JsObjectDetail>>> {
        let (offset, limit) = options.map_or((0, 100), |o| (o.field_offset.unwrap_or(0), o.field_limit.unwrap_or(100)));
        self.lookup("reading an object", move |state| {
            let heap = &state.heap;
            let o = check_object(heap, object)?;
            let analysis = state.analysis();
            let fields = inspect::object_fields(heap, o, offset as u64, limit as u64);
            let mut roots: Vec<String> =
                heap.gc_roots().iter().filter(|r| r.object == o).map(|r| r.kind.label().to_string()).collect();
            roots.sort();
            roots.dedup();
            let kind = match heap.object_kind(o) {
                ObjectKind::Instance => "instance",
                ObjectKind::ObjectArray => "object-array",
                ObjectKind::PrimitiveArray(_) => "primitive-array",
                ObjectKind::Class => "class",
            };
            Ok(JsObjectDetail {
                object: object_ref(heap, o),
                kind: kind.to_string(),
                shallow_size: heap.shallow_size(o) as f64,
                retained_size: analysis.as_ref().and_then(|a| a.retained(o)).map(|r| r as f64),
                reachable: analysis.as_ref().map(|a| a.is_reachable(o)),
                array_length: heap.array_length(o),
                described_class: heap.class_described_by(o).map(|c| heap.class(c).name.clone()),
                gc_roots: roots,
                heap: heap.heap_name_of(o).map(str::to_string),
                field_count: fields.total as f64,
                fields: fields.entries.into_iter().map(|f| field(heap, f, true)).collect(),
                contents_missing: heap.array_contents_missing(o),
            })
        })
    }

    /// The objects `object` refers to (its class object first), with the holding field.
    #[napi(ts_return_type = "Promise<JsReferenceList>")]
    pub fn referents(&self, object: u32, limit: u32) -> Result<AsyncTask<Lookup<JsReferenceList>>> {
        self.lookup("listing references", move |state| {
            let heap = &state.heap;
            let o = check_object(heap, object)?;
            let (refs, total) = inspect::references(heap, o, limit as usize);
            let items = refs
                .into_iter()
                .map(|r| JsReference { object: r.object.map(|t| object_ref(heap, t)), address: format!("0x{:x}", r.id), field: r.label })
                .collect();
            Ok(JsReferenceList { items, total: total as f64 })
        })
    }

    /// The objects that refer to `object`, with the field of each (full analysis only).
    #[napi(ts_return_type = "Promise<JsReferenceList>")]
    pub fn referrers(&self, object: u32, limit: u32) -> Result<AsyncTask<Lookup<JsReferenceList>>> {
        self.lookup("listing referrers", move |state| {
            let heap = &state.heap;
            let o = check_object(heap, object)?;
            let analysis = state.analysis().ok_or_else(|| needs_analysis("referrers"))?;
            let (refs, total) = heapql_graph::lookup::referrers(&analysis, heap, o, limit as usize);
            let items = refs
                .into_iter()
                .map(|(from, label)| JsReference { address: format!("0x{:x}", heap.object_id(from)), object: Some(object_ref(heap, from)), field: label })
                .collect();
            Ok(JsReferenceList { items, total: total as f64 })
        })
    }

    /// A shortest path from a GC root to `object`, root first; null when none exists (an
    /// unreachable object under a reachable-only analysis). A path longer than `maxSteps`
    /// (default 100) keeps its first and last halves; the step after the gap says how many
    /// steps were left out. Full analysis only.
    #[napi(ts_return_type = "Promise<JsPathStep[] | null>")]
    pub fn path_to_root(&self, object: u32, max_steps: Option<u32>) -> Result<AsyncTask<Lookup<Option<Vec<JsPathStep>>>>> {
        let max = max_steps.unwrap_or(100).max(2) as usize;
        self.lookup("finding a path to a GC root", move |state| {
            let heap = &state.heap;
            let o = check_object(heap, object)?;
            let analysis = state.analysis().ok_or_else(|| needs_analysis("paths to GC roots"))?;
            Ok(heapql_graph::lookup::path_to_root_window(&analysis, heap, o, max / 2, max - max / 2).map(|w| {
                w.steps
                    .into_iter()
                    .enumerate()
                    .map(|(i, s)| JsPathStep {
                        object: object_ref(heap, s.object),
                        via: s.label,
                        skipped: if i == w.gap_at { w.skipped as f64 } else { 0.0 },
                    })
                    .collect()
            }))
        })
    }

    /// The immediate dominator of `object` and the `limit` biggest objects it dominates
    /// (full analysis only).
    #[napi(ts_return_type = "Promise<JsDominatorView>")]
    pub fn dominator_of(&self, object: u32, limit: u32) -> Result<AsyncTask<Lookup<JsDominatorView>>> {
        self.lookup("reading the dominator tree", move |state| {
            let heap = &state.heap;
            let o = check_object(heap, object)?;
            let analysis = state.analysis().ok_or_else(|| needs_analysis("dominators"))?;
            let view = heapql_graph::lookup::dominator_view(&analysis, o, limit as usize);
            Ok(JsDominatorView {
                object: object_ref(heap, o),
                retained_size: analysis.retained(o).map(|r| r as f64),
                dominator: view.dominator.map(|d| object_ref(heap, d)),
                in_tree: view.in_tree,
                top: view.top.map(top_name),
                children: view
                    .children
                    .into_iter()
                    .map(|c| JsDominated {
                        object: object_ref(heap, c),
                        retained_size: analysis.retained_size(c) as f64,
                        shallow_size: heap.shallow_size(c) as f64,
                    })
                    .collect(),
                child_count: view.child_count as f64,
            })
        })
    }

    /// Android: the retained size of each of `objects` split by the heaps of the objects it
    /// holds (`heapql_graph::lookup::retained_by_heap`), one list per object in the order
    /// given: the heaps with bytes, in heap-number order; empty lists for a dump without heaps
    /// or an object outside the tree. Full analysis only.
    #[napi(ts_return_type = "Promise<JsHeapBytes[][]>")]
    pub fn retained_by_heap(&self, objects: Vec<u32>) -> Result<AsyncTask<Lookup<Vec<Vec<JsHeapBytes>>>>> {
        self.lookup("splitting retained sizes by heap", move |state| {
            let heap = &state.heap;
            let objects = objects.into_iter().map(|o| check_object(heap, o)).collect::<Result<Vec<ObjIdx>>>()?;
            let analysis = state.analysis().ok_or_else(|| needs_analysis("retained sizes by heap"))?;
            let names = heap.heap_names();
            Ok(heapql_graph::lookup::retained_by_heap(&analysis, heap, &objects)
                .into_iter()
                .map(|sums| {
                    sums.into_iter()
                        .enumerate()
                        .filter(|&(_, b)| b > 0)
                        .map(|(k, b)| JsHeapBytes { name: names[k].to_string(), retained: b as f64 })
                        .collect()
                })
                .collect())
        })
    }

    /// Every class of this name (several class loaders may define one name): fields with
    /// types, statics, superclass chain, instance counts. Empty when no class has the name.
    #[napi(ts_return_type = "Promise<JsClassDescription[]>")]
    pub fn describe_class(&self, name: String) -> Result<AsyncTask<Lookup<Vec<JsClassDescription>>>> {
        self.lookup("describing a class", move |state| {
            let heap = &state.heap;
            Ok(heap
                .classes_named(&name)
                .iter()
                .map(|&c| {
                    let d = inspect::describe_class(heap, c);
                    JsClassDescription {
                        name: heap.class(c).name.clone(),
                        class_object: object_ref(heap, heap.class(c).object),
                        super_chain: d.super_chain.iter().map(|&s| heap.class(s).name.clone()).collect(),
                        fields: d.fields.into_iter().map(|f| field(heap, f, false)).collect(),
                        statics: d.statics.into_iter().map(|f| field(heap, f, true)).collect(),
                        instance_size: d.instance_size as f64,
                        instances: d.instances as f64,
                        instance_bytes: d.instance_bytes as f64,
                        instances_with_subclasses: d.instances_with_subclasses as f64,
                        subclasses: d.subclasses,
                        loader: format!("0x{:x}", d.loader_id),
                    }
                })
                .collect())
        })
    }

    /// The object index of an address (`0x…` hex); null when no object has it.
    #[napi]
    pub fn object_at(&self, address: String) -> Result<Option<u32>> {
        let state = self.state()?;
        let heap = &state.heap;
        let digits = address.strip_prefix("0x").or_else(|| address.strip_prefix("0X")).unwrap_or(&address);
        let id = u64::from_str_radix(digits, 16)
            .map_err(|_| coded("ERR_ARGUMENT", format!("'{address}' is not a hex address (write it like 0x7f3a0010)")))?;
        Ok(heap.index_of(id))
    }
}
