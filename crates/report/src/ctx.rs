//! What every report section shares: the heap, the analysis, the base of percentages, what
//! kind of thing each class is, and how objects and class loaders are named.

use heapql_graph::FullAnalysis;
use heapql_heap::{describe, Appender, BigArray, ClassIdx, Heap, ObjIdx, ObjectKind, PrimType, ThreadInfo, Value};
use rustc_hash::FxHashMap;

use super::model::ObjectRef;

/// Class is `java.lang.Thread` or a subclass.
pub const THREAD: u8 = 1;
/// Class is `java.lang.ClassLoader` or a subclass.
pub const LOADER: u8 = 2;
/// Class is `java.lang.ref.Reference` or a subclass.
pub const REFERENCE: u8 = 4;
/// Class is a virtual thread's (`Thread.isVirtual`): `java.lang.BaseVirtualThread` or
/// `java.lang.VirtualThread`, or a subclass.
pub const VIRTUAL: u8 = 8;
/// Class is `java.lang.VirtualThread` or a subclass: a virtual thread whose state is its
/// `state` field (`ThreadBuilders$BoundVirtualThread`, the other kind, has a platform thread's).
pub const VIRTUAL_THREAD: u8 = 16;

pub struct Ctx<'a> {
    pub heap: &'a Heap,
    pub analysis: &'a FullAnalysis,
    /// Used heap: the base of every percentage.
    pub total: u64,
    /// Longest list the report shows.
    pub limit: usize,
    /// THREAD | LOADER | REFERENCE | VIRTUAL | VIRTUAL_THREAD per class.
    pub flags: Vec<u8>,
    /// Loader id → label (the bootstrap loader, id 0, is not in the map).
    loader_labels: FxHashMap<u64, String>,
    /// Thread object → its entry in the heap's thread table (the first, should two name it):
    /// a look-up per thread, where a dump may hold 100,000 virtual threads.
    thread_entries: FxHashMap<ObjIdx, u32>,
    /// Class of every object, filled by the object pass for the waste pass and the preorder's
    /// gathers, which visit objects in an order where reading the class from the dump would
    /// be a random read per object. 2 bytes per object (4 past 65 536 classes), emptied once
    /// the preorder carries the classes (`build`).
    classes: ClassCache,
}

/// The class of every object, as `u16` while the class count allows, and the kind of object
/// of each class when all its objects are of one kind (every class of a sane dump): walks
/// that climb the dominator tree then learn an object's kind without a random read of the
/// index.
#[derive(Default)]
pub struct ClassCache {
    of: Classes,
    kinds: KindsSeen,
}

/// Where the heap's `scratch` says: a scratch file for a full analysis, so that the pass made
/// beside the dominator phase (`scan::ScanBeside`) adds nothing to that phase's peak of
/// anonymous memory.
enum Classes {
    Narrow(BigArray<u16>),
    Wide(BigArray<ClassIdx>),
}

impl Default for Classes {
    fn default() -> Self {
        Classes::Wide(BigArray::default())
    }
}

/// The kind of object of each class seen so far, one byte per class: `UNSEEN` before its
/// first object, `MIXED` when its objects are of several kinds (the index answers for them),
/// else the kind's code (one compare per object in the common case).
#[derive(Default)]
pub struct KindsSeen(Vec<u8>);

const UNSEEN: u8 = u8::MAX;
const MIXED: u8 = u8::MAX - 1;

/// The kinds by their byte code (`kind_code`).
const KINDS: [ObjectKind; 11] = {
    use ObjectKind::*;
    use PrimType::*;
    [
        Instance,
        ObjectArray,
        Class,
        PrimitiveArray(Boolean),
        PrimitiveArray(Char),
        PrimitiveArray(Float),
        PrimitiveArray(Double),
        PrimitiveArray(Byte),
        PrimitiveArray(Short),
        PrimitiveArray(Int),
        PrimitiveArray(Long),
    ]
};

