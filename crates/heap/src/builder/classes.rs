//! The class table: the dumped classes plus those the objects need but the dump lacks
//! (synthesized), their names, supers, subclasses and instance layouts.

use super::*;

/// The class set, before the object index exists: the CLASS DUMP records (sorted by id, one
/// per id) with their names, and the classes to synthesize as (class id if known, name).
pub(super) struct ClassSet {
    pub(super) dumps: Vec<ClassDump>,
    pub(super) names: Vec<String>,
    pub(super) synth: Vec<(Option<u64>, String)>,
}

/// Which classes the index holds: each dumped class once, then a class for every class id the
/// objects use without a CLASS DUMP, for every primitive array type without its class, and
/// `java.lang.Class` if absent.
pub(super) fn choose_classes(mut dumps: Vec<ClassDump>, t: &PassTotals, recs: &Recs, src: &Source, warnings: &mut Vec<Warning>) -> ClassSet {
    dumps.sort_by_key(|c| c.id);
    let before = dumps.len();
    // The first repeat in file order (the sort is stable: the first record of an id is kept).
    let repeat = dumps.windows(2).filter(|w| w[0].id == w[1].id).map(|w| (w[1].offset, w[1].id)).min();
    dumps.dedup_by_key(|c| c.id);
    if let Some((at, id)) = repeat {
        warnings.push(Warning {
            offset: at,
            message: format!("{} duplicate CLASS DUMP records ignored (e.g. class 0x{id:x} again at byte offset {at})", before - dumps.len()),
        });
    }
    let class_name = |id: u64| recs.load.get(&id).and_then(|&n| recs.text(src, n)).map(|s| java_name(&s)).unwrap_or_else(|| format!("unknown-class-0x{id:x}"));
    let dumped: FxHashSet<u64> = dumps.iter().map(|c| c.id).collect();
    let names: Vec<String> = dumps.iter().map(|c| class_name(c.id)).collect();
    let mut synth: Vec<(Option<u64>, String)> = Vec::new();
    let mut missing: Vec<u64> = t.inst.keys().chain(t.arrays.keys()).copied().filter(|id| !dumped.contains(id)).collect();
    missing.sort_unstable();
    missing.dedup();
    for id in missing {
        synth.push((Some(id), class_name(id)));
    }
    for (i, ty) in BasicType::PRIMITIVES.iter().enumerate() {
        let n = format!("{}[]", ty.java_name());
        if t.prims[i].count > 0 && !names.contains(&n) && !synth.iter().any(|s| s.1 == n) {
            synth.push((None, n));
        }
    }
    if (!names.is_empty() || !synth.is_empty()) && !names.iter().any(|n| n == "java.lang.Class") && !synth.iter().any(|s| s.1 == "java.lang.Class") {
        synth.push((None, "java.lang.Class".to_string()));
    }
    if !synth.is_empty() {
        warnings.push(Warning {
            offset: 0,
            message: format!(
                "{} class(es) have no CLASS DUMP in this dump and were synthesized: {}",
                synth.len(),
                synth.iter().take(5).map(|s| s.1.as_str()).collect::<Vec<_>>().join(", ")
            ),
        });
    }
    ClassSet { dumps, names, synth }
}

/// The class table and the look-ups built on it.
pub(super) struct ClassTable {
    pub(super) classes: Vec<ClassInfo>,
    pub(super) ext: Vec<ClassExt>,
    pub(super) layouts: Layouts,
    pub(super) class_by_id: FxHashMap<u64, ClassIdx>,
    pub(super) class_by_obj: FxHashMap<ObjIdx, ClassIdx>,
    pub(super) by_name: HashMap<String, Vec<ClassIdx>>,
    pub(super) subclasses: Vec<Vec<ClassIdx>>,
    pub(super) class_class: ClassIdx,
    pub(super) prim_class: [ClassIdx; 8],
}

