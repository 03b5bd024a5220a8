//! A small HPROF writer for tests (feature `testkit`): hand-made dumps for this crate and for
//! the crates above it (graph, exec, the N-API door).
//!
//! Two levels:
//! * [`Writer`] — raw records and sub-records, byte for byte (for malformed input tests).
//! * [`DumpBuilder`] — a tiny heap: classes with fields and statics, instances, arrays,
//!   strings, roots, threads with frames. Ids are allocated like HotSpot addresses (aligned,
//!   increasing), names are written in HotSpot's internal form (`java/lang/String`, `[I`).
//!
//! ```text
//! let mut b = DumpBuilder::new(8);
//! let node = b.class("com.example.Node", None, &[("next", BasicType::Object), ("v", BasicType::Int)]);
//! let a = b.instance(node, &[Val::Obj(0), Val::Int(1)]);
//! let c = b.instance(node, &[Val::Obj(a), Val::Int(2)]);
//! b.root_jni_global(c);
//! std::fs::write(path, b.build())?;
//! ```

use crate::types::{sub, tag, BasicType};
use std::collections::HashMap;

/// Raw writer: a header, then records appended in order.
pub struct Writer {
    pub buf: Vec<u8>,
    pub id_size: u32,
}

impl Writer {
    pub fn new(format: &str, id_size: u32, timestamp_ms: u64) -> Writer {
        let mut buf = Vec::new();
        buf.extend_from_slice(format.as_bytes());
        buf.push(0);
        buf.extend_from_slice(&id_size.to_be_bytes());
        buf.extend_from_slice(&timestamp_ms.to_be_bytes());
        Writer { buf, id_size }
    }

    /// A record with an arbitrary tag and body (length written from the body).
    pub fn record(&mut self, t: u8, body: &[u8]) -> &mut Self {
        self.buf.push(t);
        self.buf.extend_from_slice(&0u32.to_be_bytes());
        self.buf.extend_from_slice(&(body.len() as u32).to_be_bytes());
        self.buf.extend_from_slice(body);
        self
    }

    /// A record whose length field says `len` whatever the body (lying lengths).
    pub fn record_with_len(&mut self, t: u8, len: u32, body: &[u8]) -> &mut Self {
        self.buf.push(t);
        self.buf.extend_from_slice(&0u32.to_be_bytes());
        self.buf.extend_from_slice(&len.to_be_bytes());
        self.buf.extend_from_slice(body);
        self
    }

    pub fn body(&self) -> Body {
        Body { b: Vec::new(), id_size: self.id_size }
    }

    /// A UTF8 record as HotSpot writes one: modified UTF-8 (NUL as `C0 80`, a character
    /// outside the Basic Multilingual Plane as two three-byte surrogates).
    pub fn utf8(&mut self, id: u64, s: &str) -> &mut Self {
        let mut b = self.body();
        b.id(id).bytes(&modified_utf8(s));
        self.record(tag::UTF8, &b.b)
    }

    pub fn load_class(&mut self, serial: u32, class_id: u64, name_id: u64) -> &mut Self {
        let mut b = self.body();
        b.u4(serial).id(class_id).u4(1).id(name_id);
        self.record(tag::LOAD_CLASS, &b.b)
    }

    pub fn frame(&mut self, id: u64, method: u64, sig: u64, source: u64, class_serial: u32, line: i32) -> &mut Self {
        let mut b = self.body();
        b.id(id).id(method).id(sig).id(source).u4(class_serial).u4(line as u32);
        self.record(tag::FRAME, &b.b)
    }

    pub fn trace(&mut self, serial: u32, thread_serial: u32, frames: &[u64]) -> &mut Self {
        let mut b = self.body();
        b.u4(serial).u4(thread_serial).u4(frames.len() as u32);
        for &f in frames {
            b.id(f);
        }
        self.record(tag::TRACE, &b.b)
    }

    pub fn heap_dump(&mut self, body: &Body) -> &mut Self {
        self.record(tag::HEAP_DUMP, &body.b)
    }

    pub fn heap_dump_segment(&mut self, body: &Body) -> &mut Self {
        self.record(tag::HEAP_DUMP_SEGMENT, &body.b)
    }

    pub fn heap_dump_end(&mut self) -> &mut Self {
        self.record(tag::HEAP_DUMP_END, &[])
    }

    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }
}

/// Bytes of a record body or of heap sub-records, big-endian.
#[derive(Clone)]
pub struct Body {
    pub b: Vec<u8>,
    pub id_size: u32,
}

