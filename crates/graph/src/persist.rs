//! The full analysis in the cache (`heapql_cache`): the object graph's adjacency, the
//! dominator tree (immediate dominators, the top-level dominators and the nodes in an order
//! where each follows its immediate dominator, with their dominators' positions in it),
//! retained sizes and the reachability bitmaps, written as arrays and memory-mapped back.
//! Lazily built parts (the dominator tree's child lists, BFS parents, referrers) are rebuilt
//! on first use.

use heapql_cache::{CacheUse, Entry, EntryFile, EntryWriter};
use heapql_heap::{Heap, HeapError};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

use crate::csr::Offsets;
use crate::packed_offsets::PackedOffsets;
use crate::{Csr, CsrParts, Dangling, FixedBitSet, FullAnalysis, GraphOptions, ObjectGraph, PassBeside, RetainedSizes, ShallowSizes};

/// Bump when what this file writes changes meaning (part of every cache key). graph8: the
/// object graph's parts are their packed list starts alone (graph7 wrote a kind beside each).
pub const CACHE_LAYOUT: &str = "graph8";

#[derive(Serialize, Deserialize)]
struct Small {
    gc_root_count: usize,
    pinned_bits: usize,
    reachable_bits: usize,
    reachable_only: bool,
    /// The first node of each part of the graph's lists (whose starts are packed:
    /// `SequentialCsrBuilder`).
    parts: Vec<u32>,
    retained_big: Vec<(u32, u64)>,
    /// The references to ids that are no object (the analysis's warning, replayed on a hit).
    dangling: Dangling,
}

fn words(bits: &FixedBitSet) -> Vec<u64> {
    bits.as_slice().iter().map(|&w| w as u64).collect()
}

fn bitset(f: &EntryFile, name: &str, bits: usize) -> Result<FixedBitSet, String> {
    let w = f.array::<u64>(name).map_err(|e| e.0)?;
    if w.len() != bits.div_ceil(usize::BITS as usize) {
        return Err(format!("bitmap {name} has the wrong length"));
    }
    Ok(FixedBitSet::with_capacity_and_blocks(bits, w.iter().map(|&x| x as usize)))
}

/// The cache file's options for these analysis options.
fn options_key(options: &GraphOptions) -> &'static str {
    if options.reachable_only {
        "reachable-only"
    } else {
        ""
    }
}

impl FullAnalysis {
    /// Writes the analysis into a cache file.
    pub fn write_cache(&self, w: &mut EntryWriter) -> std::io::Result<()> {
        let g = &self.graph;
        for (k, (_, part)) in g.out.parts().enumerate() {
            // The object graph's builder packs every part's starts.
            let Offsets::Packed(o) = &part.offsets else { return Err(std::io::Error::other("the object graph's list starts are not packed")) };
            w.array(&format!("graph.offsets.{k}.blocks"), &o.blocks)?;
            w.array(&format!("graph.offsets.{k}.rel"), &o.rel)?;
            w.array(&format!("graph.offsets.{k}.wide"), &o.wide)?;
            w.array(&format!("graph.targets.{k}"), &part.targets)?;
        }
        w.array("graph.root_children", &g.root_children)?;
        w.array("graph.pinned", &words(&g.pinned))?;
        w.array("graph.reachable", &words(&g.reachable))?;
        w.array("idom", &self.idom)?;
        w.array("retained", &self.retained.small)?;
        w.array("tree.top", &self.top)?;
        w.array("tree.order", &self.order)?;
        w.array("tree.order_idom", &self.order_idom)?;
        w.blob(
            "analysis",
            &Small {
                gc_root_count: g.gc_root_count,
                pinned_bits: g.pinned.len(),
                reachable_bits: g.reachable.len(),
                reachable_only: self.reachable_only,
                parts: g.out.parts().map(|(first, _)| first).collect(),
                retained_big: self.retained.big.clone(),
                dangling: g.dangling,
            },
        )
    }

