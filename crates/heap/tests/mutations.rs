//! The reader and the index over the fuzz corpus (`fuzz/corpus/index`, seeds and any crashers
//! found) and over thousands of deterministic mutations of it: truncations, flipped bytes,
//! extreme length fields, spliced chunks. Nothing may panic; every answer must be readable.

mod common;

use heapql_heap::{exercise, Heap, OpenOptions};
use heapql_hprof::testkit::Rng;

fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let dir = common::repo().join("fuzz/corpus/index");
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    v.sort();
    assert!(v.len() >= 5, "fuzz seeds missing in {}", dir.display());
    v
}

fn run(name: &str, bytes: &[u8]) {
    let r = std::panic::catch_unwind(|| {
        if let Ok(h) = Heap::open_bytes(bytes, name, OpenOptions::default()) {
            exercise(&h);
        }
    });
    if r.is_err() {
        let out = std::env::temp_dir().join(format!("heapql-crash-{name}"));
        std::fs::write(&out, bytes).unwrap();
        panic!("panic on {name}; input saved to {}", out.display());
    }
}

fn mutate(r: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + r.below(3) {
        if b.is_empty() {
            break;
        }
        match r.below(6) {
            0 => {
                let i = r.below(b.len());
                b[i] ^= 1 << r.below(8);
            }
            1 => {
                let i = r.below(b.len());
                b[i] = r.next() as u8;
            }
            2 => {
                // An extreme 4-byte value where a length or count may be.
                let i = r.below(b.len().saturating_sub(4).max(1));
                let v: u32 = [0, 1, 0x7fff_ffff, 0xffff_ffff, 0x8000_0000, 0x100][r.below(6)];
                for (k, x) in v.to_be_bytes().iter().enumerate() {
                    if i + k < b.len() {
                        b[i + k] = *x;
                    }
                }
            }
            3 => b.truncate(r.below(b.len() + 1)),
            4 => {
                let i = r.below(b.len());
                let j = (i + r.below(64)).min(b.len());
                let chunk = b[i..j].to_vec();
                let at = r.below(b.len());
                b.splice(at..at, chunk);
            }
            _ => {
                let i = r.below(b.len());
                let n = r.below(16).min(b.len() - i);
                b.drain(i..i + n);
            }
        }
    }
    b
}

#[test]
fn corpus_files_never_panic() {
    for (name, bytes) in corpus_files() {
        run(&name, &bytes);
    }
}

#[test]
fn thousands_of_mutations_never_panic() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let files = corpus_files();
    let mut n = 0;
    for (name, bytes) in &files {
        for k in 0..1500 {
            let m = mutate(&mut r, bytes);
            run(&format!("{name}-mut{k}"), &m);
            n += 1;
        }
        // Every truncation of the file, too.
        for cut in 0..bytes.len() {
            run(&format!("{name}-cut{cut}"), &bytes[..cut]);
            n += 1;
        }
    }
    assert!(n > 5000);
}
