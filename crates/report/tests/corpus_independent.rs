//! Report figures on the third-party corpus, pinned to numbers computed apart from heapql: a
//! throw-away HPROF reader (Python) that walked each dump's records itself — the strings' texts
//! (JDK 6 offset/count, JDK 9+ coder, ART), the graph with MAT's edges and thread-attached
//! roots, a Cooper–Harvey–Kennedy dominator tree of the reachable objects and of the
//! unreachable forest (each unreferenced unreachable object a pseudo-root, then one per leftover
//! cycle in address order) — using only the shallow sizes heapql gives each object. Every figure
//! here agreed with heapql's report when this was written; a change that moves one is a change
//! of answer, not of presentation.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, OpenOptions};
use heapql_report::{build, ReportData, ReportOptions, SuspectKind};
use std::path::PathBuf;

fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus").join(name)
}

fn report(name: &str) -> ReportData {
    let heap = Heap::open(&corpus(name), OpenOptions::default()).unwrap();
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    build(&heap, &a, &ReportOptions::default()).unwrap()
}

struct Expect {
    dump: &'static str,
    used_heap: u64,
    /// strings, distinct texts, texts held more than once, bytes the copies cost
    dup_strings: (u64, u64, u64, u64),
    /// single-object suspects: (address, retained)
    singles: &'static [(&'static str, u64)],
    /// group suspects: (class, top-level instances, their retained size)
    groups: &'static [(&'static str, u64, u64)],
}

const EXPECT: &[Expect] = &[
    Expect {
        dump: "hprof-64.bin",
        // JDK 8's `java.lang.Class` lays its references first and is not compacted, as HotSpot
        // lays it (layout.rs `old_layout`): 8 bytes more per class object than a compacted one.
        used_heap: 2_600_808,
        dup_strings: (1516, 1195, 127, 32_296),
        singles: &[("0xd701ec08", 650_016), ("0xd715c4b8", 649_984), ("0xd70be8f8", 645_576)],
        groups: &[],
    },
    Expect {
        dump: "hprof-32.bin",
        used_heap: 185_048,
        dup_strings: (765, 661, 40, 2976),
        singles: &[("0x5000002d", 67_392), ("0x50000109", 18_840)],
        groups: &[("java.lang.Class", 369, 65_952)],
    },
    Expect {
        dump: "ahat-test-dump.hprof",
        used_heap: 1_768_960,
        dup_strings: (372, 317, 28, 2018),
        singles: &[("0x26000000", 1_000_012), ("0x6080150", 241_425)],
        groups: &[("java.lang.Class", 1125, 459_952)],
    },
    Expect {
        dump: "oracle_jdk7_21_hprofagent.hprof",
        used_heap: 230_368,
        dup_strings: (840, 761, 60, 7128),
        singles: &[("0x50000033", 52_208)],
        groups: &[("java.lang.Class", 436, 112_168), ("java.lang.String", 400, 27_280)],
    },
    Expect {
        dump: "sun_jdk6_30_x64_compressedOops.hprof",
        used_heap: 360_224,
        // JDK 6 Strings read windows of shared char[]s: a redundant copy whose array Strings of
        // other texts read too (`.` in a class path's char[883], read by 26 Strings) costs its
        // String alone, since dropping it frees no array (30,264 when those arrays were counted).
        dup_strings: (876, 784, 83, 14_480),
        singles: &[("0x77ca30938", 61_472)],
        groups: &[("java.lang.Class", 368, 127_320), ("byte[]", 388, 58_304)],
    },
];

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn corpus_report_figures_match_an_independent_reader() {
    for e in EXPECT {
        let d = report(e.dump);
        assert_eq!(d.overview.heap.used_heap, e.used_heap, "{}: used heap", e.dump);
        let s = &d.waste.duplicate_strings;
        assert_eq!((s.strings, s.distinct, s.duplicated_values, s.wasted_bytes), e.dup_strings, "{}: duplicate strings", e.dump);
        let mut singles: Vec<(String, u64)> = Vec::new();
        let mut groups: Vec<(String, u64, u64)> = Vec::new();
        for x in &d.leak_suspects.suspects {
            match x.kind {
                SuspectKind::Single => singles.push((x.object.as_ref().unwrap().address.clone(), x.retained)),
                _ => groups.push((x.class_name.clone(), x.instances, x.retained)),
            }
        }
        let want_s: Vec<(String, u64)> = e.singles.iter().map(|(a, r)| (a.to_string(), *r)).collect();
        let want_g: Vec<(String, u64, u64)> = e.groups.iter().map(|(c, n, r)| (c.to_string(), *n, *r)).collect();
        assert_eq!(singles, want_s, "{}: single suspects", e.dump);
        groups.sort_by(|a, b| b.2.cmp(&a.2));
        assert_eq!(groups, want_g, "{}: group suspects", e.dump);
    }
}
