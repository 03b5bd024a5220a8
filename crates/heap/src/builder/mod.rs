//! Building the index: the record walk (strings, classes' names, frames, traces), one parallel
//! pass over the chosen dump's heap segments (object headers, class dumps, roots), then the
//! class table, roots, threads, system properties and the shallow-size model.

mod heap_pass;
mod model;
mod objects;
mod records;

use crate::classes::java_name;
use crate::ids::{self, ObjIndex};
use crate::layout::{self, LayoutClass, Model};
use crate::threads::{FrameText, RawThread};
use crate::values::{field_type, prim_from_code, prim_of, prim_size, value_of};
use crate::{
    ClassExt, ClassHistogramRow, ClassIdx, ClassInfo, DumpInfo, FieldDef, FieldType, GcRoot, Heap, HeapError,
    HeapSummary, ObjIdx, ObjectKind, OpenOptions, PrimType, Progress, RootKind, StaticField, Value, Warning,
};
use heapql_hprof::records::{walk, Record};
use heapql_hprof::subrecords::scan_segment;
use heapql_hprof::types::{be_id, sub};
use heapql_hprof::{BasicType, ClassDump, Control, Cursor, Error as HErr, Segment, Source, Sub, SubVisitor};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicU64;

pub(crate) use heap_pass::big_vec;
use heap_pass::*;
use model::*;
use objects::ObjList;
use records::*;

fn map_err(path: &str, e: HErr) -> HeapError {
    match e {
        HErr::NotHprof { reason } => HeapError::NotHprof { path: path.to_string(), reason },
        HErr::Io { reason } => HeapError::Io { path: path.to_string(), reason },
        HErr::Corrupt { offset, reason } => HeapError::Corrupt { path: path.to_string(), offset, reason },
        HErr::Cancelled => HeapError::Cancelled,
    }
}

fn warn(w: heapql_hprof::Warning) -> Warning {
    Warning { offset: w.offset, message: w.message }
}

pub(crate) fn build(path: &Path, options: OpenOptions) -> Result<Heap, HeapError> {
    let name = path.display().to_string();
    let progress = options.progress.clone();
    let cb = move |phase: &'static str, done: u64, total: u64| {
        if let Some(p) = &progress {
            p(Progress { phase, done, total })
        }
    };
    let ctl = Control { progress: Some(&cb), cancel: options.cancel.as_deref() };
    let src = Source::open(path, ctl).map_err(|e| map_err(&name, e))?;
    build_with(src, &name, &options, ctl)
}

pub(crate) fn build_from_source(src: Source, name: &str, options: OpenOptions) -> Result<Heap, HeapError> {
    let progress = options.progress.clone();
    let cb = move |phase: &'static str, done: u64, total: u64| {
        if let Some(p) = &progress {
            p(Progress { phase, done, total })
        }
    };
    let ctl = Control { progress: Some(&cb), cancel: options.cancel.as_deref() };
    build_with(src, name, &options, ctl)
}

/// This process's resident anonymous memory (for `HEAPQL_TIMING`), 0 where unknown.
pub(crate) fn rss_anon_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("RssAnon:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()))
        .map_or(0, |kb| kb / 1024)
}

