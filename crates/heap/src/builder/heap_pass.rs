//! The heap pass: one parallel walk over the chosen dump's heap segments collecting object
//! headers (into an `ObjList` each), class dumps and roots per thread.

use super::*;
use heapql_scratch::Placement;

/// Counts per class id for the histogram: instances, or arrays by length mod 16.
#[derive(Clone)]
pub(super) struct Acc {
    pub(super) class_id: u64,
    pub(super) count: u64,
    pub(super) elems: u64,
    pub(super) mod16: [u64; 16],
}

impl Acc {
    pub(super) fn new(class_id: u64) -> Acc {
        Acc { class_id, count: 0, elems: 0, mod16: [0; 16] }
    }
    pub(super) fn add_array(&mut self, n: u32) {
        self.count += 1;
        self.elems += n as u64;
        self.mod16[(n & 15) as usize] += 1;
    }
    pub(super) fn merge(&mut self, o: &Acc) {
        self.count += o.count;
        self.elems += o.elems;
        for i in 0..16 {
            self.mod16[i] += o.mod16[i];
        }
    }
}

/// Instances of one class id: how many, and whether their field data all have one length
/// (a damaged dump's class and instance records can disagree; `classes::instance_lengths`).
#[derive(Clone, Copy, Debug)]
pub(super) struct InstAcc {
    pub(super) count: u64,
    /// The data length of the instance at `offset`, one of the class's.
    pub(super) data_len: u32,
    pub(super) offset: u64,
    /// An instance whose data length is not `data_len` (`NO_OFFSET`: none).
    pub(super) odd_offset: u64,
}

pub(super) const NO_OFFSET: u64 = u64::MAX;

impl InstAcc {
    #[inline]
    fn one(data_len: u32, offset: u64) -> InstAcc {
        InstAcc { count: 1, data_len, offset, odd_offset: NO_OFFSET }
    }

    #[inline]
    fn add(&mut self, data_len: u32, offset: u64) {
        self.count += 1;
        if data_len != self.data_len && self.odd_offset == NO_OFFSET {
            self.odd_offset = offset;
        }
    }

    pub(super) fn merge(&mut self, o: &InstAcc) {
        self.count += o.count;
        let odd = if o.data_len != self.data_len { o.offset } else { o.odd_offset };
        self.odd_offset = self.odd_offset.min(odd);
    }
}

pub(super) struct RawRoot {
    pub(super) tag: u8,
    pub(super) id: u64,
    pub(super) thread: Option<u32>,
    pub(super) frame: Option<i32>,
}

/// What one thread of the heap pass collects.
#[derive(Default)]
pub(super) struct Pass1 {
    pub(super) objs: ObjList,
    pub(super) classes: Vec<ClassDump>,
    pub(super) roots: Vec<RawRoot>,
    pub(super) thread_objs: Vec<(u64, u32, u32)>,
    pub(super) inst: FxHashMap<u64, InstAcc>,
    /// Direct-mapped cache of `inst` entries by class id, merged into `inst` on eviction.
    pub(super) inst_cache: Vec<(u64, InstAcc)>,
    pub(super) arrays: FxHashMap<u64, usize>,
    pub(super) array_accs: Vec<Acc>,
    pub(super) prims: Vec<Acc>,
    pub(super) id_or: u64,
    pub(super) heap_bytes: u64,
    /// The HEAP DUMP INFO records (Android), in file order, each one that repeats the one
    /// before left out (ART writes one per segment).
    pub(super) heap_infos: Vec<HeapInfo>,
}

pub(super) const INST_CACHE: usize = 256;

impl Pass1 {
    pub(super) fn new() -> Pass1 {
        Pass1 {
            prims: (4..=11).map(|c| Acc::new(c as u64)).collect(),
            inst_cache: vec![(u64::MAX, InstAcc { count: 0, data_len: 0, offset: 0, odd_offset: NO_OFFSET }); INST_CACHE],
            ..Default::default()
        }
    }
    #[inline]
    pub(super) fn count_instance(&mut self, class_id: u64, data_len: u32, offset: u64) {
        let slot = &mut self.inst_cache[((class_id >> 3) ^ (class_id >> 11)) as usize % INST_CACHE];
        if slot.0 == class_id {
            slot.1.add(data_len, offset);
        } else {
            let old = std::mem::replace(slot, (class_id, InstAcc::one(data_len, offset)));
            if old.1.count > 0 {
                merge_inst(&mut self.inst, old.0, &old.1);
            }
        }
    }
    pub(super) fn flush_inst(&mut self) {
        for i in 0..self.inst_cache.len() {
            let (c, a) = self.inst_cache[i];
            if a.count > 0 {
                merge_inst(&mut self.inst, c, &a);
            }
            self.inst_cache[i].0 = u64::MAX;
            self.inst_cache[i].1.count = 0;
        }
    }
}

