//! The heap index and the full analysis read back from the cache give exactly the results of
//! a fresh build, and the cache notices a dump that changed under it.

use heapql_cache::Cache;
use heapql_report::{build, build_json_with_cache, ReportOptions};
use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{CacheUse, Heap, OpenOptions, Value};
use std::path::{Path, PathBuf};

fn fresh_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn open(path: &Path, cache: &Cache, reachable_only: bool) -> (Heap, FullAnalysis, CacheUse, CacheUse, Vec<String>) {
    let entry = cache.entry(path, 0, "test").unwrap();
    let mut warnings = Vec::new();
    let (heap, h) = Heap::open_with_cache(path, OpenOptions::default(), &entry, &mut warnings).unwrap();
    let options = GraphOptions { reachable_only, ..Default::default() };
    let (a, g) = FullAnalysis::build_with_cache(&heap, options, &entry, &mut warnings).unwrap();
    (heap, a, h, g, warnings)
}

fn field_values(heap: &Heap, o: u32) -> Vec<(String, Value)> {
    heap.fields(o).into_iter().map(|(n, v)| (n.to_string(), v)).collect()
}

fn assert_same(dump: &str, (ch, ca): (&Heap, &FullAnalysis), (fh, fa): (&Heap, &FullAnalysis)) {
    assert_eq!(format!("{:?}", ch.summary()), format!("{:?}", fh.summary()), "{dump}: summary");
    assert_eq!(format!("{:?}", ch.info()), format!("{:?}", fh.info()), "{dump}: info");
    assert_eq!(format!("{:?}", ch.class_histogram()), format!("{:?}", fh.class_histogram()), "{dump}: histogram");
    assert_eq!(format!("{:?}", ch.threads()), format!("{:?}", fh.threads()), "{dump}: threads");
    assert_eq!(ch.object_count(), fh.object_count());
    assert_eq!(ca.top_level_dominators(), fa.top_level_dominators(), "{dump}: top-level dominators");
    for o in 0..fh.object_count() {
        let id = fh.object_id(o);
        assert_eq!(ch.object_id(o), id);
        assert_eq!(ch.index_of(id), Some(o));
        assert_eq!(ch.class_of(o), fh.class_of(o));
        assert_eq!(ch.shallow_size(o), fh.shallow_size(o));
        assert_eq!(ca.retained_size(o), fa.retained_size(o), "{dump}: retained size of #{o}");
        assert_eq!(ca.immediate_dominator(o), fa.immediate_dominator(o), "{dump}: dominator of #{o}");
        assert_eq!(ca.dominated(o), fa.dominated(o));
        assert!(ca.outbound(o).eq(fa.outbound(o)));
        assert_eq!(ca.is_reachable(o), fa.is_reachable(o));
    }
    for o in (0..fh.object_count()).step_by(1009) {
        assert_eq!(field_values(ch, o), field_values(fh, o), "{dump}: fields of #{o}");
        assert_eq!(ch.string_value(o), fh.string_value(o));
        assert_eq!(ca.path_to_root(ch, o), fa.path_to_root(fh, o), "{dump}: path of #{o}");
        assert_eq!(ca.inbound(o), fa.inbound(o));
    }
    assert_eq!(ca.tree_order(), fa.tree_order(), "{dump}: tree order");
    assert_eq!(ca.tree_order_idoms(), fa.tree_order_idoms(), "{dump}: dominators in the tree order");
    let options = ReportOptions::default();
    assert_eq!(build(ch, ca, &options).unwrap().to_json(), build(fh, fa, &options).unwrap().to_json(), "{dump}: report data");
}

#[test]
fn cached_index_and_analysis_answer_exactly_as_fresh_ones() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cache = Cache::new(fresh_dir("cache-test-exact"), None);
    for dump in ["fixtures/demo/demo.hprof", "fixtures/dumps/KnownHeap-jdk17-coops.hprof", "fixtures/dumps/KnownHeap-jdk25-compact.hprof"] {
        for reachable_only in [false, true] {
            let path = root.join(dump);
            let (fh, fa, h1, g1, w1) = open(&path, &cache, reachable_only);
            assert_eq!((h1, g1), (if reachable_only { CacheUse::Hit } else { CacheUse::Written }, CacheUse::Written), "{dump}: first run");
            assert!(w1.is_empty(), "{w1:?}");
            let (ch, ca, h2, g2, w2) = open(&path, &cache, reachable_only);
            assert_eq!((h2, g2), (CacheUse::Hit, CacheUse::Hit), "{dump}: second run");
            assert!(w2.is_empty(), "{w2:?}");
            assert_same(dump, (&ch, &ca), (&fh, &fa));
        }
    }
}

#[test]
fn a_changed_dump_is_rebuilt_with_one_warning() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = fresh_dir("cache-test-changed");
    let path = dir.join("demo.hprof");
    std::fs::copy(root.join("fixtures/demo/demo.hprof"), &path).unwrap();
    let cache = Cache::new(dir.join("cache"), None);
    let (_, _, h, _, _) = open(&path, &cache, false);
    assert_eq!(h, CacheUse::Written);
    // Another dump under the same name: the jdk17 fixture.
    std::fs::copy(root.join("fixtures/dumps/KnownHeap-jdk17-nocoops.hprof"), &path).unwrap();
    let (ch, ca, h, g, warnings) = open(&path, &cache, false);
    assert_eq!((h, g), (CacheUse::Written, CacheUse::Written));
    assert_eq!(warnings.len(), 2, "one line for the index, one for the analysis: {warnings:?}");
    assert!(warnings.iter().all(|w| w.contains("the dump changed")), "{warnings:?}");
    let fresh = Heap::open(&path, OpenOptions::default()).unwrap();
    let fa = FullAnalysis::build(&fresh, GraphOptions::default()).unwrap();
    assert_same("changed", (&ch, &ca), (&fresh, &fa));
}

/// The report's JSON is kept per options: the same options read back the text `build` gives;
/// another limit, or an analysis without the unreachable objects, builds its own and leaves
/// the first in place.
#[test]
fn the_report_json_is_cached_per_options() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cache = Cache::new(fresh_dir("cache-test-report"), None);
    let path = root.join("fixtures/demo/demo.hprof");
    let entry = cache.entry(&path, 0, "test").unwrap();
    let (heap, a, _, _, _) = open(&path, &cache, false);
    let (_, a_reachable, _, _, _) = open(&path, &cache, true);
    let options = ReportOptions::default();
    let other_limit = ReportOptions { limit: 3, ..Default::default() };
    let mut warnings = Vec::new();
    let mut json = |a: &FullAnalysis, options: &ReportOptions| build_json_with_cache(&heap, a, options, &entry, &mut warnings, None).unwrap();
    let fresh = build(&heap, &a, &options).unwrap().to_json();
    assert_eq!(json(&a, &options), (fresh.clone(), CacheUse::Written));
    assert_eq!(json(&a, &options), (fresh.clone(), CacheUse::Hit));
    let limited = build(&heap, &a, &other_limit).unwrap().to_json();
    assert_ne!(limited, fresh);
    assert_eq!(json(&a, &other_limit), (limited, CacheUse::Written));
    let reachable = build(&heap, &a_reachable, &options).unwrap().to_json();
    assert_ne!(reachable, fresh);
    assert_eq!(json(&a_reachable, &options), (reachable, CacheUse::Written));
    assert_eq!(json(&a, &options), (fresh, CacheUse::Hit));
    assert!(warnings.is_empty(), "{warnings:?}");
}
