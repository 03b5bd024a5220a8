//! FROM INSTANCEOF "<regex>" (`{"kind": "regex", "subclasses": true}`): every class whose whole
//! name matches, with their subclasses; a pattern that matches no class is ERR_UNKNOWN_CLASS
//! with the pattern as the name. Over a dump written with the test kit, whose classes the test
//! knows.

mod common;

use common::*;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

/// Base (3 instances) <- Sub (5) <- SubSub (7) under com.example, and org.other.Thing (1).
fn class_tree() -> DumpBuilder {
    let mut b = DumpBuilder::new(8);
    let object = b.object_class;
    let base = b.class("com.example.Base", Some(object), &[("v", BasicType::Int)]);
    let sub = b.class("com.example.Sub", Some(base), &[("w", BasicType::Int)]);
    let subsub = b.class("com.example.SubSub", Some(sub), &[]);
    let other = b.class("org.other.Thing", Some(object), &[]);
    for i in 0..3 {
        b.instance(base, &[Val::Int(i)]);
    }
    for i in 0..5 {
        b.instance(sub, &[Val::Int(i), Val::Int(i)]);
    }
    for i in 0..7 {
        b.instance(subsub, &[Val::Int(i), Val::Int(i)]);
    }
    b.instance(other, &[]);
    b
}

#[test]
fn regex_source_with_subclasses() {
    let b = class_tree();
    let heap = open(&temp_file("instanceof-pattern.hprof", &b.build()));

    let count = |source: serde_json::Value| single_int(&run(&heap, select(source, json!({"aggregates": [count_star()], "output": columns(&[("n", agg(0))])}))));
    let regex = |pattern: &str, subclasses: bool| json!({"kind": "regex", "pattern": pattern, "subclasses": subclasses});
    // The matching classes with their whole subtrees, each object once.
    assert_eq!(count(regex("com\\.example\\.Base", true)), 15);
    assert_eq!(count(regex("com\\.example\\.(Base|Sub)", true)), 15);
    assert_eq!(count(regex("com\\.example\\.Sub", true)), 12);
    assert_eq!(count(regex("com\\.example\\.Sub|org\\..*", true)), 13);
    // Without subclasses, the matching classes alone (as FROM "<regex>" always was).
    assert_eq!(count(regex("com\\.example\\.Sub", false)), 5);
    assert_eq!(count(json!({"kind": "regex", "pattern": "com\\.example\\.Sub"})), 5);
    // A pattern that matches java.lang.Object is every object, as INSTANCEOF java.lang.Object is.
    assert_eq!(count(regex(".*", true)), heap.object_count() as i64);
    assert_eq!(count(regex("java\\.lang\\.Object", true)), count(instanceof("java.lang.Object")));
    // No class matches: an error naming the pattern (with subclasses), an empty source (without).
    assert_eq!(count(regex("com\\.example\\.Nope.*", false)), 0);
    let e = try_run(&heap, select(regex("com\\.example\\.Nope.*", true), json!({}))).unwrap_err();
    assert_eq!(e.code, "ERR_UNKNOWN_CLASS");
    assert!(e.message.starts_with("no class in this dump matches \"com\\.example\\.Nope.*\""), "{}", e.message);
    let unknown = e.unknown.expect("the pattern as data");
    assert_eq!(unknown.name, "com\\.example\\.Nope.*");
    // A pattern the regex engine refuses is refused as FROM's is.
    assert_eq!(try_run(&heap, select(regex("(", true), json!({}))).unwrap_err().code, "ERR_QUERY");
}

/// The predicate `x INSTANCEOF "<regex>"` (`{"k": "instanceof", "pattern": …}`): the classes of
/// FROM INSTANCEOF "<regex>" (whole-name match, with subclasses), tested per row by class; a
/// pattern no class matches is the same ERR_UNKNOWN_CLASS.
#[test]
fn regex_predicate_with_subclasses() {
    let mut b = class_tree();
    // An int[] whose class the dump does not declare (no superclass is recorded for it).
    b.primitive_array(BasicType::Int, &[Val::Int(1), Val::Int(2)]);
    let heap = open(&temp_file("instanceof-pattern-predicate.hprof", &b.build()));

    let pred = |pattern: &str| json!({"k": "instanceof", "e": row(), "pattern": pattern});
    let named = |class: &str| json!({"k": "instanceof", "e": row(), "class": class});
    let count_where = |filter: serde_json::Value| {
        single_int(&run(&heap, select(all(), json!({"filter": filter, "aggregates": [count_star()], "output": columns(&[("n", agg(0))])}))))
    };
    assert_eq!(count_where(pred("com\\.example\\.Base")), 15);
    assert_eq!(count_where(pred("com\\.example\\.Sub")), 12);
    assert_eq!(count_where(pred("com\\.example\\.Sub|org\\..*")), 13);
    // The whole name: a part of it is no match.
    let e = try_run(&heap, select(all(), json!({"filter": pred("com\\.example\\.SubS")}))).unwrap_err();
    assert_eq!(e.code, "ERR_UNKNOWN_CLASS");
    assert_eq!(count_where(pred("com\\.example\\.SubSub")), 7);
    // NOT: the rest of the objects.
    let total = heap.object_count() as i64;
    assert_eq!(count_where(json!({"k": "not", "e": pred("com\\.example\\.Sub")})), total - 12);
    // Matching java.lang.Object is every object, as INSTANCEOF java.lang.Object is; the named form
    // too, the int[] with no recorded superclass included (as FROM INSTANCEOF java.lang.Object).
    assert_eq!(count_where(pred("java\\.lang\\.Obj.*")), total);
    assert_eq!(count_where(named("java.lang.Object")), total);
    // A non-object (a field's int) is of no class.
    let on_int = json!({"k": "instanceof", "e": field(row(), "v"), "pattern": ".*"});
    assert_eq!(single_int(&run(&heap, select(class("com.example.Base"), json!({"filter": on_int, "aggregates": [count_star()], "output": columns(&[("n", agg(0))])})))), 0);
    // No class matches: the error of FROM INSTANCEOF "<regex>".
    let e = try_run(&heap, select(all(), json!({"filter": pred("com\\.example\\.Nope.*")}))).unwrap_err();
    assert_eq!(e.code, "ERR_UNKNOWN_CLASS");
    assert!(e.message.starts_with("no class in this dump matches \"com\\.example\\.Nope.*\""), "{}", e.message);
    assert_eq!(e.unknown.expect("the pattern as data").name, "com\\.example\\.Nope.*");
    assert_eq!(try_run(&heap, select(all(), json!({"filter": pred("(")}))).unwrap_err().code, "ERR_QUERY");
}
