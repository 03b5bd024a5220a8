//! Compressed sparse row adjacency: one offsets array and one targets array, no per-node
//! allocation. The object graph's lists (`SequentialCsrBuilder`) have their starts packed in
//! 1.5 bytes per node (`packed_offsets`); those made from an edge stream (`from_edges`,
//! `from_counts`) have `u32` offsets while the edge count fits, `u64` beyond (so a graph with
//! more than 4 G edges still works, at 4 more bytes per node). The arrays are `BigArray`s: the
//! object graph's live in scratch files when the heap was opened with one (see
//! `heapql_scratch`).

use crate::packed_offsets::{PackedOffsets, PackedOffsetsAppender};
use heapql_heap::{BigArray, Placement};
use heapql_scratch::SpillFile;

/// Offsets of the adjacency lists: `offsets[v]..offsets[v + 1]` indexes `targets`.
#[derive(Debug)]
pub(crate) enum Offsets {
    U32(BigArray<u32>),
    U64(BigArray<u64>),
    /// The object graph's (`SequentialCsrBuilder`): read at random by the dominator search.
    Packed(PackedOffsets),
}

impl Offsets {
    /// Start and end of list `i`.
    #[inline]
    fn range(&self, i: usize) -> (usize, usize) {
        match self {
            Offsets::U32(o) => (o[i] as usize, o[i + 1] as usize),
            Offsets::U64(o) => (o[i] as usize, o[i + 1] as usize),
            Offsets::Packed(o) => o.range(i),
        }
    }
    fn len(&self) -> usize {
        match self {
            Offsets::U32(o) => o.len(),
            Offsets::U64(o) => o.len(),
            Offsets::Packed(o) => o.len(),
        }
    }
    fn heap_bytes(&self) -> usize {
        match self {
            Offsets::U32(o) => o.heap_bytes(),
            Offsets::U64(o) => o.heap_bytes(),
            Offsets::Packed(o) => o.heap_bytes(),
        }
    }
    fn file_bytes(&self) -> usize {
        match self {
            Offsets::U32(o) => o.file_bytes(),
            Offsets::U64(o) => o.file_bytes(),
            Offsets::Packed(o) => o.file_bytes(),
        }
    }
}

/// A directed graph over nodes `0..node_count()` as compressed sparse rows.
#[derive(Debug)]
pub struct Csr {
    pub(crate) offsets: Offsets,
    pub(crate) targets: BigArray<u32>,
}

impl Csr {
    /// Builds from an edge stream in two passes (count, then fill). `produce` is called twice
    /// and must emit the same `(from, to)` edges both times, in any order; each node's list
    /// keeps the order of emission. Memory: the final arrays only.
    pub fn from_edges<F>(node_count: u32, produce: F) -> Csr
    where
        F: FnMut(&mut dyn FnMut(u32, u32)),
    {
        Csr::from_edges_in(node_count, &Placement::Memory, produce)
    }

    /// `from_edges` with the result's arrays placed by `place`.
    pub fn from_edges_in<F>(node_count: u32, place: &Placement, mut produce: F) -> Csr
    where
        F: FnMut(&mut dyn FnMut(u32, u32)),
    {
        let n = node_count as usize;
        let mut counts = vec![0u32; n + 1];
        produce(&mut |from, to| {
            debug_assert!((to as usize) < n, "edge target {to} out of range");
            counts[from as usize] += 1;
        });
        Csr::from_counts_in(counts, place, produce)
    }

    /// Second half of `from_edges` when the out-degrees are already known: `counts[v]` is v's
    /// out-degree (`counts.len()` = node count + 1, last entry 0); `produce` emits exactly
    /// those edges. The counts array becomes the offsets (no extra copy while edges fit u32).
    pub fn from_counts<F>(counts: Vec<u32>, produce: F) -> Csr
    where
        F: FnMut(&mut dyn FnMut(u32, u32)),
    {
        Csr::from_counts_in(counts, &Placement::Memory, produce)
    }

    /// `from_counts` with the result's arrays placed by `place` (the targets from the start,
    /// the offsets once filled: they are written at random while filling).
    pub fn from_counts_in<F>(counts: Vec<u32>, place: &Placement, mut produce: F) -> Csr
    where
        F: FnMut(&mut dyn FnMut(u32, u32)),
    {
        let (starts, total) = starts_from_counts(counts);
        let mut targets: BigArray<u32> = BigArray::zeroed(total as usize, place);
        let offsets = match starts {
            Starts::U32(mut starts) => {
                fill(&mut starts, &mut targets, total, &mut produce);
                Offsets::U32(BigArray::from_vec(starts, place))
            }
            Starts::U64(mut starts) => {
                fill(&mut starts, &mut targets, total, &mut produce);
                Offsets::U64(BigArray::from_vec(starts, place))
            }
        };
        Csr { offsets, targets }
    }

