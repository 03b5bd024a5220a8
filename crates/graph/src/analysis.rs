//! `FullAnalysis`: the object graph with its dominator tree, retained sizes and paths.
//!
//! Memory plan (N objects, E stored edges; E ≈ 2 N on real dumps, the class edge included).
//! Arrays written once and then only read, or walked in order, go where the heap's `scratch`
//! placement says — with `Placement::Files` (the CLI's full analysis) memory-mapped scratch
//! files, i.e. page cache the kernel can write back and evict, as MAT's index files: the heap
//! index (8 B per object), the outbound CSR (1.5 N + 4 E: each list's start packed, see
//! `packed_offsets`; in one part per graph-building thread, each spilling its finished lists
//! every 4 MiB and never copied into one: `CsrParts`),
//! the dominator phase's arrays in preorder (vertex, parent, semidominators; the predecessor
//! pairs, appended to and read back from buckets by preorder number), idom and retained sizes
//! once computed, the DFS preorder (kept: the report lays the dominator tree out from it in two
//! linear passes, `tree_order`, with each entry's dominator as a place in it,
//! `tree_order_idoms`; 4 + 4 B/object), and, built on first use, the dominator children, the
//! BFS parents of paths to GC roots and the referrer index. Only arrays read and written at
//! random during a phase stay in anonymous memory, two `u32` arrays of N at a time:
//! * dominators: pre during the DFS (4 B/object, plus 64 KiB per predecessor bucket and a bit
//!   per vertex for the DFS path: `pred_pairs`), ancestor and label for the semidominators
//!   (plus one bucket's pairs grouped, at most N/256 of them), idom (in preorder) and the
//!   node-indexed result at the end = 8 B/object;
//! * retained sizes: idom and the sums = 8 B/object, both moved to scratch files when done;
//! * kept afterwards: two bitmaps N/4 and the top-level dominators → ≈ 0.3 B/object.
//!
//! Measured on bench-4g.hprof (49 M objects): peak anonymous memory of the analysis phases 8.7
//! B/object (the heap index's 0.2 included), 25.8 B/object in scratch files kept (the DFS
//! preorder's 4 + 4 included; the dominator children, when asked for, add 6.5), plus ≈ 13
//! B/object of temporaries in the dominator phase (parent ≈ 1, `parents`; semidominators 4,
//! predecessor pairs 8 per non-tree edge that `pred_pairs` keeps, 0.4 per object of 0.76
//! non-tree edges; freed at its end). Results are
//! identical with every array in memory (`Placement::Memory`;
//! crates/report/tests/scratch_files.rs).
//!
//! Temporaries are freed before the next array is allocated: the retained sums use the
//! preorder returned by the dominator phase, which the analysis then keeps (written once, read
//! in order only, so it costs page cache, not anonymous memory). The dominator children, the
//! BFS parent array and the referrer index are built on first use: a report walks the tree in
//! preorder and needs none of them.

use crate::control::{Cancelled, Control};
use crate::object_graph::{is_thread_bound, node, obj, Dangling, ObjectGraph};
use crate::{
    bfs_parents, dominator_children, dominators_in, min_retained_size, path_from_parents,
    own_sizes_seen, retained_set, sum_retained_or_stop, Csr, RetainedSizes, SparseCsr, Graph, NONE,
};
use heapql_heap::{BigArray, ClassIdx, Heap, HeapError, ObjIdx, ObjectKind, Placement, ProgressFn, RootKind};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

/// Options of `FullAnalysis::build` (progress phases: "graph", "dominators", "retained").
#[derive(Clone, Default)]
pub struct GraphOptions {
    /// Leave objects unreachable from the GC roots out of the dominator tree (no dominator,
    /// no retained size: `FullAnalysis::retained` is None). Default: keep them in their own
    /// forest under unreachable pseudo-roots, which never changes a reachable object's
    /// dominator (`ObjectGraph::follows`).
    pub reachable_only: bool,
    pub progress: Option<ProgressFn>,
    /// Set to true from another thread to stop; build() then returns HeapError::Cancelled.
    pub cancel: Option<Arc<AtomicBool>>,
}

