//! Leak Suspects, following MAT's FindLeaks (mat-semantics.md §3.1):
//!
//! 1. threshold = 10 % of the used heap; every comparison is strict (`>`);
//! 2. single suspects: the leading run of top-level dominators (biggest first) retaining more;
//! 3. group suspects: the remaining top-level dominators grouped by class (class objects under
//!    `java.lang.Class`), a class whose instances together retain more;
//! 4. accumulation point of a single suspect: from the suspect, follow the biggest dominated
//!    child while child.retained / current.retained ≥ 0.7; stop at the first big drop or at a
//!    leaf and report the current object; no point after 1000 levels;
//! 5. accumulation point of a group: shortest paths from the GC roots to (up to 10 000, evenly
//!    spaced) instances, merged into a tree; from the root object most paths pass through,
//!    follow the child most paths pass through while more than 80 % of the paths pass through
//!    the current node; report the current node at the first child whose share of the
//!    instances' retained size drops below 0.7 of the current node's, or at a node without
//!    children; no point when fewer than 80 % share a path;
//! 6. suspects ranked by retained size.
//!
//! Names: a suspect is titled by the static field nearest to its accumulation point on its
//! path (`Demo$SessionStore.SESSIONS`), else a thread by its name, a class by its name, a
//! class loader by its label, any other object by its class.

use heapql_heap::{ClassIdx, ObjIdx, ObjectKind};
use rustc_hash::FxHashMap;

use heapql_graph::control::{Cancelled, Control};
use heapql_graph::object_graph::{node, obj};
use heapql_graph::NONE;

use super::consumers::sized;
use super::ctx::{human_bytes, human_percent, Ctx, LOADER, THREAD};
use super::model::{
    AccumulationPoint, ClassBreakdown, ClassBreakdownRow, LeakSuspect, LeakSuspects, PathToRoot, SubjectKind, SuspectKind,
    ViaKind,
};
use super::paths::Paths;
use super::preorder::{halves, Preorder};
use std::ops::Range;

pub const THRESHOLD_PERCENT: u64 = 10;
/// Accumulation point walk: stop where the biggest child keeps less than this share.
pub const BIG_DROP_RATIO: f64 = 0.7;
/// Group accumulation point: the share of paths that must pass through a node.
pub const GROUP_PATH_SHARE: f64 = 0.8;
pub const MAX_WALK_DEPTH: usize = 1000;
pub const MAX_GROUP_SAMPLE: usize = 10_000;
/// Rows of "retained by class" per suspect (the model allows fewer than `limit`).
const BREAKDOWN_ROWS: usize = 20;

/// A suspect before it is ranked and described.
struct Found {
    retained: u64,
    suspect: LeakSuspect,
}

/// `at`: (done, total) work units to report while checking for cancellation.
pub fn leak_suspects(ctx: &Ctx, paths: &Paths, pre: &Preorder, ctl: &Control, at: (u64, u64)) -> Result<LeakSuspects, Cancelled> {
    let heap = ctx.heap;
    let a = ctx.analysis;
    let top = a.top_level_dominators();
    let singles = top.iter().take_while(|&&o| ctx.above(a.retained_size(o), THRESHOLD_PERCENT)).count();
    let mut found: Vec<Found> = Vec::new();
    for (k, &o) in top[..singles].iter().enumerate() {
        ctl.tick(at.0, at.1)?;
        found.push(single(ctx, paths, o, &[pre.top_range(k)], pre, ctl)?);
    }
    // Groups: the remaining top-level dominators by class.
    let mut sums = vec![0u64; heap.class_count() as usize];
    for &o in &top[singles..] {
        sums[ctx.class_of(o) as usize] += a.retained_size(o);
    }
    let classes: Vec<ClassIdx> =
        (0..heap.class_count()).filter(|&c| ctx.above(sums[c as usize], THRESHOLD_PERCENT)).collect();
    if !classes.is_empty() {
        // Members and the positions of their subtrees.
        let mut members: FxHashMap<ClassIdx, (Vec<ObjIdx>, Vec<Range<usize>>)> =
            classes.iter().map(|&c| (c, Default::default())).collect();
        for (k, &o) in top.iter().enumerate().skip(singles) {
            if let Some((list, ranges)) = members.get_mut(&ctx.class_of(o)) {
                list.push(o);
                ranges.push(pre.top_range(k));
            }
        }
        for c in classes {
            ctl.tick(at.0, at.1)?;
            let (list, ranges) = &members[&c];
            found.push(group(ctx, paths, c, list, ranges, pre, ctl)?);
        }
    }
    found.sort_by(|x, y| y.retained.cmp(&x.retained).then(x.suspect.title.cmp(&y.suspect.title)));
    let suspects = found
        .into_iter()
        .enumerate()
        .map(|(i, mut f)| {
            f.suspect.rank = i as u32 + 1;
            f.suspect
        })
        .collect();
    Ok(LeakSuspects { threshold_percent: THRESHOLD_PERCENT as f64, suspects })
}

