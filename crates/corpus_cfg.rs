//! Build script shared by the crates whose integration tests read the third-party corpus
//! (`../shared/corpus`, beside the repository, never copied into it): sets `cfg(heapql_corpus)`
//! when the corpus is there. Its tests are marked ignored without it, so a run on a machine
//! that lacks it reports them as ignored, never as passed.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let corpus = manifest.join("../../../shared/corpus");
    println!("cargo::rustc-check-cfg=cfg(heapql_corpus)");
    if corpus.is_dir() {
        // A directory is scanned for changes: the corpus removed, the script runs again.
        println!("cargo::rerun-if-changed={}", corpus.display());
        println!("cargo::rustc-cfg=heapql_corpus");
    } else {
        // Watching a path that does not exist would rerun the script, and rebuild the crate,
        // on every build; the script itself is watched instead, so a corpus placed later is
        // seen after `touch crates/corpus_cfg.rs` (or `cargo clean`).
        println!("cargo::rerun-if-changed={}", manifest.join("../corpus_cfg.rs").display());
    }
}
