//! Building the index, one step per file: the record walk (`records`: strings, classes'
//! names, frames, traces), one parallel pass over the chosen dump's heap segments
//! (`heap_pass`: object headers, class dumps, roots), the class set and table (`classes`), the
//! object index (`objects`), roots and threads (`roots`), the shallow-size model (`model`),
//! and the class histogram with the summary (`histogram`).

mod classes;
mod heap_pass;
mod histogram;
mod model;
mod objects;
mod records;
mod roots;

use crate::classes::java_name;
use crate::heaps::{HeapInfo, HeapTable};
use crate::ids::{self, ObjIndex};
use crate::layout::{self, LayoutClass, Model};
use crate::threads::{FrameText, RawThread};
use crate::values::{field_type, prim_from_code, prim_of, prim_size, value_of};
use crate::{
    ClassExt, ClassHistogramRow, ClassIdx, Layouts, ClassInfo, DumpInfo, FieldDef, FieldType, GcRoot, Heap, HeapError,
    HeapSummary, ObjIdx, ObjectKind, OpenOptions, PrimType, Progress, RootKind, StaticField, ThreadInfo, Value, Warning,
};
use heapql_hprof::records::{walk, Record};
use heapql_hprof::subrecords::scan_segment;
use heapql_hprof::types::{be_id, sub};
use heapql_hprof::{Access, BasicType, ClassDump, Control, Cursor, Error as HErr, Header, Layout, Segment, Source, Sub, SubVisitor};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicU64;

use heap_pass::*;
use classes::*;
use histogram::histogram;
use model::*;
use objects::ObjList;
use records::*;
use roots::*;

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
    with_control(&options, |ctl| {
        let src = Source::open(path, ctl).map_err(|e| map_err(&name, e))?;
        build_with(src, &name, &options, ctl)
    })
}

pub(crate) fn build_from_source(src: Source, name: &str, options: OpenOptions) -> Result<Heap, HeapError> {
    with_control(&options, |ctl| build_with(src, name, &options, ctl))
}

/// Runs `f` with the reader's `Control` made of the options' progress callback and cancel flag.
fn with_control<R>(options: &OpenOptions, f: impl FnOnce(Control<'_>) -> R) -> R {
    let cb = |phase: &'static str, done: u64, total: u64| {
        if let Some(p) = &options.progress {
            p(Progress { phase, done, total })
        }
    };
    f(Control { progress: Some(&cb), cancel: options.cancel.as_deref() })
}