fn kind_code(kind: ObjectKind) -> u8 {
    match kind {
        ObjectKind::Instance => 0,
        ObjectKind::ObjectArray => 1,
        ObjectKind::Class => 2,
        ObjectKind::PrimitiveArray(t) => {
            3 + match t {
                PrimType::Boolean => 0,
                PrimType::Char => 1,
                PrimType::Float => 2,
                PrimType::Double => 3,
                PrimType::Byte => 4,
                PrimType::Short => 5,
                PrimType::Int => 6,
                PrimType::Long => 7,
            }
        }
    }
}

impl KindsSeen {
    pub fn new(class_count: u32) -> KindsSeen {
        KindsSeen(vec![UNSEEN; class_count as usize])
    }

    #[inline]
    pub fn see(&mut self, c: ClassIdx, kind: ObjectKind) {
        let k = kind_code(kind);
        if let Some(s) = self.0.get_mut(c as usize) {
            if *s != k {
                *s = if *s == UNSEEN { k } else { MIXED };
            }
        }
    }

    /// Adds what another range of objects saw.
    pub fn absorb(&mut self, other: &KindsSeen) {
        for (s, &k) in self.0.iter_mut().zip(&other.0) {
            if k != UNSEEN && *s != k {
                *s = if *s == UNSEEN { k } else { MIXED };
            }
        }
    }

    /// The one kind of the objects of class `c`, if they have one.
    #[inline]
    fn of(&self, c: ClassIdx) -> Option<ObjectKind> {
        self.0.get(c as usize).and_then(|&k| KINDS.get(k as usize).copied())
    }
}

/// The class slots of a range of objects, filled by one core (`ClassCache::split_at_mut`).
pub enum ClassSlots<'c> {
    Narrow(&'c mut [u16]),
    Wide(&'c mut [ClassIdx]),
}

impl ClassSlots<'_> {
    #[inline]
    pub fn set(&mut self, k: usize, c: ClassIdx) {
        match self {
            ClassSlots::Narrow(v) => v[k] = c as u16,
            ClassSlots::Wide(v) => v[k] = c,
        }
    }
}

/// A `ClassCache` being filled in object order (`ClassCache::appending`).
pub enum ClassCacheAppender {
    Narrow(Appender<u16>),
    Wide(Appender<ClassIdx>),
}

impl ClassCacheAppender {
    /// The class of the next object.
    #[inline]
    pub fn push(&mut self, c: ClassIdx) {
        match self {
            ClassCacheAppender::Narrow(a) => a.push(c as u16),
            ClassCacheAppender::Wide(a) => a.push(c),
        }
    }

    /// Objects pushed so far.
    pub fn len(&self) -> usize {
        match self {
            ClassCacheAppender::Narrow(a) => a.len(),
            ClassCacheAppender::Wide(a) => a.len(),
        }
    }

    /// The cache (kinds still to set), once every object is pushed.
    pub fn finished(self) -> ClassCache {
        let of = match self {
            ClassCacheAppender::Narrow(a) => Classes::Narrow(a.finish()),
            ClassCacheAppender::Wide(a) => Classes::Wide(a.finish()),
        };
        ClassCache { of, kinds: KindsSeen::default() }
    }
}

impl ClassCache {
    /// A slot for the class of each of `heap`'s objects, in its scratch placement, to be
    /// filled through `split_at_mut`, then `set_kinds`.
    pub fn zeroed(heap: &Heap) -> ClassCache {
        let (objects, place) = (heap.object_count() as usize, heap.scratch());
        let of = if heap.class_count() <= u16::MAX as u32 + 1 {
            Classes::Narrow(BigArray::zeroed(objects, place))
        } else {
            Classes::Wide(BigArray::zeroed(objects, place))
        };
        ClassCache { of, kinds: KindsSeen::default() }
    }

