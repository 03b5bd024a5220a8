//! Top Consumers (mat-semantics.md §3.2): the top-level dominators above 1 % of the heap
//! (strictly), and the top-level dominators grouped by class, by defining class loader and by
//! package (a tree of dotted name prefixes), each group kept when it retains more than 1 %.

use std::collections::BTreeMap;

use heapql_heap::{ClassIdx, ObjectKind};
use rustc_hash::FxHashMap;

use super::ctx::{Ctx, LOADER};
use super::model::{ConsumerGroup, PackageNode, SizedObject, TopConsumers};
use super::overview::BOOTSTRAP;

/// MAT's Top Consumers threshold, percent of the used heap.
pub const THRESHOLD_PERCENT: u64 = 1;

#[derive(Clone, Copy, Default)]
struct Sum {
    objects: u64,
    shallow: u64,
    retained: u64,
}

impl Sum {
    fn add(&mut self, shallow: u64, retained: u64) {
        self.objects += 1;
        self.shallow += shallow;
        self.retained += retained;
    }
}

pub fn top_consumers(ctx: &Ctx) -> TopConsumers {
    let heap = ctx.heap;
    let a = ctx.analysis;
    let top = a.top_level_dominators();
    let biggest_objects = top
        .iter()
        .take_while(|&&o| ctx.above(a.retained_size(o), THRESHOLD_PERCENT))
        .take(ctx.limit)
        .map(|&o| sized(ctx, o))
        .collect();

    let mut by_class: FxHashMap<ClassIdx, Sum> = FxHashMap::default();
    let mut by_loader: FxHashMap<u64, Sum> = FxHashMap::default();
    // Keyed by the class whose name places the object in the package tree (a class object by
    // the class it describes).
    let mut by_name: FxHashMap<ClassIdx, Sum> = FxHashMap::default();
    for &o in top {
        let (shallow, retained) = (ctx.shallow(o), a.retained_size(o));
        let c = ctx.class_of(o);
        by_class.entry(c).or_default().add(shallow, retained);
        let described = (heap.object_kind(o) == ObjectKind::Class).then(|| heap.class_described_by(o)).flatten();
        let loader = match described {
            Some(d) => heap.class(d).loader_id,
            None if ctx.object_flags(o) & LOADER != 0 => heap.object_id(o),
            None => heap.class(c).loader_id,
        };
        by_loader.entry(loader).or_default().add(shallow, retained);
        by_name.entry(described.unwrap_or(c)).or_default().add(shallow, retained);
    }

    let biggest_classes = groups(ctx, by_class.into_iter().map(|(c, s)| (heap.class(c).name.clone(), s)));
    let biggest_class_loaders =
        groups(ctx, by_loader.into_iter().map(|(l, s)| (ctx.loader_label(l).unwrap_or_else(|| BOOTSTRAP.to_string()), s)));
    let biggest_packages = packages(ctx, by_name.into_iter().map(|(c, s)| (heap.class(c).name.as_str(), s)));
    TopConsumers {
        threshold_percent: THRESHOLD_PERCENT as f64,
        biggest_objects,
        biggest_classes,
        biggest_class_loaders,
        biggest_packages,
    }
}

pub fn sized(ctx: &Ctx, o: u32) -> SizedObject {
    let retained = ctx.analysis.retained_size(o);
    SizedObject {
        object: ctx.object_ref(o),
        shallow: ctx.heap.shallow_size(o),
        retained,
        retained_percent: ctx.percent(retained),
    }
}

/// Groups above the threshold, biggest first (ties by name). Groups of the same name (a class
/// defined by two loaders) are merged.
fn groups(ctx: &Ctx, sums: impl Iterator<Item = (String, Sum)>) -> Vec<ConsumerGroup> {
    let mut merged: BTreeMap<String, Sum> = BTreeMap::new();
    for (name, s) in sums {
        let m = merged.entry(name).or_default();
        m.objects += s.objects;
        m.shallow += s.shallow;
        m.retained += s.retained;
    }
    let mut out: Vec<ConsumerGroup> = merged
        .into_iter()
        .filter(|(_, s)| ctx.above(s.retained, THRESHOLD_PERCENT))
        .map(|(name, s)| ConsumerGroup {
            name,
            objects: s.objects,
            shallow: s.shallow,
            retained: s.retained,
            retained_percent: ctx.percent(s.retained),
        })
        .collect();
    out.sort_by(|a, b| b.retained.cmp(&a.retained).then(a.name.cmp(&b.name)));
    out.truncate(ctx.limit);
    out
}

