//! INSTANCEOF a class that looks like an interface (no instances, no subclasses, no superclass
//! but java.lang.Object, no instance fields) finds nothing, since a dump records no implemented
//! interfaces: the result says so in a note, the same for a name and a pattern, a source and a
//! predicate. Over a dump written with the test kit, whose classes the test knows.

mod common;

use common::*;
use heapql_exec::Batch;
use heapql_hprof::testkit::DumpBuilder;
use heapql_hprof::BasicType;
use serde_json::{json, Value as J};

/// com.example.Listener and com.example.Runner look like interfaces; com.example.AbstractListener
/// (no instances, no fields) has a subclass com.example.MyListener (2 instances);
/// org.other.Thing (no fields, no subclasses) has 1 instance; com.example.Holder has a field.
fn classes() -> DumpBuilder {
    let mut b = DumpBuilder::new(8);
    let object = b.object_class;
    b.class("com.example.Listener", Some(object), &[]);
    b.class("com.example.Runner", Some(object), &[]);
    let skeleton = b.class("com.example.AbstractListener", Some(object), &[]);
    let mine = b.class("com.example.MyListener", Some(skeleton), &[]);
    let thing = b.class("org.other.Thing", Some(object), &[]);
    b.class("com.example.Holder", Some(object), &[("v", BasicType::Int)]);
    b.instance(mine, &[]);
    b.instance(mine, &[]);
    b.instance(thing, &[]);
    b
}

const LISTENER_NOTE: &str = "INSTANCEOF com.example.Listener finds nothing: com.example.Listener has no instances or \
    subclasses in this dump and looks like an interface, and heap dumps do not record implemented interfaces; use \
    INSTANCEOF an implementing class (e.g. com.example.AbstractListener) or FROM \"<regex>\" over class names (e.g. FROM \
    \".*Listener\")";

const RUNNER_NOTE: &str = "INSTANCEOF com.example.Runner finds nothing: com.example.Runner has no instances or \
    subclasses in this dump and looks like an interface, and heap dumps do not record implemented interfaces; use \
    INSTANCEOF an implementing class or FROM \"<regex>\" over class names (e.g. FROM \".*Runner\")";

fn count(filter: J) -> J {
    json!({"filter": filter, "aggregates": [count_star()], "output": columns(&[("n", agg(0))])})
}

fn named(class: &str) -> J {
    json!({"k": "instanceof", "e": row(), "class": class})
}

fn pattern(pattern: &str) -> J {
    json!({"k": "instanceof", "e": row(), "pattern": pattern})
}

fn regex(pattern: &str) -> J {
    json!({"kind": "regex", "pattern": pattern, "subclasses": true})
}

fn counted(b: &Batch) -> (i64, Vec<String>) {
    (single_int(b), b.notes.clone())
}

#[test]
fn named_interface_in_a_source_and_a_predicate() {
    let heap = open(&temp_file("instanceof-interface-named.hprof", &classes().build()));

    // A source: nothing, and the note naming the class and its JDK-style skeleton.
    assert_eq!(counted(&run(&heap, select(instanceof("com.example.Listener"), count(J::Null)))), (0, vec![LISTENER_NOTE.to_string()]));
    // A predicate: the same note; no skeleton class in the dump, so no example.
    assert_eq!(counted(&run(&heap, select(all(), count(named("com.example.Runner"))))), (0, vec![RUNNER_NOTE.to_string()]));
    // The rows of a query that lists objects carry it too.
    let rows = run(&heap, select(instanceof("com.example.Runner"), json!({})));
    assert_eq!((rows.row_count, rows.notes.clone()), (0, vec![RUNNER_NOTE.to_string()]));
    // Both in one query: one note per class named, each once, though the source's class is
    // named again in the predicate and in a subquery.
    let sub = select(instanceof("com.example.Listener"), json!({}));
    let filter = json!({"k": "bin", "op": "or", "l": named("com.example.Runner"), "r": {"k": "bin", "op": "or", "l": named("com.example.Listener"), "r": {"k": "in", "e": row(), "query": sub}}});
    let (n, notes) = counted(&run(&heap, select(instanceof("com.example.Listener"), count(filter))));
    assert_eq!(n, 0);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes.contains(&LISTENER_NOTE.to_string()) && notes.contains(&RUNNER_NOTE.to_string()), "{notes:?}");
}

