//! Shortest paths from the GC roots for leak suspects, honouring MAT's excludes
//! (`java.lang.ref.Reference:referent`, `java.lang.ref.Finalizer:unfinalized`; mat-semantics.md
//! §3.1) with a fallback to the unrestricted path, and their conversion to the report's steps
//! (`via` kinds and names).

use std::sync::OnceLock;

use heapql_graph::control::{Cancelled, Control};
use heapql_graph::object_graph::{node, obj};
use heapql_graph::{edge_label, path_from_parents, search_path_or_stop, Graph};
use heapql_heap::{BigArray, ObjIdx, ObjectKind, Value};

use super::ctx::Ctx;
use super::model::{PathStep, PathToRoot, Via, ViaKind};
use super::threads::frame_text;

/// Nodes a search that stops at its target visits before it gives way to the full BFS (its
/// table then holds about 16 MiB).
const QUICK_VISITS: usize = 1 << 20;

pub struct Paths<'c, 'a> {
    ctx: &'c Ctx<'a>,
    /// `(node, node)` edges the search must not use, sorted.
    excluded: Vec<(u32, u32)>,
    /// BFS parents (nodes) from the virtual root without the excluded edges; built on first use.
    parents: OnceLock<BigArray<u32>>,
    /// The report's cancel flag, looked at every 65 536 nodes of each search.
    ctl: Control,
}

impl<'c, 'a> Paths<'c, 'a> {
    pub fn new(ctx: &'c Ctx<'a>, referents: &[(u32, u32)], ctl: &Control) -> Paths<'c, 'a> {
        let heap = ctx.heap;
        let mut excluded = referents.to_vec();
        for &c in heap.classes_named("java.lang.ref.Finalizer") {
            let class_object = heap.class(c).object;
            if let Some(Value::Object(id)) = heap.field(class_object, "unfinalized") {
                if let Some(t) = heap.index_of(id) {
                    excluded.push((node(class_object), node(t)));
                }
            }
        }
        excluded.sort_unstable();
        Paths { ctx, excluded, parents: OnceLock::new(), ctl: ctl.clone() }
    }

    /// BFS parents honouring the excludes (node ids; `NONE` = not reached that way).
    pub fn parents(&self) -> Result<&[u32], Cancelled> {
        if self.parents.get().is_none() {
            let a = self.ctx.analysis;
            let parents = a.root_path_parents_or_stop(|u, v| self.excluded.binary_search(&(u, v)).is_ok(), &self.ctl)?;
            let _ = self.parents.set(parents);
        }
        Ok(self.parents.get().expect("set above"))
    }

    /// Objects from a GC root (first) to `o` (last): the shortest path without the excluded
    /// fields, else the shortest path at all (MAT retries without excludes); None when nothing
    /// reaches `o`. The unrestricted search answers first: a shortest path that uses no
    /// excluded edge is also shortest without them, and the restricted search runs only when
    /// it is needed. Each is the full BFS's path, found by a search that stops at `o`
    /// (`nearby`) when `o` is near the roots.
    pub fn objects_to(&self, o: ObjIdx) -> Result<Option<Vec<ObjIdx>>, Cancelled> {
        self.objects_to_within(o, QUICK_VISITS)
    }

    /// `objects_to`, the search that stops at `o` giving way to the full BFS after `visits`.
    fn objects_to_within(&self, o: ObjIdx, visits: usize) -> Result<Option<Vec<ObjIdx>>, Cancelled> {
        let search = |restricted: bool| match self.nearby(o, restricted, visits)? {
            Some(p) => Ok(Some(p)),
            None => self.full_bfs(o, restricted),
        };
        let plain = search(false)?;
        let clean = |p: &[ObjIdx]| p.windows(2).all(|w| self.excluded.binary_search(&(node(w[0]), node(w[1]))).is_err());
        Ok(match plain {
            Some(p) if clean(&p) => Some(p),
            plain => match search(true)? {
                Some(p) => Some(p),
                None => plain,
            },
        })
    }

