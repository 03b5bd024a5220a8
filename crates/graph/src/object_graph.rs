//! The object graph of a heap dump, following MAT (docs/mat-semantics.md §1.2–1.4).
//!
//! Nodes: 0 is the virtual root, object `o` is node `o + 1`. Edges: every object's class
//! object first, then its references resolved to objects of the dump (dangling ids dropped;
//! each node's remaining list sorted, duplicates removed): instance reference fields, object
//! array elements, and for a class object its super class, loader and reference statics. A
//! thread object also points at what its stack holds (roots bound to a known thread are edges
//! from that thread, not GC roots). The virtual root's children are the GC roots and — unless
//! `reachable_only` — one pseudo-root per unreachable region (its entry objects, then one
//! representative per leftover cycle), so every object gets a dominator.
//!
//! Dominators, retained sets and paths to GC roots follow the edges of `ObjectGraph::follows`:
//! not an edge from an unreachable object into a reachable one, so the garbage never changes
//! the dominator, retained size or root path of a live object (design.md §4.2): the reachable
//! objects' tree is that of the reachable graph alone, and the unreachable objects form their
//! own forest under their pseudo-roots.

use crate::control::{Cancelled, Control};
use crate::marking::{mark_reachable, CHECK_EVERY};
use crate::{Csr, CsrParts, FixedBitSet, Graph, SequentialCsrBuilder};
use heapql_heap::{Heap, ObjIdx, RootKind};

/// Root kinds that MAT turns into an edge from their thread when the thread object is known.
pub fn is_thread_bound(kind: RootKind) -> bool {
    matches!(
        kind,
        RootKind::JavaFrame
            | RootKind::JniLocal
            | RootKind::NativeStack
            | RootKind::ThreadBlock
            | RootKind::JniMonitor
    )
}

/// Object `o`'s node.
#[inline]
pub fn node(o: ObjIdx) -> u32 {
    o + 1
}

/// Node `v`'s object (v > 0).
#[inline]
pub fn obj(v: u32) -> ObjIdx {
    v - 1
}

pub struct ObjectGraph {
    /// Outbound edges of nodes 0..=N (node 0's list is empty; see `root_children`), in the
    /// parts the build made them in.
    pub(crate) out: CsrParts,
    /// Children of the virtual root: GC roots, then unreachable pseudo-roots (node ids).
    pub(crate) root_children: Vec<u32>,
    /// Number of GC roots at the start of `root_children`.
    pub(crate) gc_root_count: usize,
    /// Nodes whose only predecessor (for dominators) is the virtual root.
    pub(crate) pinned: FixedBitSet,
    /// Nodes reachable from the GC roots.
    pub(crate) reachable: FixedBitSet,
    /// References to ids that are no object of the dump (dropped from the lists).
    pub(crate) dangling: Dangling,
}

/// The references the graph dropped because their id names no object of the dump (they read
/// as null): how many, and the first in object order (the same for any number of parts).
/// Non-zero ids only: instance reference fields, object array elements, and of class objects
/// the class loader and reference statics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dangling {
    pub count: u64,
    pub first: Option<DanglingRef>,
}

/// One dangling reference: the object holding it, its slot (as `Heap::for_each_reference`
/// numbers them: `heapql_heap::inspect::slot_label`) and the id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DanglingRef {
    pub from: ObjIdx,
    pub slot: u32,
    pub id: u64,
}

impl Dangling {
    /// Counts one (off the hot path: a reference that resolves never comes here).
    #[cold]
    #[inline(never)]
    fn note(&mut self, from: ObjIdx, slot: u32, id: u64) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(DanglingRef { from, slot, id });
        }
    }

    /// Those of consecutive object ranges, in order.
    fn then(self, later: Dangling) -> Dangling {
        Dangling { count: self.count + later.count, first: self.first.or(later.first) }
    }
}

