//! Compressed sparse row adjacency: one offsets array and one targets array, no per-node
//! allocation. Offsets are `u32` while the edge count fits, `u64` beyond (so a graph with more
//! than 4 G edges still works, at 4 more bytes per node). The arrays are `BigArray`s: the
//! object graph's live in scratch files when the heap was opened with one (see
//! `heapql_scratch`).

use heapql_heap::{BigArray, Placement};
use heapql_scratch::SpillFile;

/// Offsets of the adjacency lists: `offsets[v]..offsets[v + 1]` indexes `targets`.
#[derive(Debug)]
pub(crate) enum Offsets {
    U32(BigArray<u32>),
    U64(BigArray<u64>),
}

impl Offsets {
    #[inline]
    fn get(&self, i: usize) -> usize {
        match self {
            Offsets::U32(o) => o[i] as usize,
            Offsets::U64(o) => o[i] as usize,
        }
    }
    fn len(&self) -> usize {
        match self {
            Offsets::U32(o) => o.len(),
            Offsets::U64(o) => o.len(),
        }
    }
    fn heap_bytes(&self) -> usize {
        match self {
            Offsets::U32(o) => o.heap_bytes(),
            Offsets::U64(o) => o.heap_bytes(),
        }
    }
    fn file_bytes(&self) -> usize {
        match self {
            Offsets::U32(o) => o.file_bytes(),
            Offsets::U64(o) => o.file_bytes(),
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
        let v = v as usize;
        &self.targets[self.offsets.get(v)..self.offsets.get(v + 1)]
    }

    /// Joins graphs over consecutive node ranges (part k's node 0 follows part k-1's last node)
    /// into one placed by `place`; targets are kept as they are. Each part is freed once
    /// copied, so the parts and the result overlap by one part at most (plus the result's
    /// own arrays, which with `Placement::Files` are page cache, not process memory).
    pub fn concat(parts: Vec<Csr>, place: &Placement) -> Csr {
        let total: u64 = parts.iter().map(|p| p.edge_count()).sum();
        let nodes: usize = 1 + parts.iter().map(|p| p.offsets.len() - 1).sum::<usize>();
        let mut targets: BigArray<u32> = BigArray::zeroed(total as usize, place);
        let mut offsets = if total <= u32::MAX as u64 {
            Offsets::U32(BigArray::zeroed(nodes, place))
        } else {
            Offsets::U64(BigArray::zeroed(nodes, place))
        };
        let (mut node, mut base) = (1usize, 0u64);
        for part in parts {
            for v in 1..part.offsets.len() {
                let end = base + part.offsets.get(v) as u64;
                match &mut offsets {
                    Offsets::U32(o) => o[node] = end as u32,
                    Offsets::U64(o) => o[node] = end,
                }
                node += 1;
            }
            let n = part.targets.len();
            targets[base as usize..base as usize + n].copy_from_slice(&part.targets);
            base += n as u64;
        }
        Csr { offsets, targets }
    }

    /// Lets the caller reorder each adjacency list in place (e.g. sort children by size).
    pub fn for_each_list_mut<F: FnMut(u32, &mut [u32])>(&mut self, mut f: F) {
        for v in 0..self.node_count() {
            let (a, b) = (self.offsets.get(v as usize), self.offsets.get(v as usize + 1));
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
/// targets array grows like a Vec; reserve with an upper bound to avoid regrowth). Built
/// `in_files`, the finished lists leave memory every few megabytes for two unlinked scratch
/// files that are mapped back at the end: only the buffer and the list being built stay in
/// anonymous memory.
pub struct SequentialCsrBuilder {
    /// Ends of the lists not yet spilled (absolute: edges spilled before included); the last
    /// entry is the start of the list being built.
    offsets: BuildOffsets,
    targets: Vec<u32>,
    spill: Option<Spill>,
}

/// A spilling builder's files: finished targets, and the offsets before the buffered ones.
struct Spill {
    targets: SpillFile<u32>,
    offsets: SpillFile<u64>,
}

/// Edges buffered before a spilling builder writes them out (4 MiB).
const SPILL_EDGES: usize = 1 << 20;

/// The values of one of a spilling builder's files.
fn read_back<T: heapql_scratch::Plain>(file: SpillFile<T>) -> Vec<T> {
    file.into_vec().unwrap_or_else(|e| panic!("cannot read back the object graph's scratch file ({e})"))
}

impl BuildOffsets {
    #[inline]
    fn last(&self) -> usize {
        match self {
            BuildOffsets::U32(o) => o[o.len() - 1] as usize,
            BuildOffsets::U64(o) => o[o.len() - 1] as usize,
        }
    }
    fn len(&self) -> usize {
        match self {
            BuildOffsets::U32(o) => o.len(),
            BuildOffsets::U64(o) => o.len(),
        }
    }
}

/// The builder's growing offsets (`Offsets` once finished).
enum BuildOffsets {
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl SequentialCsrBuilder {
    pub fn new(node_capacity: u32, edge_capacity: u64) -> Self {
        let mut o = Vec::with_capacity(node_capacity as usize + 1);
        o.push(0u32);
        let offsets = if edge_capacity <= u32::MAX as u64 {
            BuildOffsets::U32(o)
        } else {
            let mut o = Vec::with_capacity(node_capacity as usize + 1);
            o.push(0u64);
            BuildOffsets::U64(o)
        };
        SequentialCsrBuilder { offsets, targets: Vec::with_capacity(edge_capacity as usize), spill: None }
    }

    /// A builder whose finished lists go to scratch files in `place` (`new` for
    /// `Placement::Memory`, or when the files cannot be made). Offsets are `u64` in the files.
    pub fn new_in(node_capacity: u32, edge_capacity: u64, place: &Placement) -> Self {
        let Placement::Files(dir) = place else { return Self::new(node_capacity, edge_capacity) };
        let (Ok(targets), Ok(offsets)) = (SpillFile::create(dir), SpillFile::create(dir)) else {
            return Self::new(node_capacity, edge_capacity);
        };
        SequentialCsrBuilder {
            offsets: BuildOffsets::U64(vec![0]),
            targets: Vec::with_capacity(SPILL_EDGES + 4096),
            spill: Some(Spill { targets, offsets }),
        }
    }

    /// Edges written out before the buffer's first.
    #[inline]
    fn spilled(&self) -> usize {
        self.spill.as_ref().map_or(0, |s| s.targets.len())
    }

    #[inline]
    pub fn push_edge(&mut self, to: u32) {
        self.targets.push(to);
    }

    /// Number of edges pushed for the node being built.
    #[inline]
    pub fn pending(&self) -> &[u32] {
        let start = self.offsets.last() - self.spilled();
        &self.targets[start..]
    }

    /// Sorts the current node's list after its first `keep` entries and drops duplicates there.
    pub fn sort_dedup_pending(&mut self, keep: usize) {
        let start = self.offsets.last() - self.spilled() + keep;
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
        let end = (self.spilled() + self.targets.len()) as u64;
        match &mut self.offsets {
            BuildOffsets::U32(o) => {
                if end <= u32::MAX as u64 {
                    o.push(end as u32);
                } else {
                    let mut wide: Vec<u64> = Vec::with_capacity(o.capacity());
                    wide.extend(o.iter().map(|&x| x as u64));
                    wide.push(end);
                    self.offsets = BuildOffsets::U64(wide);
                }
            }
            BuildOffsets::U64(o) => o.push(end),
        }
        if self.targets.len() >= SPILL_EDGES {
            if let (Some(spill), BuildOffsets::U64(o)) = (&mut self.spill, &mut self.offsets) {
                // What a file took leaves memory at once, so that a failure half way reads
                // back each file's values followed by those still buffered.
                let finished = o.len() - 1;
                let written = spill.targets.append(&self.targets).map(|_| self.targets.clear()).and_then(|_| {
                    spill.offsets.append(&o[..finished])?;
                    o.drain(..finished);
                    Ok(())
                });
                if written.is_err() {
                    // No room left for the files: go on in memory, as `BigArray` does.
                    self.unspill();
                }
            }
        }
    }

    /// Reads what was spilled back in front of the buffers and goes on in memory.
    fn unspill(&mut self) {
        let (Some(spill), BuildOffsets::U64(o)) = (self.spill.take(), &mut self.offsets) else { return };
        let mut targets = read_back(spill.targets);
        targets.extend_from_slice(&self.targets);
        self.targets = targets;
        let mut offsets = read_back(spill.offsets);
        offsets.extend_from_slice(o);
        *o = offsets;
    }

    /// Nodes finished so far.
    pub fn node_count(&self) -> u32 {
        (self.spill.as_ref().map_or(0, |s| s.offsets.len()) + self.offsets.len() - 1) as u32
    }

    pub fn finish(mut self) -> Csr {
        if let (Some(spill), BuildOffsets::U64(o)) = (&mut self.spill, &mut self.offsets) {
            // As in `finish_node`: what a file took leaves memory.
            let mapped = spill.targets.append(&self.targets).map(|_| self.targets.clear()).and_then(|_| {
                spill.offsets.append(o)?;
                o.clear();
                Ok((spill.offsets.map()?, spill.targets.map()?))
            });
            match mapped {
                Ok((offsets, targets)) => return Csr { offsets: Offsets::U64(offsets), targets },
                Err(_) => self.unspill(),
            }
        }
        self.targets.shrink_to_fit();
        let offsets = match self.offsets {
            BuildOffsets::U32(o) => Offsets::U32(o.into()),
            BuildOffsets::U64(o) => Offsets::U64(o.into()),
        };
        Csr { offsets, targets: self.targets.into() }
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
    fn concat_joins_node_ranges() {
        // Parts of a parallel build: local sources, global targets (so from_counts, which
        // does not check targets against the part's own node count).
        let a = Csr::from_counts(vec![1, 1, 0], |emit| {
            emit(0, 3);
            emit(1, 0);
        });
        let b = Csr::from_counts(vec![0, 2, 0], |emit| {
            emit(1, 1);
            emit(1, 2);
        });
        let g = Csr::concat(vec![a, b], &Placement::Memory);
        assert_eq!(g.node_count(), 4);
        assert_eq!(g.successors(0), &[3]);
        assert_eq!(g.successors(1), &[0]);
        assert_eq!(g.successors(2), &[] as &[u32]);
        assert_eq!(g.successors(3), &[1, 2]);
    }

    #[test]
    fn spilling_builder_matches_the_one_in_memory() {
        // Enough edges for several spills, lists of every length from 0 to 9, some crossing a
        // spill boundary.
        let dir = tempfile::tempdir().unwrap();
        let place = Placement::Files(std::sync::Arc::from(dir.path()));
        let nodes = 700_000u32;
        let (mut mem, mut files) = (SequentialCsrBuilder::new(nodes, 0), SequentialCsrBuilder::new_in(nodes, 0, &place));
        // A third one goes back to memory half way, as when the disk fills up.
        let mut back = SequentialCsrBuilder::new_in(nodes, 0, &place);
        for v in 0..nodes {
            if v == nodes / 2 {
                assert!(back.spill.as_ref().is_some_and(|s| !s.targets.is_empty()), "spilled before");
                back.unspill();
            }
            for b in [&mut mem, &mut files, &mut back] {
                for t in 0..v % 10 {
                    b.push_edge(v.wrapping_mul(2654435761) ^ t);
                }
                b.sort_dedup_pending(1);
                b.finish_node();
            }
        }
        assert_eq!(files.node_count(), nodes);
        let (mem, files, back) = (mem.finish(), files.finish(), back.finish());
        assert!(!back.targets.is_mapped());
        assert_eq!((back.node_count(), back.edge_count()), (mem.node_count(), mem.edge_count()));
        assert!(files.edge_count() > 2 * SPILL_EDGES as u64, "the test spills");
        assert!(files.targets.is_mapped() && files.heap_bytes() == 0);
        assert_eq!((files.node_count(), files.edge_count()), (mem.node_count(), mem.edge_count()));
        for v in 0..nodes {
            assert_eq!(files.successors(v), mem.successors(v), "node {v}");
            assert_eq!(back.successors(v), mem.successors(v), "node {v}");
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
