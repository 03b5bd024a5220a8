//! Shared helpers of the integration tests: where the corpus and fixtures live, histogram
//! parsing (`jcmd GC.class_histogram` / `jmap -histo` text).

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;

/// The third-party corpus beside the repository. Its tests are ignored where the build script
/// (`crates/corpus_cfg.rs`) found none, so a test that runs finds it.
pub fn corpus() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    assert!(p.is_dir(), "{} is absent: the build script saw it (cfg heapql_corpus); rebuild the tests", p.display());
    p
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// JVM spelling (`[B`, `[Ljava.lang.Object;`) -> Java form: the index's own conversion.
pub use heapql_heap::java_name;

/// name -> (instances, bytes), summed over rows of the same name.
pub fn parse_histogram(text: &str) -> HashMap<String, (u64, u64)> {
    let mut m: HashMap<String, (u64, u64)> = HashMap::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let (Some(num), Some(c), Some(b), Some(name)) = (it.next(), it.next(), it.next(), it.next()) else { continue };
        if !num.ends_with(':') {
            continue;
        }
        let (Ok(c), Ok(b)) = (c.parse::<u64>(), b.parse::<u64>()) else { continue };
        let e = m.entry(java_name(name)).or_insert((0, 0));
        e.0 += c;
        e.1 += b;
    }
    m
}

/// heapql's class histogram as name -> (instances, bytes), summed over classes of one name.
pub fn histogram_by_name(h: &heapql_heap::Heap) -> HashMap<String, (u64, u64)> {
    let mut ours: HashMap<String, (u64, u64)> = HashMap::new();
    for r in h.class_histogram() {
        let e = ours.entry(h.class(r.class).name.clone()).or_default();
        e.0 += r.count;
        e.1 += r.shallow;
    }
    ours
}