    /// The graph with every edge reversed (inbound adjacency), built in two passes.
    pub fn transpose(&self) -> Csr {
        Csr::from_edges(self.node_count(), |emit| {
            for v in 0..self.node_count() {
                for &t in self.successors(v) {
                    emit(t, v);
                }
            }
        })
    }

    #[inline]
    pub fn node_count(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    #[inline]
    pub fn edge_count(&self) -> u64 {
        self.targets.len() as u64
    }

    #[inline]
    pub fn successors(&self, v: u32) -> &[u32] {
        let (start, end) = self.offsets.range(v as usize);
        &self.targets[start..end]
    }

    /// Lets the caller reorder each adjacency list in place (e.g. sort children by size).
    pub fn for_each_list_mut<F: FnMut(u32, &mut [u32])>(&mut self, mut f: F) {
        for v in 0..self.node_count() {
            let (a, b) = self.offsets.range(v as usize);
            f(v, &mut self.targets[a..b]);
        }
    }

    /// Bytes of anonymous memory held by this graph.
    pub fn heap_bytes(&self) -> usize {
        self.offsets.heap_bytes() + self.targets.heap_bytes()
    }

    /// Bytes of scratch files held by this graph.
    pub fn file_bytes(&self) -> usize {
        self.offsets.file_bytes() + self.targets.file_bytes()
    }
}

/// Adjacency lists made in consecutive node ranges, one `Csr` per range, as a parallel build
/// makes them: never joined into one, since a join copies every part after the first (on
/// bench-4g 0.8 s of writing into the first part's scratch file, paced by the disk once the
/// dirty pages pile up). A node's list is found in its range's part (up to one part per core:
/// a few comparisons).
#[derive(Debug)]
pub struct CsrParts {
    /// First node of each part, ascending, the first 0.
    firsts: Vec<u32>,
    /// Each part's lists, its first node's at 0; targets are node ids of the whole graph.
    parts: Vec<Csr>,
}

impl CsrParts {
    /// The parts of nodes `firsts[k]..firsts[k + 1]` (the last to the end), in order; `Err`
    /// says why they do not make one graph (no part, a first node other than 0, a part that
    /// does not end where the next begins).
    pub fn new(firsts: Vec<u32>, parts: Vec<Csr>) -> Result<CsrParts, String> {
        if parts.is_empty() || firsts.len() != parts.len() || firsts[0] != 0 {
            return Err(format!("{} first nodes for {} parts, the first must be 0", firsts.len(), parts.len()));
        }
        for (k, w) in firsts.windows(2).enumerate() {
            if w[0].checked_add(parts[k].node_count()) != Some(w[1]) {
                return Err(format!("part {k} of the graph's lists does not end where the next begins"));
            }
        }
        Ok(CsrParts { firsts, parts })
    }

    /// The parts, with their first nodes.
    pub fn parts(&self) -> impl Iterator<Item = (u32, &Csr)> {
        self.firsts.iter().copied().zip(&self.parts)
    }

    #[inline]
    pub fn node_count(&self) -> u32 {
        let last = self.parts.len() - 1;
        self.firsts[last] + self.parts[last].node_count()
    }

    pub fn edge_count(&self) -> u64 {
        self.parts.iter().map(Csr::edge_count).sum()
    }

    #[inline]
    pub fn successors(&self, v: u32) -> &[u32] {
        let k = self.firsts.partition_point(|&f| f <= v) - 1;
        self.parts[k].successors(v - self.firsts[k])
    }

    /// Bytes of anonymous memory held by the lists.
    pub fn heap_bytes(&self) -> usize {
        self.parts.iter().map(Csr::heap_bytes).sum()
    }