/// The class table: the dumped classes (fields and statics named), then the synthesized ones
/// (their class objects are `synth_ids`), supers resolved, and each class's instance layout.
pub(super) fn class_table(set: ClassSet, synth_ids: &[u64], objs: &ObjIndex, recs: &Recs, src: &Source, id_size: u32, warnings: &mut Vec<Warning>) -> ClassTable {
    let ClassSet { dumps, mut names, synth } = set;
    let mut classes: Vec<ClassInfo> = Vec::with_capacity(dumps.len() + synth.len());
    let mut class_by_id: FxHashMap<u64, ClassIdx> = FxHashMap::default();
    let mut class_by_obj: FxHashMap<ObjIdx, ClassIdx> = FxHashMap::default();
    let mut dump_sizes: Vec<u32> = Vec::new();
    let name_of = |nid: u64| recs.text(src, nid).unwrap_or_else(|| format!("<unnamed 0x{nid:x}>"));
    for (i, cd) in dumps.iter().enumerate() {
        class_by_id.insert(cd.id, i as ClassIdx);
        let object = objs.index_of(cd.id).unwrap_or(0);
        class_by_obj.insert(object, i as ClassIdx);
        classes.push(ClassInfo {
            name: std::mem::take(&mut names[i]),
            object,
            super_class: None,
            loader_id: cd.loader_id,
            fields: cd.fields.iter().map(|&(n, t)| FieldDef { name: name_of(n), ty: field_type(t) }).collect(),
            statics: cd.statics.iter().map(|s| StaticField { name: name_of(s.name_id), value: value_of(field_type(s.ty), s.value) }).collect(),
            dump_instance_size: cd.instance_size,
        });
        dump_sizes.push(cd.instance_size);
    }
    for (k, (cid, name)) in synth.into_iter().enumerate() {
        let idx = classes.len() as ClassIdx;
        let object = synth_ids.get(k).and_then(|&id| objs.index_of(id)).unwrap_or(0);
        if let Some(cid) = cid {
            class_by_id.insert(cid, idx);
        }
        classes.push(ClassInfo { name, object, super_class: None, loader_id: 0, fields: Vec::new(), statics: Vec::new(), dump_instance_size: 0 });
        dump_sizes.push(0);
    }
    let mut no_super: Vec<usize> = Vec::new();
    for (i, cd) in dumps.iter().enumerate() {
        if cd.super_id != 0 {
            classes[i].super_class = class_by_id.get(&cd.super_id).copied().filter(|&s| s as usize != i);
            if !class_by_id.contains_key(&cd.super_id) {
                no_super.push(i);
            }
        }
    }
    if let Some(&first) = no_super.first() {
        warnings.push(Warning {
            offset: dumps[first].offset,
            message: format!(
                "{} class(es) name a superclass that is no class in this dump, and are read as having none (their inherited fields are missing): {} (class dump at byte offset {}, superclass id 0x{:x}){}",
                no_super.len(),
                classes[first].name,
                dumps[first].offset,
                dumps[first].super_id,
                if no_super.len() > 1 { ", …" } else { "" }
            ),
        });
    }
    cut_super_cycles(&mut classes, &dumps, id_size, warnings);
    let nclasses = classes.len();
    let mut by_name: HashMap<String, Vec<ClassIdx>> = HashMap::new();
    for (i, c) in classes.iter().enumerate() {
        by_name.entry(c.name.clone()).or_default().push(i as ClassIdx);
    }
    let mut subclasses: Vec<Vec<ClassIdx>> = vec![Vec::new(); nclasses];
    for (i, c) in classes.iter().enumerate() {
        if let Some(s) = c.super_class {
            subclasses[s as usize].push(i as ClassIdx);
        }
    }
    let find = |n: &str| by_name.get(n).and_then(|v| v.first().copied());
    let class_class = find("java.lang.Class").unwrap_or(0);
    let mut prim_class = [0 as ClassIdx; 8];
    for (i, t) in BasicType::PRIMITIVES.iter().enumerate() {
        prim_class[i] = find(&format!("{}[]", t.java_name())).unwrap_or(class_class);
    }
    let (ext, layouts) = instance_layouts(&classes, &subclasses, &dump_sizes, id_size);
    ClassTable { classes, ext, layouts, class_by_id, class_by_obj, by_name, subclasses, class_class, prim_class }
}