impl Graph for ObjectGraph {
    fn node_count(&self) -> u32 {
        self.out.node_count()
    }
    #[inline]
    fn successors(&self, v: u32) -> &[u32] {
        if v == 0 {
            &self.root_children
        } else {
            self.out.successors(v)
        }
    }
}

impl ObjectGraph {
    /// Builds the graph (phase "graph"): one pass over the objects, then reachability from
    /// the GC roots and, unless `reachable_only`, the unreachable pseudo-roots.
    pub fn build(heap: &Heap, reachable_only: bool, ctl: &Control) -> Result<ObjectGraph, Cancelled> {
        // Outbound lists over consecutive object ranges in parallel (one per core).
        let threads = if heap.object_count() < 1 << 16 { 1 } else { crate::par::cores(8) as u32 };
        ObjectGraph::build_in_parts(heap, reachable_only, threads, ctl)
    }

    /// `build` with the outbound lists made in `parts` object ranges, one thread each.
    pub(crate) fn build_in_parts(heap: &Heap, reachable_only: bool, parts: u32, ctl: &Control) -> Result<ObjectGraph, Cancelled> {
        let n = heap.object_count();
        assert!(n < u32::MAX - 3, "too many objects for u32 node ids");
        let nodes = n + 1;

        // Thread-bound roots become edges thread -> object; the rest are GC roots.
        let mut thread_of_serial: Vec<(u32, u32)> =
            heap.threads().iter().filter_map(|t| t.object.map(|o| (t.serial, node(o)))).collect();
        thread_of_serial.sort_unstable();
        let mut thread_edges: Vec<(u32, u32)> = Vec::new();
        let mut roots: Vec<u32> = Vec::new();
        for r in heap.gc_roots() {
            let thread = match (is_thread_bound(r.kind), r.thread_serial) {
                (true, Some(s)) => thread_of_serial
                    .binary_search_by_key(&s, |&(serial, _)| serial)
                    .ok()
                    .map(|i| thread_of_serial[i].1),
                _ => None,
            };
            match thread {
                Some(t) => thread_edges.push((t, node(r.object))),
                None => roots.push(node(r.object)),
            }
        }
        roots.sort_unstable();
        roots.dedup();
        thread_edges.sort_unstable();
        thread_edges.dedup();

        let mut laps = heapql_heap::Laps::new("heapql-graph");
        let threads = parts.max(1);
        let done = std::sync::atomic::AtomicU64::new(0);
        let bounds: Vec<u32> = (0..=threads).map(|k| (n as u64 * k as u64 / threads as u64) as u32).collect();
        let (thread_edges, done) = (&thread_edges, &done);
        let parts = crate::par::run_each((0..threads as usize).map(|k| {
            let (lo, hi) = (bounds[k], bounds[k + 1]);
            move || build_range(heap, lo, hi, k, thread_edges, done, ctl).map(|(b, d)| (b.finish(), d))
        }));
        let parts = parts.into_iter().collect::<Result<Vec<(Csr, Dangling)>, Cancelled>>()?;
        let dangling = parts.iter().fold(Dangling::default(), |all, &(_, d)| all.then(d));
        let parts: Vec<Csr> = parts.into_iter().map(|(c, _)| c).collect();
        // Part 0 holds the virtual root's list before its objects' (nodes 0..=bounds[1]);
        // part k those of nodes bounds[k]+1..=bounds[k+1].
        let firsts = (0..parts.len()).map(|k| if k == 0 { 0 } else { node(bounds[k]) }).collect();
        let out = CsrParts::new(firsts, parts).expect("the parts cover consecutive node ranges");
        laps.lap("graph: outbound lists");
        ctl.tick(n as u64, n as u64)?;

        let mut pinned = FixedBitSet::with_capacity(nodes as usize);
        for &r in &roots {
            pinned.insert(r as usize);
        }
        let gc_root_count = roots.len();
        let mut g = ObjectGraph { out, root_children: roots, gc_root_count, pinned, reachable: FixedBitSet::new(), dangling };

        // Reachability and the unreachable roots report no progress (the phase stays at n of
        // n) but look at the cancel flag every `CHECK_EVERY` nodes: on bench-4g they take
        // 1.5-2 s.
        let mut marked = FixedBitSet::with_capacity(nodes as usize);
        marked.insert(0);
        let mut stack: Vec<u32> = Vec::new();
        if threads > 1 {
            mark_reachable(&g, 0, &mut marked, threads as usize, ctl)?;
        } else {
            mark_from(&g, 0, &mut marked, &mut stack, ctl)?;
        }
        g.reachable = marked.clone();
        laps.lap("graph: reachability");
        if !reachable_only {
            g.add_unreachable_roots(&mut marked, &mut stack, ctl)?;
            laps.lap("graph: unreachable roots");
        }
        Ok(g)
    }