    /// Bytes of scratch files held by the lists.
    pub fn file_bytes(&self) -> usize {
        self.parts.iter().map(Csr::file_bytes).sum()
    }
}

/// Adjacency lists where most nodes have none (a dominator tree: most objects dominate
/// nothing): offsets are kept only for nodes with a list, found through a bitmap with a rank
/// per 64 nodes. Memory: 4 B per edge, 4 B per non-empty list, 0.19 B per node.
#[derive(Debug)]
pub struct SparseCsr {
    /// Bit v: node v has a non-empty list.
    pub(crate) words: Vec<u64>,
    /// Number of non-empty lists before each word.
    pub(crate) rank: Vec<u32>,
    /// Start of the k-th non-empty list in `targets` (one more entry for the end).
    pub(crate) starts: BigArray<u32>,
    pub(crate) targets: BigArray<u32>,
}

impl SparseCsr {
    /// Builds from an edge stream in three passes (sources, counts, fill); `produce` must emit
    /// the same `(from, to)` edges each time, each list keeps the order of emission. Memory:
    /// the final arrays only (no offset per node). At most `u32::MAX` edges.
    pub fn from_edges<F>(node_count: u32, produce: F) -> SparseCsr
    where
        F: FnMut(&mut dyn FnMut(u32, u32)),
    {
        SparseCsr::from_edges_in(node_count, &Placement::Memory, produce)
    }

    /// `from_edges` with the lists placed by `place`.
    pub fn from_edges_in<F>(node_count: u32, place: &Placement, mut produce: F) -> SparseCsr
    where
        F: FnMut(&mut dyn FnMut(u32, u32)),
    {
        let n = node_count as usize;
        let mut words = vec![0u64; n.div_ceil(64)];
        produce(&mut |from, _| words[from as usize / 64] |= 1 << (from % 64));
        let mut rank = vec![0u32; words.len()];
        let mut lists = 0u32;
        for (r, w) in rank.iter_mut().zip(&words) {
            *r = lists;
            lists += w.count_ones();
        }
        let index = |v: u32| {
            let (w, bit) = (v as usize / 64, v % 64);
            rank[w] + (words[w] & ((1u64 << bit) - 1)).count_ones()
        };
        let mut counts = vec![0u32; lists as usize + 1];
        produce(&mut |from, _| counts[index(from) as usize] += 1);
        assert!(counts.iter().map(|&c| c as u64).sum::<u64>() <= u32::MAX as u64, "too many edges for a sparse adjacency");
        let dense = Csr::from_counts_in(counts, place, |emit| produce(&mut |from, to| emit(index(from), to)));
        let Offsets::U32(starts) = dense.offsets else { unreachable!("edges fit u32") };
        SparseCsr { words, rank, starts, targets: dense.targets }
    }

    /// Lets the caller reorder each non-empty list in place.
    pub fn for_each_list_mut<F: FnMut(&mut [u32])>(&mut self, mut f: F) {
        for k in 0..self.starts.len() - 1 {
            f(&mut self.targets[self.starts[k] as usize..self.starts[k + 1] as usize]);
        }
    }

    #[inline]
    pub fn successors(&self, v: u32) -> &[u32] {
        let (w, bit) = (v as usize / 64, v % 64);
        let word = self.words[w];
        if word >> bit & 1 == 0 {
            return &[];
        }
        let k = self.rank[w] as usize + (word & ((1u64 << bit) - 1)).count_ones() as usize;
        &self.targets[self.starts[k] as usize..self.starts[k + 1] as usize]
    }

    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8 + self.rank.capacity() * 4 + self.starts.heap_bytes() + self.targets.heap_bytes()
    }

    pub fn file_bytes(&self) -> usize {
        self.starts.file_bytes() + self.targets.file_bytes()
    }
}

/// Start of each list, from the lists' lengths.
pub(crate) enum Starts {
    U32(Vec<u32>),
    U64(Vec<u64>),
}

/// Exclusive prefix sums of `counts` (one entry per list, then a 0 for the end): in place
/// while the total fits `u32` (no second array), else in a new `u64` array. Also the total.
pub(crate) fn starts_from_counts(mut counts: Vec<u32>) -> (Starts, u64) {
    let total: u64 = counts.iter().map(|&c| c as u64).sum();
    if total <= u32::MAX as u64 {
        let mut sum = 0u32;
        for c in counts.iter_mut() {
            let d = *c;
            *c = sum;
            sum += d;
        }
        (Starts::U32(counts), total)
    } else {
        let mut starts = vec![0u64; counts.len()];
        let mut sum = 0u64;
        for (s, &c) in starts.iter_mut().zip(counts.iter()) {
            *s = sum;
            sum += c as u64;
        }
        (Starts::U64(starts), total)
    }
}