    /// An empty cache to be filled object after object, from the first, by `push`, then
    /// `finished`: its scratch file is written by `write`, no page faulted in first
    /// (`heapql_heap::Appender`).
    pub fn appending(heap: &Heap) -> ClassCacheAppender {
        let (objects, place) = (heap.object_count() as usize, heap.scratch());
        if heap.class_count() <= u16::MAX as u32 + 1 {
            ClassCacheAppender::Narrow(Appender::new(objects, place))
        } else {
            ClassCacheAppender::Wide(Appender::new(objects, place))
        }
    }

    /// The slots of objects `..mid` and `mid..`.
    pub fn split_at_mut(&mut self, mid: usize) -> (ClassSlots<'_>, ClassSlots<'_>) {
        match &mut self.of {
            Classes::Narrow(v) => {
                let (a, b) = v.split_at_mut(mid);
                (ClassSlots::Narrow(a), ClassSlots::Narrow(b))
            }
            Classes::Wide(v) => {
                let (a, b) = v.split_at_mut(mid);
                (ClassSlots::Wide(a), ClassSlots::Wide(b))
            }
        }
    }

    pub fn set_kinds(&mut self, kinds: KindsSeen) {
        self.kinds = kinds;
    }

    /// The classes of every object, read from the index in order.
    pub fn of_all(heap: &Heap) -> ClassCache {
        let n = heap.object_count();
        let mut cache = ClassCache::zeroed(heap);
        let mut kinds = KindsSeen::new(heap.class_count());
        let (mut slots, _) = cache.split_at_mut(n as usize);
        let mut memo = heapql_heap::ClassMemo::default();
        for o in 0..n {
            let c = heap.class_of_memo(o, &mut memo);
            slots.set(o as usize, c);
            kinds.see(c, heap.object_kind(o));
        }
        cache.set_kinds(kinds);
        cache
    }

    /// The class of `o` (from the index when the cache does not hold it).
    #[inline]
    pub fn class_of(&self, heap: &Heap, o: ObjIdx) -> ClassIdx {
        self.get(o).unwrap_or_else(|| heap.class_of(o))
    }

    /// The kind of `o`: its class's, or the index's.
    #[inline]
    pub fn kind(&self, heap: &Heap, o: ObjIdx) -> ObjectKind {
        match self.get(o).and_then(|c| self.kinds.of(c)) {
            Some(k) => k,
            None => heap.object_kind(o),
        }
    }

    /// The one kind of the objects of class `c`, if the object pass saw one.
    #[inline]
    pub fn kind_of_class(&self, c: ClassIdx) -> Option<ObjectKind> {
        self.kinds.of(c)
    }

    /// Lets go of every object's class, keeping each class's kind of object.
    pub fn forget_objects(&mut self) {
        self.of = Classes::default();
    }

    #[inline]
    pub fn get(&self, o: ObjIdx) -> Option<ClassIdx> {
        match &self.of {
            Classes::Narrow(v) => v.get(o as usize).map(|&c| c as ClassIdx),
            Classes::Wide(v) => v.get(o as usize).copied(),
        }
    }
}

/// `THREAD`, `LOADER`, `REFERENCE`, `VIRTUAL` and `VIRTUAL_THREAD` of every class: the flags
/// of its superclasses (itself included).
pub fn class_flags(heap: &Heap) -> Vec<u8> {
    let n = heap.class_count();
    // Each class's flags from its super's, already known: one step per class however deep
    // the hierarchy (the index has cut every cycle of superclasses, so each walk ends).
    let mut flags = vec![0u8; n as usize];
    let mut done = vec![false; n as usize];
    let mut path: Vec<ClassIdx> = Vec::new();
    for c in 0..n {
        let mut cur = Some(c);
        while let Some(k) = cur.filter(|&k| !done[k as usize]) {
            path.push(k);
            cur = heap.class(k).super_class;
        }
        let mut f = cur.map_or(0, |k| flags[k as usize]);
        while let Some(k) = path.pop() {
            f |= match heap.class(k).name.as_str() {
                "java.lang.Thread" => THREAD,
                "java.lang.ClassLoader" => LOADER,
                "java.lang.ref.Reference" => REFERENCE,
                "java.lang.BaseVirtualThread" => VIRTUAL,
                "java.lang.VirtualThread" => VIRTUAL | VIRTUAL_THREAD,
                _ => 0,
            };
            flags[k as usize] = f;
            done[k as usize] = true;
        }
    }
    flags
}