/// Cuts every cycle of superclass links (a damaged dump: every walk up a class's supers
/// relies on reaching a class with none). Each cycle loses the one link whose cut leaves the
/// most of its classes with instance fields that fill their class dump's instance size, the
/// first such class in dump order on a tie; a warning names the cycle and the cut.
fn cut_super_cycles(classes: &mut [ClassInfo], dumps: &[ClassDump], id_size: u32, warnings: &mut Vec<Warning>) {
    const UNSEEN: u32 = u32::MAX;
    const DONE: u32 = u32::MAX - 1;
    // The walk that last met each class (its starting class), or UNSEEN / DONE.
    let mut seen = vec![UNSEEN; classes.len()];
    for start in 0..classes.len() {
        let mut c = start;
        while seen[c] == UNSEEN {
            seen[c] = start as u32;
            match classes[c].super_class {
                Some(s) => c = s as usize,
                None => break,
            }
        }
        if seen[c] == start as u32 && classes[c].super_class.is_some() {
            // Back on this walk's own path: `c` is on a cycle.
            let mut cycle = vec![c];
            let mut x = classes[c].super_class.expect("on a cycle") as usize;
            while x != c {
                cycle.push(x);
                x = classes[x].super_class.expect("on a cycle") as usize;
            }
            let cut = best_cut(classes, dumps, &cycle, id_size);
            let chain: Vec<&str> = cycle.iter().chain(std::iter::once(&cycle[0])).map(|&k| classes[k].name.as_str()).collect();
            let lost = classes[cut].super_class.expect("on a cycle") as usize;
            warnings.push(Warning {
                offset: dumps.get(cut).map_or(0, |d| d.offset),
                message: format!(
                    "the superclasses of {} class(es) form a cycle ({}); the link from {} (class dump at byte offset {}) to {} was cut",
                    cycle.len(),
                    chain.join(" → "),
                    classes[cut].name,
                    dumps.get(cut).map_or(0, |d| d.offset),
                    classes[lost].name
                ),
            });
            classes[cut].super_class = None;
        }
        // Everything this walk met now leads to a class without a super.
        let mut c = start;
        while seen[c] == start as u32 {
            seen[c] = DONE;
            match classes[c].super_class {
                Some(s) => c = s as usize,
                None => break,
            }
        }
    }
}

/// Which class of `cycle` (a cycle of super links) loses its link (see `cut_super_cycles`).
fn best_cut(classes: &[ClassInfo], dumps: &[ClassDump], cycle: &[usize], id_size: u32) -> usize {
    let field_bytes = |k: usize| -> u64 {
        classes[k].fields.iter().map(|f| match f.ty {
            FieldType::Object => id_size as u64,
            FieldType::Prim(p) => prim_size(p) as u64,
        }).sum()
    };
    let fits = |cut: usize| -> usize {
        cycle
            .iter()
            .filter(|&&k| {
                // Fields of k and its supers up to and including `cut` (no further link there).
                let mut total = 0u64;
                let mut x = k;
                loop {
                    total += field_bytes(x);
                    if x == cut {
                        break;
                    }
                    x = classes[x].super_class.expect("on a cycle") as usize;
                }
                dumps.get(k).is_some_and(|d| d.instance_size as u64 == total)
            })
            .count()
    };
    let offset = |k: usize| dumps.get(k).map_or(u64::MAX, |d| d.offset);
    cycle.iter().copied().min_by_key(|&k| (std::cmp::Reverse(fits(k)), offset(k))).expect("a cycle has classes")
}

/// Warnings for instances whose field data is not as long as their class's instance fields
/// (a damaged dump; their field values past the data would be read from the next record).
pub(super) fn instance_lengths(table: &ClassTable, ndumped: usize, inst: &FxHashMap<u64, InstAcc>, warnings: &mut Vec<Warning>) {
    let mut odd: Vec<(u64, ClassIdx, u32)> = Vec::new();
    for (cid, acc) in inst {
        let Some(&c) = table.class_by_id.get(cid) else { continue };
        if c as usize >= ndumped {
            continue; // synthesized: no fields to compare with
        }
        let want = table.ext[c as usize].data_len;
        let at = if acc.data_len != want { acc.offset } else { acc.odd_offset };
        if at != NO_OFFSET {
            odd.push((at, c, want));
        }
    }
    odd.sort_unstable();
    if let Some(&(at, c, want)) = odd.first() {
        warnings.push(Warning {
            offset: at,
            message: format!(
                "instances of {} class(es) hold field data of another length than their class's fields take ({} bytes for {}, e.g. the instance at byte offset {}){}: the dump is damaged there, and their field values and references may be wrong",
                odd.len(),
                want,
                table.classes[c as usize].name,
                at,
                if odd.len() > 1 { format!(", also {}", odd[1..].iter().take(4).map(|&(_, k, _)| table.classes[k as usize].name.as_str()).collect::<Vec<_>>().join(", ")) } else { String::new() }
            ),
        });
    }
}