/// Second pass of `from_edges`: `starts[v]` is used as v's write cursor, so afterwards it holds
/// the end of v's list (= the start of v + 1); one shift restores the starts.
pub(crate) fn fill<O, F>(starts: &mut [O], targets: &mut [u32], total: u64, produce: &mut F)
where
    O: Copy + Default + Into<u64> + TryFrom<u64>,
    F: FnMut(&mut dyn FnMut(u32, u32)),
{
    let mut written = 0u64;
    produce(&mut |from, to| {
        let cursor: u64 = starts[from as usize].into();
        assert!(written < total, "edge stream changed between the two passes");
        targets[cursor as usize] = to;
        starts[from as usize] = O::try_from(cursor + 1).ok().expect("offset fits");
        written += 1;
    });
    assert_eq!(written, total, "edge stream changed between the two passes");
    for v in (1..starts.len()).rev() {
        starts[v] = starts[v - 1];
    }
    starts[0] = O::default();
}

/// Builds a CSR whose edges arrive grouped by source in increasing node order (one pass, the
/// targets array grows like a Vec; reserve with an upper bound to avoid regrowth), with its
/// offsets packed (`PackedOffsets`, written out a block at a time). Built `in_files`, the
/// finished lists leave memory every few megabytes for a scratch file that is mapped back at
/// the end: only the buffer and the list being built stay in anonymous memory.
pub struct SequentialCsrBuilder {
    /// Starts of the lists closed so far; the last is the start of the list being built.
    offsets: PackedOffsetsAppender,
    /// Targets not spilled (all of them in memory).
    targets: Vec<u32>,
    /// The targets written out before `targets`' first.
    spill: Option<SpillFile<u32>>,
}

/// Edges buffered before a spilling builder writes them out (4 MiB).
const SPILL_EDGES: usize = 1 << 20;

impl SequentialCsrBuilder {
    pub fn new(node_capacity: u32, edge_capacity: u64) -> Self {
        let mut offsets = PackedOffsetsAppender::new(node_capacity as usize + 1, &Placement::Memory);
        offsets.push(0);
        SequentialCsrBuilder { offsets, targets: Vec::with_capacity(edge_capacity as usize), spill: None }
    }

    /// A builder whose finished lists and offsets go to scratch files in `place` (`new` for
    /// `Placement::Memory`, or when the files cannot be made).
    pub fn new_in(node_capacity: u32, edge_capacity: u64, place: &Placement) -> Self {
        let Placement::Files(dir) = place else { return Self::new(node_capacity, edge_capacity) };
        let Ok(targets) = SpillFile::create(dir) else { return Self::new(node_capacity, edge_capacity) };
        let mut offsets = PackedOffsetsAppender::new(node_capacity as usize + 1, place);
        offsets.push(0);
        SequentialCsrBuilder { offsets, targets: Vec::with_capacity(SPILL_EDGES + 4096), spill: Some(targets) }
    }

    /// Edges written out before the buffer's first.
    #[inline]
    fn spilled(&self) -> usize {
        self.spill.as_ref().map_or(0, |s| s.len())
    }

    #[inline]
    pub fn push_edge(&mut self, to: u32) {
        self.targets.push(to);
    }

    /// Number of edges pushed for the node being built.
    #[inline]
    pub fn pending(&self) -> &[u32] {
        let start = self.offsets.last() as usize - self.spilled();
        &self.targets[start..]
    }

    /// Sorts the current node's list after its first `keep` entries and drops duplicates there.
    pub fn sort_dedup_pending(&mut self, keep: usize) {
        let start = self.offsets.last() as usize - self.spilled() + keep;
        if self.targets.len() > start + 1 {
            self.targets[start..].sort_unstable();
            let mut w = start + 1;
            for r in start + 1..self.targets.len() {
                if self.targets[r] != self.targets[w - 1] {
                    self.targets[w] = self.targets[r];
                    w += 1;
                }
            }
            self.targets.truncate(w);
        }
    }

    /// Closes the current node's list; the next edges belong to the next node.
    pub fn finish_node(&mut self) {
        self.offsets.push((self.spilled() + self.targets.len()) as u64);
        if self.targets.len() >= SPILL_EDGES && self.spill.is_some() && self.write_out().is_err() {
            // No room left for the file: go on in memory, as `BigArray` does.
            self.unspill();
        }
    }