pub(super) fn merge_inst(inst: &mut FxHashMap<u64, InstAcc>, class_id: u64, a: &InstAcc) {
    match inst.get_mut(&class_id) {
        Some(e) => e.merge(a),
        None => {
            inst.insert(class_id, *a);
        }
    }
}

impl SubVisitor for Pass1 {
    #[inline]
    fn sub(&mut self, s: Sub) {
        match s {
            Sub::Instance { offset, id, class_id, data_len } => {
                self.objs.push(id, ids::pack(ids::K_INSTANCE, offset));
                self.id_or |= id;
                self.count_instance(class_id, data_len, offset);
            }
            Sub::ObjArray { offset, id, len, class_id } => {
                self.objs.push(id, ids::pack(ids::K_OBJ_ARRAY, offset));
                self.id_or |= id;
                let i = match self.arrays.get(&class_id) {
                    Some(&i) => i,
                    None => {
                        self.array_accs.push(Acc::new(class_id));
                        self.arrays.insert(class_id, self.array_accs.len() - 1);
                        self.array_accs.len() - 1
                    }
                };
                self.array_accs[i].add_array(len);
            }
            Sub::PrimArray { offset, id, len, ty, nodata } => {
                let code = ty.code() as u64;
                let kind = if nodata { ids::K_PRIM_NODATA } else { code };
                self.objs.push(id, ids::pack(kind, offset));
                self.id_or |= id;
                self.prims[(code - 4) as usize].add_array(len);
            }
            Sub::Class(cd) => {
                self.objs.push_class(cd.id, ids::pack(ids::K_CLASS, cd.offset));
                self.id_or |= cd.id;
                self.classes.push(cd);
            }
            Sub::Root { tag, id, thread, frame } => self.roots.push(RawRoot { tag, id, thread, frame }),
            Sub::ThreadObject { id, thread_serial, trace_serial } => {
                self.roots.push(RawRoot { tag: sub::ROOT_THREAD_OBJECT, id, thread: Some(thread_serial), frame: None });
                self.thread_objs.push((id, thread_serial, trace_serial));
            }
            Sub::HeapInfo { offset, heap_id, name_id } => {
                if self.heap_infos.last().is_none_or(|&(_, h, n)| (h, n) != (heap_id, name_id)) {
                    self.heap_infos.push((offset, heap_id, name_id));
                }
            }
        }
    }
}

pub(super) fn root_kind(tag: u8) -> RootKind {
    match tag {
        sub::ROOT_JNI_GLOBAL => RootKind::JniGlobal,
        sub::ROOT_JNI_LOCAL => RootKind::JniLocal,
        sub::ROOT_JAVA_FRAME => RootKind::JavaFrame,
        sub::ROOT_NATIVE_STACK => RootKind::NativeStack,
        sub::ROOT_STICKY_CLASS => RootKind::StickyClass,
        sub::ROOT_THREAD_BLOCK => RootKind::ThreadBlock,
        sub::ROOT_MONITOR_USED => RootKind::MonitorUsed,
        sub::ROOT_THREAD_OBJECT => RootKind::ThreadObject,
        sub::ROOT_INTERNED_STRING => RootKind::InternedString,
        sub::ROOT_FINALIZING => RootKind::Finalizing,
        sub::ROOT_DEBUGGER => RootKind::Debugger,
        sub::ROOT_REFERENCE_CLEANUP => RootKind::ReferenceCleanup,
        sub::ROOT_VM_INTERNAL => RootKind::VmInternal,
        sub::ROOT_JNI_MONITOR => RootKind::JniMonitor,
        // Not `RootKind::Unreachable`, the analysis's own pseudo-roots of garbage.
        sub::UNREACHABLE => RootKind::VmUnreachable,
        _ => RootKind::Unknown,
    }
}

