//! The JVM's chunked gzip (`jcmd GC.heap_dump -gz=1`): read member by member, never inflated
//! whole; the same answers as the inflated file.

mod common;

use heapql_heap::{Heap, OpenOptions};
use std::io::Read;

#[test]
fn chunked_gzip_reads_like_the_plain_file() {
    let gz = common::repo().join("fixtures/dumps/gz/GzSmall-jdk17.hprof.gz");
    let h = Heap::open(&gz, OpenOptions::default()).unwrap();
    assert_eq!(h.info().compression, "gzip-chunked");
    assert_eq!(h.info().uncompressed_size, 8_812_611);
    assert!(h.warnings().is_empty(), "{:?}", h.warnings());
    // Inflate it ourselves into a plain file and compare everything the index says.
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(&gz).unwrap()).read_to_end(&mut plain).unwrap();
    let p = Heap::open_bytes(&plain, "plain", OpenOptions::default()).unwrap();
    assert_eq!(h.object_count(), p.object_count());
    assert_eq!(h.summary().total_shallow, p.summary().total_shallow);
    for o in (0..h.object_count()).step_by(97) {
        assert_eq!(h.object_id(o), p.object_id(o));
        assert_eq!(h.fields(o), p.fields(o));
        assert_eq!(h.string_value(o), p.string_value(o));
    }
    let s: Vec<String> = (0..h.object_count()).filter_map(|o| h.string_value(o)).collect();
    assert!(s.iter().any(|x| x == "gzip fixture string"));
    // The JVM's histogram: every class with the same count has the same bytes.
    let jvm = common::parse_histogram(&std::fs::read_to_string(gz.with_file_name("GzSmall-jdk17.histo.txt")).unwrap());
    let mut compared = 0;
    for r in h.class_histogram() {
        let name = &h.class(r.class).name;
        if name == "java.lang.Class" {
            continue;
        }
        if let Some(&(c, b)) = jvm.get(name) {
            if c == r.count {
                compared += 1;
                assert_eq!(r.shallow, b, "{name}");
            }
        }
    }
    assert!(compared > 200, "{compared}");
}

#[test]
fn cut_chunked_gzip_keeps_the_complete_members() {
    let gz = common::repo().join("fixtures/dumps/gz/GzSmall-jdk17.hprof.gz");
    let bytes = std::fs::read(&gz).unwrap();
    let dir = std::env::temp_dir().join(format!("heapql-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.hprof.gz");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let h = Heap::open(&cut, OpenOptions::default()).unwrap();
    assert!(h.info().uncompressed_size < 8_812_611 && h.info().uncompressed_size > 0);
    assert!(h.warnings().iter().any(|w| w.message.contains("cut")), "{:?}", h.warnings());
    let _ = heapql_heap::exercise(&h);
    std::fs::remove_dir_all(&dir).ok();
}
