//! heapql's dominator tree and retained sizes against an independent, slow computation on real
//! dumps: the fixtures and, when present, the third-party corpus in `../shared/corpus`.
//!
//! The reference: reachability by its own walk from the GC roots, then the textbook simple
//! Lengauer–Tarjan algorithm (buckets, no balancing; heapql uses SEMI-NCA) over the graph of
//! reachable objects alone (design.md §4.2; GC roots hang off the virtual root only),
//! and retained sizes summed over that tree. (The iterative dataflow algorithm of Cooper,
//! Harvey and Kennedy would be simpler but is quadratic here: all 150 000 nodes of a fixture's
//! chain refer to their class object.) The unreachable objects are checked the same way
//! over the garbage alone, under the analysis's pseudo-roots.

use heapql_graph::{FullAnalysis, GraphOptions};
use heapql_heap::{Heap, ObjIdx, OpenOptions};
use std::path::{Path, PathBuf};

/// Immediate dominators (`Some(None)` for the virtual root's children, `None` for objects not
/// reached) and retained sizes of the objects reached from `roots`, following `out` only into
/// objects for which `keep` holds.
struct Reference {
    idom: Vec<Option<Option<ObjIdx>>>,
    retained: Vec<u64>,
    reached: usize,
}

fn reference(heap: &Heap, out: &dyn Fn(ObjIdx) -> Vec<ObjIdx>, roots: &[ObjIdx], keep: &dyn Fn(ObjIdx) -> bool) -> Reference {
    let n = heap.object_count() as usize;
    let virt = n; // the virtual root
    let mut is_root = vec![false; n];
    for &r in roots {
        is_root[r as usize] = true;
    }
    // Successors: the virtual root's are the roots; a root has no other predecessor.
    let succ = |v: usize| -> Vec<usize> {
        if v == virt {
            return roots.iter().map(|&r| r as usize).collect();
        }
        out(v as ObjIdx).into_iter().filter(|&t| keep(t) && !is_root[t as usize]).map(|t| t as usize).collect()
    };
    // Lengauer–Tarjan, the simple version (buckets, deferred same-dominator, path compression
    // without balancing), over a preorder numbering by an explicit-stack DFS.
    const NONE: usize = usize::MAX;
    let mut dfnum = vec![NONE; n + 1];
    let mut vertex: Vec<usize> = Vec::new();
    let mut parent = vec![NONE; n + 1];
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    dfnum[virt] = 0;
    vertex.push(virt);
    let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(virt, succ(virt), 0)];
    while let Some((v, s, i)) = stack.last_mut() {
        if *i == s.len() {
            stack.pop();
            continue;
        }
        let (v, w) = (*v, s[*i]);
        *i += 1;
        preds[w].push(v);
        if dfnum[w] == NONE {
            dfnum[w] = vertex.len();
            vertex.push(w);
            parent[w] = v;
            let ws = succ(w);
            stack.push((w, ws, 0));
        }
    }
    let mut semi = vec![NONE; n + 1];
    let mut ancestor = vec![NONE; n + 1];
    let mut best = vec![NONE; n + 1];
    let mut samedom = vec![NONE; n + 1];
    let mut idom = vec![NONE; n + 1];
    let mut bucket: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    // The ancestor of `v` in the linked forest whose semidominator has the lowest number,
    // compressing the path (iterative form of the textbook recursion).
    let lowest = |v: usize, ancestor: &mut [usize], best: &mut [usize], semi: &[usize]| -> usize {
        let mut path = Vec::new();
        let mut x = v;
        while ancestor[ancestor[x]] != NONE {
            path.push(x);
            x = ancestor[x];
        }
        let mut below = x;
        for &y in path.iter().rev() {
            let b = best[below];
            ancestor[y] = ancestor[below];
            if dfnum[semi[b]] < dfnum[semi[best[y]]] {
                best[y] = b;
            }
            below = y;
        }
        best[v]
    };
    for i in (1..vertex.len()).rev() {
        let w = vertex[i];
        let p = parent[w];
        let mut s = p;
        for &v in &preds[w] {
            let cand = if dfnum[v] <= dfnum[w] { v } else { semi[lowest(v, &mut ancestor, &mut best, &semi)] };
            if dfnum[cand] < dfnum[s] {
                s = cand;
            }
        }
        semi[w] = s;
        bucket[s].push(w);
        ancestor[w] = p;
        best[w] = w;
        for v in std::mem::take(&mut bucket[p]) {
            let y = lowest(v, &mut ancestor, &mut best, &semi);
            if semi[y] == semi[v] {
                idom[v] = p;
            } else {
                samedom[v] = y;
            }
        }
    }
    for &w in &vertex[1..] {
        if samedom[w] != NONE {
            idom[w] = idom[samedom[w]];
        }
    }
    // Retained sizes: the tree in preorder (parents first), summed in reverse.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for &v in &vertex {
        if v != virt {
            children[idom[v]].push(v);
        }
    }
    let mut order = Vec::with_capacity(vertex.len());
    let mut todo = vec![virt];
    while let Some(v) = todo.pop() {
        order.push(v);
        todo.extend(children[v].iter().copied());
    }
    let mut retained = vec![0u64; n + 1];
    for &v in order.iter().rev() {
        if v != virt {
            retained[v] += heap.shallow_size(v as ObjIdx);
            let s = retained[v];
            retained[idom[v]] += s;
        }
    }
    let idom = (0..n).map(|v| (idom[v] != NONE || v == virt).then(|| (idom[v] != virt).then_some(idom[v] as ObjIdx))).collect();
    Reference { idom, retained, reached: vertex.len() - 1 }
}