impl<'a> Ctx<'a> {
    pub fn new(heap: &'a Heap, analysis: &'a FullAnalysis, limit: usize) -> Ctx<'a> {
        let flags = class_flags(heap);
        let mut ctx = Ctx {
            heap,
            analysis,
            total: analysis.total_size(),
            limit,
            flags,
            loader_labels: FxHashMap::default(),
            thread_entries: FxHashMap::default(),
            classes: ClassCache::default(),
        };
        for (k, t) in heap.threads().iter().enumerate() {
            if let Some(o) = t.object {
                ctx.thread_entries.entry(o).or_insert(k as u32);
            }
        }
        let mut ids: Vec<u64> = (0..heap.class_count()).map(|c| heap.class(c).loader_id).filter(|&l| l != 0).collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let label = match heap.index_of(id) {
                Some(o) => ctx.loader_object_label(o),
                None => format!("<class loader 0x{id:x}, not in the dump>"),
            };
            ctx.loader_labels.insert(id, label);
        }
        ctx
    }

    /// Keeps the class of every object (`classes[o]`), from the object pass.
    pub fn set_classes(&mut self, classes: ClassCache) {
        self.classes = classes;
    }

    /// Lets go of the class of every object (its memory), keeping each class's kind.
    pub fn forget_object_classes(&mut self) {
        self.classes.forget_objects();
    }

    /// The class of every object (filled by the object pass).
    pub fn classes(&self) -> &ClassCache {
        &self.classes
    }

    /// The class of an object (class objects: java.lang.Class).
    #[inline]
    pub fn class_of(&self, o: ObjIdx) -> ClassIdx {
        match self.classes.get(o) {
            Some(c) => c,
            None => self.heap.class_of(o),
        }
    }

    /// Shallow size without reading the dump for instances (their size is their class's; a
    /// stack chunk's, read from the dump, follows its stack).
    #[inline]
    pub fn shallow(&self, o: ObjIdx) -> u64 {
        match self.heap.object_kind(o) {
            ObjectKind::Instance => self.heap.instance_shallow(o, self.class_of(o)),
            _ => self.heap.shallow_size(o),
        }
    }

    /// Flags of an object's class (class objects are `java.lang.Class`: no flags).
    pub fn object_flags(&self, o: ObjIdx) -> u8 {
        if self.heap.object_kind(o) != ObjectKind::Instance {
            return 0;
        }
        self.flags[self.class_of(o) as usize]
    }

    pub fn percent(&self, bytes: u64) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            (bytes as f64 * 100.0 / self.total as f64).min(100.0)
        }
    }

    /// True when `bytes` is strictly more than `percent` % of the used heap (MAT compares `>`).
    pub fn above(&self, bytes: u64, percent: u64) -> bool {
        bytes as u128 * 100 > self.total as u128 * percent as u128
    }

    /// The report's reference to an object. Labels: a class object is `class Name`, a thread
    /// its name, a class loader its loader label, anything else the query tables' label. The
    /// class name is the query tables' too: a class object's is the class it describes.
    pub fn object_ref(&self, o: ObjIdx) -> ObjectRef {
        self.object_ref_with(o, |name, described| name.unwrap_or(described))
    }

    /// `object_ref` with a thread labelled `label_thread(its name, the query tables' label)`.
    pub fn object_ref_with(&self, o: ObjIdx, label_thread: impl FnOnce(Option<String>, String) -> String) -> ObjectRef {
        let heap = self.heap;
        let (address, class_name, described) = describe(heap, o);
        let label = match heap.object_kind(o) {
            ObjectKind::Class => match heap.class_described_by(o) {
                Some(_) => format!("class {class_name}"),
                None => described,
            },
            ObjectKind::Instance => {
                let f = self.object_flags(o);
                if f & THREAD != 0 {
                    label_thread(self.thread_name(o), described)
                } else if f & LOADER != 0 {
                    self.loader_object_label(o)
                } else {
                    described
                }
            }
            _ => described,
        };
        ObjectRef { object_id: o, address, class_name, label }
    }

    /// Label of a class loader object: its `name` (JDK 9+: `app`, `platform`) when it has
    /// one, else `ClassName @ 0x…`.
    pub fn loader_object_label(&self, o: ObjIdx) -> String {
        if let Some(name) = self.string_field(o, "name").filter(|s| !s.is_empty()) {
            return name;
        }
        let heap = self.heap;
        format!("{} @ 0x{:x}", heap.class(heap.class_of(o)).name, heap.object_id(o))
    }

    /// Label of the loader with this id; None for the bootstrap loader (id 0).
    pub fn loader_label(&self, loader_id: u64) -> Option<String> {
        if loader_id == 0 {
            return None;
        }
        self.loader_labels.get(&loader_id).cloned().or_else(|| Some(format!("<class loader 0x{loader_id:x}>")))
    }

    /// Label of the loader that defined class `c`.
    pub fn class_loader_label(&self, c: ClassIdx) -> Option<String> {
        self.loader_label(self.heap.class(c).loader_id)
    }

    /// The text of the String an object's field points at.
    pub fn string_field(&self, o: ObjIdx, field: &str) -> Option<String> {
        let target = self.object_field(o, field)?;
        self.heap.string_value(target)
    }

    pub fn object_field(&self, o: ObjIdx, field: &str) -> Option<ObjIdx> {
        match self.heap.field(o, field)? {
            Value::Object(id) => self.heap.index_of(id),
            _ => None,
        }
    }

    /// A thread's name: from the heap's thread table when the thread has a stack, else its
    /// `name` field (a String, or a `char[]` on JDK ≤ 6), decoded as the thread table does.
    pub fn thread_name(&self, o: ObjIdx) -> Option<String> {
        self.thread_entry(o).and_then(|t| t.name.clone()).or_else(|| self.heap.thread_name(o))
    }

    /// The heap's thread table entry of thread object `o` (one with a stack trace), if any.
    pub fn thread_entry(&self, o: ObjIdx) -> Option<&'a ThreadInfo> {
        let heap: &'a Heap = self.heap;
        self.thread_entries.get(&o).map(|&k| &heap.threads()[k as usize])
    }

}

