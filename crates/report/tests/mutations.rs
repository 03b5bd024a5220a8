//! The whole analysis (graph, dominators, retained sizes, report data) over damaged dumps:
//! deterministic mutations of the fuzz seeds (`fuzz/corpus/index`) and of the heap records of
//! a real JVM dump (flipped bits, random bytes, extreme counts, one object's id copied over
//! another's fields). A dump the index accepts must analyse without a panic, with and without
//! the unreachable objects; `crates/heap/tests/mutations.rs` covers the reader and index alone.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions};
use heapql_hprof::testkit::Rng;
use heapql_report::{build, ReportOptions};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One to three damages at or after byte `from` (where the heap records start).
fn mutate(r: &mut Rng, seed: &[u8], from: usize) -> Vec<u8> {
    let mut b = seed.to_vec();
    let from = from.min(b.len().saturating_sub(1));
    for _ in 0..1 + r.below(3) {
        let i = from + r.below(b.len() - from);
        match r.below(4) {
            0 => b[i] ^= 1 << r.below(8),
            1 => b[i] = r.next() as u8,
            2 => {
                let v: u32 = [0, 1, 0x7fff_ffff, 0xffff_ffff, 0x8000_0000, 0x100][r.below(6)];
                put(&mut b, i, &v.to_be_bytes());
            }
            _ => {
                // Eight bytes from elsewhere: often an id, so a reference now points at
                // another object (or a class, or itself).
                let j = from + r.below(b.len() - from);
                let id: Vec<u8> = b[j..(j + 8).min(b.len())].to_vec();
                put(&mut b, i, &id);
            }
        }
    }
    b
}

fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
    for (k, x) in bytes.iter().enumerate() {
        if let Some(slot) = b.get_mut(at + k) {
            *slot = *x;
        }
    }
}

/// Byte offset of the first heap dump record (the whole file after the header if none).
fn heap_records(b: &[u8]) -> usize {
    let Some(nul) = b.iter().position(|&x| x == 0) else { return 0 };
    let mut i = nul + 1 + 4 + 8;
    while i + 9 <= b.len() {
        if matches!(b[i], 0x0c | 0x1c) {
            return i;
        }
        i += 9 + u32::from_be_bytes(b[i + 5..i + 9].try_into().unwrap()) as usize;
    }
    nul + 1
}

/// Counts of (dumps the index took, analyses made).
fn analyse(name: &str, bytes: &[u8]) -> (usize, usize) {
    let r = std::panic::catch_unwind(|| {
        let Ok(heap) = Heap::open_bytes(bytes, name, OpenOptions::default()) else { return (0, 0) };
        let mut built = 0;
        for reachable_only in [false, true] {
            if let Ok(a) = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }) {
                build(&heap, &a, &ReportOptions::default()).expect("the report data of an analysed dump");
                built += 1;
            }
        }
        (1, built)
    });
    r.unwrap_or_else(|_| {
        let out = std::env::temp_dir().join(format!("heapql-analysis-crash-{name}"));
        std::fs::write(&out, bytes).unwrap();
        panic!("panic on {name}; input saved to {}", out.display());
    })
}

fn run(seeds: &[(String, Vec<u8>)], per_seed: usize, rng: u64) {
    let mut r = Rng(rng);
    let (mut opened, mut analysed) = (0, 0);
    for (name, bytes) in seeds {
        let from = heap_records(bytes);
        for k in 0..per_seed {
            let (o, a) = analyse(&format!("{name}-mut{k}"), &mutate(&mut r, bytes, from));
            opened += o;
            analysed += a;
        }
    }
    // Most damages leave a dump the index takes: the analysis was really exercised.
    assert!(opened * 2 > seeds.len() * per_seed, "only {opened} of {} mutated dumps opened", seeds.len() * per_seed);
    assert_eq!(analysed, 2 * opened, "an indexed dump analyses, with and without the unreachable objects");
}

#[test]
fn mutated_fuzz_seeds_analyse_without_a_panic() {
    let dir = repo().join("fuzz/corpus/index");
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .filter(|(_, b)| b.len() > 100)
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 4, "fuzz seeds missing in {}", dir.display());
    run(&seeds, 1000, 0x9E37_79B9_7F4A_7C15);
}

#[test]
fn mutated_jvm_dump_analyses_without_a_panic() {
    let path = repo().join("fixtures/dumps/KnownHeap-jdk17-noccp.hprof");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    run(&[("KnownHeap-jdk17-noccp".into(), bytes)], 200, 7);
}