/// Every class's instance layout: own fields, then the super's, ... up to the top, however
/// deep (`cut_super_cycles` has made every chain end); for an array class, its element type.
/// Built from the top down, each class's layout from its super's (`Layouts`): a chain of
/// classes stores each field once, so the work and the storage grow with the number of
/// fields, not with the square of the chain's depth.
fn instance_layouts(classes: &[ClassInfo], subclasses: &[Vec<ClassIdx>], dump_sizes: &[u32], id_size: u32) -> (Vec<ClassExt>, Layouts) {
    let n = classes.len();
    let mut ext: Vec<ClassExt> = vec![ClassExt::default(); n];
    // Built reversed (the top's fields first), so that a subclass appends its own fields
    // after its super's when nothing has been appended there yet; reversed at the end.
    let mut rev = Layouts::default();
    // Per class: its slices of `rev.fields` and `rev.refs` (start, end).
    let mut spans: Vec<[(u32, u32); 2]> = vec![[(0, 0); 2]; n];
    let len32 = |v: usize| u32::try_from(v).expect("fewer than 2^32 fields in the layouts");
    let mut stack: Vec<ClassIdx> = (0..n as ClassIdx).filter(|&c| classes[c as usize].super_class.is_none()).collect();
    stack.reverse();
    while let Some(c) = stack.pop() {
        let ci = c as usize;
        stack.extend(subclasses[ci].iter().rev());
        let (base, base_total) = match classes[ci].super_class {
            Some(s) => (spans[s as usize], ext[s as usize].data_total),
            None => ([(len32(rev.fields.len()), len32(rev.fields.len())), (len32(rev.refs.len()), len32(rev.refs.len()))], 0),
        };
        let own = &classes[ci].fields;
        let size = |f: &FieldDef| match f.ty {
            FieldType::Object => id_size as u64,
            FieldType::Prim(p) => prim_size(p) as u64,
        };
        let total = base_total + own.iter().map(size).sum::<u64>();
        let len = own.len() as u32 + (base[0].1 - base[0].0);
        let mut span = base;
        if !own.is_empty() {
            // Own fields' offsets, counted from the end of the data.
            let mut from_end: Vec<u64> = Vec::with_capacity(own.len());
            let mut off = 0u64;
            for f in own {
                from_end.push(total - off);
                off += size(f);
            }
            let (a, b) = base[0];
            let a = if b as usize == rev.fields.len() {
                a
            } else {
                let at = len32(rev.fields.len());
                rev.fields.extend_from_within(a as usize..b as usize);
                rev.from_end.extend_from_within(a as usize..b as usize);
                at
            };
            for k in (0..own.len()).rev() {
                rev.fields.push(own[k].clone());
                rev.from_end.push(from_end[k]);
            }
            span[0] = (a, len32(rev.fields.len()));
            if own.iter().any(|f| f.ty == FieldType::Object) {
                let (a, b) = base[1];
                let a = if b as usize == rev.refs.len() {
                    a
                } else {
                    let at = len32(rev.refs.len());
                    rev.refs.extend_from_within(a as usize..b as usize);
                    at
                };
                for k in (0..own.len()).rev() {
                    if own[k].ty == FieldType::Object {
                        rev.refs.push((from_end[k], len - k as u32));
                    }
                }
                span[1] = (a, len32(rev.refs.len()));
            }
        }
        spans[ci] = span;
        let e = &mut ext[ci];
        e.data_total = total;
        e.data_len = total.min(u32::MAX as u64) as u32;
        if let Some(base) = classes[ci].name.strip_suffix("[]") {
            e.is_array = true;
            e.array_elem = BasicType::PRIMITIVES.iter().find(|t| t.java_name() == base).and_then(|&t| prim_of(t));
            e.dump_array_header = dump_sizes[ci];
        }
    }
    rev.fields.reverse();
    rev.from_end.reverse();
    rev.refs.reverse();
    let (nf, nr) = (len32(rev.fields.len()), len32(rev.refs.len()));
    for (e, [(a, b), (ra, rb)]) in ext.iter_mut().zip(spans) {
        e.layout = (nf - b, b - a);
        e.refs = (nr - rb, rb - ra);
    }
    (ext, rev)
}