/// `thread "main"`: how a thread is named in a label, its name in double quotes with `"` and
/// `\` escaped by a backslash (`thread "say \"hi\""`), so that the name ends where the
/// quotes do.
pub fn thread_label(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 9);
    out.push_str("thread \"");
    for c in name.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// `1.8 MiB`, `512 B`: sizes in explanations, as the reports' tables write them (TypeScript's
/// `formatBytes`): a figure that would round up to 1024.0 of a unit is given in the next one
/// (1,048,575 bytes is `1.0 MiB`, never `1024.0 KiB`).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    let mut u = 0;
    // 1023.95 and above shows as 1024.0 at one decimal.
    while v >= 1023.95 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// `40.0%`, as the reports write a share (TypeScript's `percent`): one decimal, but a share that
/// is not zero never reads `0.0%` nor one short of everything `100.0%` — it gets the decimals
/// that tell it apart (`0.03%`, `99.97%`).
pub fn human_percent(p: f64) -> String {
    let one = format!("{p:.1}");
    if (one == "0.0" && p > 0.0) || (one == "100.0" && p < 100.0) {
        let gap = if p > 50.0 { 100.0 - p } else { p };
        let decimals = (-gap.log10()).ceil().clamp(2.0, 20.0) as usize;
        return format!("{p:.decimals$}%");
    }
    format!("{one}%")
}