/// A pass over every object, in order, that `FullAnalysis::build_beside` makes on the core
/// the dominator phase leaves idle. It gives each object's shallow size, where the retained
/// sums start, so that the dump and its index are read once for both: a second pass there
/// read the index again, in a memory limit from disk (0.35 × bench-1g: 101 MB).
pub trait PassBeside: Send {
    type Out: Send;
    /// Sees `o` (a node of `graph`, which knows its reachability) and gives its shallow size.
    fn object(&mut self, graph: &ObjectGraph, o: ObjIdx) -> Result<u64, Cancelled>;
    fn finish(self) -> Self::Out;
}

/// The pass that only reads the shallow sizes.
pub struct ShallowSizes<'h>(pub &'h Heap);

impl PassBeside for ShallowSizes<'_> {
    type Out = ();
    #[inline]
    fn object(&mut self, _: &ObjectGraph, o: ObjIdx) -> Result<u64, Cancelled> {
        Ok(self.0.shallow_size(o))
    }
    fn finish(self) {}
}

/// The retained set of a set of objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetainedSet {
    /// Members, ascending.
    pub objects: Vec<ObjIdx>,
    /// Sum of their shallow sizes.
    pub size: u64,
}

/// One step of a path from a GC root: the object and how it is reached — for the first step
/// the root kinds (`System Class`, `Unreachable`, …), afterwards the referrer's field
/// (`next`, `[3]`, `<class>`, `<super>`, `<classloader>`, `<Java Local in frame 2>`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathStep {
    pub object: ObjIdx,
    pub label: String,
}

pub struct FullAnalysis {
    pub(crate) graph: ObjectGraph,
    /// Immediate dominator node of every node (`NONE` outside the tree; `idom[0] == 0`).
    pub(crate) idom: BigArray<u32>,
    pub(crate) retained: RetainedSizes,
    /// Dominated objects of every node (values are object indices), biggest retained first:
    /// built on the first `dominated` call, as the report walks the tree in preorder instead
    /// (on bench-4g 0.5 s and 6.5 B/object of scratch files that a report never reads).
    pub(crate) tree: OnceLock<SparseCsr>,
    /// The virtual root's children (objects), biggest retained first, then by object.
    pub(crate) top: Vec<ObjIdx>,
    /// The nodes of the tree (the virtual root first) in the dominator phase's DFS preorder:
    /// every node after its immediate dominator. Read in order only (scratch placement), it
    /// lets the report lay the tree out in preorder without following child lists.
    pub(crate) order: BigArray<u32>,
    /// For each entry of `order`, the position in `order` of its immediate dominator (0 for
    /// the virtual root and its children): read in order along with `order`.
    pub(crate) order_idom: BigArray<u32>,
    pub(crate) reachable_only: bool,
    /// BFS parents from the virtual root, for paths to GC roots; built on first use.
    pub(crate) bfs: OnceLock<BigArray<u32>>,
    /// Referrers of every node (the transpose of the outbound lists, without the virtual
    /// root's edges), built on the first `inbound` call: 4 B/object + 4 B/edge, only for
    /// queries that ask for referrers.
    pub(crate) inbound: OnceLock<Csr>,
    /// Where the big arrays built on first use go (the heap's `scratch`).
    pub(crate) scratch: Placement,
}

/// The one warning for the references to ids that are no object in the dump: how many, and the
/// first (in object order) with its holder, the id and the holder's record.
pub fn dangling_warning(heap: &Heap, d: &Dangling) -> Option<(u64, String)> {
    let r = d.first.filter(|_| d.count > 0)?;
    if r.from >= heap.object_count() {
        return None;
    }
    let (_, _, holder) = heapql_heap::describe(heap, r.from);
    let name = heapql_heap::inspect::slot_label(heap, r.from, r.slot);
    let what = match heap.object_kind(r.from) {
        ObjectKind::ObjectArray => format!("element {name} of {holder}"),
        ObjectKind::Class if r.slot == u32::MAX - 2 => format!("the class loader of {holder}"),
        ObjectKind::Class => match heap.class_described_by(r.from) {
            Some(c) => format!("static field {}.{name} of {holder}", heap.class(c).name),
            None => format!("static field {name} of {holder}"),
        },
        _ => match field_owner(heap, heap.class_of(r.from), r.slot) {
            Some(c) => format!("field {}.{name} of {holder}", heap.class(c).name),
            None => format!("field {name} of {holder}"),
        },
    };
    let at = heap.record_offset(r.from);
    let offset = at.unwrap_or(0);
    let record = at.map_or_else(String::new, |at| format!(", record at byte offset {at}"));
    let n = d.count;
    let (refs, point) = if n == 1 { ("reference", "points") } else { ("references", "point") };
    Some((
        offset,
        format!(
            "{n} {refs} {point} to ids that are no object in the dump (they read as null), e.g. {what} = 0x{:x}{record}. \
             A JVM may leave objects out (HotSpot skips archived CDS objects whose class is not loaded, \
             JDK 25 dumps keep references to some); otherwise the dump is damaged there",
            r.id
        ),
    ))
}