/// The whole build, step by step (each step in its own file).
pub(crate) fn build_with(src: Source, path: &str, options: &OpenOptions, ctl: Control<'_>) -> Result<Heap, HeapError> {
    let me = |e| map_err(path, e);
    // With HEAPQL_TIMING set, each step's time and the anonymous memory after it, on stderr.
    let mut laps = heapql_scratch::Laps::new("heapql-heap");
    let header = heapql_hprof::read_header(&src).map_err(me)?;
    let id_size = header.id_size;
    let mut warnings: Vec<Warning> = src.warnings().iter().cloned().map(warn).collect();
    // A damaged timestamp (past the year 9999) is no dump time: `DumpInfo::timestamp_ms` is 0
    // then, as for a header that records none, so no reader makes a date of it.
    if let Some(message) = header.timestamp_problem() {
        warnings.push(Warning { offset: header.timestamp_offset(), message });
    }

    // The walk touches one header per heap segment: read ahead, a dump not in the page cache
    // would be read whole before the heap pass reads it again.
    src.expect(Access::HereAndThere);
    let (recs, layout) = read_records(&src, &header, ctl).map_err(me)?;
    src.expect(Access::InOrder);
    warnings.extend(layout.warnings.iter().cloned().map(warn));
    let dump_count = layout.dumps.len();
    if options.dump >= dump_count.max(1) {
        return Err(HeapError::NoSuchDump { requested: options.dump, available: dump_count });
    }
    if dump_count == 0 {
        warnings.push(Warning { offset: layout.data_end, message: "the file holds no heap dump records: no objects".into() });
    }
    let segs: Vec<Segment> = layout.dumps.get(options.dump).map(|d| d.segments.clone()).unwrap_or_default();
    let missing_end = layout.dumps.get(options.dump).is_some_and(|d| d.missing_end);
    let dump_micros = layout.dumps.get(options.dump).map_or(0, |d| d.micros);
    laps.lap("records");

    let (parts, w) = heap_pass(&src, &segs, id_size, &options.scratch, ctl).map_err(me)?;
    warnings.extend(w);
    let mut totals = PassTotals::gather(parts);
    laps.lap("heap pass");
    ctl.check().map_err(me)?;
    // Before anything numbers them: past u32 the numbers (and the id runs' starts) would wrap.
    let objects = totals.objects.iter().map(|l| l.len() as u64).sum::<u64>() + totals.class_dumps.len() as u64;
    check_object_count(objects, path)?;

    let class_set = choose_classes(std::mem::take(&mut totals.class_dumps), &totals, &recs, &src, &mut warnings);
    let (nsynth, first_synth) = (class_set.synth.len(), class_set.names.len() as u32);
    let (objs, synth_ids) = objects::object_index(std::mem::take(&mut totals.objects), nsynth, first_synth, &options.scratch, &mut warnings);
    laps.lap("object index");
    ctl.check().map_err(me)?;

    let ndumped = class_set.dumps.len();
    let table = class_table(class_set, &synth_ids, &objs, &recs, &src, id_size, &mut warnings);
    classes::instance_lengths(&table, ndumped, &totals.inst, &mut warnings);
    let mut h = new_heap(src, path, options, &header, dump_micros, dump_count, warnings, objs, table);
    h.heaps = HeapTable::new(&totals.heap_infos, |id| recs.text(&h.src, id));
    // The chosen dump's records run past the end of the file, or the file ends among its
    // segments with no HEAP DUMP END: what came after the cut (the GC root records HotSpot
    // writes last among them) may be missing.
    let cut_short = missing_end || segs.iter().any(|s| s.truncated);
    let mut roots = resolve_roots(&mut h, &totals.roots);
    let fallback_roots = system_class_fallback(&mut h, &mut roots, ndumped, cut_short);
    h.threads = collect_threads(&h, &recs, &totals.thread_objs, &roots);
    h.roots = roots;
    ctl.check().map_err(me)?;
    h.props = crate::props::system_properties(&h);
    (h.info.jvm_version, h.info.jdk_feature) = jvm_version(&h);
    laps.lap("classes, roots, threads, properties");

    // No object at all (a dump with no heap records): no address says anything; 8-byte alignment,
    // not the 256 bytes the 64 trailing zeros of no id would give.
    let align_tz = if totals.id_or == 0 { 3 } else { totals.id_or.trailing_zeros().min(63) };
    let feature = h.info.jdk_feature;
    // Its address samples are spread over the whole dump (see the record walk above).
    h.src.expect(Access::HereAndThere);
    // The classes of the dump's arrays (an object array of no known class: java.lang.Class's,
    // as `class_of` reads it): on Android, their CLASS DUMPs must record the array header.
    let array_classes: Vec<ClassIdx> = (totals.prims.iter().zip(h.prim_class).filter(|(a, _)| a.count > 0).map(|(_, c)| c))
        .chain(totals.arrays.values().map(|a| h.class_by_id.get(&a.class_id).copied().unwrap_or(h.class_class)))
        .collect();
    choose_model(&mut h, &header.format, feature, align_tz, &array_classes);
    h.stack_chunks = crate::stack_chunks::find(&h);
    h.src.expect(Access::InOrder);
    ctl.check().map_err(me)?;
    laps.lap("size model");

    (h.histogram, h.summary) = histogram(&h, &totals);
    h.summary.cut_short = cut_short;
    h.summary.fallback_system_class_roots = fallback_roots;
    laps.lap("histogram");
    if let Some(w) = crate::stack_chunks::unrecorded_virtual_threads(&h) {
        h.warnings.push(w);
    }
    ctl.report("done", 1, 1);
    Ok(h)
}

