//! Places where one value met another differently, made to agree, on the real KnownHeap
//! fixture (1000 KnownHeap$Point objects, int x = 0..999, and its Strings):
//! - INTERSECT / EXCEPT find a String object in a row of texts by its text, and any object in a
//!   row of numbers by its address, as `=` and `IN` do; DISTINCT still keeps a String object and
//!   its text apart (it partitions rows);
//! - a number has no text for LIKE, as it equals no text (`toString(x)` has one);
//! - a text cell is measured as a JSON string (quotes and escapes counted) in every column, so a
//!   count fails where the rows fail whatever kinds share its column;
//! - a concatenation longer than a cell fails before it is built.

mod common;

use common::*;
use heapql_exec::{execute, execute_count, execute_stream, ExecContext, ExecError, ERR_TOO_LARGE};
use heapql_heap::Heap;
use serde_json::{json, Value as J};

fn heap() -> Heap {
    open(&repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof"))
}

fn x() -> J {
    field(row(), "x")
}

fn points(mods: J) -> J {
    select(class("KnownHeap$Point"), mods)
}

fn strings(mods: J) -> J {
    select(class("java.lang.String"), mods)
}

fn to_string(e: J) -> J {
    call("toString", vec![e])
}

fn like(e: J, pattern: &str, negate: bool) -> J {
    json!({"k": "like", "e": e, "pattern": pattern, "negate": negate})
}

fn rows(heap: &Heap, q: J) -> u64 {
    run(heap, q).row_count as u64
}

fn length_is(n: i64) -> J {
    bin("=", attr(row(), "length"), lit(json!(n)))
}

#[test]
fn intersect_and_except_find_a_string_object_by_its_text() {
    let heap = heap();
    let all = rows(&heap, strings(json!({})));
    let five = rows(&heap, strings(json!({"filter": length_is(5)})));
    assert!(five > 3 && five < all, "{five} Strings of 5 characters out of {all}");
    let texts_of_five = || strings(json!({"filter": length_is(5), "output": columns(&[("t", to_string(row()))])}));
    // Every String of five characters is its own text; the others are no text of five.
    let both = run(&heap, setop("intersect", strings(json!({})), texts_of_five(), json!({})));
    assert_eq!(both.row_count as u64, five, "INTERSECT");
    let five_ids = objects(&run(&heap, strings(json!({"filter": length_is(5)}))), 0);
    let kept: Vec<u32> = column(&both, 0).iter().map(|v| match v {
        heapql_exec::Value::Obj(o) => *o,
        other => panic!("INTERSECT keeps the left side's cells, not {other:?}"),
    }).collect();
    assert_eq!(kept, five_ids, "the left side's String objects, in their order");
    assert_eq!(rows(&heap, setop("except", strings(json!({})), texts_of_five(), json!({}))), all - five, "EXCEPT");
    // Either side may hold the texts, and a column beside them compares as before.
    assert_eq!(rows(&heap, setop("intersect", texts_of_five(), strings(json!({})), json!({}))), five, "texts INTERSECT objects");
    let with_len = |objects: bool| {
        let cell = if objects { row() } else { to_string(row()) };
        strings(json!({"filter": length_is(5), "output": columns(&[("s", cell), ("n", attr(row(), "length"))])}))
    };
    assert_eq!(rows(&heap, setop("intersect", with_len(true), with_len(false), json!({}))), five, "two columns");
    let other_len = strings(json!({"filter": length_is(5), "output": columns(&[("t", to_string(row())), ("n", lit(json!(4)))])}));
    assert_eq!(rows(&heap, setop("intersect", with_len(true), other_len, json!({}))), 0, "a second column that differs");
    // The executor's row count agrees (a set operation is counted by its own rows).
    let ctx = ExecContext::new(&heap);
    assert_eq!(execute_count(&ctx, &plan(setop("intersect", strings(json!({})), texts_of_five(), json!({})))).unwrap(), five);

    // DISTINCT partitions rows: a String object and its text stay two rows, as GROUP BY keeps them.
    let distinct_texts = rows(&heap, strings(json!({"filter": length_is(5), "output": columns(&[("t", to_string(row()))]), "distinct": true})));
    let union = setop("union", strings(json!({"filter": length_is(5)})), texts_of_five(), json!({"distinct": true}));
    assert_eq!(rows(&heap, union), five + distinct_texts, "UNION with DISTINCT");
}

#[test]
fn intersect_and_except_find_an_object_by_its_address() {
    let heap = heap();
    let under = |n: i64| bin("<", x(), lit(json!(n)));
    let addresses = |n: i64| points(json!({"filter": under(n), "output": columns(&[("a", attr(row(), "objectAddress"))])}));
    // An object equals the number that is its address, as `x = 0x…` and `x IN (SELECT y.@objectAddress …)`.
    let both = run(&heap, setop("intersect", points(json!({})), addresses(10), json!({})));
    assert_eq!(both.row_count, 10, "INTERSECT");
    assert_eq!(objects(&both, 0), objects(&run(&heap, points(json!({"filter": under(10)}))), 0), "the left side's objects, in their order");
    assert_eq!(rows(&heap, setop("except", points(json!({})), addresses(10), json!({}))), 990, "EXCEPT");
    assert_eq!(rows(&heap, setop("intersect", addresses(10), points(json!({})), json!({}))), 10, "addresses INTERSECT objects");
    // A number that is no object's address matches none.
    let off = points(json!({"filter": under(10), "output": columns(&[("a", bin("+", attr(row(), "objectAddress"), lit(json!(1))))])}));
    assert_eq!(rows(&heap, setop("intersect", points(json!({})), off, json!({}))), 0, "address + 1");

    // A column whose other side holds texts and numbers both: a String equals its text or its address.
    let five = rows(&heap, strings(json!({"filter": length_is(5)})));
    let six = rows(&heap, strings(json!({"filter": length_is(6)})));
    assert!(five > 0 && six > 0, "the fixture has Strings of 5 and of 6 characters: {five}, {six}");
    let texts_of_five = strings(json!({"filter": length_is(5), "output": columns(&[("t", to_string(row()))])}));
    let addresses_of_six = strings(json!({"filter": length_is(6), "output": columns(&[("t", attr(row(), "objectAddress"))])}));
    let mixed = setop("union", texts_of_five, addresses_of_six, json!({}));
    assert_eq!(rows(&heap, setop("intersect", strings(json!({})), mixed.clone(), json!({}))), five + six, "texts and addresses");
    let all = rows(&heap, strings(json!({})));
    assert_eq!(rows(&heap, setop("except", strings(json!({})), mixed, json!({}))), all - five - six, "EXCEPT texts and addresses");
}

#[test]
fn a_number_has_no_text_for_like_as_it_equals_no_text() {
    let heap = heap();
    let filtered = |f: J| rows(&heap, points(json!({"filter": f})));
    assert_eq!(filtered(bin("=", x(), lit(json!("1")))), 0, "x = \"1\"");
    assert_eq!(filtered(like(x(), "1", false)), 0, "x LIKE \"1\"");
    assert_eq!(filtered(like(x(), "1", true)), 0, "x NOT LIKE \"1\": no text to match, as NULL");
    assert_eq!(filtered(like(x(), "1.*", false)), 0, "x LIKE \"1.*\"");
    // toString(x) is the number's text, for = and LIKE alike.
    assert_eq!(filtered(bin("=", to_string(x()), lit(json!("1")))), 1, "toString(x) = \"1\"");
    assert_eq!(filtered(like(to_string(x()), "1", false)), 1, "toString(x) LIKE \"1\"");
    assert_eq!(filtered(like(to_string(x()), "1.*", false)), 111, "toString(x) LIKE \"1.*\": 1, 10-19, 100-199");
    assert_eq!(filtered(like(to_string(x()), "1.*", true)), 889, "toString(x) NOT LIKE \"1.*\"");
    // A number's text made by a concatenation is a text too.
    assert_eq!(filtered(like(bin("+", lit(json!("")), x()), "1.*", false)), 111, "\"\" + x LIKE \"1.*\"");
}

/// The rows of `q` as a reader of its pages gets them: streamed, each batch checked as the
/// N-API door checks it (a cell too long for JavaScript fails), counted.
fn paged_rows(ctx: &ExecContext, q: &J, batch_rows: usize) -> Result<u64, String> {
    let mut failed = None;
    let mut sent = 0u64;
    let end = execute_stream(ctx, &plan(q.clone()), batch_rows, &mut |b| {
        if let Err(e) = b.check_cell_lengths(sent, ctx.max_cell_units) {
            failed = Some(e);
            return false;
        }
        sent += b.row_count as u64;
        true
    })
    .map_err(|e| e.code.to_string())?;
    match failed {
        Some(e) => Err(e.code.to_string()),
        None => Ok(end.rows),
    }
}

#[test]
fn a_count_measures_a_text_as_the_rows_do_whatever_shares_its_column() {
    let heap = heap();
    // Cells of at most 6 UTF-16 units: a text of 5 characters is 7 with its quotes.
    let ctx = ExecContext::new(&heap).with_max_cell_units(6);
    let text = |tail: &str| bin("+", to_string(x()), lit(json!(tail)));
    let mixed = |tail: &str| {
        // Points x < 10 give a text ("0abcd": 5 characters, 7 quoted), the others their x: a
        // column that mixes kinds, whose batches carry texts as JSON strings.
        json!({"k": "case", "whens": [{"when": bin("<", x(), lit(json!(10))), "then": text(tail)}], "else": x()})
    };
    let cases = [
        ("five characters among numbers", points(json!({"output": columns(&[("c", mixed("abcd"))])})), true),
        ("five characters alone", points(json!({"filter": bin("<", x(), lit(json!(10))), "output": columns(&[("c", text("abcd"))])})), true),
        ("a quote escaped: four characters, seven units", points(json!({"filter": bin("<", x(), lit(json!(10))), "output": columns(&[("c", text("ab\""))])})), true),
        ("four characters among numbers", points(json!({"output": columns(&[("c", mixed("abc"))])})), false),
        ("four characters alone", points(json!({"filter": bin("<", x(), lit(json!(10))), "output": columns(&[("c", text("abc"))])})), false),
    ];
    for (what, q, fails) in cases {
        let counted = execute_count(&ctx, &plan(q.clone())).map_err(|e: ExecError| e.code.to_string());
        // Batches of one row (each cell alone in its column) and of all rows (kinds mixed).
        for batch_rows in [1, 1000] {
            let paged = paged_rows(&ctx, &q, batch_rows);
            assert_eq!(counted, paged, "{what}, batches of {batch_rows}");
        }
        assert_eq!(counted.is_err(), fails, "{what}: {counted:?}");
        if fails {
            assert_eq!(counted, Err(ERR_TOO_LARGE.to_string()), "{what}");
        }
    }
}

#[test]
fn a_concatenation_longer_than_a_cell_fails_before_it_is_built() {
    let heap = heap();
    let longest = {
        let q = strings(json!({"output": columns(&[("n", attr(row(), "length"))]), "orderBy": [{"expr": attr(row(), "length"), "desc": true}], "limit": 1}));
        single_int(&run(&heap, q)) as usize
    };
    assert!(longest > 20, "the longest String has {longest} characters");
    let only_longest = bin("=", attr(row(), "length"), lit(json!(longest)));
    let ctx = ExecContext::new(&heap).with_max_cell_units(longest + 3);
    // The String and three more characters fit; four more do not, in a filter as in an output.
    let concat = |tail: &str| bin("+", row(), lit(json!(tail)));
    let ok = strings(json!({"filter": bin("=", bin("+", row(), lit(json!("abc"))), bin("+", row(), lit(json!("abc")))), "limit": 1}));
    assert!(execute(&ctx, &plan(ok)).is_ok(), "a concatenation of a cell's length");
    let e = execute(&ctx, &plan(strings(json!({"filter": bin("and", only_longest.clone(), bin("=", concat("abcd"), lit(json!("x"))))})))).unwrap_err();
    assert_eq!(e.code, ERR_TOO_LARGE, "{e}");
    assert!(
        e.message.starts_with(&format!("a concatenation (`+`): the text is {} UTF-16 units, more than one JavaScript string holds ({})", longest + 4, longest + 3)),
        "{e}"
    );
    let out = strings(json!({"filter": only_longest, "output": columns(&[("c", concat("abcd"))])}));
    assert_eq!(execute(&ctx, &plan(out.clone())).unwrap_err().code, ERR_TOO_LARGE);
    assert_eq!(execute_count(&ctx, &plan(out)).unwrap_err().code, ERR_TOO_LARGE);
}