    /// The path of the full BFS (with the excludes when `restricted`) found by a search that
    /// stops as soon as it reaches `o`: it visits nodes in the same order, so it gives each
    /// the same parent. None when it gives up after `visits` nodes (or `o` is not reached):
    /// the full BFS answers then. A suspect's accumulation point usually lies a few levels
    /// below the roots, where the full BFS would walk the whole graph.
    fn nearby(&self, o: ObjIdx, restricted: bool, visits: usize) -> Result<Option<Vec<ObjIdx>>, Cancelled> {
        let g = self.ctx.analysis.graph();
        let succ = |u: u32| {
            g.successors(u).iter().copied().filter(move |&v| g.follows(u, v) && !(restricted && self.excluded.binary_search(&(u, v)).is_ok()))
        };
        Ok(search_path_or_stop(0, node(o), usize::MAX, visits, succ, &self.ctl)?.found().map(|p| p.into_iter().skip(1).map(obj).collect()))
    }

    /// The path of the full BFS from the roots (the analysis's cached one, or this one's
    /// honouring the excludes when `restricted`).
    fn full_bfs(&self, o: ObjIdx, restricted: bool) -> Result<Option<Vec<ObjIdx>>, Cancelled> {
        let nodes = if restricted { path_from_parents(self.parents()?, node(o)) } else { self.ctx.analysis.path_nodes_to_root_or_stop(o, &self.ctl)? };
        Ok(nodes.map(|p| p.into_iter().skip(1).map(obj).collect()))
    }

    /// The report's path: root kinds of the first object, then each step with how its
    /// predecessor references it.
    pub fn path_to(&self, o: ObjIdx) -> Result<Option<PathToRoot>, Cancelled> {
        let Some(objects) = self.objects_to(o)? else { return Ok(None) };
        let ctx = self.ctx;
        let heap = ctx.heap;
        let a = ctx.analysis;
        let Some(&first) = objects.first() else { return Ok(None) };
        let root_kinds = a.root_kinds(heap, first).iter().map(|k| k.label().to_string()).collect();
        let mut steps = Vec::with_capacity(objects.len());
        let mut prev: Option<ObjIdx> = None;
        for &x in &objects {
            let via = prev.map(|p| via(ctx, p, x));
            steps.push(PathStep { object: ctx.object_ref(x), via, shallow: heap.shallow_size(x), retained: a.retained_size(x) });
            prev = Some(x);
        }
        Ok(Some(PathToRoot { root_kinds, steps }))
    }
}

/// How `from` references `to`, in the report's terms.
pub fn via(ctx: &Ctx, from: ObjIdx, to: ObjIdx) -> Via {
    let heap = ctx.heap;
    let label = edge_label(heap, from, to);
    let kind = match label.as_str() {
        "<class>" => ViaKind::Other,
        "<super>" => ViaKind::Superclass,
        "<classloader>" => ViaKind::ClassLoader,
        "<unknown>" => ViaKind::Other,
        l if l.starts_with('<') && heap.object_kind(from) == ObjectKind::Instance => {
            return Via { kind: ViaKind::Local, name: local_name(ctx, from, l) };
        }
        _ => match heap.object_kind(from) {
            ObjectKind::ObjectArray => ViaKind::ArrayElement,
            ObjectKind::Class => ViaKind::StaticField,
            ObjectKind::Instance => ViaKind::Field,
            ObjectKind::PrimitiveArray(_) => ViaKind::Other,
        },
    };
    Via { kind, name: label }
}

