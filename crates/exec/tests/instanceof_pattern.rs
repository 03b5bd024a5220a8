//! FROM INSTANCEOF "<regex>" (`{"kind": "regex", "subclasses": true}`): every class whose whole
//! name matches, with their subclasses; a pattern that matches no class is ERR_UNKNOWN_CLASS
//! with the pattern as the name. Over a dump written with the test kit, whose classes the test
//! knows.

mod common;

use common::*;
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use serde_json::json;

#[test]
fn regex_source_with_subclasses() {
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
