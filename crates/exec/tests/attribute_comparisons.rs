//! `row.@attr <op> <integer>` is compiled to a comparison that reads the attribute without
//! building values (`CExpr::AttrCmp`). It must answer exactly as the general comparison does:
//! checked object for object against the same comparison written so that it is not recognised
//! (`@attr + 0`), for every numeric attribute, operator and side, with NULLs (objects outside a
//! reachable-only analysis's tree have no retained size; only arrays and Strings have a length).

mod common;

use common::*;
use heapql_exec::{execute, AnalysisView, ExecContext};
use heapql_graph::analysis::{FullAnalysis, GraphOptions};
use heapql_heap::Heap;
use serde_json::{json, Value as J};

#[test]
fn attribute_comparisons_answer_as_the_general_comparison() {
    let heap: Heap = open(&repo().join("fixtures/demo/demo.hprof"));
    let analysis = FullAnalysis::build(&heap, GraphOptions { reachable_only: true, ..Default::default() }).unwrap();
    assert!((0..heap.object_count()).any(|o| !analysis.in_tree(o)), "the demo dump holds objects outside the tree");
    let view = AnalysisView::new(&heap, &analysis);
    let ctx = ExecContext::new(&heap).with_graph(&view);
    let matching = |filter: J| -> Vec<u32> {
        let b = execute(&ctx, &plan_with(select(all(), json!({ "filter": filter })), false, true)).unwrap();
        objects(&b, 0)
    };
    let n = heap.object_count() as i64;
    let sample = (n / 3) as u32;
    let address = heap.object_id(sample) as i64;
    let cases: [(&str, Vec<i64>); 5] = [
        ("objectId", vec![-1, 0, n / 3, n]),
        ("objectAddress", vec![0, address, address + 1]),
        ("usedHeapSize", vec![0, 16, 24, 1 << 20]),
        ("retainedHeapSize", vec![0, 16, 1000, 1 << 20]),
        ("length", vec![0, 1, 5, 100]),
    ];
    let mut nonempty = 0;
    for (name, literals) in cases {
        for v in literals {
            for op in ["<", "<=", ">", ">=", "=", "!="] {
                let fast = matching(bin(op, attr(row(), name), lit(json!(v))));
                let general = matching(bin(op, bin("+", attr(row(), name), lit(json!(0))), lit(json!(v))));
                assert_eq!(fast, general, "@{name} {op} {v}");
                // The literal on the left: `v op @attr`.
                let fast_left = matching(bin(op, lit(json!(v)), attr(row(), name)));
                let general_left = matching(bin(op, lit(json!(v)), bin("+", attr(row(), name), lit(json!(0)))));
                assert_eq!(fast_left, general_left, "{v} {op} @{name}");
                nonempty += usize::from(!fast.is_empty() && fast.len() < n as usize);
            }
        }
    }
    assert!(nonempty > 40, "the literals split the objects ({nonempty} cases did)");
}
