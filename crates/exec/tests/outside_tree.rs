//! Objects outside the dominator tree (unreachable ones, the analysis built reachable-only) have
//! no retained size: `@retainedHeapSize` and `dominators(x)` are NULL there, not 0 and an empty
//! list, so aggregates leave them out and ORDER BY sorts them as NULLs. Queries see them when
//! they run over every object (`!all`) on a reachable-only analysis.

mod common;

use common::*;
use heapql_exec::{execute, AnalysisView, Batch, ExecContext, Value};
use heapql_graph::analysis::{FullAnalysis, GraphOptions};
use heapql_heap::Heap;
use serde_json::{json, Value as J};

fn retained() -> J {
    attr(row(), "retainedHeapSize")
}

/// One row of aggregates over `@retainedHeapSize`.
fn aggregates() -> J {
    let r = || retained();
    json!({"aggregates": [aggregate("sum", r(), None), aggregate("count", r(), None), aggregate("avg", r(), None),
                          aggregate("min", r(), None), count_star()],
           "output": columns(&[("sum", agg(0)), ("count", agg(1)), ("avg", agg(2)), ("min", agg(3)), ("n", agg(4))])})
}

/// The one row's cells, as JSON (comparable; a batch holds numbers as `f64`).
fn row_values(b: &Batch) -> Vec<J> {
    assert_eq!(b.row_count, 1);
    (0..b.columns.len()).map(|c| b.columns[c].value(0).to_json()).collect()
}

#[test]
fn objects_outside_the_dominator_tree_have_no_retained_size() {
    let heap: Heap = open(&repo().join("fixtures/demo/demo.hprof"));
    let analysis = FullAnalysis::build(&heap, GraphOptions { reachable_only: true, ..Default::default() }).unwrap();
    let view = AnalysisView::new(&heap, &analysis);
    let ctx = ExecContext::new(&heap).with_graph(&view);
    // `!all`: every object, the unreachable ones included; `!reachable`: the tree's objects.
    let every = |mods: J| execute(&ctx, &plan_with(select(all(), mods), false, true)).unwrap();
    let reachable = |mods: J| execute(&ctx, &plan_with(select(all(), mods), true, true)).unwrap();
    let outside: Vec<u32> = (0..heap.object_count()).filter(|&o| !analysis.in_tree(o)).collect();
    assert!(!outside.is_empty(), "the demo dump holds unreachable objects");
    assert!(outside.iter().all(|&o| !analysis.is_reachable(o)));

    // Per object: NULL outside the tree, at least the shallow size inside it.
    let b = every(json!({"output": columns(&[("o", row()), ("r", retained()), ("d", call("dominators", vec![row()]))])}));
    let ids = objects(&b, 0);
    let (r, d) = (column(&b, 1), column(&b, 2));
    assert_eq!(ids.len(), heap.object_count() as usize);
    for (i, &o) in ids.iter().enumerate() {
        if analysis.in_tree(o) {
            let Some(size) = r[i].to_json().as_f64() else { panic!("#{o} in the tree: retained size {:?}", r[i]) };
            assert!(size >= heap.shallow_size(o) as f64, "#{o}: retained {size} < shallow {}", heap.shallow_size(o));
            assert!(matches!(d[i], Value::List(_)), "#{o}: dominators {:?}", d[i]);
        } else {
            assert!(r[i].is_null(), "#{o} outside the tree: retained size {:?}", r[i]);
            assert!(d[i].is_null(), "#{o} outside the tree: dominators {:?}", d[i]);
        }
    }

    // Aggregates ignore the NULLs: over every object they equal those over the tree's objects.
    let all_rows = row_values(&every(aggregates()));
    let tree_rows = row_values(&reachable(aggregates()));
    assert_eq!(all_rows[..4], tree_rows[..4], "SUM, COUNT, AVG, MIN of @retainedHeapSize");
    assert_eq!(all_rows[1].as_f64(), Some((heap.object_count() as usize - outside.len()) as f64), "COUNT(@retainedHeapSize)");
    assert_eq!(all_rows[4].as_f64(), Some(heap.object_count() as f64), "COUNT(*)");
    assert!(all_rows[3].as_f64().is_some_and(|m| m > 0.0), "MIN over the tree: {}", all_rows[3]);

    // ORDER BY: NULL first ascending (then the smallest real size), last descending.
    let ordered = |desc: bool| {
        every(json!({"output": columns(&[("o", row()), ("r", retained())]), "orderBy": [{"expr": out(1), "desc": desc}],
                     "limit": outside.len() + 1}))
    };
    let asc = column(&ordered(false), 1);
    assert!(asc[..outside.len()].iter().all(Value::is_null), "NULLs first ascending");
    assert_eq!(asc[outside.len()].to_json(), all_rows[3], "then the smallest retained size");
    assert!(!column(&ordered(true), 1).iter().any(Value::is_null), "NULLs last descending");

    // WHERE: a comparison with NULL is false; IS NULL finds exactly the objects outside.
    let below_shallow = every(json!({"filter": bin("<", retained(), shallow())}));
    assert_eq!(below_shallow.row_count, 0, "no retained size below the shallow size");
    let nulls = every(json!({"filter": bin("=", retained(), lit(J::Null))}));
    assert_eq!(objects(&nulls, 0), outside);

    // AS RETAINED SET of objects outside the tree: they are left out (as SUM leaves out their
    // NULLs), and so is everything only they reach.
    let set = every(json!({"filter": bin("=", attr(row(), "objectId"), lit(json!(outside[0]))), "retainedSet": true}));
    assert_eq!(set.row_count, 0);
}