    /// Writes the buffered targets (those of closed lists and of the one being built) to the
    /// file. What the file took leaves memory at once, so that a failure half way reads back
    /// the file's values followed by those still buffered.
    fn write_out(&mut self) -> std::io::Result<()> {
        let Some(spill) = &mut self.spill else { return Ok(()) };
        spill.append(&self.targets)?;
        self.targets.clear();
        Ok(())
    }

    /// Reads what was spilled back in front of the buffer and goes on in memory.
    fn unspill(&mut self) {
        let Some(spill) = self.spill.take() else { return };
        let mut all = spill.into_vec().unwrap_or_else(|e| panic!("cannot read back the object graph's scratch file ({e})"));
        all.extend_from_slice(&self.targets);
        self.targets = all;
    }

    /// Nodes finished so far.
    pub fn node_count(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    pub fn finish(mut self) -> Csr {
        if self.spill.is_some() {
            let mapped = self.write_out().and_then(|_| self.spill.as_ref().expect("spilling").map());
            match mapped {
                Ok(targets) => return Csr { offsets: Offsets::Packed(self.offsets.finish()), targets },
                Err(_) => self.unspill(),
            }
        }
        self.targets.shrink_to_fit();
        Csr { offsets: Offsets::Packed(self.offsets.finish()), targets: self.targets.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_pass_keeps_emission_order_and_transposes() {
        let edges = [(0u32, 2u32), (2, 1), (0, 1), (2, 2), (0, 2)];
        let g = Csr::from_edges(4, |emit| {
            for &(a, b) in &edges {
                emit(a, b)
            }
        });
        assert_eq!(g.node_count(), 4);
        assert_eq!(g.edge_count(), 5);
        assert_eq!(g.successors(0), &[2, 1, 2]);
        assert_eq!(g.successors(1), &[] as &[u32]);
        assert_eq!(g.successors(2), &[1, 2]);
        assert_eq!(g.successors(3), &[] as &[u32]);
        let t = g.transpose();
        assert_eq!(t.successors(1), &[0, 2]);
        assert_eq!(t.successors(2), &[0, 0, 2]);
        assert_eq!(t.successors(0), &[] as &[u32]);
    }

    #[test]
    fn sparse_lists_match_the_full_ones() {
        // Lists around the 64-node word boundaries, empty first and last nodes.
        let n = 200u32;
        let g = Csr::from_edges(n, |emit| {
            for v in [1u32, 2, 63, 64, 65, 127, 128, 190] {
                for t in 0..(v % 5 + 1) {
                    emit(v, (v + t) % n);
                }
            }
        });
        let s = SparseCsr::from_edges(n, |emit| {
            for v in [1u32, 2, 63, 64, 65, 127, 128, 190] {
                for t in 0..(v % 5 + 1) {
                    emit(v, (v + t) % n);
                }
            }
        });
        for v in 0..n {
            assert_eq!(s.successors(v), g.successors(v), "node {v}");
        }
        let empty = SparseCsr::from_edges(3, |_| {});
        assert_eq!(empty.successors(2), &[] as &[u32]);
    }

    #[test]
    fn spilling_builder_matches_the_one_in_memory() {
        // Enough edges for several spills, lists of every length from 0 to 9, some crossing a
        // spill boundary, and now and then one of 300 (its block of offsets is a wide one).
        let (_dir, place) = scratch_files();
        let nodes = 700_000u32;
        let (mut mem, mut files) = (SequentialCsrBuilder::new(nodes, 0), SequentialCsrBuilder::new_in(nodes, 0, &place));
        // A third one goes back to memory half way, as when the disk fills up.
        let mut back = SequentialCsrBuilder::new_in(nodes, 0, &place);
        for v in 0..nodes {
            if v == nodes / 2 {
                assert!(back.spill.as_ref().is_some_and(|s| !s.is_empty()), "spilled before");
                back.unspill();
            }
            let len = if v % 1000 == 999 { 300 } else { v % 10 };
            for b in [&mut mem, &mut files, &mut back] {
                for t in 0..len {
                    b.push_edge(v.wrapping_mul(2654435761) ^ t);
                }
                b.sort_dedup_pending(1);
                b.finish_node();
            }
        }
        assert_eq!(files.node_count(), nodes);
        let (mem, files, back) = (mem.finish(), files.finish(), back.finish());
        assert!(!back.targets.is_mapped());
        assert!(files.edge_count() > 2 * SPILL_EDGES as u64, "the test spills");
        assert!(files.targets.is_mapped() && files.heap_bytes() == 0);
        let Offsets::Packed(packed) = &files.offsets else { panic!("packed offsets") };
        assert!(!packed.wide.is_empty(), "the test makes wide blocks");
        // 1.5 bytes per list and the wide blocks' 8 per start.
        assert!(files.offsets.file_bytes() < (nodes as usize + 1) * 3 / 2 + 8 + packed.wide.len() * 8 + 3 * 4096);
        assert_same_lists(&files, &mem);
        assert_same_lists(&back, &mem);
        // Every list as long as the edges pushed (distinct within a list: none dropped).
        for v in 0..nodes {
            let len = if v % 1000 == 999 { 300 } else { v % 10 };
            assert_eq!(mem.successors(v).len(), len as usize, "node {v}");
        }
    }

    /// Nodes of the parts tests' graph (`build_part`).
    const PART_TEST_NODES: u32 = 700_000;

    /// The lists of nodes `lo..hi` of the parts tests' graph (0-9 edges each) into `b`.
    fn build_part(lo: u32, hi: u32, b: &mut SequentialCsrBuilder) {
        for v in lo..hi {
            for t in 0..v % 10 {
                b.push_edge(v.wrapping_mul(2654435761) ^ t);
            }
            b.finish_node();
        }
    }

    /// A scratch directory (kept while the first value lives) and its placement.
    fn scratch_files() -> (tempfile::TempDir, Placement) {
        let dir = tempfile::tempdir().unwrap();
        let files = Placement::Files(std::sync::Arc::from(dir.path()));
        (dir, files)
    }

    /// `got` holds the lists of `want`, node by node.
    fn assert_same_lists(got: &Csr, want: &Csr) {
        assert_eq!((got.node_count(), got.edge_count()), (want.node_count(), want.edge_count()));
        for v in 0..want.node_count() {
            assert_eq!(got.successors(v), want.successors(v), "node {v}");
        }
    }

    /// The parts tests' graph made by one builder in memory.
    fn one_builder() -> Csr {
        let mut one = SequentialCsrBuilder::new(PART_TEST_NODES, 0);
        build_part(0, PART_TEST_NODES, &mut one);
        one.finish()
    }

    #[test]
    fn parts_made_apart_match_one_builder() {
        // Parts of a parallel build (one node, an empty one, several spills), never joined,
        // hold the lists one builder makes.
        let (_dir, files) = scratch_files();
        let one = one_builder();
        let cuts = [0, 1, 300_000, 300_000, 650_000, PART_TEST_NODES];
        for place in [&Placement::Memory, &files] {
            let parts: Vec<Csr> = cuts
                .windows(2)
                .map(|w| {
                    let mut b = SequentialCsrBuilder::new_in(w[1] - w[0], 0, place);
                    build_part(w[0], w[1], &mut b);
                    b.finish()
                })
                .collect();
            assert!(parts.iter().all(|p| p.edge_count() == 0 || p.targets.is_mapped() == (place == &files)), "placement");
            let firsts = cuts[..cuts.len() - 1].to_vec();
            let mut shifted = firsts.clone();
            shifted[2] += 1;
            assert!(CsrParts::new(vec![], vec![]).is_err(), "no part");
            let g = CsrParts::new(firsts, parts).unwrap();
            // Parts that do not follow each other are refused (a cache file read back).
            assert!(CsrParts::new(shifted, g.parts.iter().map(|p| Csr::from_edges(p.node_count(), |_| {})).collect()).is_err());
            assert_eq!((g.node_count(), g.edge_count()), (one.node_count(), one.edge_count()));
            for v in 0..one.node_count() {
                assert_eq!(g.successors(v), one.successors(v), "node {v}");
            }
        }
    }

    #[test]
    fn sequential_builder_matches_two_pass() {
        let mut b = SequentialCsrBuilder::new(3, 4);
        b.push_edge(1);
        b.push_edge(2);
        b.push_edge(2);
        b.push_edge(1);
        b.sort_dedup_pending(1);
        assert_eq!(b.pending(), &[1, 1, 2]);
        b.sort_dedup_pending(0);
        assert_eq!(b.pending(), &[1, 2]);
        b.finish_node();
        b.finish_node();
        b.push_edge(0);
        b.finish_node();
        let g = b.finish();
        assert_eq!(g.node_count(), 3);
        assert_eq!(g.successors(0), &[1, 2]);
        assert_eq!(g.successors(1), &[] as &[u32]);
        assert_eq!(g.successors(2), &[0]);
    }
}