/// The package tree: every dotted prefix of each class name (the class itself is the leaf),
/// pruned below the threshold, in pre-order with children biggest first. Capped at the limit
/// by size, not by place: the biggest nodes are kept (a node never retains less than one
/// below it, so they hold their parents; `keep_biggest`), and a big top-level package is never
/// dropped for the small ones listed before it.
fn packages<'n>(ctx: &Ctx, sums: impl Iterator<Item = (&'n str, Sum)>) -> Vec<PackageNode> {
    let mut prefixes: BTreeMap<&'n str, Sum> = BTreeMap::new();
    for (name, s) in sums {
        let mut end = 0;
        loop {
            let next = name[end..].find('.').map(|i| end + i);
            let prefix = &name[..next.unwrap_or(name.len())];
            let p = prefixes.entry(prefix).or_default();
            p.objects += s.objects;
            p.retained += s.retained;
            match next {
                Some(i) => end = i + 1,
                None => break,
            }
        }
    }
    let kept: Vec<(&str, Sum)> = prefixes.into_iter().filter(|(_, s)| ctx.above(s.retained, THRESHOLD_PERCENT)).collect();
    let parent_of = |name: &str| name.rfind('.').map(|i| name[..i].to_string());
    let mut children: BTreeMap<Option<String>, Vec<(&str, Sum)>> = BTreeMap::new();
    for &(name, s) in &kept {
        children.entry(parent_of(name)).or_default().push((name, s));
    }
    for list in children.values_mut() {
        list.sort_by(|a, b| b.1.retained.cmp(&a.1.retained).then(a.0.cmp(b.0)));
    }
    let mut out = Vec::new();
    // Iterative pre-order: a stack of (node, depth), children pushed in reverse.
    let mut stack: Vec<(&str, Sum, u32)> = Vec::new();
    if let Some(roots) = children.get(&None) {
        stack.extend(roots.iter().rev().map(|&(n, s)| (n, s, 0)));
    }
    while let Some((name, s, depth)) = stack.pop() {
        out.push(PackageNode {
            name: name.to_string(),
            parent: parent_of(name),
            depth,
            objects: s.objects,
            retained: s.retained,
            retained_percent: ctx.percent(s.retained),
        });
        if let Some(kids) = children.get(&Some(name.to_string())) {
            stack.extend(kids.iter().rev().map(|&(n, s)| (n, s, depth + 1)));
        }
    }
    keep_biggest(out, ctx.limit)
}

/// The `limit` nodes of a pre-order package tree that retain the most (a parent before its
/// child on a tie: it retains at least as much), still in pre-order. The TypeScript cap of a
/// report's lists (`ts/report/limit.ts`) applies the same rule.
fn keep_biggest(nodes: Vec<PackageNode>, limit: usize) -> Vec<PackageNode> {
    if nodes.len() <= limit {
        return nodes;
    }
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by(|&a, &b| nodes[b].retained.cmp(&nodes[a].retained).then(nodes[a].depth.cmp(&nodes[b].depth)).then(a.cmp(&b)));
    let mut kept = vec![false; nodes.len()];
    for &i in &order[..limit] {
        kept[i] = true;
    }
    nodes.into_iter().zip(kept).filter_map(|(n, k)| k.then_some(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, depth: u32, retained: u64) -> PackageNode {
        PackageNode { name: name.into(), parent: name.rfind('.').map(|i| name[..i].into()), depth, objects: 1, retained, retained_percent: 0.0 }
    }

    /// The cap keeps the biggest nodes, in pre-order: a top-level package bigger than nodes
    /// listed before it is kept, and a parent goes with its child on a tie.
    #[test]
    fn the_package_tree_is_capped_by_size_not_by_place() {
        let tree = vec![node("java", 0, 70), node("java.lang", 1, 60), node("java.lang.Tiny", 2, 2), node("sun", 0, 20), node("sun.misc", 1, 20)];
        let names = |v: Vec<PackageNode>| v.into_iter().map(|n| n.name).collect::<Vec<_>>();
        assert_eq!(names(keep_biggest(tree.clone(), 2)), ["java", "java.lang"]);
        assert_eq!(names(keep_biggest(tree.clone(), 3)), ["java", "java.lang", "sun"]);
        assert_eq!(names(keep_biggest(tree.clone(), 4)), ["java", "java.lang", "sun", "sun.misc"]);
        assert_eq!(keep_biggest(tree.clone(), 9).len(), 5);
    }
}