/// Checks one dump; returns (reachable, unreachable) object counts.
fn check(path: &Path) -> (usize, usize) {
    let heap = Heap::open(path, OpenOptions::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
    let name = path.display();
    let out = |o: ObjIdx| a.outbound(o).collect::<Vec<_>>();
    let gc_roots: Vec<ObjIdx> = a.gc_roots().collect();
    let live = reference(&heap, &out, &gc_roots, &|_| true);
    let mut wrong = Vec::new();
    for o in 0..heap.object_count() {
        assert_eq!(a.is_reachable(o), live.idom[o as usize].is_some(), "{name}: reachability of {o}");
        if let Some(d) = live.idom[o as usize] {
            if a.immediate_dominator(o) != d || a.retained_size(o) != live.retained[o as usize] {
                wrong.push((o, a.immediate_dominator(o), d, a.retained_size(o), live.retained[o as usize]));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{name}: {} of {} reachable objects differ (object, heapql idom, reference idom, heapql retained, reference retained), first: {:?}",
        wrong.len(),
        live.reached,
        &wrong[..wrong.len().min(5)]
    );
    // The garbage: its own forest under the pseudo-roots, never entering a live object.
    let pseudo: Vec<ObjIdx> = a.unreachable_roots().collect();
    let garbage = reference(&heap, &out, &pseudo, &|t| !a.is_reachable(t));
    let unreachable = (0..heap.object_count()).filter(|&o| !a.is_reachable(o)).count();
    assert_eq!(garbage.reached, unreachable, "{name}: every unreachable object hangs off a pseudo-root");
    for o in (0..heap.object_count()).filter(|&o| !a.is_reachable(o)) {
        assert_eq!(Some(a.immediate_dominator(o)), garbage.idom[o as usize], "{name}: dominator of unreachable {o}");
        assert_eq!(a.retained_size(o), garbage.retained[o as usize], "{name}: retained size of unreachable {o}");
    }
    let total: u64 = (0..heap.object_count()).map(|o| heap.shallow_size(o)).sum();
    assert_eq!(a.total_size(), total, "{name}");
    (live.reached, unreachable)
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn fixture_dumps_match_the_reference_dominators() {
    let mut dumps = vec![repo().join("fixtures/demo/demo.hprof")];
    for e in std::fs::read_dir(repo().join("fixtures/dumps")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "hprof") {
            dumps.push(p);
        }
    }
    dumps.sort();
    assert!(dumps.len() >= 6, "fixture dumps missing: {dumps:?}");
    let mut with_garbage = 0;
    for p in &dumps {
        let (live, dead) = check(p);
        eprintln!("{}: {live} reachable, {dead} unreachable objects agree", p.display());
        with_garbage += (dead > 0) as usize;
    }
    // The point of the check: garbage that references live objects.
    assert!(with_garbage > 0, "no fixture dump has unreachable objects");
}

#[test]
#[cfg_attr(not(heapql_corpus), ignore = "the third-party corpus is not beside the repository (../shared/corpus)")]
fn corpus_dumps_match_the_reference_dominators() {
    let dir = repo().join("../shared/corpus");
    for f in [
        "hprof-64.bin",
        "hprof-32.bin",
        "ahat-test-dump.hprof",
        "openjdk_jdk11_04_x64.hprof.gz",
        "oracle_jdk7_21_hprofagent.hprof",
        "sun_jdk6_30_x64_compressedOops.hprof",
        "sun_jdk6_30_x64_nocompressedOops.hprof",
    ] {
        // The corpus is a fixed set (its SHA256SUMS): a file missing from it is a broken
        // corpus, not a reason to check less.
        let p = dir.join(f);
        assert!(p.exists(), "{f} is missing from the corpus at {}", dir.display());
        let (live, dead) = check(&p);
        eprintln!("{f}: {live} reachable, {dead} unreachable objects agree");
    }
}