impl Body {
    pub fn new(id_size: u32) -> Body {
        Body { b: Vec::new(), id_size }
    }
    pub fn u1(&mut self, v: u8) -> &mut Self {
        self.b.push(v);
        self
    }
    pub fn u2(&mut self, v: u16) -> &mut Self {
        self.b.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn u4(&mut self, v: u32) -> &mut Self {
        self.b.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn u8(&mut self, v: u64) -> &mut Self {
        self.b.extend_from_slice(&v.to_be_bytes());
        self
    }
    pub fn id(&mut self, v: u64) -> &mut Self {
        if self.id_size == 8 {
            self.u8(v)
        } else {
            self.u4(v as u32)
        }
    }
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.b.extend_from_slice(v);
        self
    }
    pub fn val(&mut self, v: Val) -> &mut Self {
        match v {
            Val::Obj(x) => self.id(x),
            Val::Bool(x) => self.u1(x as u8),
            Val::Byte(x) => self.u1(x as u8),
            Val::Char(x) => self.u2(x),
            Val::Short(x) => self.u2(x as u16),
            Val::Int(x) => self.u4(x as u32),
            Val::Float(x) => self.u4(x.to_bits()),
            Val::Long(x) => self.u8(x as u64),
            Val::Double(x) => self.u8(x.to_bits()),
        }
    }

    // ---- sub-records ----
    pub fn root(&mut self, t: u8, id: u64) -> &mut Self {
        self.u1(t).id(id)
    }
    pub fn root_jni_global(&mut self, id: u64, ref_id: u64) -> &mut Self {
        self.u1(sub::ROOT_JNI_GLOBAL).id(id).id(ref_id)
    }
    /// JAVA FRAME / JNI LOCAL / JNI MONITOR: object, thread serial, frame depth.
    pub fn root_frame(&mut self, t: u8, id: u64, thread: u32, frame: i32) -> &mut Self {
        self.u1(t).id(id).u4(thread).u4(frame as u32)
    }
    pub fn root_thread(&mut self, t: u8, id: u64, thread: u32) -> &mut Self {
        self.u1(t).id(id).u4(thread)
    }
    pub fn root_thread_object(&mut self, id: u64, thread_serial: u32, trace_serial: u32) -> &mut Self {
        self.u1(sub::ROOT_THREAD_OBJECT).id(id).u4(thread_serial).u4(trace_serial)
    }
    #[allow(clippy::too_many_arguments)]
    pub fn class_dump(
        &mut self,
        id: u64,
        super_id: u64,
        loader_id: u64,
        instance_size: u32,
        statics: &[(u64, Val)],
        fields: &[(u64, BasicType)],
    ) -> &mut Self {
        self.u1(sub::CLASS_DUMP).id(id).u4(1).id(super_id).id(loader_id).id(0).id(0).id(0).id(0);
        self.u4(instance_size).u2(0).u2(statics.len() as u16);
        for &(name, v) in statics {
            self.id(name).u1(v.ty().code()).val(v);
        }
        self.u2(fields.len() as u16);
        for &(name, ty) in fields {
            self.id(name).u1(ty.code());
        }
        self
    }
    pub fn instance(&mut self, id: u64, class_id: u64, data: &[u8]) -> &mut Self {
        self.u1(sub::INSTANCE_DUMP).id(id).u4(1).id(class_id).u4(data.len() as u32).bytes(data)
    }
    pub fn obj_array(&mut self, id: u64, class_id: u64, elems: &[u64]) -> &mut Self {
        self.u1(sub::OBJ_ARRAY_DUMP).id(id).u4(1).u4(elems.len() as u32).id(class_id);
        for &e in elems {
            self.id(e);
        }
        self
    }
    /// `data` holds the big-endian element bytes.
    pub fn prim_array(&mut self, id: u64, ty: BasicType, len: u32, data: &[u8]) -> &mut Self {
        self.u1(sub::PRIM_ARRAY_DUMP).id(id).u4(1).u4(len).u1(ty.code()).bytes(data)
    }
}

/// A field or static value for the builders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    Obj(u64),
    Bool(bool),
    Byte(i8),
    Char(u16),
    Short(i16),
    Int(i32),
    Float(f32),
    Long(i64),
    Double(f64),
}