    /// MAT's `keep_unreachable_objects`: first every unreachable object that no other
    /// unreachable object references, then, in index order, one representative of each
    /// unreachable cycle not yet covered. Each becomes a pinned child of the virtual root.
    fn add_unreachable_roots(&mut self, marked: &mut FixedBitSet, stack: &mut Vec<u32>, ctl: &Control) -> Result<(), Cancelled> {
        let nodes = self.node_count() as usize;
        let mut referenced = FixedBitSet::with_capacity(nodes);
        for u in 1..nodes {
            if u % CHECK_EVERY as usize == 0 {
                ctl.check()?;
            }
            if marked.contains(u) {
                continue;
            }
            for &v in self.out.successors(u as u32) {
                if v as usize != u && !marked.contains(v as usize) {
                    referenced.insert(v as usize);
                }
            }
        }
        let mut pseudo: Vec<u32> = Vec::new();
        for u in 1..nodes {
            if !marked.contains(u) && !referenced.contains(u) {
                pseudo.push(u as u32);
            }
        }
        drop(referenced);
        for (k, &u) in pseudo.iter().enumerate() {
            if k % CHECK_EVERY as usize == 0 {
                ctl.check()?;
            }
            marked.insert(u as usize);
            mark_from(self, u, marked, stack, ctl)?;
        }
        for u in 1..nodes {
            if u % CHECK_EVERY as usize == 0 {
                ctl.check()?;
            }
            if !marked.contains(u) {
                pseudo.push(u as u32);
                marked.insert(u);
                mark_from(self, u as u32, marked, stack, ctl)?;
            }
        }
        pseudo.sort_unstable();
        for &u in &pseudo {
            self.pinned.insert(u as usize);
        }
        self.root_children.extend_from_slice(&pseudo);
        Ok(())
    }

    /// The references dropped because their id is no object of the dump.
    pub fn dangling(&self) -> &Dangling {
        &self.dangling
    }

    /// GC root nodes (children of the virtual root that are real roots), sorted.
    pub fn gc_roots(&self) -> &[u32] {
        &self.root_children[..self.gc_root_count]
    }

    /// Unreachable pseudo-root nodes, ascending (empty with `reachable_only`).
    pub fn unreachable_roots(&self) -> &[u32] {
        &self.root_children[self.gc_root_count..]
    }

    /// Is `u -> v` an edge of the graph that dominators, retained sets and paths to GC roots
    /// follow? Every edge of the virtual root; into a pinned node (a GC root, a pseudo-root)
    /// none other; from an unreachable object into a reachable one none (garbage never holds
    /// a live object).
    #[inline]
    pub fn follows(&self, u: u32, v: u32) -> bool {
        u == 0
            || (!self.pinned.contains(v as usize)
                && (self.reachable.contains(u as usize) || !self.reachable.contains(v as usize)))
    }

    /// Is node `v` reachable from the GC roots?
    pub fn is_reachable(&self, v: u32) -> bool {
        self.reachable.contains(v as usize)
    }