/// The class declaring instance field `slot` of class `c`'s layout (own fields first, then the
/// super class's, and so on).
fn field_owner(heap: &Heap, c: ClassIdx, slot: u32) -> Option<ClassIdx> {
    let mut left = slot as usize;
    let mut cur = Some(c);
    while let Some(k) = cur {
        let own = heap.class(k).fields.len();
        if left < own {
            return Some(k);
        }
        left -= own;
        cur = heap.class(k).super_class;
    }
    None
}

fn cancelled(_: Cancelled) -> HeapError {
    HeapError::Cancelled
}

impl FullAnalysis {
    pub fn build(heap: &Heap, options: GraphOptions) -> Result<FullAnalysis, HeapError> {
        FullAnalysis::build_beside(heap, options, ShallowSizes(heap)).map(|(a, ())| a)
    }

    /// `build`, with `beside` seeing every object on the core the dominator phase leaves idle,
    /// as the own sizes are read there: a pass over every object that needs the graph's
    /// reachability but no dominator (the report's object pass, `heapql_report::analyze`)
    /// costs no wall time there, and reads the dump and its index once with the own sizes.
    /// Its answer comes back with the analysis.
    pub fn build_beside<P: PassBeside>(heap: &Heap, options: GraphOptions, mut beside: P) -> Result<(FullAnalysis, P::Out), HeapError> {
        let ctl = Control { phase: "graph", progress: options.progress.clone(), cancel: options.cancel.clone() };
        let graph = ObjectGraph::build(heap, options.reachable_only, &ctl).map_err(cancelled)?;
        // The dominator phase keeps one core busy; the other reads every object's own size
        // meanwhile, written in order to the scratch placement, for the retained sums.
        let in_tree = |v: u32| graph.in_tree(v, options.reachable_only);
        // A panic (in the pass, reading the dump) is passed on with its own message.
        let graph_ref = &graph;
        let ctl_ref = &ctl;
        let (dom, own) = crate::par::both(
            || dominators_in(graph_ref, 0, |u, v| graph_ref.follows(u, v), &ctl.phase("dominators"), heap.scratch()),
            move || {
                let mut laps = heapql_heap::Laps::new("heapql-graph");
                // The cancel flag is looked at here too, whatever the pass does: `both` waits
                // for this side after the dominator phase stopped.
                let object = |o: ObjIdx| {
                    if o & 0xFFFF == 0 {
                        ctl_ref.check()?;
                    }
                    beside.object(graph_ref, o)
                };
                let own = own_sizes_seen(graph_ref.node_count() as usize, in_tree, object, heap.scratch())?;
                laps.lap("own sizes and the pass beside the dominators (other core)");
                Ok::<_, Cancelled>((own, beside.finish()))
            },
        );
        let dom = dom.map_err(cancelled)?;
        let (own, side) = own.map_err(cancelled)?;
        // Progress: the tree's nodes summed, then one step for the top-level dominators.
        let rctl = ctl.phase("retained");
        let total = dom.preorder.len() as u64 + 1;
        rctl.tick(0, total).map_err(cancelled)?;
        let mut laps = heapql_heap::Laps::new("heapql-graph");
        // Written once and only read from here on: retained sizes and idom go to the scratch
        // placement, so the analysis keeps almost no anonymous memory for the report after it.
        let retained = sum_retained_or_stop(own, &dom, |k| rctl.tick(k as u64, total)).map_err(cancelled)?;
        let idom = BigArray::from_vec(dom.idom, heap.scratch());
        let (order, order_idom) = (dom.preorder, dom.preorder_idom);
        laps.lap("retained: sizes");
        rctl.tick(total - 1, total).map_err(cancelled)?;
        let top = top_level(&order, &order_idom, &retained);
        laps.lap("retained: top-level dominators");
        rctl.tick(total, total).map_err(cancelled)?;
        let analysis = FullAnalysis {
            graph,
            idom,
            retained,
            tree: OnceLock::new(),
            top,
            order,
            order_idom,
            reachable_only: options.reachable_only,
            bfs: OnceLock::new(),
            inbound: OnceLock::new(),
            scratch: heap.scratch().clone(),
        };
        Ok((analysis, side))
    }

