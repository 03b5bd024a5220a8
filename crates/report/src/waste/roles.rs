//! What each class is to the waste checks, decided once per class (by name, walking up the
//! superclass chain so `class MyMap extends HashMap` counts as a HashMap), with where the fields
//! its role reads lie (resolved once per class, not by name per object), and the reading of a
//! collection's size and capacity from those fields.

use heapql_heap::{ClassIdx, FieldSlot, Heap, ObjIdx, Value};

/// How a recognised JDK collection keeps its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// An array of slots filled from the front (`ArrayList`, `Vector`, `PriorityQueue`):
    /// underfilled when under half full.
    List { size: &'static str, array: &'static str, default: u32 },
    /// A hash table (`HashMap` and subclasses, `Hashtable`, `WeakHashMap`,
    /// `ConcurrentHashMap`): underfilled when under a quarter full (a table grown by inserts
    /// stays above 3/8).
    Hash { size: &'static str, array: &'static str, default: u32 },
    /// `ArrayDeque`: a circular array, size = (tail − head) mod length.
    Deque { default: u32 },
    /// A set over a map field (`HashSet.map`, `TreeSet.m`, `Properties.map`): size and capacity
    /// are the map's.
    SetOver { map: &'static str },
    /// Linked structures with a size and no slots (`LinkedList`, `TreeMap`): only "empty".
    Linked { size: &'static str },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Other,
    Collection(Shape),
    /// A box of a primitive this many bytes wide.
    Boxed(u8),
    String,
    Finalizer,
}

/// The exact JDK class names a role is recognised by.
fn role_of_name(name: &str) -> Option<Role> {
    use Shape::*;
    let shape = match name {
        "java.util.ArrayList" => List { size: "size", array: "elementData", default: 10 },
        "java.util.Vector" => List { size: "elementCount", array: "elementData", default: 10 },
        "java.util.PriorityQueue" => List { size: "size", array: "queue", default: 11 },
        "java.util.HashMap" => Hash { size: "size", array: "table", default: 16 },
        "java.util.Hashtable" => Hash { size: "count", array: "table", default: 11 },
        "java.util.WeakHashMap" => Hash { size: "size", array: "table", default: 16 },
        "java.util.concurrent.ConcurrentHashMap" => Hash { size: "baseCount", array: "table", default: 16 },
        "java.util.ArrayDeque" => Deque { default: 17 },
        "java.util.HashSet" => SetOver { map: "map" },
        "java.util.TreeSet" => SetOver { map: "m" },
        // JDK 9+ keeps a Properties' entries in its own ConcurrentHashMap, not in the Hashtable.
        "java.util.Properties" => SetOver { map: "map" },
        "java.util.LinkedList" => Linked { size: "size" },
        "java.util.TreeMap" => Linked { size: "size" },
        "java.lang.Integer" | "java.lang.Float" => return Some(Role::Boxed(4)),
        "java.lang.Long" | "java.lang.Double" => return Some(Role::Boxed(8)),
        "java.lang.Short" | "java.lang.Character" => return Some(Role::Boxed(2)),
        "java.lang.Byte" | "java.lang.Boolean" => return Some(Role::Boxed(1)),
        "java.lang.String" => return Some(Role::String),
        "java.lang.ref.Finalizer" => return Some(Role::Finalizer),
        _ => return None,
    };
    Some(Role::Collection(shape))
}

/// For each class, the nearest class up its superclass chain (itself first) whose name has a
/// role, with the role: each class's from its superclass's, so a chain of any depth costs a
/// step per class (walking up from every class cost depth² on a deep chain, and a walk capped
/// at 64 levels missed `class MyMap extends …` deeper than that below `HashMap`).
fn nearest_named(heap: &Heap) -> Vec<Option<(ClassIdx, Role)>> {
    let n = heap.class_count() as usize;
    let mut known: Vec<Option<Option<(ClassIdx, Role)>>> = vec![None; n];
    let mut path: Vec<ClassIdx> = Vec::new();
    for c in 0..n as ClassIdx {
        let mut cur = Some(c);
        // Up to a class already known or the top; the bound ends a cycle of a damaged dump.
        while let Some(k) = cur {
            if known[k as usize].is_some() || path.len() > n {
                break;
            }
            path.push(k);
            cur = heap.class(k).super_class;
        }
        let mut above = cur.and_then(|k| known[k as usize].flatten());
        while let Some(k) = path.pop() {
            let here = role_of_name(&heap.class(k).name).map(|r| (k, r)).or(above);
            known[k as usize] = Some(here);
            above = here;
        }
    }
    known.into_iter().map(Option::flatten).collect()
}

/// The fields a role reads, by position in `Roles::fields`: List and Hash `[size, array,
/// counterCells (ConcurrentHashMap only)]`, Deque `[elements, head, tail]`, SetOver `[map]`,
/// Linked `[size]`, Boxed `[value]`, Finalizer `[queue, referent]`.
fn role_fields(role: Role) -> [Option<&'static str>; 3] {
    use Shape::*;
    match role {
        Role::Collection(List { size, array, .. }) => [Some(size), Some(array), None],
        Role::Collection(Hash { size, array, .. }) => [Some(size), Some(array), (size == "baseCount").then_some("counterCells")],
        Role::Collection(Deque { .. }) => [Some("elements"), Some("head"), Some("tail")],
        Role::Collection(SetOver { map }) => [Some(map), None, None],
        Role::Collection(Linked { size }) => [Some(size), None, None],
        Role::Boxed(_) => [Some("value"), None, None],
        Role::Finalizer => [Some("queue"), Some("referent"), None],
        Role::String | Role::Other => [None; 3],
    }
}

pub struct Roles {
    pub role: Vec<Role>,
    /// Per class, the slots of the fields its role reads (`role_fields`); None where the
    /// class lacks one.
    fields: Vec<[Option<FieldSlot>; 3]>,
    /// Objects of this class are part of a container's structure (every class under
    /// `java.util.`, and object arrays): the holder walk passes through them.
    pub container: Vec<bool>,
}

impl Roles {
    pub fn new(heap: &Heap) -> Roles {
        let n = heap.class_count();
        let mut role = vec![Role::Other; n as usize];
        let mut container = vec![false; n as usize];
        let mut fields = vec![[None; 3]; n as usize];
        let nearest = nearest_named(heap);
        for c in 0..n {
            let info = heap.class(c);
            container[c as usize] = info.name.starts_with("java.util.") || info.name.ends_with("[]") && !is_primitive_array(&info.name);
            // Boxes, String and Finalizer are final: only the exact class.
            let mut next = nearest[c as usize];
            // Each step goes up the chain; the bound ends a cycle of a damaged dump.
            for _ in 0..n {
                let Some((k, r)) = next else { break };
                if k != c && !matches!(r, Role::Collection(_)) {
                    break;
                }
                let slots = role_fields(r).map(|name| name.and_then(|name| heap.field_slot(c, name)));
                // A collection class without the first field its role reads has another
                // JDK's layout: a JDK ≤ 8 `Properties` is a `Hashtable` with no map of its
                // own (judged as its superclass), a JDK ≤ 7 `ConcurrentHashMap` keeps
                // `segments` and no `baseCount` (no superclass role: not a collection to the
                // checks, so its `Segment[]` is judged as any array).
                if matches!(r, Role::Collection(_)) && slots[0].is_none() {
                    next = heap.class(k).super_class.and_then(|s| nearest[s as usize]);
                    continue;
                }
                role[c as usize] = r;
                fields[c as usize] = slots;
                break;
            }
        }
        Roles { role, container, fields }
    }

    /// Field `i` of `role_fields` of instance `o` of class `c`.
    #[inline]
    pub fn field(&self, heap: &Heap, o: ObjIdx, c: ClassIdx, i: usize) -> Option<Value> {
        heap.field_at(o, self.fields.get(c as usize)?[i]?)
    }

    #[inline]
    pub fn of(&self, c: ClassIdx) -> Role {
        self.role.get(c as usize).copied().unwrap_or(Role::Other)
    }
}

fn is_primitive_array(name: &str) -> bool {
    matches!(name, "boolean[]" | "byte[]" | "char[]" | "short[]" | "int[]" | "long[]" | "float[]" | "double[]")
}

/// A collection's fill: elements, slots (0 for linked shapes), the class's default slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fill {
    pub size: u64,
    pub slots: u64,
    pub default: u64,
    /// Under a quarter full (hash tables) / under half (lists, deques).
    pub underfilled: bool,
}