    /// Will node `v` be in the dominator tree? When it hangs off a GC root or, unless
    /// `reachable_only`, at all (every unreachable object hangs off a pseudo-root). Known
    /// before the dominators are (`FullAnalysis::in_tree` asks the finished tree).
    #[inline]
    pub fn in_tree(&self, v: u32, reachable_only: bool) -> bool {
        !reachable_only || self.is_reachable(v)
    }

    pub fn reachable_count(&self) -> usize {
        self.reachable.count_ones(..) - 1
    }

    pub fn edge_count(&self) -> u64 {
        self.out.edge_count() + self.root_children.len() as u64
    }

    pub fn file_bytes(&self) -> usize {
        self.out.file_bytes()
    }

    pub fn heap_bytes(&self) -> usize {
        self.out.heap_bytes()
            + self.root_children.capacity() * 4
            + self.pinned.len() / 8
            + self.reachable.len() / 8
    }
}

/// Outbound lists of objects `lo..hi`, the graph's `part`-th part (nodes `lo+1..=hi`; the
/// first part also holds the virtual root's empty list first), and the references to ids that
/// are no object among them.
fn build_range(
    heap: &Heap,
    lo: u32,
    hi: u32,
    part: usize,
    thread_edges: &[(u32, u32)],
    done: &std::sync::atomic::AtomicU64,
    ctl: &Control,
) -> Result<(SequentialCsrBuilder, Dangling), Cancelled> {
    let n = heap.object_count() as u64;
    let info = heap.info();
    // A reference takes at least one id in the file, plus one class edge per object; capacity
    // that is never touched is never made resident.
    let with_root = part == 0;
    let objects = (hi - lo) as u64;
    let share = objects * 2 + info.file_size / info.id_size.max(1) as u64 * objects / n.max(1);
    let mut b = SequentialCsrBuilder::new_in(objects as u32 + 1, share, heap.scratch());
    if with_root {
        b.finish_node();
    }
    let mut te = thread_edges.partition_point(|&(t, _)| t < node(lo));
    let mut dangling = Dangling::default();
    for o in lo..hi {
        let class_obj = heap.class(heap.class_of(o)).object;
        b.push_edge(node(class_obj));
        heap.for_each_reference(o, |id, slot| match heap.index_of(id) {
            Some(t) => b.push_edge(node(t)),
            None => dangling.note(o, slot, id),
        });
        while te < thread_edges.len() && thread_edges[te].0 == node(o) {
            b.push_edge(thread_edges[te].1);
            te += 1;
        }
        b.sort_dedup_pending(1);
        b.finish_node();
        if (o - lo) & 0xFFFF == 0xFFFF {
            let d = done.fetch_add(0x10000, std::sync::atomic::Ordering::Relaxed) + 0x10000;
            ctl.tick(d, n)?;
        }
    }
    Ok((b, dangling))
}

