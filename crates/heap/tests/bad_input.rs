//! Bad input: every case gets a clear error (or a warning naming the offset), never a panic.

use heapql_heap::{Heap, HeapError, OpenOptions};
use heapql_hprof::testkit::{Body, DumpBuilder, Val, Writer};
use heapql_hprof::types::tag;
use heapql_hprof::BasicType;

fn small_dump() -> Vec<u8> {
    let mut b = DumpBuilder::new(8);
    let node = b.class("a.Node", Some(b.object_class), &[("next", BasicType::Object), ("v", BasicType::Int)]);
    let mut prev = 0;
    for i in 0..50 {
        prev = b.instance(node, &[Val::Obj(prev), Val::Int(i)]);
    }
    b.root_jni_global(prev);
    b.string("hello");
    b.build()
}

fn open_bytes(bytes: &[u8]) -> Result<Heap, HeapError> {
    Heap::open_bytes(bytes, "x.hprof", OpenOptions::default())
}

fn reason(e: &HeapError) -> String {
    e.to_string()
}

#[test]
fn empty_random_text_and_cut_header_are_not_hprof() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty", vec![], "file is empty"),
        ("random", (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect(), "no 'JAVA PROFILE"),
        ("text", b"hello, this is a text file\n".to_vec(), "no 'JAVA PROFILE"),
        ("cut in name", b"JAVA PROF".to_vec(), "ends inside"),
        ("cut after name", b"JAVA PROFILE 1.0.2\0\0\0".to_vec(), "ends inside the header"),
        ("bad id size", [&b"JAVA PROFILE 1.0.2\0"[..], &3u32.to_be_bytes(), &[0u8; 8]].concat(), "identifier size 3 at byte offset 19 is not 4 or 8: the header is damaged"),
        ("unknown version", [&b"JAVA PROFILE 9.9\0"[..], &8u32.to_be_bytes(), &[0u8; 8]].concat(), "unknown format version"),
    ];
    for (what, bytes, want) in cases {
        let e = open_bytes(&bytes).err().unwrap_or_else(|| panic!("{what}: accepted"));
        assert_eq!(e.code(), "ERR_NOT_HPROF", "{what}: {e}");
        assert!(reason(&e).contains(want), "{what}: {e}");
        assert!(reason(&e).contains("x.hprof"), "{what}: {e}");
    }
}

#[test]
fn directory_and_missing_file() {
    let dir = std::env::temp_dir();
    let e = Heap::open(&dir, OpenOptions::default()).err().unwrap();
    assert_eq!(e.code(), "ERR_IO");
    assert!(reason(&e).contains("directory") && reason(&e).contains(&dir.display().to_string()), "{e}");
    let missing = dir.join("heapql-no-such-file.hprof");
    let e = Heap::open(&missing, OpenOptions::default()).err().unwrap();
    assert_eq!(e.code(), "ERR_IO");
    assert!(reason(&e).contains("heapql-no-such-file.hprof") && reason(&e).contains("no such file: check the path"), "{e}");
}

#[test]
fn truncated_at_every_point_answers_with_a_warning() {
    let full = small_dump();
    let whole = open_bytes(&full).unwrap();
    let header_len = "JAVA PROFILE 1.0.2".len() + 1 + 12;
    let mut objects_seen = 0;
    for cut in header_len..full.len() {
        let h = match open_bytes(&full[..cut]) {
            Ok(h) => h,
            Err(e) => panic!("cut at {cut}: {e}"),
        };
        assert!(h.object_count() <= whole.object_count());
        assert!(
            h.warnings().iter().any(|w| w.message.contains("cut short") || w.message.contains("ends inside") || w.message.contains("no heap dump records")),
            "cut at {cut}: {:?}",
            h.warnings()
        );
        objects_seen = objects_seen.max(h.object_count());
        // Everything the index answers must be readable.
        for o in 0..h.object_count() {
            let _ = (h.shallow_size(o), h.fields(o), h.string_value(o), h.class_of(o));
        }
    }
    assert!(objects_seen > 0);
}

