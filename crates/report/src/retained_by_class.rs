//! Retained size of all instances of a class taken together, for every class in one walk of the
//! dominator tree: MAT's "minimum retained size" (mat-semantics.md §2.6) — the sum of the
//! retained sizes of the instances that no other instance of the same class dominates. It
//! never counts an object twice and equals the exact retained set of the instances whenever
//! no object is kept alive only by several instances together (then it is a lower bound).
//! The same walk gives the bootstrap loader's share: the classes it defined, taken together.

use heapql_graph::control::{Cancelled, Control};
use heapql_heap::{ClassIdx, ObjIdx, ObjectKind};

use super::ctx::Ctx;
use super::scan::TICK;

pub struct ClassRetained {
    /// Per class (class objects under java.lang.Class).
    pub by_class: Vec<u64>,
    /// Class objects of classes the bootstrap loader defined, taken together.
    pub bootstrap_classes: u64,
}

pub fn retained_by_class(ctx: &Ctx, ctl: &Control, done_before: u64, total_work: u64) -> Result<ClassRetained, Cancelled> {
    let heap = ctx.heap;
    let a = ctx.analysis;
    let mut by_class = vec![0u64; heap.class_count() as usize];
    // Open instances of each class on the current tree path.
    let mut open = vec![0u32; heap.class_count() as usize];
    let mut open_bootstrap = 0u32;
    let mut bootstrap_classes = 0u64;
    // Class objects are instances of java.lang.Class: the cached class answers first, so the
    // index is read only for them.
    let class_class = heap.class_class();
    let is_bootstrap_class = |o: ObjIdx, c: ClassIdx| {
        c == class_class
            && heap.object_kind(o) == ObjectKind::Class
            && heap.class_described_by(o).is_some_and(|c| heap.class(c).loader_id == 0)
    };
    // Iterative depth-first walk: (object, its class, its children, index of the next child).
    let mut stack: Vec<(ObjIdx, ClassIdx, &[ObjIdx], u32)> = Vec::new();
    let mut visited = 0u64;
    for &top in a.top_level_dominators() {
        let enter = |o: ObjIdx, open: &mut Vec<u32>, by_class: &mut Vec<u64>, ob: &mut u32, bc: &mut u64| {
            let c = ctx.class_of(o);
            if open[c as usize] == 0 {
                by_class[c as usize] += a.retained_size(o);
            }
            open[c as usize] += 1;
            if is_bootstrap_class(o, c) {
                if *ob == 0 {
                    *bc += a.retained_size(o);
                }
                *ob += 1;
            }
            c
        };
        let c = enter(top, &mut open, &mut by_class, &mut open_bootstrap, &mut bootstrap_classes);
        stack.push((top, c, a.dominated(top), 0));
        while let Some(&mut (o, c, children, ref mut next)) = stack.last_mut() {
            if (*next as usize) < children.len() {
                let child = children[*next as usize];
                *next += 1;
                visited += 1;
                if visited % TICK as u64 == 0 {
                    ctl.tick(done_before + visited, total_work)?;
                }
                let cc = enter(child, &mut open, &mut by_class, &mut open_bootstrap, &mut bootstrap_classes);
                stack.push((child, cc, a.dominated(child), 0));
            } else {
                stack.pop();
                open[c as usize] -= 1;
                if is_bootstrap_class(o, c) {
                    open_bootstrap -= 1;
                }
            }
        }
    }
    Ok(ClassRetained { by_class, bootstrap_classes })
}
