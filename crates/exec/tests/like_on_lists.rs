//! `LIKE` over a list (`@GCRoots`, `@outbounds`, a slice) stands for its elements, as `IN` does:
//! it holds when one element's text matches, `NOT LIKE` when none does. Both were false for
//! every list, so `x.@GCRoots LIKE "System Class"` found nothing and its negation nothing too.
//! Checked object for object against the root kinds the heap itself lists.

mod common;

use common::*;
use heapql_exec::{execute, ExecContext, Value};
use heapql_heap::Heap;
use serde_json::json;

#[test]
fn like_over_a_list_matches_when_one_element_does() {
    let heap: Heap = open(&repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof"));
    let ctx = ExecContext::new(&heap);
    let matching = |pattern: &str, negate: bool| -> Vec<u32> {
        let filter = json!({"k": "like", "e": attr(row(), "GCRoots"), "pattern": pattern, "negate": negate});
        let b = execute(&ctx, &plan(select(all(), json!({ "filter": filter })))).unwrap();
        let mut ids = objects(&b, 0);
        ids.sort_unstable();
        ids
    };
    // The same from the heap's own lists: each rooted object with the labels of its root kinds.
    let rooted: Vec<(u32, Vec<String>)> = {
        let b = execute(&ctx, &plan(select(all(), json!({ "output": columns(&[("x", row()), ("r", attr(row(), "GCRoots"))]) })))).unwrap();
        let xs = objects(&b, 0);
        column(&b, 1)
            .into_iter()
            .zip(xs)
            .filter_map(|(v, x)| match v {
                Value::List(items) => Some((x, items.iter().map(|k| k.plain_text().expect("a root kind is text")).collect())),
                _ => None,
            })
            .collect()
    };
    assert!(rooted.len() > 100, "{} rooted objects", rooted.len());
    let cases: [(&str, fn(&str) -> bool); 2] = [("System Class", |k| k == "System Class"), ("J.*", |k| k.starts_with('J'))];
    for (pattern, wanted) in cases {
        let mut yes: Vec<u32> = rooted.iter().filter(|(_, ks)| ks.iter().any(|k| wanted(k))).map(|(x, _)| *x).collect();
        let mut no: Vec<u32> = rooted.iter().filter(|(_, ks)| !ks.iter().any(|k| wanted(k))).map(|(x, _)| *x).collect();
        yes.sort_unstable();
        no.sort_unstable();
        assert!(!yes.is_empty() && !no.is_empty(), "{pattern}: both sides hold objects");
        assert_eq!(matching(pattern, false), yes, "{pattern}");
        // Objects without roots have no list (NULL): neither LIKE nor NOT LIKE holds for them.
        assert_eq!(matching(pattern, true), no, "NOT {pattern}");
    }
}