    /// The analysis of `heap` from a verified cache file (arrays mapped in place); `Err` with a
    /// reason when the file does not fit the heap.
    pub fn read_cache(heap: &Heap, f: &EntryFile) -> Result<FullAnalysis, String> {
        let s: Small = f.blob("analysis").map_err(|e| e.0)?;
        let mut parts = Vec::with_capacity(s.parts.len());
        for k in 0..s.parts.len() {
            let name = format!("graph.offsets.{k}");
            let targets: heapql_heap::BigArray<u32> = f.array(&format!("graph.targets.{k}")).map_err(|e| e.0)?;
            let blocks = f.array(&format!("{name}.blocks")).map_err(|e| e.0)?;
            let rel = f.array(&format!("{name}.rel")).map_err(|e| e.0)?;
            let wide = f.array(&format!("{name}.wide")).map_err(|e| e.0)?;
            let offsets = Offsets::Packed(PackedOffsets::from_parts(blocks, rel, wide, targets.len())?);
            parts.push(Csr { offsets, targets });
        }
        let out = CsrParts::new(s.parts, parts)?;
        let nodes = heap.object_count() as usize + 1;
        let graph = ObjectGraph {
            out,
            root_children: f.array::<u32>("graph.root_children").map_err(|e| e.0)?.to_vec(),
            gc_root_count: s.gc_root_count,
            pinned: bitset(f, "graph.pinned", s.pinned_bits)?,
            reachable: bitset(f, "graph.reachable", s.reachable_bits)?,
            dangling: s.dangling,
        };
        let a = FullAnalysis {
            graph,
            idom: f.array("idom").map_err(|e| e.0)?,
            retained: RetainedSizes { small: f.array("retained").map_err(|e| e.0)?, big: s.retained_big },
            tree: OnceLock::new(),
            top: f.array::<u32>("tree.top").map_err(|e| e.0)?.to_vec(),
            order: f.array("tree.order").map_err(|e| e.0)?,
            order_idom: f.array("tree.order_idom").map_err(|e| e.0)?,
            reachable_only: s.reachable_only,
            bfs: OnceLock::new(),
            inbound: OnceLock::new(),
            scratch: heap.scratch().clone(),
        };
        let g = &a.graph;
        let fits = g.out.node_count() as usize == nodes
            && a.idom.len() == nodes
            && a.retained.small.len() == nodes
            && g.pinned.len() == nodes
            && g.reachable.len() == nodes
            && a.top.len() < nodes
            && a.top.iter().all(|&o| (o as usize) < nodes - 1)
            && a.order.len() <= nodes
            && a.order_idom.len() == a.order.len()
            && a.order.first().is_none_or(|&r| r == 0)
            && g.dangling.first.is_none_or(|r| (r.from as usize) < nodes - 1);
        if !fits {
            return Err("it does not match the heap index".into());
        }
        Ok(a)
    }

    /// The full analysis through the cache entry: the cached one when valid, else a fresh
    /// build that is then written. Cache problems become lines in `warnings`, never errors.
    pub fn build_with_cache(heap: &Heap, options: GraphOptions, entry: &Entry, warnings: &mut Vec<String>) -> Result<(FullAnalysis, CacheUse), HeapError> {
        FullAnalysis::build_with_cache_beside(heap, options, entry, warnings, ShallowSizes(heap)).map(|(a, used, _)| (a, used))
    }

    /// `build_with_cache` with `build_beside`'s `beside`, run only when the analysis is built
    /// (`None` when it came from the cache).
    pub fn build_with_cache_beside<P: PassBeside>(
        heap: &Heap,
        options: GraphOptions,
        entry: &Entry,
        warnings: &mut Vec<String>,
        beside: P,
    ) -> Result<(FullAnalysis, CacheUse, Option<P::Out>), HeapError> {
        let reachable_only = options.reachable_only;
        let cancel = options.cancel.clone();
        let entry = entry.watched(heapql_heap::cache_watch(&options.progress, &options.cancel));
        let mut side = None;
        let (a, used) = entry.load_or_build(
            "analysis",
            options_key(&options),
            warnings,
            |f| FullAnalysis::read_cache(heap, f).and_then(|a| if a.reachable_only == reachable_only { Ok(a) } else { Err("made with other options".into()) }),
            // Not written when a read of the dump faulted meanwhile (its reads gave zeros).
            || {
                let (a, r) = FullAnalysis::build_beside(heap, options, beside)?;
                heap.check_dump_unchanged()?;
                side = Some(r);
                Ok::<_, HeapError>(a)
            },
            |a, w| a.write_cache(w),
        )?;
        heapql_heap::stop_if_cancelled(&cancel)?;
        Ok((a, used, side))
    }
}