/// `<Java Local in frame 2>` of a thread → the frame's text (`Demo.run (Demo.java:12)`).
fn local_name(ctx: &Ctx, thread: ObjIdx, label: &str) -> String {
    let depth = label
        .strip_prefix("<Java Local in frame ")
        .and_then(|s| s.strip_suffix('>'))
        .and_then(|s| s.parse::<usize>().ok());
    let frame = depth.and_then(|d| {
        ctx.heap.threads().iter().find(|t| t.object == Some(thread)).and_then(|t| t.frames.get(d))
    });
    match frame {
        Some(f) => frame_text(f),
        None => label.trim_start_matches('<').trim_end_matches('>').to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use heapql_graph::control::Control;

    /// The search that stops at its target finds the full BFS's path, with and without the
    /// excludes, and a search cut short (the fallback to the full BFS) changes no path: on
    /// dumps whose `Reference.referent` edges make the restricted paths differ, with and
    /// without unreachable objects in the tree.
    #[test]
    fn the_quick_search_and_its_fallback_find_the_full_bfs_path() {
        crate::testkit::each_analysis(|dump, heap, a| {
            let ctx = Ctx::new(heap, a, 25);
            let ctl = Control { phase: "report", progress: None, cancel: None };
            let scan = crate::scan::scan(heap, &ctx.flags, crate::scan::Coverage::of(a), &ctl, 1).unwrap();
            let paths = Paths::new(&ctx, &scan.referents, &ctl);
            assert!(!paths.excluded.is_empty(), "{dump}: the dump has excluded edges");
            // Some objects across the dump, and referents, whose restricted paths may differ.
            let mut objects: Vec<ObjIdx> = (0..heap.object_count()).step_by(997).collect();
            objects.extend(paths.excluded.iter().step_by(paths.excluded.len() / 64 + 1).map(|&(_, v)| obj(v)));
            let mut restricted_differs = 0;
            for &o in &objects {
                for restricted in [false, true] {
                    let full = paths.full_bfs(o, restricted).unwrap();
                    assert_eq!(paths.nearby(o, restricted, usize::MAX).unwrap(), full, "{dump}: #{o}, restricted {restricted}");
                }
                restricted_differs += (paths.full_bfs(o, true) != paths.full_bfs(o, false)) as u32;
                assert_eq!(paths.objects_to_within(o, 1).unwrap(), paths.objects_to_within(o, usize::MAX).unwrap(), "{dump}: #{o} after the fallback");
            }
            assert!(restricted_differs > 0, "{dump}: some paths avoid an excluded edge");
        });
    }

    /// The path of a leak suspect's accumulation point (the tail of a chain of 300 000 objects,
    /// held by a JNI global) with the cancel flag set as the search starts: both the search
    /// that stops at its target and the full BFS behind it (a search cut short at one node)
    /// come back cancelled, where they would walk the whole chain.
    #[test]
    fn the_path_searches_stop_when_cancelled() {
        use heapql_graph::{FullAnalysis, GraphOptions};
        use heapql_heap::{Heap, OpenOptions};
        const CHAIN: usize = 300_000;
        let dir = tempfile::tempdir().unwrap();
        let mut b = heapql_hprof::testkit::DumpBuilder::new(8);
        b.chain("demo.Node", CHAIN);
        let path = dir.path().join("chain.hprof");
        std::fs::write(&path, b.build()).unwrap();
        let heap = Heap::open(&path, OpenOptions::default()).unwrap();
        let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
        let ctx = Ctx::new(&heap, &a, 25);
        let scan = crate::scan::scan(&heap, &ctx.flags, crate::scan::Coverage::of(&a), &Control::none(), 1).unwrap();
        // The chain's end, its first object made (the lowest address): the deepest.
        let tail = (0..heap.object_count()).find(|&o| heap.object_kind(o) == heapql_heap::ObjectKind::Instance && heap.class(heap.class_of(o)).name == "demo.Node").unwrap();
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let cancelled = Control { phase: "report", progress: None, cancel: Some(flag) };
        let paths = Paths::new(&ctx, &scan.referents, &cancelled);
        assert_eq!(paths.path_to(tail).map(|p| p.is_some()), Err(Cancelled), "the search that stops at its target");
        assert_eq!(paths.objects_to_within(tail, 1), Err(Cancelled), "the full BFS");
        assert!(paths.parents().is_err(), "the BFS honouring the excludes");
        let paths = Paths::new(&ctx, &scan.referents, &Control::none());
        assert!(paths.objects_to_within(tail, 1).unwrap().is_some_and(|p| p.len() >= CHAIN), "uncancelled, the whole chain");
    }
}