/// MAT's big-drop walk down the dominator tree (rule 4), from the object at position `start`
/// of the preorder, each step to the biggest child.
pub(crate) fn accumulation_point(ctx: &Ctx, pre: &Preorder, start: usize) -> Option<ObjIdx> {
    let a = ctx.analysis;
    let mut cur = start;
    for _ in 0..MAX_WALK_DEPTH {
        let Some(child) = pre.biggest_child(ctx, cur) else { return Some(pre.object(cur)) };
        let parent = a.retained_size(pre.object(cur));
        if parent == 0 || (a.retained_size(pre.object(child)) as f64) / (parent as f64) < BIG_DROP_RATIO {
            return Some(pre.object(cur));
        }
        cur = child;
    }
    None
}

fn subject_kind(ctx: &Ctx, o: ObjIdx) -> SubjectKind {
    match ctx.heap.object_kind(o) {
        ObjectKind::Class => SubjectKind::Class,
        ObjectKind::Instance if ctx.object_flags(o) & THREAD != 0 => SubjectKind::Thread,
        ObjectKind::Instance if ctx.object_flags(o) & LOADER != 0 => SubjectKind::ClassLoader,
        _ => SubjectKind::Object,
    }
}

/// `Class.field` of the last static-field step at index `from` or later on the path.
fn static_owner(path: &PathToRoot, from: usize) -> Option<String> {
    let steps = &path.steps;
    (from.max(1)..steps.len()).rev().find_map(|i| {
        let via = steps[i].via.as_ref()?;
        if via.kind != ViaKind::StaticField {
            return None;
        }
        let owner = steps[i - 1].object.label.strip_prefix("class ")?;
        Some(format!("{owner}.{}", via.name))
    })
}

/// What an unreachable suspect's explanation adds: its objects are in the report because
/// unreachable objects are kept by default (each under a pseudo-root of its own), but no GC
/// root holds them, so they are no leak. `them`: the words for several objects. In a dump cut
/// short (`HeapSummary::cut_short`) the root records written after the cut are missing: the
/// words say what the dump shows, not that a collection frees the objects.
fn unreachable(ctx: &Ctx, them: bool) -> String {
    let (it, is, they) = if them { ("them", "They are", "they") } else { ("it", "It is", "it") };
    if ctx.heap.summary().cut_short {
        return format!(" {is} unreachable in this dump: none of the GC roots the dump records reaches {it}. The dump is cut short and its GC root records are partial, so this does not show that {they} would be garbage (a report with --reachable-only leaves unreachable objects out).");
    }
    format!(" {is} unreachable: no GC root keeps {it} alive, so the next garbage collection frees {it} (a report with --reachable-only leaves unreachable objects out).")
}

/// What a group suspect's explanation adds when `gone` of its instances (retaining `retained`
/// bytes), not all, are unreachable; in a dump cut short, as the dump shows it (`unreachable`).
fn some_unreachable(ctx: &Ctx, gone: u64, retained: u64) -> String {
    let (is, those, them, they) = if gone == 1 { ("is", "it", "it", "it") } else { ("are", "those", "them", "they") };
    if ctx.heap.summary().cut_short {
        return format!(
            " {gone} of them, retaining {}, {is} unreachable in this dump: none of the GC roots the dump records reaches {those}; the dump is cut short and its GC root records are partial, so this does not show that {they} would be garbage.",
            human_bytes(retained)
        );
    }
    format!(" {gone} of them, retaining {}, {is} unreachable: no GC root keeps {those} alive, so the next garbage collection frees {them}.", human_bytes(retained))
}