#[test]
fn record_length_past_the_end_is_reported_with_its_offset() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.utf8(1, "x");
    let at = w.buf.len();
    w.record_with_len(tag::HEAP_DUMP_SEGMENT, 1_000_000, &[0x21]);
    let h = open_bytes(&w.finish()).unwrap();
    let warn = h.warnings().iter().find(|w| w.message.contains("cut short")).expect("warning");
    assert!(warn.message.contains(&format!("at byte offset {at}")), "{}", warn.message);
}

#[test]
fn sub_record_overrunning_its_segment_is_corrupt() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    let mut seg = Body::new(8);
    // An instance claiming 100 bytes of fields in a segment that holds 4.
    seg.u1(0x21).id(0x1000).u4(1).id(0x2000).u4(100).u4(0);
    let seg_at = w.buf.len() + 9;
    w.heap_dump_segment(&seg);
    w.heap_dump_end();
    let e = open_bytes(&w.finish()).err().unwrap();
    assert_eq!(e.code(), "ERR_CORRUPT");
    match e {
        HeapError::Corrupt { offset, ref reason, .. } => {
            assert_eq!(offset, seg_at as u64);
            assert!(reason.contains("runs past the end of its segment"), "{reason}");
            // What is damaged, and what to do: the segment is whole in the file, not cut.
            assert!(
                reason.contains(&format!("the heap data of the HEAP DUMP SEGMENT record at byte offset {} is damaged here or in the sub-record before it", seg_at - 9)),
                "{reason}"
            );
            assert!(reason.contains("The file is not cut short") && reason.contains("take a new heap dump"), "{reason}");
        }
        _ => unreachable!(),
    }
}

/// A class dump whose instance field type byte is no type: the error names the byte that holds
/// it, not only the class dump, and says what to do.
#[test]
fn class_dump_field_of_no_type_names_its_byte() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    let mut seg = Body::new(8);
    seg.u1(0x20).id(0x1000).u4(0).id(0).id(0).id(0).id(0).id(0).id(0).u4(16).u2(0).u2(0).u2(1).id(0x7f00).u1(3);
    let seg_at = w.buf.len() + 9;
    let type_at = seg_at + seg.b.len() - 1;
    w.heap_dump_segment(&seg);
    w.heap_dump_end();
    let e = open_bytes(&w.finish()).err().unwrap();
    assert_eq!(e.code(), "ERR_CORRUPT");
    let r = reason(&e);
    assert!(r.contains(&format!("class dump at byte offset {seg_at}: an instance field has invalid type code 3 at byte offset {type_at}")), "{r}");
    assert!(r.contains("take a new heap dump"), "{r}");
}

#[test]
fn unknown_sub_record_is_corrupt_with_tag_and_offset() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    let mut seg = Body::new(8);
    seg.root(0xFF, 0x10);
    let bad_at = w.buf.len() + 9 + seg.b.len();
    seg.u1(0x77).u8(0).u8(0);
    w.heap_dump_segment(&seg);
    w.heap_dump_end();
    let e = open_bytes(&w.finish()).err().unwrap();
    assert_eq!(e.code(), "ERR_CORRUPT");
    let s = e.to_string();
    assert!(s.contains("0x77") && s.contains(&format!("offset {bad_at}")), "{s}");
}

#[test]
fn unknown_sub_record_at_the_cut_end_is_a_warning() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    let mut seg = Body::new(8);
    seg.root(0xFF, 0x10);
    seg.u1(0x77);
    w.record_with_len(tag::HEAP_DUMP_SEGMENT, 500, &seg.b);
    let h = open_bytes(&w.finish()).unwrap();
    assert!(h.warnings().iter().any(|w| w.message.contains("0x77")), "{:?}", h.warnings());
}

#[test]
fn zero_length_segments_are_empty() {
    let mut w = Writer::new("JAVA PROFILE 1.0.3", 4, 0);
    for _ in 0..5 {
        w.heap_dump_segment(&Body::new(4));
    }
    let mut seg = Body::new(4);
    seg.prim_array(0x100, BasicType::Byte, 2, &[1, 2]);
    w.heap_dump_segment(&seg);
    w.heap_dump_segment(&Body::new(4));
    w.heap_dump_end();
    let h = open_bytes(&w.finish()).unwrap();
    // The array, and the classes the dump lacks: byte[] and java.lang.Class, synthesized.
    assert_eq!(h.object_count(), 3);
    assert_eq!(h.class(h.class_of(h.index_of(0x100).unwrap())).name, "byte[]");
    assert!(h.warnings().iter().all(|w| !w.message.contains("length 0")), "{:?}", h.warnings());
}