fn parse_feature(v: &str) -> Option<u32> {
    let v = v.strip_prefix("1.").unwrap_or(v);
    let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

pub(crate) fn build_with(src: Source, path: &str, options: &OpenOptions, ctl: Control<'_>) -> Result<Heap, HeapError> {
    let me = |e| map_err(path, e);
    let timing = std::env::var_os("HEAPQL_TIMING").is_some();
    let t0 = std::time::Instant::now();
    let lap = |what: &str| {
        if timing {
            eprintln!("[heapql-heap] {what}: {:.3} s, anonymous {} MiB", t0.elapsed().as_secs_f64(), rss_anon_mib());
        }
    };
    let header = heapql_hprof::read_header(&src).map_err(me)?;
    let id_size = header.id_size;
    let mut warnings: Vec<Warning> = src.warnings().iter().cloned().map(warn).collect();

    // ---- records ----
    let mut recs = Recs { id_size, ..Default::default() };
    let layout = walk(&src, &header, ctl, &mut |r: Record<'_>| recs.visit(r)).map_err(me)?;
    warnings.extend(layout.warnings.iter().cloned().map(warn));
    let dump_count = layout.dumps.len();
    if options.dump >= dump_count.max(1) {
        return Err(HeapError::NoSuchDump { requested: options.dump, available: dump_count });
    }
    if dump_count == 0 {
        warnings.push(Warning { offset: layout.data_end, message: "the file holds no heap dump records: no objects".into() });
    }
    let segs: Vec<Segment> = layout.dumps.get(options.dump).map(|d| d.segments.clone()).unwrap_or_default();

    lap("records");
    // ---- heap pass ----
    let (parts, w) = heap_pass(&src, &segs, id_size, ctl).map_err(me)?;
    lap("heap pass");
    warnings.extend(w);
    ctl.check().map_err(me)?;

    let mut class_dumps: Vec<ClassDump> = Vec::new();
    let mut raw_roots: Vec<RawRoot> = Vec::new();
    let mut thread_objs = Vec::new();
    let mut inst: FxHashMap<u64, u64> = FxHashMap::default();
    let mut arrays: FxHashMap<u64, Acc> = FxHashMap::default();
    let mut prims: Vec<Acc> = (4..=11).map(|c| Acc::new(c as u64)).collect();
    let mut id_or = 0u64;
    let mut heap_bytes = 0u64;
    let mut obj_parts: Vec<ObjList> = Vec::new();
    for mut p in parts {
        class_dumps.append(&mut p.classes);
        raw_roots.append(&mut p.roots);
        thread_objs.append(&mut p.thread_objs);
        for (k, v) in p.inst.drain() {
            *inst.entry(k).or_insert(0) += v;
        }
        for a in p.array_accs.drain(..) {
            arrays.entry(a.class_id).or_insert_with(|| Acc::new(a.class_id)).merge(&a);
        }
        for (i, a) in p.prims.iter().enumerate() {
            prims[i].merge(a);
        }
        id_or |= p.id_or;
        heap_bytes += p.heap_bytes;
        obj_parts.push(std::mem::take(&mut p.objs));
    }

    // ---- class set: dumped classes, then classes the objects need but the dump lacks ----
    class_dumps.sort_by_key(|c| c.id);
    let before = class_dumps.len();
    class_dumps.dedup_by_key(|c| c.id);
    if class_dumps.len() < before {
        warnings.push(Warning { offset: 0, message: format!("{} duplicate CLASS DUMP records ignored", before - class_dumps.len()) });
    }
    let dumped: FxHashSet<u64> = class_dumps.iter().map(|c| c.id).collect();
    let mut names: Vec<String> = class_dumps
        .iter()
        .map(|c| recs.load.get(&c.id).and_then(|&n| recs.text(&src, n)).map(|s| java_name(&s)).unwrap_or_else(|| format!("unknown-class-0x{:x}", c.id)))
        .collect();
    // Synthetic classes: (class id if known, name).
    let mut synth: Vec<(Option<u64>, String)> = Vec::new();
    let mut missing: Vec<u64> = inst.keys().chain(arrays.keys()).copied().filter(|id| !dumped.contains(id)).collect();
    missing.sort_unstable();
    missing.dedup();
    for id in missing {
        let n = recs.load.get(&id).and_then(|&n| recs.text(&src, n)).map(|s| java_name(&s)).unwrap_or_else(|| format!("unknown-class-0x{id:x}"));
        synth.push((Some(id), n));
    }
    for (i, t) in BasicType::PRIMITIVES.iter().enumerate() {
        let n = format!("{}[]", t.java_name());
        if prims[i].count > 0 && !names.contains(&n) && !synth.iter().any(|s| s.1 == n) {
            synth.push((None, n));
        }
    }
    if (!names.is_empty() || !synth.is_empty()) && !names.iter().any(|n| n == "java.lang.Class") && !synth.iter().any(|s| s.1 == "java.lang.Class") {
        synth.push((None, "java.lang.Class".to_string()));
    }
    if !synth.is_empty() {
        warnings.push(Warning {
            offset: 0,
            message: format!(
                "{} class(es) have no CLASS DUMP in this dump and were synthesized: {}",
                synth.len(),
                synth.iter().take(5).map(|s| s.1.as_str()).collect::<Vec<_>>().join(", ")
            ),
        });
    }

    // ---- object index: merge the sorted parts, add synthetic class objects after the max id ----
    let merged = objects::assemble(obj_parts, synth.len(), &options.scratch);
    let (mut ib, dups, last) = (merged.index, merged.duplicates, merged.last_id);
    if dups > 0 {
        warnings.push(Warning { offset: 0, message: format!("{dups} objects with an id already seen in this dump were ignored") });
    }
    let first_class_idx = names.len() as u32;
    let max_id = last.unwrap_or(0);
    let mut synth_ids: Vec<u64> = Vec::with_capacity(synth.len());
    for k in 0..synth.len() {
        let Some(id) = (max_id | 0xF).checked_add(1 + 16 * k as u64) else { break };
        synth_ids.push(id);
        ib.push(id, ids::pack(ids::K_SYNTH_CLASS, (first_class_idx + k as u32) as u64));
    }
    let objs: ObjIndex = ib.finish();
    if let heapql_scratch::Placement::Files(dir) = &options.scratch {
        // BigArray falls back to memory rather than fail; say so once, here, where it shows.
        if objs.len() > 0 && !objs.packed.is_mapped() {
            warnings.push(Warning {
                offset: 0,
                message: format!(
                    "could not make scratch files in {} (no space left, or not writable); the analysis keeps its arrays in memory",
                    dir.display()
                ),
            });
        }
    }
    lap("object index");
    ctl.check().map_err(me)?;

    // ---- class table ----
    let mut classes: Vec<ClassInfo> = Vec::with_capacity(class_dumps.len() + synth.len());
    let mut class_by_id: FxHashMap<u64, ClassIdx> = FxHashMap::default();
    let mut class_by_obj: FxHashMap<ObjIdx, ClassIdx> = FxHashMap::default();
    let mut own_types: Vec<Vec<BasicType>> = Vec::new();
    let mut dump_sizes: Vec<u32> = Vec::new();
    for (i, cd) in class_dumps.iter().enumerate() {
        class_by_id.insert(cd.id, i as ClassIdx);
        let object = objs.index_of(cd.id).unwrap_or(0);
        class_by_obj.insert(object, i as ClassIdx);
        let name_of = |nid: u64| recs.text(&src, nid).unwrap_or_else(|| format!("<unnamed 0x{nid:x}>"));
        classes.push(ClassInfo {
            name: std::mem::take(&mut names[i]),
            object,
            super_class: None,
            loader_id: cd.loader_id,
            fields: cd.fields.iter().map(|&(n, t)| FieldDef { name: name_of(n), ty: field_type(t) }).collect(),
            statics: cd
                .statics
                .iter()
                .map(|s| StaticField { name: name_of(s.name_id), value: value_of(field_type(s.ty), s.value) })
                .collect(),
            dump_instance_size: cd.instance_size,
        });
        own_types.push(cd.fields.iter().map(|f| f.1).collect());
        dump_sizes.push(cd.instance_size);
    }
    for (k, (cid, name)) in synth.iter().enumerate() {
        let idx = classes.len() as ClassIdx;
        let object = synth_ids.get(k).and_then(|&id| objs.index_of(id)).unwrap_or(0);
        if let Some(cid) = cid {
            class_by_id.insert(*cid, idx);
        }
        classes.push(ClassInfo {
            name: name.clone(),
            object,
            super_class: None,
            loader_id: 0,
            fields: Vec::new(),
            statics: Vec::new(),
            dump_instance_size: 0,
        });
        own_types.push(Vec::new());
        dump_sizes.push(0);
    }
    for (i, cd) in class_dumps.iter().enumerate() {
        if cd.super_id != 0 {
            classes[i].super_class = class_by_id.get(&cd.super_id).copied().filter(|&s| s as usize != i);
        }
    }
    let nclasses = classes.len();
    let mut by_name: HashMap<String, Vec<ClassIdx>> = HashMap::new();
    for (i, c) in classes.iter().enumerate() {
        by_name.entry(c.name.clone()).or_default().push(i as ClassIdx);
    }
    let mut subclasses: Vec<Vec<ClassIdx>> = vec![Vec::new(); nclasses];
    for (i, c) in classes.iter().enumerate() {
        if let Some(s) = c.super_class {
            subclasses[s as usize].push(i as ClassIdx);
        }
    }
    let find = |n: &str| by_name.get(n).and_then(|v| v.first().copied());
    let class_class = find("java.lang.Class").unwrap_or(0);
    let mut prim_class = [0 as ClassIdx; 8];
    for (i, t) in BasicType::PRIMITIVES.iter().enumerate() {
        prim_class[i] = find(&format!("{}[]", t.java_name())).unwrap_or(class_class);
    }

    // Layouts: own fields, then the super's, ... (cycle-safe, bounded depth).
    let mut ext: Vec<ClassExt> = Vec::with_capacity(nclasses);
    for i in 0..nclasses {
        let mut e = ClassExt::default();
        let mut c = Some(i as ClassIdx);
        let mut depth = 0;
        let mut off = 0u32;
        while let Some(ci) = c {
            if depth > 256 {
                break;
            }
            depth += 1;
            for f in &classes[ci as usize].fields {
                if f.ty == FieldType::Object {
                    e.ref_slots.push((off, e.layout.len() as u32));
                }
                e.offsets.push(off);
                e.layout.push(f.clone());
                off += match f.ty {
                    FieldType::Object => id_size,
                    FieldType::Prim(p) => prim_size(p),
                };
            }
            c = classes[ci as usize].super_class;
        }
        e.data_len = off;
        let name = &classes[i].name;
        if let Some(base) = name.strip_suffix("[]") {
            e.is_array = true;
            e.array_elem = BasicType::PRIMITIVES.iter().find(|t| t.java_name() == base).and_then(|&t| prim_of(t));
            e.dump_array_header = dump_sizes[i];
        }
        ext.push(e);
    }

    let compression = src.compression().name();
    let uncompressed_size = src.len();
    let info = DumpInfo {
        path: path.to_string(),
        file_size: src.file_size(),
        format: header.format.clone(),
        id_size,
        timestamp_ms: header.timestamp_ms,
        dump_count,
        dump: options.dump,
        compression,
        reference_size: id_size,
        object_header_size: 2 * id_size,
        array_header_size: 2 * id_size + 4,
        object_alignment: 8,
        jvm_version: None,
        uncompressed_size,
        jdk_feature: None,
        size_model_source: String::new(),
    };
    let android = header.format == "JAVA PROFILE 1.0.3"
        || (id_size == 4
            && classes.iter().any(|c| c.name.starts_with("dalvik.") || c.statics.iter().any(|s| s.name == "$classOverhead" || s.name == "$staticOverhead")));
    let mut h = Heap {
        src,
        info,
        warnings,
        id_size,
        objs,
        classes,
        ext,
        class_by_id,
        class_by_obj,
        by_name,
        subclasses,
        prim_class,
        class_class,
        model: Model { header: 2 * id_size, ref_size: id_size, align: 8, new_layout: false, relaxed_arrays: false, word: id_size, android },
        roots: Vec::new(),
        threads: Vec::new(),
        props: Vec::new(),
        histogram: Vec::new(),
        summary: HeapSummary::default(),
        utf16_big_endian: false,
        scratch: options.scratch.clone(),
    };

    // JDK 9+ UTF-16 byte order: StringUTF16.HI_BYTE_SHIFT is 8 on big-endian VMs.
    if let Some(&c) = h.classes_named("java.lang.StringUTF16").first() {
        if let Some(s) = h.classes[c as usize].statics.iter().find(|s| s.name == "HI_BYTE_SHIFT") {
            h.utf16_big_endian = s.value == Value::Int(8);
        }
    }

    // ---- roots ----
    let mut roots = Vec::with_capacity(raw_roots.len());
    let mut dropped = 0u64;
    for r in &raw_roots {
        match h.objs.index_of(r.id) {
            Some(o) => {
                let kind = root_kind(r.tag);
                let frame = match kind {
                    RootKind::JavaFrame | RootKind::JniLocal | RootKind::JniMonitor => r.frame.filter(|&f| f >= 0),
                    _ => None,
                };
                roots.push(GcRoot { kind, object: o, thread_serial: r.thread, frame });
            }
            None => dropped += 1,
        }
    }
    if dropped > 0 {
        h.warnings.push(Warning {
            offset: 0,
            message: format!("{dropped} GC root record(s) name ids that are not objects of this dump; dropped"),
        });
    }

    // ---- threads ----
    let frame_text = |fid: u64| -> FrameText {
        match recs.frames.get(&fid) {
            Some(&(m, s, f, cs, line)) => FrameText {
                method: recs.text(&h.src, m).unwrap_or_default(),
                signature: recs.text(&h.src, s).unwrap_or_default(),
                class_name: recs
                    .serial_class
                    .get(&cs)
                    .and_then(|cid| recs.load.get(cid))
                    .and_then(|&n| recs.text(&h.src, n))
                    .map(|s| java_name(&s))
                    .unwrap_or_default(),
                source_file: recs.text(&h.src, f).unwrap_or_default(),
                line,
            },
            None => FrameText { method: format!("<unknown frame 0x{fid:x}>"), ..Default::default() },
        }
    };
    let mut raw_threads: Vec<RawThread> = Vec::new();
    let mut seen_serials = FxHashSet::default();
    for &(id, serial, trace) in &thread_objs {
        if !seen_serials.insert(serial) {
            continue;
        }
        let frames = recs.traces.get(&trace).map(|f| f.iter().map(|&x| frame_text(x)).collect()).unwrap_or_default();
        raw_threads.push(RawThread { serial, object: h.objs.index_of(id), frames, record_name: None });
    }
    for &(serial, id, trace, name_id) in &recs.starts {
        let name = recs.text(&h.src, name_id);
        if let Some(t) = raw_threads.iter_mut().find(|t| t.serial == serial) {
            t.record_name = name;
            continue;
        }
        let frames = recs.traces.get(&trace).map(|f| f.iter().map(|&x| frame_text(x)).collect()).unwrap_or_default();
        raw_threads.push(RawThread { serial, object: h.objs.index_of(id), frames, record_name: name });
    }
    h.threads = crate::threads::build_threads(&h, raw_threads, &roots);
    h.roots = roots;
    ctl.check().map_err(me)?;

    // ---- system properties, JVM version ----
    h.props = crate::props::system_properties(&h);
    let prop = |k: &str| h.props.iter().find(|p| p.0 == k).map(|p| p.1.clone());
    let mut version = prop("java.runtime.version").or_else(|| prop("java.version"));
    if version.is_none() {
        for cls in ["java.lang.VersionProps", "sun.misc.Version"] {
            for &c in h.classes_named(cls) {
                if let Some(Value::Object(id)) = h.field(h.classes[c as usize].object, "java_version") {
                    if let Some(o) = h.index_of(id) {
                        version = h.string_value(o);
                    }
                }
            }
        }
    }
    let feature = prop("java.specification.version").and_then(|v| parse_feature(&v)).or_else(|| version.as_deref().and_then(parse_feature));
    h.info.jvm_version = version;
    h.info.jdk_feature = feature;

    lap("classes, roots, threads, properties");
    // ---- shallow-size model ----
    let align_tz = id_or.trailing_zeros().min(63);
    choose_model(&mut h, &header.format, feature, align_tz);
    ctl.check().map_err(me)?;

    lap("size model");
    // ---- histogram and summary ----
    let m = h.model;
    let mut rows: Vec<ClassHistogramRow> = (0..nclasses).map(|c| ClassHistogramRow { class: c as ClassIdx, count: 0, shallow: 0 }).collect();
    let mut summary = HeapSummary { dump_heap_bytes: heap_bytes, ..Default::default() };
    for (cid, count) in &inst {
        if let Some(&c) = h.class_by_id.get(cid) {
            rows[c as usize].count += count;
            rows[c as usize].shallow += count * h.ext[c as usize].instance_size as u64;
        }
        summary.instances += count;
    }
    let exact_mod16 = m.android || m.align <= 16;
    let array_total = |c: ClassIdx, elem: Option<PrimType>, a: &Acc| -> u64 {
        if exact_mod16 {
            (0..16u64).map(|r| if a.mod16[r as usize] == 0 { 0 } else { a.mod16[r as usize] * h.array_size(c, elem, r) }).sum::<u64>()
                + {
                    // Sizes are affine in n within one residue class: size(n) = size(r) + (n - r)·e.
                    let e = match elem {
                        Some(t) => prim_size(t),
                        None => m.ref_size,
                    } as u64;
                    let rsum: u64 = (0..16u64).map(|r| a.mod16[r as usize] * r).sum();
                    (a.elems - rsum) * e
                }
        } else {
            0
        }
    };
    for a in arrays.values() {
        if let Some(&c) = h.class_by_id.get(&a.class_id) {
            rows[c as usize].count += a.count;
            rows[c as usize].shallow += array_total(c, None, a);
        }
        summary.object_arrays += a.count;
    }
    for (i, a) in prims.iter().enumerate() {
        if a.count == 0 {
            continue;
        }
        let t = prim_from_code(i as u8 + 4);
        let c = h.prim_class[i];
        rows[c as usize].count += a.count;
        rows[c as usize].shallow += array_total(c, Some(t), a);
        summary.primitive_arrays += a.count;
    }
    if !exact_mod16 {
        // Alignment above 16: size each array from its own length.
        for o in 0..h.objs.len() {
            if matches!(h.object_kind(o), ObjectKind::ObjectArray | ObjectKind::PrimitiveArray(_)) {
                let c = h.class_of(o);
                rows[c as usize].shallow += h.shallow_size(o);
            }
        }
    }
    for c in 0..nclasses {
        let o = h.classes[c].object;
        if (o as usize) < h.objs.len() as usize && h.class_described_by(o) == Some(c as ClassIdx) {
            rows[h.class_class as usize].count += 1;
            rows[h.class_class as usize].shallow += h.ext[c].mirror_size as u64;
            summary.class_objects += 1;
        }
    }
    summary.objects = h.objs.len() as u64;
    summary.classes = nclasses as u64;
    summary.total_shallow = rows.iter().map(|r| r.shallow).sum();
    summary.gc_roots = h.roots.len() as u64;
    let mut distinct: Vec<ObjIdx> = h.roots.iter().map(|r| r.object).collect();
    distinct.sort_unstable();
    distinct.dedup();
    summary.gc_root_objects = distinct.len() as u64;
    let mut by_kind: Vec<(RootKind, u64)> = Vec::new();
    for r in &h.roots {
        match by_kind.iter_mut().find(|x| x.0 == r.kind) {
            Some(x) => x.1 += 1,
            None => by_kind.push((r.kind, 1)),
        }
    }
    by_kind.sort();
    summary.roots_by_kind = by_kind;
    summary.sizes_estimated = h.info.size_model_source.starts_with("assumed");
    rows.retain(|r| r.count > 0);
    rows.sort_by(|a, b| b.shallow.cmp(&a.shallow).then(a.class.cmp(&b.class)));
    h.histogram = rows;
    h.summary = summary;
    lap("histogram");
    ctl.report("done", 1, 1);
    Ok(h)
}
