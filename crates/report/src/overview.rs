//! System Overview (mat-semantics.md §3.3): dump facts, system properties, size model, heap
//! counts, GC roots by kind, the class histogram with retained sizes, class loaders and
//! classes defined by several loaders.

use std::collections::BTreeMap;

use heapql_heap::ClassIdx;

use super::ctx::Ctx;
use super::model::{
    ClassHeapShare, ClassHistogram, ClassLoaderRow, DumpIndex, DuplicateClass, FileFacts, GcRootFacts, HeapShare, HistogramRow, KeyValue,
    KindCount, SizeModelFacts, SystemOverview,
};
use super::retained_by_class::ClassRetained;
use super::scan::Scan;

/// Shown for classes and instances of the bootstrap loader.
pub const BOOTSTRAP: &str = "<bootstrap>";

pub fn overview(ctx: &Ctx, scan: &Scan, retained: &ClassRetained, reachable_only: bool) -> SystemOverview {
    let heap = ctx.heap;
    let info = heap.info();
    let mut facts = scan.facts.clone();
    facts.used_heap = ctx.total;
    let (loader_count, class_loaders) = class_loaders(ctx, scan, retained);
    facts.class_loaders = loader_count;
    facts.unreachable_pseudo_roots = if reachable_only { 0 } else { ctx.analysis.unreachable_roots().count() as u64 };
    SystemOverview {
        file: FileFacts {
            path: info.path.clone(),
            size: info.file_size,
            compression: match info.compression {
                "gzip-chunked" => "chunked-gzip".to_string(),
                other => other.to_string(),
            },
        },
        format: info.format.clone(),
        identifier_size: info.id_size,
        compressed_oops: (info.id_size == 8).then_some(info.reference_size == 4),
        dump_time: (info.timestamp_ms > 0).then(|| iso_time(info.timestamp_ms)),
        dump_index: DumpIndex { index: info.dump as u64, count: info.dump_count as u64 },
        jvm_version: info.jvm_version.clone(),
        system_properties: heap
            .system_properties()
            .iter()
            .map(|(k, v)| KeyValue { key: k.clone(), value: v.clone() })
            .collect(),
        size_model: SizeModelFacts {
            reference_size: info.reference_size,
            object_header_size: info.object_header_size,
            array_header_size: info.array_header_size,
            alignment: info.object_alignment,
            estimated: heap.summary().sizes_estimated,
            source: info.size_model_source.clone(),
        },
        heap: facts,
        heaps: heaps(ctx, scan),
        reachable_only,
        gc_roots: gc_roots(ctx),
        class_histogram: histogram(ctx, scan, retained),
        class_loaders,
        duplicate_classes: duplicate_classes(ctx, scan),
    }
}

/// Android: every heap with covered objects, in heap-number order (the order of their first
/// HEAP DUMP INFO); None for a dump that records no heaps.
fn heaps(ctx: &Ctx, scan: &Scan) -> Option<Vec<HeapShare>> {
    let names = ctx.heap.heap_names();
    if names.is_empty() {
        return None;
    }
    Some(
        names
            .iter()
            .zip(&scan.heaps)
            .filter(|(_, &(objects, _))| objects > 0)
            .map(|(name, &(objects, shallow))| HeapShare { name: name.to_string(), objects, shallow, shallow_percent: ctx.percent(shallow) })
            .collect(),
    )
}

/// GC roots as the dump records them: the figures of the index summary (`heapql summary`), the
/// same in either mode (a GC root is reachable). Records by kind add up to the total; an object
/// with several records (System Class and Busy Monitor) counts once per record, and `objects`
/// counts it once. A local bound to a known thread counts too, though the graph makes it an edge
/// from its thread (mat-semantics.md §1.3). The unreachable objects' pseudo-roots are no GC
/// roots: `HeapFacts::unreachable_pseudo_roots`.
fn gc_roots(ctx: &Ctx) -> GcRootFacts {
    let s = ctx.heap.summary();
    let mut by_kind: Vec<KindCount> =
        s.roots_by_kind.iter().map(|&(k, count)| KindCount { kind: k.label().to_string(), count }).collect();
    by_kind.sort_by(|a, b| b.count.cmp(&a.count).then(a.kind.cmp(&b.kind)));
    GcRootFacts { total: s.gc_roots, objects: s.gc_root_objects, by_kind }
}