#[test]
fn unpatched_zero_length_heap_dump_reads_to_the_end() {
    let mut w = Writer::new("JAVA PROFILE 1.0.1", 8, 0);
    let mut seg = Body::new(8);
    seg.prim_array(0x100, BasicType::Int, 1, &[0, 0, 0, 7]);
    w.record_with_len(tag::HEAP_DUMP, 0, &seg.b);
    let h = open_bytes(&w.finish()).unwrap();
    assert!(h.warnings().iter().any(|w| w.message.contains("length 0")));
    assert_eq!(h.summary().primitive_arrays, 1);
}

/// Scratch files that cannot be made: the index stays in memory, answers the same, and a
/// warning names the directory.
#[test]
fn unusable_scratch_directory_is_a_warning() {
    let dump = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo/demo.hprof");
    let dir = std::path::Path::new("/nonexistent/heapql-scratch");
    let scratch = heapql_heap::Placement::files(Some(dir));
    let heap = heapql_heap::Heap::open(&dump, heapql_heap::OpenOptions { scratch, ..Default::default() }).unwrap();
    let plain = heapql_heap::Heap::open(&dump, heapql_heap::OpenOptions::default()).unwrap();
    assert!(heap.warnings().iter().any(|w| w.message.contains("/nonexistent/heapql-scratch") && w.message.contains("in memory")));
    assert!(plain.warnings().iter().all(|w| !w.message.contains("scratch")));
    assert_eq!(heap.object_count(), plain.object_count());
    assert_eq!(heap.object_id(heap.object_count() - 1), plain.object_id(plain.object_count() - 1));
}

#[test]
fn a_file_without_heap_records_has_a_plain_layout() {
    // The records before the heap data only: no object, so no address to learn a layout from.
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.utf8(1, "only a string");
    let h = open_bytes(&w.finish()).unwrap();
    assert_eq!((h.object_count(), h.info().dump_count), (0, 0));
    assert!(h.warnings().iter().any(|w| w.message.contains("no heap dump records")), "{:?}", h.warnings());
    assert_eq!(h.info().object_alignment, 8, "{}", h.info().size_model_source);
}

/// A timestamp past the year 9999 (a damaged header: all ones, 0x7f…, JavaScript's date
/// limit and one past it) is no dump time: `timestamp_ms` 0 and one warning at its offset
/// (23 for `JAVA PROFILE 1.0.2`); the last valid millisecond and a plausible time are kept.
#[test]
fn a_timestamp_that_is_no_time_is_ignored_with_a_warning() {
    let dump = small_dump();
    let at = b"JAVA PROFILE 1.0.2\0".len() + 4;
    let with = |ts: u64| {
        let mut d = dump.clone();
        d[at..at + 8].copy_from_slice(&ts.to_be_bytes());
        open_bytes(&d).unwrap()
    };
    for bad in [u64::MAX, 0x7fff_ffff_ffff_ffff, 8_640_000_000_000_000, 8_640_000_000_000_001, heapql_hprof::MAX_TIMESTAMP_MS + 1] {
        let h = with(bad);
        assert_eq!(h.info().timestamp_ms, 0, "{bad}");
        let w: Vec<_> = h.warnings().iter().filter(|w| w.message.contains("timestamp")).collect();
        assert_eq!(w.len(), 1, "{bad}: {:?}", h.warnings());
        assert_eq!(w[0].offset, at as u64);
        assert!(w[0].message.contains("at byte offset 23 is not a valid time") && w[0].message.contains(&bad.to_string()), "{}", w[0].message);
    }
    for good in [0, 1, 1_700_000_000_000, heapql_hprof::MAX_TIMESTAMP_MS] {
        let h = with(good);
        assert_eq!(h.info().timestamp_ms, good);
        assert!(h.warnings().iter().all(|w| !w.message.contains("timestamp")), "{good}: {:?}", h.warnings());
    }
}