/// Marks everything reachable from `from` (already marked itself), looking at the cancel flag
/// every `CHECK_EVERY` nodes (the stack is left as it was: empty, when it stops).
fn mark_from(g: &ObjectGraph, from: u32, marked: &mut FixedBitSet, stack: &mut Vec<u32>, ctl: &Control) -> Result<(), Cancelled> {
    stack.push(from);
    let mut until_check = CHECK_EVERY;
    while let Some(u) = stack.pop() {
        until_check -= 1;
        if until_check == 0 {
            until_check = CHECK_EVERY;
            if ctl.check().is_err() {
                stack.clear();
                return Err(Cancelled);
            }
        }
        for &v in g.successors(u) {
            if !marked.put(v as usize) {
                stack.push(v);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use heapql_heap::{OpenOptions, Placement};
    use std::path::{Path, PathBuf};

    fn fixture_dumps() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut dumps: Vec<PathBuf> = std::fs::read_dir(root.join("dumps"))
            .expect("fixtures/dumps exists")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "hprof"))
            .collect();
        dumps.sort();
        dumps.push(root.join("demo/demo.hprof"));
        assert!(dumps.len() > 1, "fixture dumps found");
        dumps
    }

    /// A dump of `reachable` objects in a chain held by a JNI global and `unreachable` more in a
    /// chain nothing holds, written to `dir`.
    fn chains(dir: &Path, reachable: usize, unreachable: usize) -> PathBuf {
        use heapql_hprof::testkit::{DumpBuilder, Val};
        let mut b = DumpBuilder::new(8);
        let node_class = b.class("demo.Node", Some(b.object_class), &[("next", heapql_hprof::BasicType::Object)]);
        for (count, held) in [(reachable, true), (unreachable, false)] {
            let mut next = 0;
            for _ in 0..count {
                next = b.instance(node_class, &[Val::Obj(next)]);
            }
            if held {
                b.root_jni_global(next);
            }
        }
        let path = dir.join(format!("chains-{reachable}-{unreachable}.hprof"));
        std::fs::write(&path, b.build()).unwrap();
        path
    }

    /// Cancelled once the outbound lists are done (the phase's progress at its total), the
    /// build stops in the reachability walk (one part: one thread; two: the threads' walk) or
    /// in the search for the unreachable roots, each longer than a look at the flag apart.
    #[test]
    fn cancelled_after_the_outbound_lists_the_build_stops() {
        let dir = tempfile::tempdir().unwrap();
        for (reachable, unreachable) in [(300_000, 0), (10, 300_000)] {
            let heap = Heap::open(&chains(dir.path(), reachable, unreachable), OpenOptions::default()).unwrap();
            for parts in [1, 2] {
                let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
                let set = flag.clone();
                let progress: heapql_heap::ProgressFn = std::sync::Arc::new(move |p: heapql_heap::Progress| {
                    if p.done == p.total {
                        set.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                });
                let ctl = Control { phase: "graph", progress: Some(progress), cancel: Some(flag) };
                let what = format!("{reachable} reachable, {unreachable} unreachable, {parts} parts");
                assert!(ObjectGraph::build_in_parts(&heap, false, parts, &ctl).is_err(), "{what}: cancelled");
                let g = ObjectGraph::build_in_parts(&heap, false, parts, &Control::none()).unwrap();
                assert!(g.reachable_count() >= reachable, "{what}: uncancelled, the chain (and the classes) reachable");
            }
        }
    }

    /// The graph built in several parts (cut wherever the bounds fall, in memory and in
    /// scratch files) has the lists, roots and reachability of the one built in one part.
    #[test]
    fn parts_build_the_graph_of_one_part_on_the_fixture_dumps() {
        let dir = tempfile::tempdir().unwrap();
        for path in fixture_dumps() {
            let open = |scratch| Heap::open(&path, OpenOptions { scratch, ..Default::default() }).unwrap();
            let heap = open(Placement::Memory);
            let whole = ObjectGraph::build_in_parts(&heap, false, 1, &Control::none()).unwrap();
            let filed = open(Placement::Files(std::sync::Arc::from(dir.path())));
            for (heap, parts) in [(&heap, 2), (&heap, 3), (&filed, 1), (&filed, 2), (&filed, 8)] {
                let g = ObjectGraph::build_in_parts(heap, false, parts, &Control::none()).unwrap();
                let what = format!("{} in {parts} parts", path.display());
                let in_files = g.out.heap_bytes() == 0 && g.out.file_bytes() > 0;
                assert_eq!(in_files, matches!(heap.scratch(), Placement::Files(_)), "{what}: placement");
                assert_eq!((g.node_count(), g.edge_count()), (whole.node_count(), whole.edge_count()), "{what}");
                for v in 0..g.node_count() {
                    assert_eq!(g.successors(v), whole.successors(v), "{what}: node {v}");
                }
                assert_eq!((&g.reachable, &g.pinned, g.gc_root_count), (&whole.reachable, &whole.pinned, whole.gc_root_count), "{what}");
                assert_eq!(g.dangling, whole.dangling, "{what}");
            }
        }
    }
}