#[cfg(test)]
mod tests {
    use super::{human_bytes, human_percent, kind_code, thread_label, KindsSeen, KINDS};
    use heapql_heap::ObjectKind;

    /// A class 300 superclasses below `java.lang.Thread` (or `Reference`) is a thread (a
    /// reference): the flags come down the whole chain, each class's from its super's (the
    /// walk up stopped after 64 superclasses).
    #[test]
    fn class_flags_reach_the_bottom_of_a_deep_chain() {
        use heapql_hprof::testkit::DumpBuilder;
        use heapql_hprof::BasicType;
        let mut b = DumpBuilder::new(8);
        let reference = b.class("java.lang.ref.Reference", Some(b.object_class), &[("referent", BasicType::Object)]);
        let (mut t, mut r) = (b.thread_class, reference);
        for k in 0..300 {
            t = b.class(&format!("deep.T{k}"), Some(t), &[]);
            r = b.class(&format!("deep.R{k}"), Some(r), &[]);
        }
        let heap = heapql_heap::Heap::open_bytes(&b.build(), "deep.hprof", heapql_heap::OpenOptions::default()).expect("index");
        let flags = super::class_flags(&heap);
        let of = |name: &str| flags[heap.classes_named(name)[0] as usize];
        for k in [0, 63, 64, 299] {
            assert_eq!(of(&format!("deep.T{k}")), super::THREAD, "deep.T{k}");
            assert_eq!(of(&format!("deep.R{k}")), super::REFERENCE, "deep.R{k}");
        }
        assert_eq!(of("java.lang.Object"), 0);
        assert_eq!(of("java.lang.Thread"), super::THREAD);
    }

    #[test]
    fn kinds_read_back_from_their_codes() {
        for (code, &kind) in KINDS.iter().enumerate() {
            assert_eq!(kind_code(kind) as usize, code);
        }
        let mut seen = KindsSeen::new(3);
        seen.see(0, KINDS[4]);
        seen.see(1, ObjectKind::Instance);
        seen.see(1, ObjectKind::Class);
        let mut other = KindsSeen::new(3);
        other.see(0, KINDS[4]);
        other.see(2, ObjectKind::ObjectArray);
        seen.absorb(&other);
        assert_eq!((seen.of(0), seen.of(1), seen.of(2)), (Some(KINDS[4]), None, Some(ObjectKind::ObjectArray)));
    }

    /// A quote or a backslash in a thread's name is escaped: `thread "a"b"` could end after `a`.
    #[test]
    fn thread_names_are_quoted_unambiguously() {
        assert_eq!(thread_label("main"), r#"thread "main""#);
        assert_eq!(thread_label(r#"a"b"#), r#"thread "a\"b""#);
        assert_eq!(thread_label(r"C:\dir"), r#"thread "C:\\dir""#);
        assert_eq!(thread_label(""), r#"thread """#);
    }

    #[test]
    fn sizes_read_like_a_person_writes_them() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.0 KiB");
        assert_eq!(human_bytes(5 * 1024 * 1024 + 512 * 1024), "5.5 MiB");
        assert_eq!(human_bytes(1_048_524), "1023.9 KiB");
        assert_eq!(human_bytes(1_048_547), "1.0 MiB");
        assert_eq!(human_bytes(1_048_575), "1.0 MiB");
        assert_eq!(human_bytes(1024 * 1024 * 1024 - 1), "1.0 GiB");
    }

    /// Shares read as the TypeScript renderers write them: a sliver is no 0.0%, nearly
    /// everything no 100.0%.
    #[test]
    fn shares_never_round_to_none_or_all() {
        assert_eq!(human_percent(40.0), "40.0%");
        assert_eq!(human_percent(0.0), "0.0%");
        assert_eq!(human_percent(100.0), "100.0%");
        assert_eq!(human_percent(0.03), "0.03%");
        assert_eq!(human_percent(99.96), "99.96%");
        assert_eq!(human_percent(99.9996), "99.9996%");
    }
}