    pub fn graph(&self) -> &ObjectGraph {
        &self.graph
    }

    /// What the analysis found wrong with the dump, as warnings (byte offset, message): the
    /// references to ids that are no object of the dump (`ObjectGraph::dangling`), counted as
    /// the graph was built and kept with it in the cache, so a cached analysis says the same.
    pub fn warnings(&self, heap: &Heap) -> Vec<(u64, String)> {
        dangling_warning(heap, self.graph.dangling()).into_iter().collect()
    }

    /// Where big arrays built on demand go (the heap's `scratch`).
    pub fn scratch(&self) -> &Placement {
        &self.scratch
    }

    /// Number of objects (nodes minus the virtual root).
    pub fn object_count(&self) -> u32 {
        self.graph.node_count() - 1
    }

    /// Built with `GraphOptions::reachable_only` (unreachable objects left out of the tree)?
    pub fn reachable_only(&self) -> bool {
        self.reachable_only
    }

    /// Reachable from a GC root?
    pub fn is_reachable(&self, o: ObjIdx) -> bool {
        self.graph.is_reachable(node(o))
    }

    /// In the dominator tree? (Everything, unless built with `reachable_only`.) Told by the
    /// graph's reachability bits, as the tree has it: reading `idom` at random instead pages it
    /// back in a memory limit (0.35 × bench-1g: 50 MB of it read again by the report's waste
    /// pass alone).
    pub fn in_tree(&self, o: ObjIdx) -> bool {
        self.graph.in_tree(node(o), self.reachable_only)
    }

    /// Retained size: `o`'s shallow size and that of everything it dominates (≥ its shallow
    /// size); None for an object outside the tree (`in_tree`: an unreachable object of a
    /// `reachable_only` analysis), which has no retained size — not 0, which would say it
    /// retains nothing. What the executor and the look-ups read.
    pub fn retained(&self, o: ObjIdx) -> Option<u64> {
        self.in_tree(o).then(|| self.retained.get(node(o)))
    }

    /// `retained` of an object known to be in the tree (the report walks only those); 0 for
    /// one outside it, so anything that may meet such an object asks `retained`.
    pub fn retained_size(&self, o: ObjIdx) -> u64 {
        self.retained.get(node(o))
    }

    /// Sum of the shallow sizes of every object in the tree (the virtual root's retained size).
    pub fn total_size(&self) -> u64 {
        self.retained.get(0)
    }

    /// None for a child of the virtual root (a GC root, an unreachable pseudo-root) and for an
    /// object outside the tree (see `in_tree`).
    pub fn immediate_dominator(&self, o: ObjIdx) -> Option<ObjIdx> {
        match self.idom[node(o) as usize] {
            0 | NONE => None,
            d => Some(obj(d)),
        }
    }

    /// Objects `o` immediately dominates, biggest retained size first. The first call lists
    /// the children of every node (two passes over `idom`; 0.5 s and 6.5 B/object of scratch
    /// files on bench-4g).
    pub fn dominated(&self, o: ObjIdx) -> &[ObjIdx] {
        self.tree().successors(node(o))
    }

    fn tree(&self) -> &SparseCsr {
        self.tree.get_or_init(|| {
            let mut tree = dominator_children(&self.idom, |v| self.retained.get(v), &self.scratch);
            tree.for_each_list_mut(|list| list.iter_mut().for_each(|v| *v = obj(*v)));
            tree
        })
    }

    /// The nodes of the dominator tree (node 0 is the virtual root, node `v` object `v - 1`),
    /// root first, each after its immediate dominator (a graph DFS preorder).
    pub fn tree_order(&self) -> &[u32] {
        &self.order
    }

    /// For each entry of `tree_order`, the position in it of its immediate dominator (0 for
    /// the virtual root and its children), to walk the tree in that order reading both
    /// arrays front to back.
    pub fn tree_order_idoms(&self) -> &[u32] {
        &self.order_idom
    }

    /// Children of the virtual root, biggest retained size first.
    pub fn top_level_dominators(&self) -> &[ObjIdx] {
        &self.top
    }

