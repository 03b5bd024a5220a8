//! The project's fixture dumps (`fixtures/dumps`, JDK 17 and 25, with/without compressed oops,
//! compact headers) against the facts and the `jcmd GC.class_histogram` taken with them.

mod common;

use common::{histogram_by_name, parse_histogram, repo};
use heapql_heap::{Heap, OpenOptions, Value};
use serde_json::Value as J;

fn dumps() -> Vec<(String, std::path::PathBuf)> {
    let dir = repo().join("fixtures/dumps");
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .map(|r| r.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "hprof")).collect())
        .unwrap_or_default();
    v.sort();
    // The dumps are committed with the repository: none here is a broken checkout, not a
    // reason to pass without checking anything.
    assert!(
        !v.is_empty(),
        "no fixture dumps (*.hprof) in {}: they are part of the repository; restore them (git checkout -- fixtures/dumps) or make them again (fixtures/make-fixtures.sh)",
        dir.display()
    );
    v.into_iter().map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p)).collect()
}

fn holder_field(h: &Heap, holder: &str, field: &str) -> Option<Value> {
    let c = *h.classes_named(holder).first()?;
    let o = (0..h.object_count()).find(|&o| h.class_of(o) == c && h.object_kind(o) == heapql_heap::ObjectKind::Instance)?;
    h.field(o, field)
}

#[test]
fn layout_model_matches_the_vm() {
    for (name, path) in dumps() {
        let facts: J = serde_json::from_str(&std::fs::read_to_string(path.with_extension("facts.json")).unwrap()).unwrap();
        let h = Heap::open(&path, OpenOptions::default()).unwrap();
        let l = &facts["layout"];
        let i = h.info();
        assert_eq!(i.object_header_size as u64, l["header_size"].as_u64().unwrap(), "{name}: {}", i.size_model_source);
        assert_eq!(i.reference_size as u64, l["reference_size"].as_u64().unwrap(), "{name}");
        assert_eq!(i.object_alignment as u64, l["object_alignment"].as_u64().unwrap(), "{name}");
        assert_eq!(i.array_header_size as u64, l["array_base_offset"]["int[]"].as_u64().unwrap(), "{name}");
        for c in facts["classes"].as_array().unwrap() {
            let cls = c["name"].as_str().unwrap();
            let &ci = h.classes_named(cls).first().unwrap_or_else(|| panic!("{name}: no class {cls}"));
            assert_eq!(h.instance_size(ci), c["shallow"].as_u64().unwrap(), "{name}: {cls}");
        }
        for a in facts["arrays"].as_array().unwrap() {
            let Some(Value::Object(id)) = holder_field(&h, a["holder"].as_str().unwrap(), a["field"].as_str().unwrap()) else {
                panic!("{name}: {a}")
            };
            let o = h.index_of(id).unwrap();
            assert_eq!(h.array_length(o), a["length"].as_u64().map(|x| x as u32));
            assert_eq!(h.shallow_size(o), a["shallow"].as_u64().unwrap(), "{name}: {a}");
        }
    }
}

#[test]
fn strings_properties_threads() {
    for (name, path) in dumps() {
        let facts: J = serde_json::from_str(&std::fs::read_to_string(path.with_extension("facts.json")).unwrap()).unwrap();
        let h = Heap::open(&path, OpenOptions::default()).unwrap();
        for s in facts["strings"].as_array().unwrap() {
            let Some(Value::Object(id)) = holder_field(&h, s["holder"].as_str().unwrap(), s["field"].as_str().unwrap()) else {
                panic!("{name}: {s}")
            };
            assert_eq!(h.string_value(h.index_of(id).unwrap()).as_deref(), s["value"].as_str(), "{name}");
        }
        for (k, v) in facts["system_properties"].as_object().unwrap() {
            let got = h.system_properties().iter().find(|p| &p.0 == k).map(|p| p.1.as_str());
            assert_eq!(got, v.as_str(), "{name}: property {k}");
        }
        assert_eq!(h.info().jvm_version.as_deref().map(|v| v.starts_with(facts["java_version"].as_str().unwrap())), Some(true));
        for t in facts["threads"].as_array().unwrap() {
            let th = h.threads().iter().find(|x| x.name.as_deref() == t["name"].as_str()).unwrap_or_else(|| panic!("{name}: thread {t}"));
            assert_eq!(th.daemon, t["daemon"].as_bool(), "{name}");
            let want = t["frame_local_byte_array_length"].as_u64().unwrap() as u32;
            let held = th.frames.iter().flat_map(|f| f.locals.iter()).any(|&o| h.array_length(o) == Some(want));
            assert!(held, "{name}: a frame of {} holds a byte[{want}]", th.name.as_deref().unwrap_or("?"));
        }
    }
}

/// Every class whose instance count equals the VM's (the dump is taken after a GC, so counts of
/// live classes agree) must have exactly the VM's byte total. `java.lang.Class` is excluded:
/// a mirror's size also depends on VM-side data (vtable, static layout gaps) we only estimate.
#[test]
fn histogram_matches_jcmd() {
    for (name, path) in dumps() {
        let h = Heap::open(&path, OpenOptions::default()).unwrap();
        let jvm = parse_histogram(&std::fs::read_to_string(path.with_extension("histo-after.txt")).unwrap());
        let ours = histogram_by_name(&h);
        let mut compared = 0;
        let mut bad = Vec::new();
        for (cls, &(c, b)) in &jvm {
            if cls == "java.lang.Class" {
                continue;
            }
            if let Some(&(oc, ob)) = ours.get(cls) {
                if oc == c {
                    compared += 1;
                    if ob != b {
                        bad.push(format!("{cls}: {c} objects, jvm {b} bytes, ours {ob}"));
                    }
                }
            }
        }
        assert!(compared > 200, "{name}: only {compared} classes comparable");
        assert!(bad.is_empty(), "{name}: {bad:?}");
    }
}

/// The per-pass shortcuts read what the plain calls read: `class_of_memo` (its memo shared by
/// every object, so slots are reused by other classes) gives `class_of`, and `field_at` with
/// the slot `field_slot` found gives `field`, for every object and instance field.
#[test]
fn memo_and_field_slots_read_what_the_plain_calls_read() {
    for (name, path) in dumps() {
        let h = Heap::open(&path, OpenOptions::default()).unwrap();
        let mut memo = heapql_heap::ClassMemo::default();
        let mut fields_read = 0;
        for o in 0..h.object_count() {
            let c = h.class_of(o);
            assert_eq!(h.class_of_memo(o, &mut memo), c, "{name}: class of object {o}");
            if h.object_kind(o) != heapql_heap::ObjectKind::Instance {
                continue;
            }
            for f in h.instance_layout(c) {
                let slot = h.field_slot(c, &f.name).unwrap();
                // Debug text: a NaN float equals itself there.
                assert_eq!(format!("{:?}", h.field_at(o, slot)), format!("{:?}", h.field(o, &f.name)), "{name}: {}.{}", h.class(c).name, f.name);
                fields_read += 1;
            }
        }
        assert!(fields_read > 1000, "{name}: {fields_read} fields read");
        let string = h.classes_named("java.lang.String")[0];
        assert!(h.field_slot(string, "value").is_some(), "{name}");
        assert_eq!(h.field_slot(string, "noSuchField"), None, "{name}");
    }
}