fn single(ctx: &Ctx, paths: &Paths, o: ObjIdx, subtree: &[Range<usize>], pre: &Preorder, ctl: &Control) -> Result<Found, Cancelled> {
    let heap = ctx.heap;
    let a = ctx.analysis;
    let retained = a.retained_size(o);
    let object = ctx.object_ref(o);
    let kind = subject_kind(ctx, o);
    let class = heap.class_of(o);
    let mut laps = heapql_heap::Laps::new("heapql-report");
    debug_assert_eq!(pre.object(subtree[0].start), o, "the subtree starts at the suspect");
    let acc = accumulation_point(ctx, pre, subtree[0].start);
    let path = paths.path_to(acc.unwrap_or(o))?;
    laps.lap("suspects: single: accumulation point and path");
    let suspect_at = path.as_ref().and_then(|p| p.steps.iter().position(|st| st.object.object_id == o));
    // A plain object (a collection) is named by the static that holds it; a thread, class or
    // loader by itself unless a static below it holds the accumulation point.
    let owner = match (&path, suspect_at) {
        (Some(p), Some(at)) => static_owner(p, if kind == SubjectKind::Object { at } else { at + 1 }),
        _ => None,
    };
    let title = match (&owner, kind) {
        (Some(f), _) => f.clone(),
        (None, SubjectKind::Class) => object.class_name.clone(),
        (None, SubjectKind::Thread | SubjectKind::ClassLoader) => object.label.clone(),
        (None, _) => object.class_name.clone(),
    };
    let what = match kind {
        SubjectKind::Thread => format!("The thread {}", object.label),
        SubjectKind::Class => format!("The class {}", object.class_name),
        SubjectKind::ClassLoader => format!("The class loader {}", object.label),
        _ => format!("One instance of {}", object.class_name),
    };
    let loader = match kind {
        SubjectKind::Class => heap.class_described_by(o).and_then(|c| ctx.class_loader_label(c)),
        _ => ctx.class_loader_label(class),
    };
    let mut explanation = what;
    if let Some(l) = &loader {
        explanation.push_str(&format!(", loaded by {l},"));
    }
    explanation.push_str(&format!(" retains {} ({} of the heap)", human_bytes(retained), human_percent(ctx.percent(retained))));
    let acc_ref = acc.map(|p| ctx.object_ref(p));
    match acc {
        Some(p) if p != o => {
            explanation.push_str(&format!("; the memory accumulates in {}", ctx.object_ref(p).label));
        }
        Some(_) => explanation.push_str("; the memory accumulates in the suspect itself"),
        None => explanation.push_str("; no single accumulation point was found"),
    }
    if let Some(f) = &owner {
        explanation.push_str(&format!(", under the static field {f}"));
    }
    explanation.push('.');
    if !a.is_reachable(o) {
        explanation.push_str(&unreachable(ctx, false));
    }
    // The object's own class first (`java.lang.Class` for a class object, whose reference names
    // the class it describes).
    let mut keywords = vec![heap.class(class).name.clone()];
    if kind == SubjectKind::Class {
        keywords.push(object.class_name.clone());
    }
    keywords.push(title.clone());
    if let Some(r) = &acc_ref {
        keywords.push(r.class_name.clone());
    }
    dedup_keep_order(&mut keywords);
    let suspect = LeakSuspect {
        rank: 0,
        kind: SuspectKind::Single,
        subject_kind: kind,
        title,
        explanation,
        class_name: object.class_name.clone(),
        object: Some(object),
        class_loader: loader,
        instances: 1,
        shallow: heap.shallow_size(o),
        retained,
        retained_percent: ctx.percent(retained),
        accumulation_point: acc.map(|p| accumulation_point_of(ctx, p)),
        path_to_root: path,
        retained_by_class: breakdown(ctx, pre, subtree, &|| ctl.check())?,
        biggest_instances: Vec::new(),
        keywords,
        heaps: heaps_of(ctx, &[o]),
    };
    laps.lap("suspects: single: breakdown");
    Ok(Found { retained, suspect })
}

/// The accumulation point as the report shows it: the object and what it retains.
fn accumulation_point_of(ctx: &Ctx, p: ObjIdx) -> AccumulationPoint {
    let retained = ctx.analysis.retained_size(p);
    AccumulationPoint { object: ctx.object_ref(p), retained, retained_percent: ctx.percent(retained) }
}

