//! System properties of the dumped process: `java.lang.System.props`, a `Properties` whose
//! entries live in a Hashtable `table` of `Entry{key, value, next}` (JDK ≤ 8) or, from JDK 9,
//! in its `map` ConcurrentHashMap's `table` of `Node{key, val, next}`.

use crate::{Heap, ObjIdx, ObjectKind, Value};

/// Upper bound on entries walked (a corrupt chain cannot loop forever).
const MAX_STEPS: usize = 1_000_000;

pub(crate) fn system_properties(h: &Heap) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for &c in h.classes_named("java.lang.System") {
        let sys = h.classes[c as usize].object;
        let Some(props) = obj(h, sys, "props") else { continue };
        let table_owner = obj(h, props, "map").unwrap_or(props);
        if let Some(table) = obj(h, table_owner, "table") {
            walk_table(h, table, &mut out);
        }
        if !out.is_empty() {
            break;
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// One system property as `System.getProperty` reads it: from `java.lang.System.props`, else
/// from its `defaults` chain. Android keeps the VM's own properties (`java.vm.version`,
/// `java.vm.name`) in `System.unchangeableProps`, the defaults of `props`.
pub(crate) fn system_property(h: &Heap, key: &str) -> Option<String> {
    for &c in h.classes_named("java.lang.System") {
        let mut props = obj(h, h.classes[c as usize].object, "props");
        // A bounded chain: a corrupt dump cannot loop.
        for _ in 0..16 {
            let Some(p) = props else { break };
            let table_owner = obj(h, p, "map").unwrap_or(p);
            let mut entries = Vec::new();
            if let Some(table) = obj(h, table_owner, "table") {
                walk_table(h, table, &mut entries);
            }
            if let Some((_, v)) = entries.into_iter().find(|e| e.0 == key) {
                return Some(v);
            }
            props = obj(h, p, "defaults");
        }
    }
    None
}

fn obj(h: &Heap, o: ObjIdx, name: &str) -> Option<ObjIdx> {
    match h.field(o, name)? {
        Value::Object(id) => h.index_of(id),
        _ => None,
    }
}

fn walk_table(h: &Heap, table: ObjIdx, out: &mut Vec<(String, String)>) {
    if h.object_kind(table) != ObjectKind::ObjectArray {
        return;
    }
    let n = h.array_length(table).unwrap_or(0);
    let mut steps = 0;
    for i in 0..n {
        let mut e = match h.array_element(table, i) {
            Some(Value::Object(id)) => h.index_of(id),
            _ => None,
        };
        while let Some(node) = e {
            steps += 1;
            if steps > MAX_STEPS {
                return;
            }
            // A treeified ConcurrentHashMap bin: its TreeNodes also chain through `next`.
            let node = if h.field(node, "key").is_none() { obj(h, node, "first").unwrap_or(node) } else { node };
            let key = obj(h, node, "key").and_then(|k| h.string_value(k));
            let val = obj(h, node, "val").or_else(|| obj(h, node, "value")).and_then(|v| h.string_value(v));
            if let (Some(k), Some(v)) = (key, val) {
                out.push((k, v));
            }
            e = obj(h, node, "next");
        }
    }
}
