//! The shallow-size model: picked from the dump's format, JVM version and object addresses.

use super::*;
use std::ops::Range;

/// The dumped JVM's version and feature release (`17` for 17.0.9, `8` for 1.8.0_392): from
/// the system properties, else from `VersionProps.java_version` / `Version.java_version`.
/// Android has no Java version (libcore's `java.version` is a constant "0"): its runtime is
/// named instead (`android_version`), with no feature release.
pub(super) fn jvm_version(h: &Heap) -> (Option<String>, Option<u32>) {
    if h.model.android {
        return (Some(android_version(h)), None);
    }
    let prop = |k: &str| h.props.iter().find(|p| p.0 == k).map(|p| p.1.clone());
    let mut version = prop("java.runtime.version").or_else(|| prop("java.version"));
    if version.is_none() {
        for cls in ["java.lang.VersionProps", "sun.misc.Version"] {
            for &c in h.classes_named(cls) {
                if let Some(Value::Object(id)) = h.field(h.classes[c as usize].object, "java_version") {
                    if let Some(o) = h.index_of(id) {
                        version = h.string_value(o);
                    }
                }
            }
        }
    }
    let feature = prop("java.specification.version").and_then(|v| parse_feature(&v)).or_else(|| version.as_deref().and_then(parse_feature));
    (version, feature)
}

/// `Android 14 (API 34, ART 2.1.0)`: the release and API level when the dump holds the
/// framework's `android.os.Build$VERSION` (an app's dump; not a host ART's), and ART's own
/// version (the `java.vm.version` property); `Android (ART)` when neither is there.
fn android_version(h: &Heap) -> String {
    let build = |name: &str| {
        h.classes_named("android.os.Build$VERSION")
            .iter()
            .find_map(|&c| h.classes[c as usize].statics.iter().find(|s| s.name == name).map(|s| s.value))
    };
    let release = match build("RELEASE") {
        Some(Value::Object(id)) => h.index_of(id).and_then(|o| h.string_value(o)),
        _ => None,
    };
    let api = match build("SDK_INT") {
        Some(Value::Int(n)) if n > 0 => Some(format!("API {n}")),
        _ => None,
    };
    let art = match crate::props::system_property(h, "java.vm.version").filter(|v| !v.is_empty()) {
        Some(v) => format!("ART {v}"),
        None => "ART".to_string(),
    };
    let inner = api.into_iter().chain([art]).collect::<Vec<_>>().join(", ");
    match release.filter(|r| !r.is_empty()) {
        Some(r) => format!("Android {r} ({inner})"),
        None => format!("Android ({inner})"),
    }
}