/// Runs the heap pass over `segs`, split in two halves by bytes when there is enough work.
pub(super) fn heap_pass(src: &Source, segs: &[Segment], id_size: u32, place: &Placement, ctl: Control<'_>) -> Result<(Vec<Pass1>, Vec<Warning>), HErr> {
    let total: u64 = segs.iter().map(|s| s.len).sum();
    let done = AtomicU64::new(0);
    let parts: Vec<&[Segment]> = if segs.len() >= 2 && total >= (32 << 20) {
        let mut acc = 0;
        let mut cut = segs.len() - 1;
        for (i, s) in segs.iter().enumerate() {
            acc += s.len;
            if acc * 2 >= total {
                cut = i + 1;
                break;
            }
        }
        let cut = cut.clamp(1, segs.len() - 1);
        vec![&segs[..cut], &segs[cut..]]
    } else {
        vec![segs]
    };
    let run = |part: &[Segment]| -> Result<(Pass1, Vec<Warning>), HErr> {
        let mut p = Pass1::new();
        // Reserve for the densest case (18-byte primitive array records with 8-byte ids): the
        // untouched part of the reservation costs address space, not memory.
        let bytes: u64 = part.iter().map(|s| s.len).sum();
        p.objs = ObjList::with_capacity((bytes / (2 * id_size as u64 + 6)).min(1 << 32) as usize, place);
        let mut w = Vec::new();
        let mut cur = Cursor::new(src);
        let start = part.first().map(|s| s.offset).unwrap_or(0);
        let mut tick = ctl.shared_ticker("index", total, &done, start);
        for s in part {
            p.heap_bytes += s.len;
            let end = scan_segment(&mut cur, s, id_size, &mut p, &mut tick)?;
            if let Some(x) = end.warning {
                w.push(warn(x));
                break;
            }
        }
        p.flush_inst();
        Ok((p, w))
    };
    let results: Vec<Result<(Pass1, Vec<Warning>), HErr>> = if parts.len() == 1 {
        vec![run(parts[0])]
    } else {
        std::thread::scope(|sc| {
            let h = sc.spawn(|| run(parts[1]));
            let a = run(parts[0]);
            let b = h.join().unwrap_or_else(|_| Err(HErr::Corrupt { offset: 0, reason: "index thread panicked".into() }));
            vec![a, b]
        })
    };
    ctl.report("index", total, total);
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for r in results {
        let (p, w) = r?;
        out.push(p);
        warnings.extend(w);
    }
    Ok((out, warnings))
}

/// The heap pass's threads' findings put together (the object lists stay per part, in file
/// order, for `objects::assemble`).
pub(super) struct PassTotals {
    pub(super) class_dumps: Vec<ClassDump>,
    pub(super) roots: Vec<RawRoot>,
    pub(super) thread_objs: Vec<(u64, u32, u32)>,
    /// Instances per class id.
    pub(super) inst: FxHashMap<u64, InstAcc>,
    /// Object arrays per class id.
    pub(super) arrays: FxHashMap<u64, Acc>,
    /// Primitive arrays per type (HPROF codes 4..=11).
    pub(super) prims: Vec<Acc>,
    /// All object ids OR-ed together (their alignment tells the size model).
    pub(super) id_or: u64,
    pub(super) heap_bytes: u64,
    pub(super) objects: Vec<ObjList>,
    /// Every part's HEAP DUMP INFO records, in file order.
    pub(super) heap_infos: Vec<HeapInfo>,
}

impl PassTotals {
    pub(super) fn gather(parts: Vec<Pass1>) -> PassTotals {
        let mut t = PassTotals {
            class_dumps: Vec::new(),
            roots: Vec::new(),
            thread_objs: Vec::new(),
            inst: FxHashMap::default(),
            arrays: FxHashMap::default(),
            prims: (4..=11).map(|c| Acc::new(c as u64)).collect(),
            id_or: 0,
            heap_bytes: 0,
            objects: Vec::new(),
            heap_infos: Vec::new(),
        };
        for mut p in parts {
            t.class_dumps.append(&mut p.classes);
            t.roots.append(&mut p.roots);
            t.thread_objs.append(&mut p.thread_objs);
            for (k, v) in p.inst.drain() {
                merge_inst(&mut t.inst, k, &v);
            }
            for a in p.array_accs.drain(..) {
                t.arrays.entry(a.class_id).or_insert_with(|| Acc::new(a.class_id)).merge(&a);
            }
            for (i, a) in p.prims.iter().enumerate() {
                t.prims[i].merge(a);
            }
            t.id_or |= p.id_or;
            t.heap_bytes += p.heap_bytes;
            t.objects.push(std::mem::take(&mut p.objs));
            t.heap_infos.append(&mut p.heap_infos);
        }
        t
    }
}