fn group(ctx: &Ctx, paths: &Paths, class: ClassIdx, instances: &[ObjIdx], subtrees: &[Range<usize>], pre: &Preorder, ctl: &Control) -> Result<Found, Cancelled> {
    let heap = ctx.heap;
    let a = ctx.analysis;
    let retained: u64 = instances.iter().map(|&o| a.retained_size(o)).sum();
    let shallow: u64 = instances.iter().map(|&o| ctx.shallow(o)).sum();
    let class_name = heap.class(class).name.clone();
    let loader = ctx.class_loader_label(class);
    let acc = group_accumulation_point(ctx, paths, instances, ctl)?;
    let path = match acc {
        Some(p) => paths.path_to(p)?,
        None => None,
    };
    let owner = path.as_ref().and_then(|p| static_owner(p, 0));
    let mut explanation = format!("{} instances of {class_name}", instances.len());
    if let Some(l) = &loader {
        explanation.push_str(&format!(", loaded by {l},"));
    }
    explanation.push_str(&format!(" retain {} ({} of the heap)", human_bytes(retained), human_percent(ctx.percent(retained))));
    match acc {
        Some(p) => {
            explanation.push_str(&format!("; they are referenced from {}", ctx.object_ref(p).label));
            if let Some(f) = &owner {
                explanation.push_str(&format!(", held by the static field {f}"));
            }
            explanation.push('.');
        }
        None => explanation.push_str("; they share no common accumulation point."),
    }
    let (gone, gone_retained) = instances.iter().filter(|&&o| !a.is_reachable(o)).fold((0u64, 0u64), |(n, r), &o| (n + 1, r + a.retained_size(o)));
    if gone == instances.len() as u64 {
        explanation.push_str(&unreachable(ctx, true));
    } else if gone > 0 {
        explanation.push_str(&some_unreachable(ctx, gone, gone_retained));
    }
    let mut keywords = vec![class_name.clone()];
    keywords.extend(owner.iter().cloned());
    if let Some(p) = acc {
        keywords.push(heap.class(heap.class_of(p)).name.clone());
    }
    dedup_keep_order(&mut keywords);
    let suspect = LeakSuspect {
        rank: 0,
        kind: SuspectKind::Group,
        subject_kind: SubjectKind::Instances,
        title: class_name.clone(),
        explanation,
        object: None,
        class_name,
        class_loader: loader,
        instances: instances.len() as u64,
        shallow,
        retained,
        retained_percent: ctx.percent(retained),
        accumulation_point: acc.map(|p| accumulation_point_of(ctx, p)),
        path_to_root: path,
        retained_by_class: breakdown(ctx, pre, subtrees, &|| ctl.check())?,
        biggest_instances: instances.iter().take(ctx.limit.min(10)).map(|&o| sized(ctx, o)).collect(),
        keywords,
        heaps: heaps_of(ctx, instances),
    };
    Ok(Found { retained, suspect })
}

/// Android: the heaps `objects` are in, in heap-number order; None for a dump that records no
/// heaps.
fn heaps_of(ctx: &Ctx, objects: &[ObjIdx]) -> Option<Vec<String>> {
    let names = ctx.heap.heap_names();
    if names.is_empty() {
        return None;
    }
    let mut seen = vec![false; names.len()];
    for &o in objects {
        if let Some(k) = ctx.heap.heap_of(o) {
            seen[k as usize] = true;
        }
    }
    Some(names.iter().zip(seen).filter(|(_, s)| *s).map(|(n, _)| n.to_string()).collect())
}

fn dedup_keep_order(v: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|s| seen.insert(s.clone()));
}

/// Up to MAX_GROUP_SAMPLE instances, evenly spaced over the list (deterministic, where MAT
/// samples at random).
fn sample(instances: &[ObjIdx]) -> Vec<ObjIdx> {
    let n = instances.len();
    if n <= MAX_GROUP_SAMPLE {
        return instances.to_vec();
    }
    (0..MAX_GROUP_SAMPLE).map(|i| instances[i * n / MAX_GROUP_SAMPLE]).collect()
}