impl Val {
    pub fn ty(self) -> BasicType {
        match self {
            Val::Obj(_) => BasicType::Object,
            Val::Bool(_) => BasicType::Boolean,
            Val::Byte(_) => BasicType::Byte,
            Val::Char(_) => BasicType::Char,
            Val::Short(_) => BasicType::Short,
            Val::Int(_) => BasicType::Int,
            Val::Float(_) => BasicType::Float,
            Val::Long(_) => BasicType::Long,
            Val::Double(_) => BasicType::Double,
        }
    }
}

/// What `DumpBuilder::build` writes at a place among the objects.
enum Placed {
    /// A new HEAP DUMP SEGMENT begins.
    Segment,
    /// The CLASS DUMP of `classes[i]`.
    Class(usize),
}

struct ClassSpec {
    id: u64,
    super_id: u64,
    loader_id: u64,
    fields: Vec<(u64, BasicType)>,
    statics: Vec<(u64, Val)>,
}

/// A tiny heap, written as HotSpot would (`JAVA PROFILE 1.0.2`, one segment, internal names).
///
/// `java.lang.Object`, `java.lang.String` (JDK 9+ layout: `value byte[]`, `coder byte`,
/// `hash int`), `java.lang.Class`, `java.lang.Thread` (`name String`, `daemon boolean`) and the
/// eight primitive array classes exist from the start (see the `*_class` fields).
pub struct DumpBuilder {
    pub id_size: u32,
    next_id: u64,
    names: HashMap<String, u64>,
    strings: Vec<(u64, String)>,
    load: Vec<(u64, u64)>,
    classes: Vec<ClassSpec>,
    heap: Body,
    roots: Body,
    frames: Vec<(u64, u64, u64, u64, u32, i32)>,
    traces: Vec<(u32, u32, Vec<u64>)>,
    pub object_class: u64,
    pub string_class: u64,
    pub class_class: u64,
    pub thread_class: u64,
    pub byte_array_class: u64,
    pub char_array_class: u64,
    pub int_array_class: u64,
    pub long_array_class: u64,
    pub object_array_class: u64,
    /// Per-class total field bytes (for instance checks).
    field_bytes: HashMap<u64, u32>,
    /// Id step between objects (addresses): a gap of 16 bytes keeps ids aligned.
    pub id_step: u64,
    /// The header's format text.
    format: String,
    /// Class dumps written where the class is defined among the objects (`classes_in_place`).
    in_place: bool,
    /// Segment starts and in-place class dumps: (position in `heap`, what), in order.
    placed: Vec<(usize, Placed)>,
}

/// Java-form name → HotSpot internal form (`java.lang.String` → `java/lang/String`,
/// `int[]` → `[I`, `java.lang.Object[]` → `[Ljava/lang/Object;`).
pub fn internal_name(java: &str) -> String {
    let mut dims = 0;
    let mut base = java;
    while let Some(b) = base.strip_suffix("[]") {
        dims += 1;
        base = b;
    }
    if dims == 0 {
        return java.replace('.', "/");
    }
    let elem = match base {
        "boolean" => "Z".to_string(),
        "char" => "C".to_string(),
        "float" => "F".to_string(),
        "double" => "D".to_string(),
        "byte" => "B".to_string(),
        "short" => "S".to_string(),
        "int" => "I".to_string(),
        "long" => "J".to_string(),
        other => format!("L{};", other.replace('.', "/")),
    };
    format!("{}{}", "[".repeat(dims), elem)
}

impl DumpBuilder {
    pub fn new(id_size: u32) -> DumpBuilder {
        let mut b = DumpBuilder {
            id_size,
            next_id: 0x1000,
            names: HashMap::new(),
            strings: Vec::new(),
            load: Vec::new(),
            classes: Vec::new(),
            heap: Body::new(id_size),
            roots: Body::new(id_size),
            frames: Vec::new(),
            traces: Vec::new(),
            object_class: 0,
            string_class: 0,
            class_class: 0,
            thread_class: 0,
            byte_array_class: 0,
            char_array_class: 0,
            int_array_class: 0,
            long_array_class: 0,
            object_array_class: 0,
            field_bytes: HashMap::new(),
            id_step: 16,
            format: "JAVA PROFILE 1.0.2".to_string(),
            in_place: false,
            placed: Vec::new(),
        };
        b.object_class = b.class("java.lang.Object", None, &[]);
        b.class_class = b.class("java.lang.Class", Some(b.object_class), &[]);
        for p in ["boolean", "char", "float", "double", "byte", "short", "int", "long"] {
            let c = b.class(&format!("{p}[]"), Some(b.object_class), &[]);
            match p {
                "byte" => b.byte_array_class = c,
                "char" => b.char_array_class = c,
                "int" => b.int_array_class = c,
                "long" => b.long_array_class = c,
                _ => {}
            }
        }
        b.object_array_class = b.class("java.lang.Object[]", Some(b.object_class), &[]);
        b.string_class = b.class(
            "java.lang.String",
            Some(b.object_class),
            &[("value", BasicType::Object), ("coder", BasicType::Byte), ("hash", BasicType::Int)],
        );
        b.thread_class = b.class(
            "java.lang.Thread",
            Some(b.object_class),
            &[("name", BasicType::Object), ("daemon", BasicType::Boolean)],
        );
        b
    }