fn parse_feature(v: &str) -> Option<u32> {
    let v = v.strip_prefix("1.").unwrap_or(v);
    let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// Android's size model when the dump records no array header (hprof-format.md §16.5): it is
/// added, an estimate (`HeapSummary::sizes_estimated`, from the `assumed` start).
const ANDROID_ARRAY_HEADERS_ASSUMED: &str = "assumed: Android array headers of 12 bytes (16 for long[] and double[]), \
which the dump's array classes do not record (Dalvik, early ART); the other sizes as recorded in the dump";

/// Picks the shallow-size model and fills every class's instance and mirror size.
/// `array_classes`: the classes of the dump's arrays.
pub(super) fn choose_model(h: &mut Heap, format: &str, feature: Option<u32>, align_tz: u32, array_classes: &[ClassIdx]) {
    let n = h.classes.len();
    let own: Vec<Vec<BasicType>> = h
        .classes
        .iter()
        .map(|c| {
            c.fields
                .iter()
                .map(|f| match f.ty {
                    FieldType::Object => BasicType::Object,
                    FieldType::Prim(p) => BasicType::PRIMITIVES[p as usize],
                })
                .collect()
        })
        .collect();
    let lcs: Vec<LayoutClass<'_>> = (0..n)
        .map(|i| LayoutClass {
            name: &h.classes[i].name,
            names: h.classes[i].fields.iter().map(|f| f.name.as_str()).collect(),
            super_idx: h.classes[i].super_class.map(|s| s as usize),
            fields: &own[i],
            boot: h.classes[i].loader_id == 0,
        })
        .collect();
    let jdk = feature.unwrap_or(0);
    let addresses = align_tz >= 3;
    let align = if addresses { 1u32 << align_tz.min(8) } else { 8 };
    let (model, source) = if h.model.android {
        // Dalvik and early ART write 0 as every array class's instance size: `Heap::array_size`
        // then adds the header the VM lays arrays out with, which the dump does not say.
        let headerless = array_classes.iter().any(|&c| h.ext.get(c as usize).is_none_or(|e| e.dump_array_header == 0));
        let source = if headerless { ANDROID_ARRAY_HEADERS_ASSUMED } else { "Android (sizes recorded in the dump)" };
        (Model { header: 8, ref_size: 4, align: 1, new_layout: false, relaxed_arrays: true, word: 4, android: true }, source.to_string())
    } else if h.id_size == 4 {
        let src = if addresses { "32-bit VM (4-byte ids)" } else { "assumed: 32-bit VM layout (ids are not addresses)" };
        (Model { header: 8, ref_size: 4, align: 8, new_layout: jdk >= 15, relaxed_arrays: jdk >= 22, word: 4, android: false }, src.to_string())
    } else {
        let new_layout = if jdk > 0 { jdk >= 15 } else { format != "JAVA PROFILE 1.0.1" };
        let mk = |header: u32, r: u32| Model {
            header,
            ref_size: r,
            align,
            new_layout,
            relaxed_arrays: jdk >= 22 || header == 8,
            word: 8,
            android: false,
        };
        // (16, 4): compressed oops without compressed class pointers
        // (`-XX:-UseCompressedClassPointers`), a 16-byte header with 4-byte references.
        let mut cands = vec![mk(12, 4), mk(16, 8), mk(16, 4)];
        if jdk == 0 || jdk >= 15 {
            cands.push(mk(12, 8));
        }
        if jdk == 0 || jdk >= 24 {
            cands.push(mk(8, 4));
            cands.push(mk(8, 8));
        }
        if !addresses {
            (cands[0], "assumed: 64-bit VM with compressed references (ids are not addresses)".to_string())
        } else {
            let (best, why) = detect_by_addresses(h, &lcs, &cands, jdk);
            (best, why)
        }
    };
    let sizes = layout::instance_sizes(&lcs, &model, jdk);
    drop(lcs);
    let class_idx = h.class_class as usize;
    for (i, s) in sizes.iter().enumerate() {
        h.ext[i].instance_size = if model.android { h.classes[i].dump_instance_size } else { *s };
    }
    let class_size = if model.android {
        h.classes.get(class_idx).map(|c| c.dump_instance_size).unwrap_or(0)
    } else {
        sizes.get(class_idx).copied().unwrap_or(0)
    };
    for i in 0..n {
        let st: Vec<BasicType> = h.classes[i]
            .statics
            .iter()
            .filter(|s| !s.name.starts_with('<'))
            .map(|s| match s.value {
                Value::Object(_) | Value::Null => BasicType::Object,
                Value::Boolean(_) => BasicType::Boolean,
                Value::Char(_) => BasicType::Char,
                Value::Byte(_) => BasicType::Byte,
                Value::Short(_) => BasicType::Short,
                Value::Int(_) => BasicType::Int,
                Value::Long(_) => BasicType::Long,
                Value::Float(_) => BasicType::Float,
                Value::Double(_) => BasicType::Double,
            })
            .collect();
        h.ext[i].mirror_size = if model.android {
            class_size + st.iter().map(|t| model.field_size(*t)).sum::<u32>()
        } else {
            layout::mirror_size(class_size, &st, &model) as u32
        };
    }
    h.model = model;
    h.info.reference_size = model.ref_size;
    h.info.object_header_size = model.header;
    h.info.array_header_size = model.array_base(4);
    h.info.object_alignment = model.align;
    h.info.size_model_source = source;
}

/// Scores each candidate model by how many neighbouring objects (in address order) sit exactly
/// one object size apart, rejecting models under which objects would overlap.
pub(super) fn detect_by_addresses(h: &Heap, lcs: &[LayoutClass<'_>], cands: &[Model], jdk: u32) -> (Model, String) {
    let sizes: Vec<Vec<u32>> = cands.iter().map(|m| layout::instance_sizes(lcs, m, jdk)).collect();
    // Runs of neighbours spread over the dump: each run reads a few pages of it, so a dump that
    // is not in the page cache is read there only (`Access::HereAndThere`), not whole.
    let runs = sample_runs(h.objs.len());
    let (first, second) = runs.split_at(runs.len() / 2);
    let score = |runs: &[Range<u32>]| score_neighbours(h, cands, &sizes, runs);
    // The two halves on both cores: on a dump not in the page cache, each run waits on a read.
    let ((exact, overlap, tried), (exact2, overlap2, tried2)) = heapql_scratch::both(|| score(first), || score(second));
    let exact: Vec<u64> = exact.iter().zip(&exact2).map(|(a, b)| a + b).collect();
    let overlap: Vec<u64> = overlap.iter().zip(&overlap2).map(|(a, b)| a + b).collect();
    let tried = tried + tried2;
    let tolerance = (tried / 500).max(1);
    let mut best: Option<usize> = None;
    for k in 0..cands.len() {
        if overlap[k] > tolerance {
            continue;
        }
        if best.is_none_or(|b| exact[k] > exact[b]) {
            best = Some(k);
        }
    }
    match best {
        // Objects allocated in a row sit one object size apart under the right model (88–100 %
        // of the sampled neighbours on every HotSpot layout measured); a best fit of under half
        // means no candidate is the VM's layout, and its sizes are an estimate.
        Some(k) if exact[k] > 0 && exact[k] * 2 < tried => (
            cands[k],
            format!(
                "assumed: the closest known layout, but only {} of {} sampled neighbours fit it exactly (the VM's layout is none this version knows; sizes may be off)",
                exact[k], tried
            ),
        ),
        Some(k) if exact[k] > 0 => (
            cands[k],
            format!(
                "detected from object addresses ({} of {} sampled neighbours fit exactly)",
                exact[k], tried
            ),
        ),
        _ => (cands[0], "assumed: compressed references (object addresses did not decide)".to_string()),
    }
}

/// Neighbour pairs sampled: every object (paired with the next) when there are at most
/// `RUNS × RUN` of them, else `RUNS` runs of `RUN` consecutive objects evenly spread.
fn sample_runs(n: u32) -> Vec<Range<u32>> {
    const RUNS: u64 = 2_000;
    const RUN: u64 = 100;
    let pairs = n.saturating_sub(1) as u64;
    if pairs <= RUNS * RUN {
        let every_pair = 0..pairs as u32;
        return vec![every_pair];
    }
    (0..RUNS).map(|r| r * pairs / RUNS).map(|start| start as u32..(start + RUN).min(pairs) as u32).collect()
}

/// Per candidate model, how many of the objects in `runs` (each paired with the next object in
/// address order) fit their gap exactly and how many would overlap it; and how many were
/// sampled.
fn score_neighbours(h: &Heap, cands: &[Model], sizes: &[Vec<u32>], runs: &[Range<u32>]) -> (Vec<u64>, Vec<u64>, u64) {
    let mut exact = vec![0u64; cands.len()];
    let mut overlap = vec![0u64; cands.len()];
    let mut tried = 0u64;
    for o in runs.iter().flat_map(|r| r.clone()) {
        let kind = h.object_kind(o);
        let gap = h.objs.id(o + 1).wrapping_sub(h.objs.id(o));
        let (c, len) = match kind {
            ObjectKind::Instance => (h.class_of(o), 0),
            ObjectKind::ObjectArray | ObjectKind::PrimitiveArray(_) => (h.class_of(o), h.array_length(o).unwrap_or(0) as u64),
            ObjectKind::Class => continue,
        };
        if kind == ObjectKind::Instance && c == h.class_class {
            continue;
        }
        tried += 1;
        for (k, m) in cands.iter().enumerate() {
            let s = match kind {
                ObjectKind::Instance => sizes[k][c as usize] as u64,
                ObjectKind::ObjectArray => m.array_size(m.ref_size, len),
                ObjectKind::PrimitiveArray(t) => m.array_size(prim_size(t), len),
                ObjectKind::Class => 0,
            };
            if s == gap {
                exact[k] += 1;
            } else if s > gap {
                overlap[k] += 1;
            }
        }
    }
    (exact, overlap, tried)
}

#[cfg(test)]
mod tests {
    use super::sample_runs;

    #[test]
    fn every_neighbour_pair_of_a_small_heap_is_sampled() {
        assert_eq!(sample_runs(0), vec![0..0]);
        assert_eq!(sample_runs(1), vec![0..0]);
        assert_eq!(sample_runs(150_001), vec![0..150_000]);
    }

    #[test]
    fn a_large_heap_is_sampled_in_short_runs_spread_over_it() {
        let n = 12_600_000u32;
        let runs = sample_runs(n);
        assert_eq!(runs.len(), 2_000);
        assert_eq!(runs.iter().map(|r| r.len()).sum::<usize>(), 200_000);
        assert_eq!(runs[0].start, 0);
        // In order, apart, and every pair inside the heap (the last object has no neighbour).
        assert!(runs.windows(2).all(|w| w[0].end < w[1].start));
        assert!(runs.last().unwrap().end < n);
        assert!(runs.last().unwrap().start > n - n / 1_000);
    }
}