/// Rule 5 on the BFS tree of shortest paths (the merged paths are a subtree of it). The BFS
/// looks at `ctl`'s cancel flag every 65 536 nodes.
pub(crate) fn group_accumulation_point(ctx: &Ctx, paths: &Paths, instances: &[ObjIdx], ctl: &Control) -> Result<Option<ObjIdx>, Cancelled> {
    let a = ctx.analysis;
    let sampled = sample(instances);
    let parents = paths.parents()?;
    let mut reached: Vec<u32> = sampled.iter().map(|&o| node(o)).filter(|&v| parents[v as usize] != NONE).collect();
    let plain;
    let parents: &[u32] = if reached.is_empty() {
        // Nothing is reachable without the excluded fields: MAT retries without excludes.
        plain = a.root_path_parents_or_stop(|_, _| false, ctl)?;
        reached = sampled.iter().map(|&o| node(o)).filter(|&v| plain[v as usize] != NONE).collect();
        &plain
    } else {
        parents
    };
    if reached.is_empty() {
        return Ok(None);
    }
    // The merged tree: every node on a path, its count of paths and the instances' retained
    // size through it. Local indices; `up` is the local parent (u32::MAX for the virtual root).
    let mut local: FxHashMap<u32, u32> = FxHashMap::default();
    let mut nodes: Vec<u32> = Vec::new();
    let mut up: Vec<u32> = Vec::new();
    let mut depth: Vec<u32> = Vec::new();
    let mut count: Vec<u64> = Vec::new();
    let mut size: Vec<u64> = Vec::new();
    let mut fresh: Vec<u32> = Vec::new();
    for &v in &reached {
        // Climb until a known node (or the virtual root), then number the new ones top-down.
        fresh.clear();
        let mut x = v;
        let (mut above, mut d) = (u32::MAX, 0u32);
        loop {
            if x == 0 {
                break;
            }
            if let Some(&l) = local.get(&x) {
                above = l;
                d = depth[l as usize] + 1;
                break;
            }
            fresh.push(x);
            x = parents[x as usize];
        }
        for &y in fresh.iter().rev() {
            let l = nodes.len() as u32;
            local.insert(y, l);
            nodes.push(y);
            up.push(above);
            depth.push(d);
            count.push(0);
            size.push(0);
            above = l;
            d += 1;
        }
        let l = local[&v] as usize;
        count[l] += 1;
        size[l] += a.retained_size(obj(v));
    }
    // Subtree sums, deepest first.
    let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
    order.sort_unstable_by(|&x, &y| depth[y as usize].cmp(&depth[x as usize]));
    for &l in &order {
        let p = up[l as usize];
        if p != u32::MAX {
            count[p as usize] += count[l as usize];
            size[p as usize] += size[l as usize];
        }
    }
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
    let mut roots: Vec<u32> = Vec::new();
    for l in 0..nodes.len() as u32 {
        match up[l as usize] {
            u32::MAX => roots.push(l),
            p => children[p as usize].push(l),
        }
    }
    // The child most paths pass through (ties: the bigger share, then the lower address).
    let best = |list: &[u32]| -> Option<u32> {
        list.iter().copied().max_by(|&x, &y| {
            count[x as usize]
                .cmp(&count[y as usize])
                .then(size[x as usize].cmp(&size[y as usize]))
                .then(nodes[y as usize].cmp(&nodes[x as usize]))
        })
    };
    let threshold = (GROUP_PATH_SHARE * sampled.len() as f64) as u64;
    let Some(mut cur) = best(&roots) else { return Ok(None) };
    while count[cur as usize] > threshold {
        let Some(child) = best(&children[cur as usize]) else { return Ok(Some(obj(nodes[cur as usize]))) };
        let parent_size = size[cur as usize];
        if parent_size == 0 || (size[child as usize] as f64) / (parent_size as f64) < BIG_DROP_RATIO {
            return Ok(Some(obj(nodes[cur as usize])));
        }
        cur = child;
    }
    Ok(None)
}