    /// GC root objects (distinct, ascending; thread-bound locals of known threads excluded).
    pub fn gc_roots(&self) -> impl Iterator<Item = ObjIdx> + '_ {
        self.graph.gc_roots().iter().map(|&v| obj(v))
    }

    /// Unreachable pseudo-roots (empty with `reachable_only`).
    pub fn unreachable_roots(&self) -> impl Iterator<Item = ObjIdx> + '_ {
        self.graph.unreachable_roots().iter().map(|&v| obj(v))
    }

    pub fn is_unreachable_root(&self, o: ObjIdx) -> bool {
        self.graph.unreachable_roots().binary_search(&node(o)).is_ok()
    }

    /// Outbound references: the class object first, then distinct targets ascending.
    pub fn outbound(&self, o: ObjIdx) -> impl Iterator<Item = ObjIdx> + '_ {
        self.graph.successors(node(o)).iter().map(|&v| obj(v))
    }

    /// Objects referencing `o` (distinct, ascending), from the referrer index (built once).
    /// After a reachable-only analysis only reachable ones: the others are not in its heap.
    pub fn inbound(&self, o: ObjIdx) -> Vec<ObjIdx> {
        let index = self.inbound.get_or_init(|| {
            let g = &self.graph;
            Csr::from_edges_in(g.node_count(), &self.scratch, |emit| {
                for v in (1..g.node_count()).filter(|&v| g.in_tree(v, self.reachable_only)) {
                    for &t in g.successors(v) {
                        emit(t, v);
                    }
                }
            })
        });
        index.successors(node(o)).iter().map(|&v| obj(v)).collect()
    }

    /// Inbound references of many objects in one scan: `result[i]` refers to `targets[i]`
    /// (as `inbound`: reachable referrers only after a reachable-only analysis).
    pub fn inbound_many(&self, targets: &[ObjIdx]) -> Vec<Vec<ObjIdx>> {
        let mut want: Vec<(u32, usize)> = targets.iter().enumerate().map(|(i, &o)| (node(o), i)).collect();
        want.sort_unstable();
        let mut result = vec![Vec::new(); targets.len()];
        for v in (1..self.graph.node_count()).filter(|&v| self.graph.in_tree(v, self.reachable_only)) {
            let succ = self.graph.successors(v);
            for &t in succ {
                let lo = want.partition_point(|&(w, _)| w < t);
                for &(w, i) in &want[lo..] {
                    if w != t {
                        break;
                    }
                    if result[i].last() != Some(&obj(v)) {
                        result[i].push(obj(v));
                    }
                }
            }
        }
        result
    }

    /// Objects freed if all of `set` were freed, and their total shallow size.
    pub fn retained_set(&self, heap: &Heap, set: &[ObjIdx]) -> RetainedSet {
        let nodes: Vec<u32> = set.iter().map(|&o| node(o)).collect();
        let (members, _) = retained_set(&self.graph, 0, |u, v| self.graph.follows(u, v), &nodes, |_| 0);
        let mut objects = Vec::new();
        let mut size = 0u64;
        for v in members.ones() {
            if self.reachable_only && !self.graph.is_reachable(v as u32) {
                continue;
            }
            let o = obj(v as u32);
            objects.push(o);
            size += heap.shallow_size(o);
        }
        RetainedSet { objects, size }
    }

    /// MAT's minimum retained size of a set: the retained sizes of the members no other member
    /// dominates (≤ the retained set's size; equal for one object).
    pub fn min_retained_size(&self, set: &[ObjIdx]) -> u64 {
        let nodes: Vec<u32> = set.iter().map(|&o| node(o)).collect();
        min_retained_size(&self.idom, |v| self.retained.get(v), &nodes)
    }

    /// Shortest forward path `a ..= b`, at most `max_depth` references long, visiting at most
    /// `max_visited` objects (`search_path`); its objects are object indices.
    pub fn path(&self, a: ObjIdx, b: ObjIdx, max_depth: usize, max_visited: usize) -> crate::PathSearch {
        let succ = |v: u32| self.graph.successors(v).iter().copied();
        match crate::search_path(node(a), node(b), max_depth, max_visited, succ) {
            crate::PathSearch::Found(p) => crate::PathSearch::Found(p.into_iter().map(obj).collect()),
            other => other,
        }
    }

    /// BFS parents from the virtual root over the edges the dominators follow (a live
    /// object's path never runs through garbage), minus the node edges `skip(u, v)` drops;
    /// placed in the heap's `scratch`.
    pub fn root_path_parents(&self, skip: impl Fn(u32, u32) -> bool) -> BigArray<u32> {
        bfs_parents(&self.graph, 0, |u, v| !self.graph.follows(u, v) || skip(u, v), &self.scratch)
    }

    /// `root_path_parents`, looking at `ctl`'s cancel flag every 65 536 nodes.
    pub fn root_path_parents_or_stop(&self, skip: impl Fn(u32, u32) -> bool, ctl: &Control) -> Result<BigArray<u32>, Cancelled> {
        crate::bfs_parents_or_stop(&self.graph, 0, |u, v| !self.graph.follows(u, v) || skip(u, v), &self.scratch, ctl)
    }

    /// A shortest path from a GC root (or unreachable pseudo-root) to `o`, root first, with
    /// field labels; None if `o` hangs off no root (only with `reachable_only`).
    pub fn path_to_root(&self, heap: &Heap, o: ObjIdx) -> Option<Vec<PathStep>> {
        Some(self.labelled_path(heap, &self.path_nodes_to_root(o)?))
    }

    /// The steps of a path of nodes from the virtual root, each labelled with how it is reached.
    fn labelled_path(&self, heap: &Heap, nodes: &[u32]) -> Vec<PathStep> {
        nodes
            .windows(2)
            .map(|w| {
                let label = if w[0] == 0 { self.root_label(heap, obj(w[1])) } else { edge_label(heap, obj(w[0]), obj(w[1])) };
                PathStep { object: obj(w[1]), label }
            })
            .collect()
    }

    /// The nodes of a shortest path from the virtual root (node 0, first) to `o`, without
    /// labels (a path may be a million steps long); None as for `path_to_root`.
    pub fn path_nodes_to_root(&self, o: ObjIdx) -> Option<Vec<u32>> {
        let parents = self.bfs.get_or_init(|| self.root_path_parents(|_, _| false));
        path_from_parents(parents, node(o))
    }

    /// `path_nodes_to_root`, its BFS (when not made before) looking at `ctl`'s cancel flag
    /// every 65 536 nodes; a cancelled BFS is not kept.
    pub fn path_nodes_to_root_or_stop(&self, o: ObjIdx, ctl: &Control) -> Result<Option<Vec<u32>>, Cancelled> {
        if self.bfs.get().is_none() {
            let parents = self.root_path_parents_or_stop(|_, _| false, ctl)?;
            // Another thread's BFS may have come first: the same parents.
            let _ = self.bfs.set(parents);
        }
        Ok(self.path_nodes_to_root(o))
    }

    /// Shortest path from the roots to `o` avoiding edges for which `skip(from, to)` holds
    /// (e.g. `Reference.referent`); None if every path uses such an edge. One BFS per call.
    pub fn path_to_root_avoiding(
        &self,
        heap: &Heap,
        o: ObjIdx,
        skip: impl Fn(ObjIdx, ObjIdx) -> bool,
    ) -> Option<Vec<PathStep>> {
        let parents = self.root_path_parents(|u, v| u != 0 && skip(obj(u), obj(v)));
        Some(self.labelled_path(heap, &path_from_parents(&parents, node(o))?))
    }

    /// Root kinds of a child of the virtual root, as MAT names them (`JNI Global, System Class`).
    pub fn root_label(&self, heap: &Heap, o: ObjIdx) -> String {
        let kinds = self.root_kinds(heap, o);
        kinds.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")
    }

    /// The GC root kinds of `o` (distinct, sorted); `[Unreachable]` for a pseudo-root; empty
    /// for an object that is not a child of the virtual root.
    pub fn root_kinds(&self, heap: &Heap, o: ObjIdx) -> Vec<RootKind> {
        if self.graph.gc_roots().binary_search(&node(o)).is_err() {
            return if self.is_unreachable_root(o) { vec![RootKind::Unreachable] } else { Vec::new() };
        }
        let bound: Vec<u32> =
            heap.threads().iter().filter(|t| t.object.is_some()).map(|t| t.serial).collect();
        let mut kinds: Vec<RootKind> = heap
            .gc_roots()
            .iter()
            .filter(|r| r.object == o)
            .filter(|r| !(is_thread_bound(r.kind) && r.thread_serial.is_some_and(|s| bound.contains(&s))))
            .map(|r| r.kind)
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    }

    /// Bytes of scratch files held by the analysis (not counting the heap index).
    pub fn file_bytes(&self) -> usize {
        self.graph.file_bytes()
            + self.idom.file_bytes()
            + self.retained.small.file_bytes()
            + self.tree.get().map_or(0, |t| t.file_bytes())
            + self.order.file_bytes()
            + self.order_idom.file_bytes()
            + self.bfs.get().map_or(0, |b| b.file_bytes())
            + self.inbound.get().map_or(0, |c| c.file_bytes())
    }

    /// Bytes of anonymous memory held by the analysis (not counting the heap index).
    pub fn heap_bytes(&self) -> usize {
        self.graph.heap_bytes()
            + self.idom.heap_bytes()
            + self.retained.heap_bytes()
            + self.tree.get().map_or(0, |t| t.heap_bytes())
            + self.top.capacity() * 4
            + self.order.heap_bytes()
            + self.order_idom.heap_bytes()
            + self.bfs.get().map_or(0, |b| b.heap_bytes())
            + self.inbound.get().map_or(0, |c| c.heap_bytes())
    }
}