fn int(v: Option<Value>) -> Option<i64> {
    match v? {
        Value::Int(v) => Some(v as i64),
        Value::Long(v) => Some(v),
        _ => None,
    }
}

fn object(heap: &Heap, v: Option<Value>) -> Option<ObjIdx> {
    match v? {
        Value::Object(id) => heap.index_of(id),
        _ => None,
    }
}

fn slots(heap: &Heap, v: Option<Value>) -> u64 {
    object(heap, v).and_then(|a| heap.array_length(a)).unwrap_or(0) as u64
}

/// The fill of collection `o` of class `c` and shape `shape`; None when the fields are not
/// what the JDK declares (another JDK's private layout): such a collection is left out,
/// never guessed.
pub fn fill(heap: &Heap, roles: &Roles, o: ObjIdx, c: ClassIdx, shape: Shape) -> Option<Fill> {
    let field = |i| roles.field(heap, o, c, i);
    let (size, slots, default, quarter) = match shape {
        Shape::List { default, .. } => (int(field(0))?, slots(heap, field(1)), default, false),
        Shape::Hash { default, .. } => {
            // ConcurrentHashMap spreads its count over counter cells under contention.
            if object(heap, field(2)).is_some() {
                return None;
            }
            (int(field(0))?, slots(heap, field(1)), default, true)
        }
        Shape::Deque { default } => {
            let len = slots(heap, field(0)) as i64;
            let (head, tail) = (int(field(1))?, int(field(2))?);
            let size = if len == 0 { 0 } else { (tail - head).rem_euclid(len) };
            (size, len as u64, default, false)
        }
        Shape::SetOver { .. } => {
            let m = object(heap, field(0))?;
            let mc = heap.class_of(m);
            let Role::Collection(inner) = roles.of(mc) else { return None };
            if matches!(inner, Shape::SetOver { .. }) {
                return None;
            }
            return fill(heap, roles, m, mc, inner);
        }
        Shape::Linked { .. } => (int(field(0))?, 0, 0, false),
    };
    if size < 0 {
        return None;
    }
    let size = size as u64;
    let underfilled = size > 0 && if quarter { 4 * size < slots } else { 2 * size < slots };
    Some(Fill { size, slots, default: default as u64, underfilled })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A collection class any depth below its JDK class has its role, with the fields read
    /// where they lie; a subclass of a final-class role (String here, as a hand-made dump may
    /// have) has none.
    #[test]
    fn roles_reach_the_bottom_of_a_deep_chain() {
        use heapql_hprof::testkit::DumpBuilder;
        use heapql_hprof::BasicType;
        let mut b = DumpBuilder::new(8);
        let map = b.class("java.util.HashMap", Some(b.object_class), &[("table", BasicType::Object), ("size", BasicType::Int)]);
        let string = b.class("java.lang.String", Some(b.object_class), &[("value", BasicType::Object)]);
        let (mut m, mut s) = (map, string);
        for k in 0..300 {
            m = b.class(&format!("deep.M{k}"), Some(m), &[("extra", BasicType::Int)]);
            s = b.class(&format!("deep.S{k}"), Some(s), &[]);
        }
        let heap = heapql_heap::Heap::open_bytes(&b.build(), "deep.hprof", heapql_heap::OpenOptions::default()).expect("index");
        let roles = Roles::new(&heap);
        let hash = Role::Collection(Shape::Hash { size: "size", array: "table", default: 16 });
        let of = |name: &str| heap.classes_named(name)[0];
        for k in [0, 63, 64, 299] {
            let c = of(&format!("deep.M{k}"));
            assert_eq!(roles.of(c), hash, "deep.M{k}");
            assert_eq!(roles.fields[c as usize][0], heap.field_slot(c, "size"), "deep.M{k}");
            assert_eq!(roles.of(of(&format!("deep.S{k}"))), Role::Other, "deep.S{k}");
        }
        assert_eq!(roles.of(of("java.util.HashMap")), hash);
        assert_eq!(roles.of(of("java.lang.String")), Role::String);
        assert_eq!(roles.of(of("java.lang.Object")), Role::Other);
    }
}
