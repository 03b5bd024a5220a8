//! The public corpus (`../shared/corpus`) against the facts in its README.

mod common;

use common::{corpus, parse_histogram};
use heapql_heap::{Heap, ObjectKind, OpenOptions, PrimType, Value};
use heapql_hprof::records::walk;
use heapql_hprof::types::tag;
use heapql_hprof::{Control, Source};

fn open(name: &str) -> Heap {
    let p = corpus().join(name);
    Heap::open(&p, OpenOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn record_count(name: &str, t: u8) -> u64 {
    let p = corpus().join(name);
    let (src, header) = heapql_hprof::open(&p, Control::none()).unwrap();
    let l = walk(&src, &header, Control::none(), &mut |_r: heapql_hprof::Record<'_>| {}).unwrap();
    l.record_counts.iter().find(|c| c.0 == t).map(|c| c.1).unwrap_or(0)
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn hprof_32_agent_dump() {
    let h = open("hprof-32.bin");
    assert_eq!(h.info().id_size, 4);
    assert_eq!(h.info().format, "JAVA PROFILE 1.0.1");
    assert_eq!(record_count("hprof-32.bin", tag::UTF8), 1496);
    assert_eq!(record_count("hprof-32.bin", tag::TRACE), 216);
    assert_eq!(record_count("hprof-32.bin", tag::FRAME), 365);
    let s = h.summary();
    assert_eq!(s.instances, 1293);
    assert_eq!(s.object_arrays, 423);
    assert_eq!(s.primitive_arrays, 849);
    assert_eq!(s.class_objects, 361);
    // 862 root records; one names an id with no object (reported in a warning).
    assert_eq!(s.gc_roots, 861);
    assert!(h.warnings().iter().any(|w| w.message.starts_with("1 GC root record")));
    assert!(h.info().size_model_source.starts_with("assumed"), "{}", h.info().size_model_source);
    assert!(!h.threads().is_empty());
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn hprof_64_openjdk8() {
    let h = open("hprof-64.bin");
    assert_eq!(record_count("hprof-64.bin", tag::UTF8), 10768);
    let s = h.summary();
    assert_eq!((s.class_objects, s.instances, s.object_arrays, s.primitive_arrays), (474, 4149, 748, 2891));
    assert_eq!((s.gc_roots, s.gc_root_objects), (453, 429));
    let os = h.system_properties().iter().find(|p| p.0 == "os.version").map(|p| p.1.as_str());
    assert_eq!(os, Some("4.13.0-26-generic"));
    assert_eq!(h.info().jdk_feature, Some(8));
    // Thread names come from the Thread objects (JDK 8: String name).
    assert!(h.threads().iter().any(|t| t.name.as_deref() == Some("main")), "{:?}", h.threads().iter().map(|t| &t.name).collect::<Vec<_>>());
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn ahat_android_dump() {
    let h = open("ahat-test-dump.hprof");
    assert_eq!(h.info().format, "JAVA PROFILE 1.0.3");
    // A host ART (no android.os.Build): ART's version from `unchangeableProps`, never "0".
    assert_eq!(h.info().jvm_version.as_deref(), Some("Android (ART 2.1.0)"));
    assert_eq!(h.object_count(), 25919);
    // Its array classes record the array header (ART since about 2025): nothing is estimated.
    assert_eq!(h.info().size_model_source, "Android (sizes recorded in the dump)");
    assert!(!h.summary().sizes_estimated);
    assert!(record_count("ahat-test-dump.hprof", tag::HEAP_DUMP_SEGMENT) >= 497);
    let mut sizes: Vec<u64> = (0..h.object_count()).map(|o| h.shallow_size(o)).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(&sizes[..10], &[1_000_012, 16_396, 8_204, 3_300, 2_388, 1_444, 1_412, 1_264, 1_248, 1_248]);
    let arrays = |t: PrimType, n: u32| -> Vec<u32> {
        (0..h.object_count()).filter(|&o| h.object_kind(o) == ObjectKind::PrimitiveArray(t) && h.array_length(o) == Some(n)).collect()
    };
    let bytes6 = arrays(PrimType::Byte, 6);
    assert!(bytes6.iter().any(|&o| (0..6).all(|i| h.array_element(o, i) == Some(Value::Byte(i as i8)))));
    let chars10 = arrays(PrimType::Char, 10);
    let text = |o: u32| -> String { (0..10).map(|i| match h.array_element(o, i) { Some(Value::Char(c)) => char::from_u32(c as u32).unwrap_or('?'), _ => '?' }).collect() };
    assert!(chars10.iter().any(|&o| text(o) == "char thing"));
    let ints4 = arrays(PrimType::Int, 4);
    let want = [3, 1, 2, 0];
    assert!(ints4.iter().any(|&o| (0..4).all(|i| h.array_element(o, i) == Some(Value::Int(want[i as usize])))));
    // Android strings decode (compressed Latin-1 byte[] or char[] values).
    let strings: Vec<String> = (0..h.object_count()).filter_map(|o| h.string_value(o)).collect();
    assert!(strings.len() > 100, "{}", strings.len());
    assert!(strings.iter().any(|s| s == "US-ASCII"));
    assert!(strings.iter().any(|s| s.ends_with("tools/ahat/etc/test-dump.hprof")));
}

/// The live JVM's histogram for the two JDK 6u30 dumps (same program, with and without
/// compressed references): every class whose instance count matches must match in bytes.
fn jdk6(file: &str, notes: &str, want_ref: u32) {
    let h = open(file);
    assert_eq!(h.info().reference_size, want_ref, "{}", h.info().size_model_source);
    let text = std::fs::read_to_string(corpus().join(notes)).unwrap();
    let jvm = parse_histogram(&text);
    let mut ours: std::collections::HashMap<String, (u64, u64)> = Default::default();
    for r in h.class_histogram() {
        let e = ours.entry(h.class(r.class).name.clone()).or_default();
        e.0 += r.count;
        e.1 += r.shallow;
    }
    let (mut same, mut compared) = (0, 0);
    let mut bad = Vec::new();
    for (name, &(c, b)) in &jvm {
        if name == "java.lang.Class" || name.starts_with('<') {
            continue; // mirrors: sized from statics (an estimate), and VM-internal metadata
        }
        if let Some(&(oc, ob)) = ours.get(name) {
            if oc == c {
                compared += 1;
                if ob == b {
                    same += 1;
                } else {
                    bad.push(format!("{name}: jvm {b} ours {ob} for {c}"));
                }
            }
        }
    }
    assert!(compared > 100, "only {compared} classes comparable");
    assert!(bad.is_empty(), "{same}/{compared} match; differ: {bad:?}");
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn jdk6_compressed_oops() {
    jdk6("sun_jdk6_30_x64_compressedOops.hprof", "sun_jdk6_30_x64_compressedOops.notes.txt", 4);
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn jdk6_uncompressed_oops() {
    jdk6("sun_jdk6_30_x64_nocompressedOops.hprof", "sun_jdk6_30_x64_nocompressedOops.notes.txt", 8);
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn gzip_single_member() {
    let h = open("openjdk_jdk11_04_x64.hprof.gz");
    assert_eq!(h.info().compression, "gzip");
    assert_eq!(h.info().uncompressed_size, 14_080_024);
    let s = h.summary();
    assert_eq!((s.instances, s.object_arrays, s.primitive_arrays, s.class_objects), (129_433, 8_566, 48_038, 1_912));
    // JDK 11 UTF-16 strings are little-endian on x86 (StringUTF16.HI_BYTE_SHIFT = 0).
    let strings: Vec<String> = (0..h.object_count()).filter_map(|o| h.string_value(o)).collect();
    assert!(strings.iter().any(|s| s.contains("Dumont-d’Urville")), "UTF-16 strings decode");
    assert!(strings.iter().any(|s| s.contains("é")));
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn agent_file_with_two_dumps() {
    let dir = corpus();
    let p = dir.join("oracle_jdk7_21_hprofagent.hprof");
    let h0 = Heap::open(&p, OpenOptions::default()).unwrap();
    assert_eq!(h0.info().dump_count, 2);
    let h1 = Heap::open(&p, OpenOptions { dump: 1, ..Default::default() }).unwrap();
    assert_eq!(h1.info().dump, 1);
    // Two snapshots, never merged: each holds its own class dumps once.
    assert!(h0.summary().class_objects > 300 && h1.summary().class_objects > 300);
    assert!(h0.object_count() < h0.summary().class_objects as u32 * 20);
    let e = Heap::open(&p, OpenOptions { dump: 2, ..Default::default() }).err().unwrap();
    assert_eq!(e.code(), "ERR_NO_SUCH_DUMP");
    // Each dump at its own time: the header's (2013-05-07T11:22:51.204Z) plus its HEAP DUMP
    // record's time field, 2,813,000 and 9,649,000 microseconds.
    assert_eq!(h0.info().timestamp_ms, 1_367_925_771_204 + 2_813);
    assert_eq!(h1.info().timestamp_ms, 1_367_925_771_204 + 9_649);
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn unknown_top_level_tag_is_skipped() {
    let h = open("unknown-tag.hprof");
    assert!(h.warnings().iter().any(|w| w.message.contains("unknown record tag 0xFF") && w.offset == 31), "{:?}", h.warnings());
    assert_eq!(h.object_count(), 0);
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn every_corpus_file_opens_from_bytes_too() {
    let dir = corpus();
    for name in ["hprof-64.bin", "ahat-test-dump.hprof"] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let a = Heap::open_bytes(&bytes, name, OpenOptions::default()).unwrap();
        let b = Heap::open(&dir.join(name), OpenOptions::default()).unwrap();
        assert_eq!(a.summary().total_shallow, b.summary().total_shallow);
        let _ = Source::from_bytes(&bytes);
    }
}