    /// A fresh aligned id.
    pub fn alloc_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += self.id_step;
        id
    }

    /// The UTF8 string id of a name (written once).
    pub fn name_id(&mut self, s: &str) -> u64 {
        if let Some(&id) = self.names.get(s) {
            return id;
        }
        let id = 0x7000_0000 + self.strings.len() as u64 * 8 + 8;
        self.names.insert(s.to_string(), id);
        self.strings.push((id, s.to_string()));
        id
    }

    /// Defines a class (Java-form name) with its own instance fields; returns its class id.
    pub fn class(&mut self, name: &str, super_id: Option<u64>, fields: &[(&str, BasicType)]) -> u64 {
        self.class_full(name, super_id, 0, fields, &[])
    }

    /// A class with a loader and static fields.
    pub fn class_full(
        &mut self,
        name: &str,
        super_id: Option<u64>,
        loader_id: u64,
        fields: &[(&str, BasicType)],
        statics: &[(&str, Val)],
    ) -> u64 {
        let id = self.alloc_id();
        let nid = self.name_id(&internal_name(name));
        self.load.push((id, nid));
        let fields: Vec<(u64, BasicType)> = fields.iter().map(|(n, t)| (self.name_id(n), *t)).collect();
        let statics: Vec<(u64, Val)> = statics.iter().map(|(n, v)| (self.name_id(n), *v)).collect();
        let own: u32 = fields.iter().map(|(_, t)| t.file_size(self.id_size)).sum();
        let sup = super_id.unwrap_or(0);
        let total = own + self.field_bytes.get(&sup).copied().unwrap_or(0);
        self.field_bytes.insert(id, total);
        self.classes.push(ClassSpec { id, super_id: sup, loader_id, fields, statics });
        if self.in_place {
            self.placed.push((self.heap.b.len(), Placed::Class(self.classes.len() - 1)));
        }
        id
    }

    /// The header's format text (`JAVA PROFILE 1.0.3` for an Android dump).
    pub fn set_format(&mut self, format: &str) {
        self.format = format.to_string();
    }

    /// From here on, a class's CLASS DUMP is written where it is defined among the objects
    /// (as ART writes it, in the heap walk), not with the classes before all objects.
    pub fn classes_in_place(&mut self) {
        self.in_place = true;
    }

    /// Android HEAP DUMP INFO (0xFE): the objects after it are in heap `name` (ART's heap
    /// ids: `'A'` app, `'Z'` zygote, `'I'` image).
    pub fn heap_info(&mut self, heap_id: u32, name: &str) {
        let nid = self.name_id(name);
        self.heap.u1(sub::HEAP_DUMP_INFO).u4(heap_id).id(nid);
    }

    /// Ends the current HEAP DUMP SEGMENT: what follows is written in a new one.
    pub fn new_segment(&mut self) {
        self.placed.push((self.heap.b.len(), Placed::Segment));
    }

    /// Sets the statics of an already defined class (for statics that refer to later objects).
    pub fn set_statics(&mut self, class_id: u64, statics: &[(&str, Val)]) {
        let statics: Vec<(u64, Val)> = statics.iter().map(|(n, v)| (self.name_id(n), *v)).collect();
        if let Some(c) = self.classes.iter_mut().find(|c| c.id == class_id) {
            c.statics = statics;
        }
    }

    /// Sets the instance size a class's CLASS DUMP records (by default its instances' field
    /// bytes, as HotSpot writes it, 0 for an array class): Android writes real object sizes,
    /// and for an array class its array header (ART since about 2025) or 0 (Dalvik, early ART).
    pub fn set_instance_size(&mut self, class_id: u64, size: u32) {
        self.field_bytes.insert(class_id, size);
    }

    /// An instance; `values` in layout order: own fields first, then the super class's, ...
    pub fn instance(&mut self, class_id: u64, values: &[Val]) -> u64 {
        let id = self.alloc_id();
        self.instance_with_id(id, class_id, values);
        id
    }

    pub fn instance_with_id(&mut self, id: u64, class_id: u64, values: &[Val]) {
        let mut data = Body::new(self.id_size);
        for &v in values {
            data.val(v);
        }
        self.heap.instance(id, class_id, &data.b);
    }

    pub fn object_array(&mut self, class_id: u64, elems: &[u64]) -> u64 {
        let id = self.alloc_id();
        self.heap.obj_array(id, class_id, elems);
        id
    }

    /// A primitive array from values of one type.
    pub fn primitive_array(&mut self, ty: BasicType, values: &[Val]) -> u64 {
        let id = self.alloc_id();
        let mut data = Body::new(self.id_size);
        for &v in values {
            data.val(v);
        }
        self.heap.prim_array(id, ty, values.len() as u32, &data.b);
        id
    }

    pub fn byte_array(&mut self, bytes: &[u8]) -> u64 {
        let id = self.alloc_id();
        self.heap.prim_array(id, BasicType::Byte, bytes.len() as u32, bytes);
        id
    }

    /// An Android array dumped without its data (PRIMITIVE ARRAY NODATA, 0xC3) of `len`
    /// elements of type `ty`.
    pub fn nodata_array(&mut self, ty: BasicType, len: u32) -> u64 {
        let id = self.alloc_id();
        self.heap.u1(sub::PRIM_ARRAY_NODATA).id(id).u4(0).u4(len).u1(ty.code());
        id
    }

    /// A JDK 9+ Latin-1 `java.lang.String` (its `byte[]` value is created too), UTF-16 when a
    /// character is beyond Latin-1.
    pub fn string(&mut self, s: &str) -> u64 {
        let latin1: Option<Vec<u8>> = s.chars().map(|c| u8::try_from(c as u32).ok()).collect();
        match latin1 {
            Some(bytes) => {
                let value = self.byte_array(&bytes);
                self.string_over(value, 0)
            }
            None => self.utf16_string(&s.encode_utf16().collect::<Vec<_>>()),
        }
    }

    /// A JDK 9+ String of exactly these UTF-16 units (coder 1, the machine's little-endian
    /// order), unpaired surrogates included.
    pub fn utf16_string(&mut self, units: &[u16]) -> u64 {
        let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
        let value = self.byte_array(&bytes);
        self.string_over(value, 1)
    }

    /// A String whose value is a `char[]` of these units (the JDK 8 and Android form), in the
    /// kit's String layout (coder 0).
    pub fn char_string(&mut self, units: &[u16]) -> u64 {
        let chars: Vec<Val> = units.iter().map(|&u| Val::Char(u)).collect();
        let value = self.primitive_array(BasicType::Char, &chars);
        self.string_over(value, 0)
    }

    /// A String of the kit's layout over an existing value (an array id, or 0 for null) with
    /// this `coder`.
    pub fn string_over(&mut self, value: u64, coder: i8) -> u64 {
        self.instance(self.string_class, &[Val::Obj(value), Val::Byte(coder), Val::Int(0)])
    }

    /// A chain of `len` instances of a class `name` whose field `next` holds the one made
    /// before it, the last made held by a JNI global: a dominator path `len` objects long (the
    /// shape for tests of deep walks and of where they stop). Gives the head's id.
    pub fn chain(&mut self, name: &str, len: usize) -> u64 {
        let node_class = self.class(name, Some(self.object_class), &[("next", BasicType::Object)]);
        let mut next = 0;
        for _ in 0..len {
            next = self.instance(node_class, &[Val::Obj(next)]);
        }
        self.root_jni_global(next);
        next
    }

    pub fn root_jni_global(&mut self, id: u64) {
        self.roots.root_jni_global(id, 0);
    }
    pub fn root_sticky_class(&mut self, id: u64) {
        self.roots.root(sub::ROOT_STICKY_CLASS, id);
    }
    /// Any root with only an id (UNKNOWN, STICKY CLASS, MONITOR USED, Android kinds).
    pub fn root(&mut self, t: u8, id: u64) {
        self.roots.root(t, id);
    }
    pub fn root_java_frame(&mut self, id: u64, thread_serial: u32, depth: i32) {
        self.roots.root_frame(sub::ROOT_JAVA_FRAME, id, thread_serial, depth);
    }

    /// A thread: a `java.lang.Thread` instance named `name`, a THREAD OBJECT root, and a stack
    /// trace of `frames` (method, class name, line), top first. Returns (thread object id, serial).
    pub fn thread(&mut self, name: &str, daemon: bool, frames: &[(&str, &str, i32)]) -> (u64, u32) {
        let serial = self.traces.len() as u32 + 1;
        let trace_serial = serial + 100;
        let n = self.string(name);
        let t = self.instance(self.thread_class, &[Val::Obj(n), Val::Bool(daemon)]);
        let mut ids = Vec::new();
        for (i, (method, class, line)) in frames.iter().enumerate() {
            let fid = ((serial as u64) << 16) | (i as u64 + 1);
            let m = self.name_id(method);
            let sig = self.name_id("()V");
            let src = self.name_id(&format!("{}.java", class.rsplit('.').next().unwrap_or(class)));
            // The class serial of a frame is the LOAD CLASS serial of its declaring class.
            let cid = self.class_serial_of(class);
            self.frames.push((fid, m, sig, src, cid, *line));
            ids.push(fid);
        }
        self.traces.push((trace_serial, serial, ids));
        self.roots.root_thread_object(t, serial, trace_serial);
        (t, serial)
    }

    fn class_serial_of(&mut self, java_name: &str) -> u32 {
        let nid = self.name_id(&internal_name(java_name));
        match self.load.iter().position(|&(_, n)| n == nid) {
            Some(i) => i as u32 + 1,
            None => 0,
        }
    }

    /// Raw sub-record bytes appended to the heap part (for malformed-input tests).
    pub fn raw_heap(&mut self) -> &mut Body {
        &mut self.heap
    }

    /// The whole file: strings, LOAD CLASS, frames, traces, then one HEAP DUMP SEGMENT with the
    /// class dumps, the objects and the roots, then HEAP DUMP END (more segments after each
    /// `new_segment`, the roots in the last; class dumps among the objects after
    /// `classes_in_place`).
    pub fn build(&self) -> Vec<u8> {
        let mut w = Writer::new(&self.format, self.id_size, 1_700_000_000_000);
        for (id, s) in &self.strings {
            w.utf8(*id, s);
        }
        for (i, (cid, nid)) in self.load.iter().enumerate() {
            w.load_class(i as u32 + 1, *cid, *nid);
        }
        for &(fid, m, sig, src, cs, line) in &self.frames {
            w.frame(fid, m, sig, src, cs, line);
        }
        w.trace(1, 0, &[]);
        for (ts, th, ids) in &self.traces {
            w.trace(*ts, *th, ids);
        }
        let class_dump = |seg: &mut Body, c: &ClassSpec| {
            let size = self.field_bytes.get(&c.id).copied().unwrap_or(0);
            seg.class_dump(c.id, c.super_id, c.loader_id, size, &c.statics, &c.fields);
        };
        let mut seg = Body::new(self.id_size);
        let in_place: Vec<usize> = self.placed.iter().filter_map(|p| if let Placed::Class(i) = p.1 { Some(i) } else { None }).collect();
        for (i, c) in self.classes.iter().enumerate() {
            if !in_place.contains(&i) {
                class_dump(&mut seg, c);
            }
        }
        let mut at = 0;
        for (pos, what) in &self.placed {
            seg.bytes(&self.heap.b[at..*pos]);
            at = *pos;
            match what {
                Placed::Segment => {
                    w.heap_dump_segment(&seg);
                    seg = Body::new(self.id_size);
                }
                Placed::Class(i) => class_dump(&mut seg, &self.classes[*i]),
            }
        }
        seg.bytes(&self.heap.b[at..]);
        seg.bytes(&self.roots.b);
        w.heap_dump_segment(&seg);
        w.heap_dump_end();
        w.finish()
    }
}

/// `s` in the JVM's modified UTF-8 (hprof-format.md §5.1).
fn modified_utf8(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for u in s.encode_utf16() {
        match u {
            0 => out.extend_from_slice(&[0xC0, 0x80]),
            1..=0x7F => out.push(u as u8),
            0x80..=0x7FF => out.extend_from_slice(&[0xC0 | (u >> 6) as u8, 0x80 | (u & 0x3F) as u8]),
            _ => out.extend_from_slice(&[0xE0 | (u >> 12) as u8, 0x80 | ((u >> 6) & 0x3F) as u8, 0x80 | (u & 0x3F) as u8]),
        }
    }
    out
}

/// xorshift64*: a deterministic stream of numbers for the mutation tests (no dependency; the
/// same seed gives the same damaged dumps on every machine).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 for `n` of 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