/// The retained set of top-level dominators (disjoint dominator subtrees, given by their
/// positions in the preorder) grouped by class, biggest shallow first. Two threads each read
/// half of the positions front to back, each calling `check` (the cancel flag) as it starts
/// and then every 65 536 positions (a suspect's subtree may hold most of the heap).
fn breakdown(ctx: &Ctx, pre: &Preorder, subtrees: &[Range<usize>], check: &(dyn Fn() -> Result<(), Cancelled> + Sync)) -> Result<ClassBreakdown, Cancelled> {
    let heap = ctx.heap;
    let classes = heap.class_count() as usize;
    const STEP: usize = 1 << 16;
    // (objects, shallow) per class, indexed by class: no hashing per object.
    let count = |ranges: &[Range<usize>]| {
        let mut per: Vec<(u64, u64)> = vec![(0, 0); classes];
        // Positions since the last look at the flag (the first look before any).
        let mut since = STEP;
        for r in ranges {
            let mut from = r.start;
            while from < r.end {
                if since >= STEP {
                    check()?;
                    since = 0;
                }
                let to = r.end.min(from + STEP);
                for i in from..to {
                    let e = &mut per[pre.classes.get(i) as usize];
                    e.0 += 1;
                    e.1 += pre.shallow(ctx, i);
                }
                since += to - from;
                from = to;
            }
        }
        Ok(per)
    };
    let [low, high] = halves(subtrees);
    let (per, other) = heapql_graph::par::both(|| count(&low), || count(&high));
    let (mut per, other) = (per?, other?);
    for (x, y) in per.iter_mut().zip(&other) {
        x.0 += y.0;
        x.1 += y.1;
    }
    let objects = subtrees.iter().map(|r| r.len() as u64).sum();
    let mut rows: Vec<ClassBreakdownRow> = per
        .iter()
        .enumerate()
        .filter(|(_, &(n, _))| n > 0)
        .map(|(c, &(n, s))| ClassBreakdownRow { class_name: heap.class(c as ClassIdx).name.clone(), objects: n, shallow: s })
        .collect();
    let classes = rows.len() as u64;
    rows.sort_by(|x, y| y.shallow.cmp(&x.shallow).then(y.objects.cmp(&x.objects)).then(x.class_name.cmp(&y.class_name)));
    rows.truncate(ctx.limit.min(BREAKDOWN_ROWS));
    Ok(ClassBreakdown { rows, classes, objects })
}

#[cfg(test)]
mod tests {
    use super::*;
    use heapql_graph::{FullAnalysis, GraphOptions};
    use heapql_heap::{Heap, OpenOptions};
    use heapql_hprof::testkit::DumpBuilder;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The breakdown of a suspect holding a chain of 300 000 objects looks at the flag every
    /// 65 536 positions on each core: cancelled at its third look, it stops before its end.
    #[test]
    fn the_breakdown_of_a_big_suspect_stops_when_cancelled() {
        const CHAIN: usize = 300_000;
        let dir = tempfile::tempdir().unwrap();
        let mut b = DumpBuilder::new(8);
        b.chain("demo.Node", CHAIN);
        let path = dir.path().join("chain.hprof");
        std::fs::write(&path, b.build()).unwrap();
        let heap = Heap::open(&path, OpenOptions::default()).unwrap();
        let a = FullAnalysis::build(&heap, GraphOptions::default()).unwrap();
        let mut ctx = Ctx::new(&heap, &a, 1);
        let ctl = Control::none();
        let mut scan = crate::scan::scan(&heap, &ctx.flags, crate::scan::Coverage::of(&a), &ctl, 1).unwrap();
        ctx.set_classes(std::mem::take(&mut scan.classes));
        let pre = Preorder::build(&ctx, &ctl, 0, 1).unwrap();
        ctx.forget_object_classes();
        let subtree = [pre.top_range(0)];
        assert!(subtree[0].len() >= CHAIN, "the chain is the first top-level dominator's subtree");
        let looks = AtomicUsize::new(0);
        let cancelled_at_the_third = || if looks.fetch_add(1, Ordering::Relaxed) >= 2 { Err(Cancelled) } else { Ok(()) };
        assert!(breakdown(&ctx, &pre, &subtree, &cancelled_at_the_third).is_err(), "cancelled");
        let stopped_after = looks.swap(0, Ordering::Relaxed);
        let counted = || {
            looks.fetch_add(1, Ordering::Relaxed);
            Ok(())
        };
        let whole = breakdown(&ctx, &pre, &subtree, &counted).unwrap();
        assert_eq!(whole.objects, subtree[0].len() as u64);
        let all = looks.load(Ordering::Relaxed);
        assert!(all >= 2 + 2 * ((CHAIN / 2) >> 16), "a look as each core starts and every 65 536 positions: {all}");
        assert!(stopped_after < all, "stopped before the end: {stopped_after} looks of {all}");
    }
}
