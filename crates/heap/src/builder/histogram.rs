//! The class histogram and the heap summary, from the heap pass's counts (instances per class,
//! arrays by length mod 16) and the chosen size model: no second pass over the objects.

use super::*;

/// The histogram (by shallow size, descending) and the summary.
pub(super) fn histogram(h: &Heap, t: &PassTotals) -> (Vec<ClassHistogramRow>, HeapSummary) {
    let m = h.model;
    let nclasses = h.classes.len();
    let mut rows: Vec<ClassHistogramRow> = (0..nclasses).map(|c| ClassHistogramRow { class: c as ClassIdx, count: 0, shallow: 0 }).collect();
    let mut summary = HeapSummary { dump_heap_bytes: t.heap_bytes, ..Default::default() };
    for (cid, acc) in &t.inst {
        let count = &acc.count;
        if let Some(&c) = h.class_by_id.get(cid) {
            rows[c as usize].count += count;
            rows[c as usize].shallow += count * h.ext[c as usize].instance_size as u64;
        }
        summary.instances += count;
    }
    let exact_mod16 = m.android || m.align <= 16;
    let array_total = |c: ClassIdx, elem: Option<PrimType>, a: &Acc| -> u64 {
        if exact_mod16 {
            (0..16u64).map(|r| if a.mod16[r as usize] == 0 { 0 } else { a.mod16[r as usize] * h.array_size(c, elem, r) }).sum::<u64>()
                + {
                    // Sizes are affine in n within one residue class: size(n) = size(r) + (n - r)·e.
                    let e = match elem {
                        Some(t) => prim_size(t),
                        None => m.ref_size,
                    } as u64;
                    let rsum: u64 = (0..16u64).map(|r| a.mod16[r as usize] * r).sum();
                    (a.elems - rsum) * e
                }
        } else {
            0
        }
    };
    for a in t.arrays.values() {
        if let Some(&c) = h.class_by_id.get(&a.class_id) {
            rows[c as usize].count += a.count;
            rows[c as usize].shallow += array_total(c, None, a);
        }
        summary.object_arrays += a.count;
    }
    for (i, a) in t.prims.iter().enumerate() {
        if a.count == 0 {
            continue;
        }
        let ty = prim_from_code(i as u8 + 4);
        let c = h.prim_class[i];
        rows[c as usize].count += a.count;
        rows[c as usize].shallow += array_total(c, Some(ty), a);
        summary.primitive_arrays += a.count;
    }
    if !exact_mod16 {
        // Alignment above 16: size each array from its own length.
        for o in 0..h.objs.len() {
            if matches!(h.object_kind(o), ObjectKind::ObjectArray | ObjectKind::PrimitiveArray(_)) {
                let c = h.class_of(o);
                rows[c as usize].shallow += h.shallow_size(o);
            }
        }
    }
    for c in 0..nclasses {
        let o = h.classes[c].object;
        if (o as usize) < h.objs.len() as usize && h.class_described_by(o) == Some(c as ClassIdx) {
            rows[h.class_class as usize].count += 1;
            rows[h.class_class as usize].shallow += h.ext[c].mirror_size as u64;
            summary.class_objects += 1;
        }
    }
    // Stack chunks: each one's size follows its stack, not its class.
    if let Some((c, slot)) = h.stack_chunks.filter(|&(c, _)| rows[c as usize].count > 0) {
        rows[c as usize].shallow = crate::stack_chunks::total(h, c, slot);
    }
    summary.objects = h.objs.len() as u64;
    summary.classes = nclasses as u64;
    summary.total_shallow = rows.iter().map(|r| r.shallow).sum();
    summary.gc_roots = h.roots.len() as u64;
    let mut distinct: Vec<ObjIdx> = h.roots.iter().map(|r| r.object).collect();
    distinct.sort_unstable();
    distinct.dedup();
    summary.gc_root_objects = distinct.len() as u64;
    let mut by_kind: Vec<(RootKind, u64)> = Vec::new();
    for r in &h.roots {
        match by_kind.iter_mut().find(|x| x.0 == r.kind) {
            Some(x) => x.1 += 1,
            None => by_kind.push((r.kind, 1)),
        }
    }
    by_kind.sort();
    summary.roots_by_kind = by_kind;
    summary.sizes_estimated = h.info.size_model_source.starts_with("assumed");
    rows.retain(|r| r.count > 0);
    rows.sort_by(|a, b| b.shallow.cmp(&a.shallow).then(a.class.cmp(&b.class)));
    (rows, summary)
}