/// The virtual root's children as objects, in the order of `dominated` lists: the entries of
/// the DFS preorder `order` whose dominator is its first entry, the root, read in order.
fn top_level(order: &[u32], order_idom: &[u32], retained: &RetainedSizes) -> Vec<ObjIdx> {
    let mut top: Vec<u32> = order.iter().zip(order_idom).skip(1).filter(|&(_, &d)| d == 0).map(|(&v, _)| v).collect();
    crate::domtree::sort_list(&mut top, &|v| retained.get(v), &mut Vec::new());
    top.into_iter().map(obj).collect()
}

/// How `from` refers to `to`: `<class>`, a field name, `[i]`, `<super>`, `<classloader>`, a
/// static's name, or a thread-local label.
pub fn edge_label(heap: &Heap, from: ObjIdx, to: ObjIdx) -> String {
    let class = heap.class_of(from);
    if heap.class(class).object == to {
        return "<class>".to_string();
    }
    // Compared by id: no id-to-index look-up per field (an array may hold millions).
    let target = heap.object_id(to);
    let mut slot_found: Option<u32> = None;
    heap.for_each_reference(from, |id, slot| {
        if slot_found.is_none() && id == target {
            slot_found = Some(slot);
        }
    });
    if let Some(slot) = slot_found {
        return heapql_heap::inspect::slot_label(heap, from, slot);
    }
    // A thread-bound root held by this thread.
    let Some(thread) = heap.threads().iter().find(|t| t.object == Some(from)) else {
        return "<unknown>".to_string();
    };
    let root = heap
        .gc_roots()
        .iter()
        .find(|r| r.object == to && is_thread_bound(r.kind) && r.thread_serial == Some(thread.serial));
    match root {
        Some(r) => match (r.kind, r.frame) {
            (RootKind::JavaFrame, Some(f)) if f >= 0 => format!("<Java Local in frame {f}>"),
            (k, _) => format!("<{}>", k.label()),
        },
        None => "<unknown>".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use heapql_heap::OpenOptions;

    /// `in_tree`, told by the graph alone, names exactly the nodes the dominator phase gave a
    /// dominator, on every fixture dump, with and without the unreachable objects.
    #[test]
    fn in_tree_names_the_nodes_with_a_dominator() {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/dumps");
        let mut dumps: Vec<_> = std::fs::read_dir(&dir).expect("fixtures/dumps exists").map(|e| e.unwrap().path()).collect();
        dumps.retain(|p| p.extension().is_some_and(|e| e == "hprof"));
        assert!(!dumps.is_empty(), "no dumps in {}", dir.display());
        let mut outside = 0;
        for path in dumps {
            let heap = Heap::open(&path, OpenOptions::default()).unwrap();
            for reachable_only in [false, true] {
                let a = FullAnalysis::build(&heap, GraphOptions { reachable_only, ..Default::default() }).unwrap();
                for o in 0..heap.object_count() {
                    let has_dominator = a.idom[node(o) as usize] != NONE;
                    assert_eq!(a.in_tree(o), has_dominator, "{}: object {o}, reachable only {reachable_only}", path.display());
                    outside += usize::from(!has_dominator);
                }
            }
        }
        assert!(outside > 0, "some fixture has objects outside the tree with reachable_only");
    }
}