/// The heap with its class table and object index, before roots, threads, properties and the
/// size model (a provisional one: the header's id size, 8-byte alignment). The dump was taken
/// `dump_micros` after the header's time (its record says so: the second dump of a file with
/// two was taken later than the first).
#[allow(clippy::too_many_arguments)]
fn new_heap(src: Source, path: &str, options: &OpenOptions, header: &Header, dump_micros: u32, dump_count: usize, warnings: Vec<Warning>, objs: ObjIndex, t: ClassTable) -> Heap {
    let id_size = header.id_size;
    let info = DumpInfo {
        path: path.to_string(),
        file_size: src.file_size(),
        format: header.format.clone(),
        id_size,
        timestamp_ms: header.dump_time_ms().map_or(0, |t| (t + dump_micros as u64 / 1000).min(heapql_hprof::MAX_TIMESTAMP_MS)),
        dump_count,
        dump: options.dump,
        compression: src.compression().name(),
        reference_size: id_size,
        object_header_size: 2 * id_size,
        array_header_size: 2 * id_size + 4,
        object_alignment: 8,
        jvm_version: None,
        uncompressed_size: src.len(),
        jdk_feature: None,
        size_model_source: String::new(),
    };
    let android = header.format == "JAVA PROFILE 1.0.3"
        || (id_size == 4
            && t.classes.iter().any(|c| c.name.starts_with("dalvik.") || c.statics.iter().any(|s| is_overhead_static(&s.name))));
    let mut h = Heap {
        src,
        info,
        warnings,
        id_size,
        objs,
        classes: t.classes,
        ext: t.ext,
        layouts: t.layouts,
        class_by_id: t.class_by_id,
        class_by_obj: t.class_by_obj,
        by_name: t.by_name,
        subclasses: t.subclasses,
        prim_class: t.prim_class,
        class_class: t.class_class,
        stack_chunks: None,
        model: Model { header: 2 * id_size, ref_size: id_size, align: 8, new_layout: false, relaxed_arrays: false, word: id_size, android },
        roots: Vec::new(),
        threads: Vec::new(),
        props: Vec::new(),
        histogram: Vec::new(),
        summary: HeapSummary::default(),
        utf16_big_endian: false,
        heaps: HeapTable::default(),
        heap_stats: Default::default(),
        scratch: options.scratch.clone(),
    };
    // ART's fake `$classOverhead` arrays (Dalvik and early ART: `$staticOverhead`;
    // `Heap::class_overhead_array`), found once here.
    if android {
        for c in 0..h.classes.len() {
            let target = h.classes[c].statics.iter().find(|s| is_overhead_static(&s.name)).and_then(|s| match s.value {
                Value::Object(id) => h.index_of(id),
                _ => None,
            });
            h.ext[c].overhead_array = target.filter(|&o| h.object_kind(o) == ObjectKind::PrimitiveArray(PrimType::Byte));
        }
    }
    // JDK 9+ UTF-16 byte order: StringUTF16.HI_BYTE_SHIFT is 8 on big-endian VMs.
    if let Some(&c) = h.classes_named("java.lang.StringUTF16").first() {
        if let Some(s) = h.classes[c as usize].statics.iter().find(|s| s.name == "HI_BYTE_SHIFT") {
            h.utf16_big_endian = s.value == Value::Int(8);
        }
    }
    h
}

/// The made-up static through which an Android hprof writer makes a class's native size count:
/// `$classOverhead` (ART), `$staticOverhead` (Dalvik and early ART, hprof-format.md §8.1).
fn is_overhead_static(name: &str) -> bool {
    name == "$classOverhead" || name == "$staticOverhead"
}

/// `objects` (instances, arrays and class objects of the dump) within `MAX_OBJECTS`, else the
/// error that says so. Classes the index makes up for instances without a class dump come on
/// top: a few, within the margin `MAX_OBJECTS` keeps below `u32::MAX`.
fn check_object_count(objects: u64, path: &str) -> Result<(), HeapError> {
    if objects > crate::MAX_OBJECTS {
        return Err(HeapError::TooManyObjects { path: path.to_string(), objects });
    }
    Ok(())
}

#[cfg(test)]
mod object_count_tests {
    use super::*;

    #[test]
    fn more_objects_than_32_bit_numbers_count_are_refused_with_the_count() {
        assert!(check_object_count(crate::MAX_OBJECTS, "a.hprof").is_ok());
        let e = check_object_count(1 << 32, "big.hprof").unwrap_err();
        assert_eq!(e.code(), "ERR_TOO_LARGE");
        let m = e.to_string();
        assert!(m.starts_with("big.hprof holds 4294967296 objects; heapql numbers objects with 32 bits"), "{m}");
    }
}
