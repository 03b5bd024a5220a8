//! Comparisons of Strings with texts read a String's units from the dump a block at a time and
//! stop where the comparison is decided (`Heap::string_units`): the answers must be exactly
//! those of comparing the whole texts (Java's `compareTo` / `equals`), for Strings longer than
//! several blocks, in every stored form (Latin-1 `byte[]`, UTF-16 `byte[]`, `char[]`), with the
//! String on either side, as the object itself or as `toString(s)`, and for two Strings.

mod common;

use common::*;
use heapql_exec::Value;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;
use std::cmp::Ordering;
use std::collections::HashMap;

/// Longer than two of the heap's 16 384-unit blocks.
const N: usize = 40_000;

fn a(n: usize) -> String {
    "a".repeat(n)
}

#[test]
fn long_strings_compare_exactly_with_texts_and_with_each_other() {
    let mut b = DumpBuilder::new(8);
    let texts = [
        format!("{}b", a(N - 1)),
        format!("{}\u{e000}", a(N - 1)),
        format!("{}😀", a(N - 2)),
        a(N),
        format!("b{}", a(N - 1)),
    ];
    let by_id = stored_every_way(&mut b, &texts);
    // Every pair of them, for toString(p.a) op toString(p.b).
    let pair = b.class("Pair", Some(b.object_class), &[("a", BasicType::Object), ("b", BasicType::Object)]);
    let strings: Vec<u64> = by_id.keys().copied().collect();
    for &x in &strings {
        for &y in &strings {
            b.instance(pair, &[Val::Obj(x), Val::Obj(y)]);
        }
    }
    let heap = open(&temp_file("long-string-comparisons.hprof", &b.build()));
    let literals = [
        format!("{}b", a(N - 1)),
        format!("{}c", a(N - 1)),
        format!("{}\u{e000}", a(N - 1)),
        format!("{}😀", a(N - 2)),
        format!("{}\u{ff10}", a(N - 2)),
        a(N),
        a(N - 1),
        a(N + 1),
        String::new(),
        "b".to_string(),
    ];
    let holds = |op: &str, o: Ordering| match op {
        "=" => o.is_eq(),
        "!=" => o.is_ne(),
        "<" => o.is_lt(),
        "<=" => o.is_le(),
        ">" => o.is_gt(),
        _ => o.is_ge(),
    };
    let text = || call("toString", vec![row()]);
    for lit_text in &literals {
        for op in ["=", "!=", "<", "<=", ">", ">="] {
            let l = lit(json!(lit_text));
            let got = run(
                &heap,
                select(
                    class("java.lang.String"),
                    json!({"output": columns(&[
                        ("s", row()),
                        ("s op lit", bin(op, row(), l.clone())),
                        ("lit op s", bin(op, l.clone(), row())),
                        ("toString(s) op lit", bin(op, text(), l.clone())),
                        ("lit op toString(s)", bin(op, l.clone(), text())),
                    ])}),
                ),
            );
            let rows = objects(&got, 0);
            assert_eq!(rows.len(), by_id.len());
            for (r, &o) in rows.iter().enumerate() {
                let t = &by_id[&heap.object_id(o)];
                let ord = t.encode_utf16().cmp(lit_text.encode_utf16());
                let want = [holds(op, ord), holds(op, ord.reverse()), holds(op, ord), holds(op, ord.reverse())];
                for (c, w) in want.iter().enumerate() {
                    assert!(
                        matches!(got.columns[c + 1].value(r), Value::Bool(x) if x == *w),
                        "{} {op} {} (column {}): want {w}",
                        t.len(),
                        lit_text.len(),
                        c + 1
                    );
                }
            }
        }
    }
    // Two Strings: every pair.
    let side = |f: &str| call("toString", vec![field(row(), f)]);
    for op in ["=", "!=", "<", ">="] {
        let got = run(
            &heap,
            select(
                class("Pair"),
                json!({"output": columns(&[("a", field(row(), "a")), ("b", field(row(), "b")), ("r", bin(op, side("a"), side("b")))])}),
            ),
        );
        assert_eq!(got.row_count, strings.len() * strings.len());
        let (xs, ys) = (objects(&got, 0), objects(&got, 1));
        for r in 0..got.row_count {
            let (tx, ty) = (&by_id[&heap.object_id(xs[r])], &by_id[&heap.object_id(ys[r])]);
            let want = holds(op, tx.encode_utf16().cmp(ty.encode_utf16()));
            assert!(matches!(got.columns[2].value(r), Value::Bool(v) if v == want), "{} {op} {}: want {want}", tx.len(), ty.len());
        }
    }
}

/// LIKE over Strings longer than the length from which it matches them as they are read: the
/// answer is the regex's on the whole text, for patterns decided early, late or only at the end.
#[test]
fn like_over_long_strings_is_the_whole_text_match() {
    const M: usize = 70_000;
    let mut b = DumpBuilder::new(8);
    let texts = [format!("{}b", a(M - 1)), format!("{}😀", a(M - 2)), format!("b{}", a(M - 1)), format!("{}\u{e000}z", a(M - 2))];
    let mut by_id = stored_every_way(&mut b, &texts);
    // A lone surrogate at the end: LIKE reads it as U+FFFD.
    let mut lone: Vec<u16> = a(M).encode_utf16().collect();
    lone.push(0xD800);
    by_id.insert(b.utf16_string(&lone), String::from_utf16_lossy(&lone));
    let heap = open(&temp_file("long-string-like.hprof", &b.build()));
    let patterns = [
        "a.*", "b.*", "a+b", "a*", ".*b", "(?i)A.*B", "a{69999}b", "a.*😀", "[a-z]*\u{e000}z", "a.*\u{fffd}", "a*\\b", "c.*", ".*",
    ];
    for p in patterns {
        let re = regex::Regex::new(&format!("^(?:{p})$")).unwrap();
        let got = run(
            &heap,
            select(
                class("java.lang.String"),
                json!({"output": columns(&[("s", row()), ("like", json!({"k": "like", "e": row(), "pattern": p, "negate": false}))])}),
            ),
        );
        let rows = objects(&got, 0);
        assert_eq!(rows.len(), by_id.len());
        for (r, &o) in rows.iter().enumerate() {
            let t = &by_id[&heap.object_id(o)];
            let want = re.is_match(t);
            assert!(matches!(got.columns[1].value(r), Value::Bool(x) if x == want), "{p} on {} chars: want {want}", t.chars().count());
        }
    }
}

/// Each text as a String three ways — as the kit stores it (Latin-1 when it can), as UTF-16
/// bytes, as a char[] — by the String's id.
fn stored_every_way(b: &mut DumpBuilder, texts: &[String]) -> HashMap<u64, String> {
    let mut by_id = HashMap::new();
    for t in texts {
        let units: Vec<u16> = t.encode_utf16().collect();
        by_id.insert(b.string(t), t.clone());
        by_id.insert(b.utf16_string(&units), t.clone());
        by_id.insert(b.char_string(&units), t.clone());
    }
    by_id
}
