//! The waste checks against the WasteHeap fixture dumps: every row the program planted must
//! come out with exactly the object count and overhead the program computed from the live
//! JVM's layout (fixtures/dumps/WasteHeap-*.facts.json, formulas in fixtures/programs/WasteHeap.java).

use std::path::{Path, PathBuf};

use heapql_report::waste::{analyze, Check, HolderKind, Waste, WasteOptions};
use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions};
use serde_json::Value;

fn dumps() -> Vec<(PathBuf, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dumps/waste");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).expect("fixtures/dumps exists") {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("WasteHeap-") && name.ends_with(".hprof") {
            let facts = path.with_extension("facts.json");
            let facts: Value = serde_json::from_str(&std::fs::read_to_string(&facts).expect("facts next to the dump")).unwrap();
            out.push((path, facts));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(out.len(), 3, "the three WasteHeap dumps are committed");
    out
}

fn run(path: &Path) -> Waste {
    let heap = Heap::open(path, OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    analyze(&heap, &a, &WasteOptions { limit: 1000, ..Default::default() }).unwrap()
}

fn check_named(name: &str) -> Check {
    serde_json::from_value::<String>(Value::String(name.into())).unwrap();
    *Check::ALL.iter().find(|c| serde_json::to_value(c).unwrap() == name).unwrap_or_else(|| panic!("unknown check {name}"))
}

#[test]
fn every_planted_problem_has_its_exact_row() {
    for (path, facts) in dumps() {
        let waste = run(&path);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for fact in facts["waste"].as_array().unwrap() {
            let check = check_named(fact["check"].as_str().unwrap());
            let holder = fact["holder"].as_str().unwrap();
            let class = fact["class"].as_str().unwrap();
            let cat = waste.categories.iter().find(|c| c.check == check).unwrap();
            let rows: Vec<_> = cat
                .rows
                .iter()
                .filter(|r| r.class_name == class && format!("{}.{}", r.holder.owner, r.holder.field.as_deref().unwrap_or("?")) == holder)
                .collect();
            assert_eq!(rows.len(), 1, "{name}: one {check:?} row for {holder} → {class}; rows: {:#?}", cat.rows);
            let row = rows[0];
            assert_eq!(row.objects, fact["objects"].as_u64().unwrap(), "{name}: {check:?} {holder} objects");
            assert_eq!(row.overhead, fact["overhead"].as_u64().unwrap(), "{name}: {check:?} {holder} overhead ({})", fact["formula"]);
            assert!(matches!(row.holder.kind, HolderKind::Field | HolderKind::StaticField));
            assert_eq!(row.holder.label, format!("{holder} → {class}"));
            let percent = row.overhead as f64 * 100.0 / waste.used_heap as f64;
            assert!((row.overhead_percent - percent).abs() < 1e-9);
        }
    }
}

#[test]
fn the_object_in_finalize_counts_as_waiting() {
    for (path, facts) in dumps() {
        let waste = run(&path);
        let blocked = &facts["being_finalized"];
        let cat = waste.categories.iter().find(|c| c.check == Check::PendingFinalization).unwrap();
        let class = blocked["class"].as_str().unwrap();
        let objects: u64 = cat.rows.iter().filter(|r| r.class_name == class).map(|r| r.objects).sum();
        let overhead: u64 = cat.rows.iter().filter(|r| r.class_name == class).map(|r| r.overhead).sum();
        assert_eq!((objects, overhead), (blocked["objects"].as_u64().unwrap(), blocked["overhead"].as_u64().unwrap()), "{path:?}");
    }
}

#[test]
fn totals_add_up_and_the_duplicate_text_is_listed() {
    for (path, facts) in dumps() {
        let waste = run(&path);
        let sum: u64 = waste.categories.iter().map(|c| c.overhead).sum();
        assert_eq!(waste.overhead, sum);
        assert_eq!(waste.categories.len(), Check::ALL.len());
        for c in &waste.categories {
            assert_eq!(c.overhead, c.rows.iter().map(|r| r.overhead).sum::<u64>(), "{:?}: all rows shown at limit 1000", c.check);
            assert!(c.rows.windows(2).all(|w| w[0].overhead >= w[1].overhead), "{:?} sorted", c.check);
        }
        let dup = &facts["duplicate_string"];
        let top = waste.duplicate_strings.top.iter().find(|d| d.value == dup["value"].as_str().unwrap()).expect("the duplicated text");
        assert_eq!(top.count, dup["count"].as_u64().unwrap());
        let strings = waste.categories.iter().find(|c| c.check == Check::DuplicateStrings).unwrap();
        assert_eq!(strings.overhead, waste.duplicate_strings.wasted_bytes, "rows and the values agree");
    }
}

/// The reachable part of the overhead is what `--reachable-only` counts on the same dump. These
/// dumps hold duplicate groups whose lowest-index copy, the one the rows keep, is garbage:
/// counted by each copy's own reachability, the part came out 48 to 64 bytes above
/// `--reachable-only`'s overhead.
#[test]
fn the_reachable_part_is_what_reachable_only_counts() {
    for (path, _) in dumps() {
        let heap = Heap::open(&path, OpenOptions::default()).unwrap();
        let waste = |reachable_only| {
            let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
            analyze(&heap, &a, &WasteOptions::default()).unwrap()
        };
        let (full, reachable_only) = (waste(false), waste(true));
        assert!(full.unreachable_overhead > 0, "{path:?}: the dump holds garbage");
        assert_eq!(full.reachable_overhead, reachable_only.overhead, "{path:?}");
        assert_eq!(full.reachable_overhead + full.unreachable_overhead, full.overhead, "{path:?}");
    }
}

#[test]
fn the_box_caches_are_not_waste() {
    // Every Byte and Boolean a JVM holds comes from the valueOf caches (the JDK 25 dump holds
    // the Byte, Short and Long caches only from its class-data-sharing archive).
    for (path, _) in dumps() {
        let waste = run(&path);
        let cat = waste.categories.iter().find(|c| c.check == Check::BoxedPrimitives).unwrap();
        for r in &cat.rows {
            assert!(!matches!(r.class_name.as_str(), "java.lang.Byte" | "java.lang.Boolean"), "{path:?}: {}", r.holder.label);
            assert!(r.objects < 256 || r.holder.label.starts_with("WasteHeap."), "{path:?}: a cache-sized row {}", r.holder.label);
        }
    }
}

/// The AOSP ahat test dump (shared corpus): ART's `$classOverhead` arrays, 796 of them zero
/// byte[]s of equal lengths, are neither duplicate arrays nor zero tails, in the waste
/// section alone or in the full report (which finds them beside the dominators); nor are the
/// method tables a class points at through `$class$vtable` and `$class$ifTable` (33 `long[]`
/// of 1,320 B counted as duplicate arrays before: classes with the same methods share their
/// tables' contents). What is left: 5 reachable arrays of 259 B (a `BufferedInputStream` buffer, an
/// IPv6 address, …) and garbage (12 arrays of 1,599 B, stated apart).
#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn art_class_overhead_arrays_are_not_waste_in_the_ahat_dump() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/ahat-test-dump.hprof");
    let heap = Heap::open(&p, OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let arrays = (0..heap.class_count()).filter(|&c| heap.class_overhead_array(c).is_some()).count();
    assert!(arrays > 800, "{arrays} $classOverhead arrays");
    let alone = analyze(&heap, &a, &WasteOptions { limit: 100_000, ..Default::default() }).unwrap();
    let report = heapql_report::build(&heap, &a, &heapql_report::ReportOptions { limit: 100_000, ..Default::default() }).unwrap();
    for w in [&alone, &report.waste] {
        for c in &w.categories {
            assert!(!c.rows.iter().any(|r| r.holder.field.as_deref() == Some("$classOverhead")), "{:?}", c.check);
            if matches!(c.check, Check::DuplicateArrays | Check::ZeroTailArrays) {
                assert!(!c.rows.iter().any(|r| r.holder.field.as_deref().is_some_and(|f| f.starts_with("$class$"))), "{:?}: a runtime method table", c.check);
            }
        }
        let cat = |check: Check| w.categories.iter().find(|c| c.check == check).unwrap();
        assert_eq!((cat(Check::DuplicateArrays).objects, cat(Check::DuplicateArrays).overhead), (17, 1858));
        assert_eq!((cat(Check::ZeroTailArrays).objects, cat(Check::ZeroTailArrays).overhead), (6, 24542));
    }
    assert_eq!(alone.overhead, report.waste.overhead);
}
