//! Sizes a dump's field bytes do not give, against the `jcmd GC.class_histogram` taken with the
//! dump (fixtures/dumps/layout, made by `fixtures/make-fixtures.sh LayoutHeap`): JDK classes the
//! VM pads for `@Contended` (whole classes and field groups, which changed between JDK 17 and 25)
//! and the stack chunks of parked virtual threads, sized by their stack.

mod common;

use common::{histogram_by_name, parse_histogram, repo};
use heapql_heap::{Heap, OpenOptions};

/// Classes each dump must hold with the VM's count, so that a comparison of them took place.
fn must_compare(name: &str) -> &'static [&'static str] {
    const JDK17: &[&str] = &[
        "java.util.concurrent.ForkJoinPool",
        "java.util.concurrent.ForkJoinPool$WorkQueue",
        "java.util.concurrent.SubmissionPublisher$BufferedSubscription",
        "java.util.concurrent.Exchanger$Node",
    ];
    const JDK25: &[&str] = &[
        "java.util.concurrent.ForkJoinPool",
        "java.util.concurrent.ForkJoinPool$WorkQueue",
        "java.util.concurrent.SubmissionPublisher$BufferedSubscription",
        "java.util.concurrent.Exchanger$Slot",
        "java.util.concurrent.Exchanger$Node",
        "java.util.concurrent.atomic.Striped64$Cell",
        "java.lang.VirtualThread",
        "jdk.internal.vm.StackChunk",
    ];
    // JDK 11 (a jlinked Temurin runtime: make-fixtures.sh's JDK11) stands for 9–16.
    const JDK11: &[&str] = &[
        "java.lang.Thread",
        "java.lang.ref.Finalizer$FinalizerThread",
        "jdk.internal.loader.ClassLoaders$AppClassLoader",
        "java.util.concurrent.ForkJoinPool",
        "java.util.concurrent.ForkJoinPool$WorkQueue",
        "java.util.concurrent.SubmissionPublisher$BufferedSubscription",
        "java.util.concurrent.Exchanger$Node",
    ];
    if name.contains("jdk11") {
        JDK11
    } else if name.contains("jdk17") {
        JDK17
    } else {
        JDK25
    }
}

#[test]
fn padded_classes_and_stack_chunks_match_the_vm() {
    let dir = repo().join("fixtures/dumps/layout");
    let mut dumps: Vec<_> = std::fs::read_dir(&dir)
        .map(|r| r.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "hprof")).collect())
        .unwrap_or_default();
    dumps.sort();
    // Each layout the tests stand for, present (fixtures/make-fixtures.sh LayoutHeap; JDK11=… for jdk11).
    for want in ["LayoutHeap-jdk11.hprof", "LayoutHeap-jdk17.hprof", "LayoutHeap-jdk25.hprof", "LayoutHeap-jdk25-nocoops.hprof"] {
        assert!(dumps.iter().any(|p| p.file_name().is_some_and(|n| n == want)), "the layout fixtures are part of the repository: {} lacks {want}", dir.display());
    }
    for path in dumps {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let h = Heap::open(&path, OpenOptions::default()).unwrap();
        let jvm = parse_histogram(&std::fs::read_to_string(path.with_extension("histo-after.txt")).unwrap());
        let ours = histogram_by_name(&h);
        // The histogram's totals come from counts; the objects' own sizes must say the same.
        let mut by_object: std::collections::HashMap<String, u64> = Default::default();
        for o in 0..h.object_count() {
            *by_object.entry(h.class(h.class_of(o)).name.clone()).or_default() += h.shallow_size(o);
        }
        let mut compared = Vec::new();
        let mut bad = Vec::new();
        for (cls, &(c, b)) in &jvm {
            if cls == "java.lang.Class" {
                continue;
            }
            let Some(&(oc, ob)) = ours.get(cls) else { continue };
            if oc != c {
                continue;
            }
            compared.push(cls.clone());
            if ob != b {
                bad.push(format!("{cls}: {c} objects, jvm {b} bytes, histogram {ob}"));
            }
            if by_object.get(cls).copied().unwrap_or(0) != b {
                bad.push(format!("{cls}: {c} objects, jvm {b} bytes, objects' own sizes {}", by_object[cls]));
            }
        }
        for want in must_compare(&name) {
            assert!(compared.iter().any(|c| c == want), "{name}: {want} not compared (counts: jvm {:?}, ours {:?})", jvm.get(*want), ours.get(*want));
        }
        bad.sort();
        assert!(bad.is_empty(), "{name}: {bad:#?}");
    }
}