fn histogram(ctx: &Ctx, scan: &Scan, retained: &ClassRetained) -> ClassHistogram {
    let heap = ctx.heap;
    let mut classes: Vec<ClassIdx> = (0..heap.class_count()).filter(|&c| scan.class_instances[c as usize] > 0).collect();
    classes.sort_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        retained.by_class[b]
            .cmp(&retained.by_class[a])
            .then(scan.class_shallow[b].cmp(&scan.class_shallow[a]))
            .then(heap.class(a as u32).name.cmp(&heap.class(b as u32).name))
            .then(a.cmp(&b))
    });
    let names = heap.heap_names();
    let rows = classes
        .iter()
        .take(ctx.limit)
        .map(|&c| HistogramRow {
            class_name: heap.class(c).name.clone(),
            class_loader: ctx.class_loader_label(c),
            instances: scan.class_instances[c as usize],
            shallow: scan.class_shallow[c as usize],
            retained: retained.by_class[c as usize],
            retained_percent: ctx.percent(retained.by_class[c as usize]),
            heaps: (!names.is_empty()).then(|| {
                let at = c as usize * names.len();
                names
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| scan.class_heaps[at + k].0 > 0)
                    .map(|(k, name)| ClassHeapShare {
                        name: name.to_string(),
                        instances: scan.class_heaps[at + k].0,
                        shallow: scan.class_heaps[at + k].1,
                        retained: retained.by_class_heap[at + k],
                    })
                    .collect()
            }),
        })
        .collect();
    ClassHistogram { classes: classes.len() as u64, rows }
}

/// Every class loader — each loader that defines a class (the bootstrap loader included) and
/// each class loader instance, mat-semantics.md §2.5 — and their count (the rows, before the
/// report's limit cuts them). Per loader: the classes it defined, their instances and shallow
/// bytes; `retained`, the same figure for every loader: its classes taken together, the
/// minimum retained size of its class objects (`ClassRetained::by_loader`, mat-semantics.md
/// §2.6); `loader_retained`, the loader object's own retained size where there is one.
fn class_loaders(ctx: &Ctx, scan: &Scan, retained: &ClassRetained) -> (u64, Vec<ClassLoaderRow>) {
    let heap = ctx.heap;
    // loader id → (classes, instances, shallow), by id: ties below fall in one order.
    let mut per: BTreeMap<u64, (u64, u64, u64)> = BTreeMap::new();
    for c in 0..heap.class_count() {
        let e = per.entry(heap.class(c).loader_id).or_default();
        // The classes the report covers, as the overview counts them (`--reachable-only`: those
        // whose class object is reachable), beside instances counted the same way.
        e.0 += ctx.analysis.in_tree(heap.class(c).object) as u64;
        e.1 += scan.class_instances[c as usize];
        e.2 += scan.class_shallow[c as usize];
    }
    // Loader instances that define no class: rows of their own, so the rows are the count.
    for &o in &scan.loaders {
        per.entry(heap.object_id(o)).or_default();
    }
    let count = per.len() as u64;
    let mut rows: Vec<ClassLoaderRow> = per
        .into_iter()
        .map(|(id, (classes, instances, shallow))| {
            let object = (id != 0).then(|| heap.index_of(id)).flatten().filter(|&o| ctx.analysis.in_tree(o));
            let name = match object {
                Some(o) => ctx.loader_object_label(o),
                None => ctx.loader_label(id).unwrap_or_else(|| BOOTSTRAP.to_string()),
            };
            let classes_retained = retained.of_loader(id);
            ClassLoaderRow {
                loader: object.map(|o| ctx.object_ref(o)),
                name,
                defined_classes: classes,
                instances,
                shallow,
                retained: classes_retained,
                retained_percent: ctx.percent(classes_retained),
                loader_retained: object.map(|o| ctx.analysis.retained_size(o)),
            }
        })
        .collect();
    rows.sort_by(|a, b| b.retained.cmp(&a.retained).then(b.loader_retained.cmp(&a.loader_retained)).then(a.name.cmp(&b.name)));
    rows.truncate(ctx.limit);
    (count, rows)
}

fn duplicate_classes(ctx: &Ctx, scan: &Scan) -> Vec<DuplicateClass> {
    let heap = ctx.heap;
    let mut by_name: BTreeMap<&str, Vec<ClassIdx>> = BTreeMap::new();
    for c in 0..heap.class_count() {
        by_name.entry(heap.class(c).name.as_str()).or_default().push(c);
    }
    let mut out = Vec::new();
    for (name, classes) in by_name {
        let mut loaders: Vec<u64> = classes.iter().map(|&c| heap.class(c).loader_id).collect();
        loaders.sort_unstable();
        loaders.dedup();
        if loaders.len() < 2 {
            continue;
        }
        let mut labels: Vec<String> =
            loaders.iter().map(|&id| ctx.loader_label(id).unwrap_or_else(|| BOOTSTRAP.to_string())).collect();
        labels.sort();
        out.push(DuplicateClass {
            class_name: name.to_string(),
            loaders: labels,
            instances: classes.iter().map(|&c| scan.class_instances[c as usize]).sum(),
        });
        if out.len() >= ctx.limit {
            break;
        }
    }
    out
}

/// `2025-06-01T11:58:41.207Z` from milliseconds since the epoch (proleptic Gregorian, UTC).
pub fn iso_time(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from a day count (the era-based method: 400-year eras of 146 097 days).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::iso_time;

    #[test]
    fn iso_times_match_known_instants() {
        assert_eq!(iso_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_time(1_700_000_000_000), "2023-11-14T22:13:20.000Z");
        assert_eq!(iso_time(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso_time(1_748_779_121_207), "2025-06-01T11:58:41.207Z");
    }
}