/// Warnings about dropped roots and repeated CLASS DUMP records name their first example.
#[test]
fn dropped_roots_and_repeated_class_dumps_name_the_first() {
    let mut b = DumpBuilder::new(8);
    let node = b.class("a.Node", Some(b.object_class), &[("v", BasicType::Int)]);
    let n = b.instance(node, &[Val::Int(1)]);
    b.root_jni_global(n);
    b.root_jni_global(0xbad0);
    let mut dump = b.build();
    // A second CLASS DUMP of a.Node, in a segment before the HEAP DUMP END (the last 9 bytes).
    let end = dump.split_off(dump.len() - 9);
    let mut w = Writer { buf: Vec::new(), id_size: 8 };
    let mut seg = Body { b: Vec::new(), id_size: 8 };
    seg.class_dump(node, b.object_class, 0, 4, &[], &[]);
    w.heap_dump_segment(&seg);
    let at = dump.len() as u64 + 9;
    dump.extend_from_slice(&w.buf);
    dump.extend_from_slice(&end);
    let h = open_bytes(&dump).unwrap();
    let msgs: Vec<&str> = h.warnings().iter().map(|w| w.message.as_str()).collect();
    assert!(msgs.contains(&"1 GC root record(s) name ids that are not objects of this dump; dropped (e.g. a JNI Global root naming 0xbad0)"), "{msgs:?}");
    let dup = h.warnings().iter().find(|w| w.message.contains("duplicate CLASS DUMP")).unwrap_or_else(|| panic!("{msgs:?}"));
    assert_eq!(dup.message, format!("1 duplicate CLASS DUMP records ignored (e.g. class 0x{node:x} again at byte offset {at})"));
    assert_eq!(dup.offset, at);
}

/// Two instance records with one id: the first is kept, and the warning names the id and the
/// byte offset of the record it ignored.
#[test]
fn a_repeated_object_id_names_the_record_ignored() {
    let mut b = DumpBuilder::new(8);
    let node = b.class("a.Node", Some(b.object_class), &[("v", BasicType::Int)]);
    let n = b.instance(node, &[Val::Int(1)]);
    b.root_jni_global(n);
    b.instance_with_id(n, node, &[Val::Int(2)]);
    let dump = b.build();
    // The second INSTANCE DUMP of `n`: tag 0x21, then the id.
    let mut record = vec![0x21u8];
    record.extend_from_slice(&n.to_be_bytes());
    let first = dump.windows(record.len()).position(|w| w == record).unwrap();
    let second = first + 1 + dump[first + 1..].windows(record.len()).position(|w| w == record).unwrap();
    let h = open_bytes(&dump).unwrap();
    let msgs: Vec<&str> = h.warnings().iter().map(|w| w.message.as_str()).collect();
    let w = h.warnings().iter().find(|w| w.message.contains("already seen")).unwrap_or_else(|| panic!("{msgs:?}"));
    assert_eq!(w.message, format!("1 objects with an id already seen in this dump were ignored (e.g. id {n:#x} again in the record at byte offset {second}; the first record with an id is kept)"));
    assert_eq!(w.offset, second as u64);
}

/// A file cut exactly between two records, before its HEAP DUMP END: no record runs past the
/// end, yet what the writer puts last (the GC root records) may be missing, so the summary
/// says the dump is cut short, as for a cut inside a record.
#[test]
fn cut_before_the_heap_dump_end_record_is_cut_short() {
    let full = small_dump();
    assert_eq!(full[full.len() - 9], tag::HEAP_DUMP_END, "the builder ends with HEAP DUMP END");
    let whole = open_bytes(&full).unwrap();
    assert!(!whole.summary().cut_short);
    let cut = open_bytes(&full[..full.len() - 9]).unwrap();
    assert_eq!(cut.object_count(), whole.object_count());
    assert!(cut.summary().cut_short);
    assert!(cut.warnings().iter().any(|w| w.message.contains("no HEAP DUMP END record")), "{:?}", cut.warnings());
}