#[test]
fn named_real_classes_get_no_note() {
    let heap = open(&temp_file("instanceof-interface-real.hprof", &classes().build()));
    let total = heap.object_count() as i64;
    for (query, expected) in [
        // Subclasses (with instances), no instances of its own.
        (select(instanceof("com.example.AbstractListener"), count(J::Null)), 2),
        (select(all(), count(named("com.example.AbstractListener"))), 2),
        // Instances, no subclasses.
        (select(instanceof("org.other.Thing"), count(J::Null)), 1),
        (select(all(), count(named("org.other.Thing"))), 1),
        // An instance field: no interface has one.
        (select(instanceof("com.example.Holder"), count(J::Null)), 0),
        // Exact-class FROM (no INSTANCEOF): its own instances, as it always was.
        (select(class("com.example.Listener"), count(J::Null)), 0),
        // java.lang.Object and an array class.
        (select(all(), count(named("java.lang.Object"))), total),
        (select(instanceof("java.lang.Object[]"), count(J::Null)), 0),
    ] {
        let (n, notes) = counted(&run(&heap, query.clone()));
        assert_eq!(n, expected, "{query}");
        assert!(notes.is_empty(), "{query}: {notes:?}");
    }
}

#[test]
fn named_class_the_dump_lacks_is_still_an_error() {
    let heap = open(&temp_file("instanceof-interface-absent.hprof", &classes().build()));
    for query in [select(instanceof("com.example.Missing"), json!({})), select(all(), count(named("com.example.Missing")))] {
        let e = try_run(&heap, query).unwrap_err();
        assert_eq!(e.code, "ERR_UNKNOWN_CLASS", "{}", e.message);
        assert_eq!(e.unknown.expect("the name as data").name, "com.example.Missing");
    }
}

#[test]
fn pattern_note_is_the_named_one_with_the_pattern() {
    let heap = open(&temp_file("instanceof-interface-pattern.hprof", &classes().build()));

    let one = "INSTANCEOF \"com\\.example\\.Listen.*\" finds nothing: com.example.Listener has no instances or subclasses in \
        this dump and looks like an interface, and heap dumps do not record implemented interfaces; use INSTANCEOF an \
        implementing class (e.g. com.example.AbstractListener) or FROM \"<regex>\" over class names (e.g. FROM \".*Listener\")";
    assert_eq!(counted(&run(&heap, select(regex("com\\.example\\.Listen.*"), count(J::Null)))), (0, vec![one.to_string()]));
    // Several classes: listed in name order, "have … look like interfaces"; the first skeleton found.
    let two = "INSTANCEOF \"com\\.example\\.(Runner|Listener)\" finds nothing: com.example.Listener and com.example.Runner \
        have no instances or subclasses in this dump and look like interfaces, and heap dumps do not record implemented \
        interfaces; use INSTANCEOF an implementing class (e.g. com.example.AbstractListener) or FROM \"<regex>\" over class \
        names (e.g. FROM \".*Listener\")";
    assert_eq!(counted(&run(&heap, select(all(), count(pattern("com\\.example\\.(Runner|Listener)"))))), (0, vec![two.to_string()]));
    // A pattern that matches a real class besides: what it finds is not nothing.
    let (n, notes) = counted(&run(&heap, select(regex("com\\.example\\.(Abstract)?Listener"), count(J::Null))));
    assert_eq!((n, notes), (2, Vec::<String>::new()));
}
