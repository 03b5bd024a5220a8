//! The dense object index: objects numbered in id order, 8 bytes each.
//!
//! * `places`: each object's sub-record offset and kind in a `u32` (see `Places`);
//! * `id_lo[o]`: the low 32 bits of the id; the high 32 bits come from `runs` (sorted ids share
//!   their high half over long runs: a HotSpot heap spans a few GiB at most);
//! * `buckets`: for each 2^shift-wide slice of the id space (shift ≤ 32, so a bucket never
//!   spans two high halves), the first object whose id falls in it. `index_of` is one bucket
//!   read plus a short binary search over `id_lo` (about n/16 buckets: 0.25 byte per object).

use heapql_scratch::BigArray;

// Kind codes (4 bits: the top of a `packed` value, the top of a `Places` entry).
pub const K_INSTANCE: u64 = 0;
pub const K_OBJ_ARRAY: u64 = 1;
pub const K_CLASS: u64 = 2;
/// A class fabricated by the index (no CLASS DUMP in the file): its offset holds the class index.
pub const K_SYNTH_CLASS: u64 = 3;
/// Primitive arrays: the HPROF type code 4..=11.
pub const K_PRIM_FIRST: u64 = 4;
/// Android PRIMITIVE ARRAY NODATA (element type read from the record).
pub const K_PRIM_NODATA: u64 = 12;

/// `packed` values (what the heap pass hands the index, 8 bytes): the kind in the top 4 bits,
/// the offset in the low 60.
pub const KIND_SHIFT: u32 = 60;
pub const OFFSET_MASK: u64 = (1u64 << KIND_SHIFT) - 1;

#[inline]
pub fn pack(kind: u64, offset: u64) -> u64 {
    (kind << KIND_SHIFT) | (offset & OFFSET_MASK)
}

/// Objects per block of `Places`.
pub const BLOCK: usize = 64;
/// Bits of a `Places` entry below the kind: the offset less its block's base.
const DELTA_BITS: u32 = 28;
const DELTA_MASK: u32 = (1 << DELTA_BITS) - 1;
/// Set in the base of a block whose offsets are kept whole in `wide`, at the position the
/// other bits give.
const WIDE: u64 = 1 << 63;

/// Every object's offset and kind in 4 bytes (the index was 12 bytes per object with them in
/// a `u64`; at 8 its pages fit where they did not, in a memory limit, and a query builds a
/// third less of them). An entry holds the kind in its top 4 bits and the offset less its
/// block's base in the low 28; a block is 64 consecutive objects and its base the smallest
/// offset among them. A HotSpot dump writes a heap region's objects in address order, so a
/// block's records lie within a few KiB of each other; a block spanning 256 MiB or more (a
/// class object, whose record comes first in the file, among instances; the seam between two
/// regions) keeps its offsets whole in `wide` (8 bytes each, a few blocks per class).
pub struct Places {
    pub(crate) entries: BigArray<u32>,
    /// Per block: its base offset, or `WIDE` and where its offsets start in `wide`.
    pub(crate) bases: Vec<u64>,
    pub(crate) wide: Vec<u64>,
}

impl Places {
    #[inline]
    pub fn kind(&self, o: u32) -> u64 {
        (self.entries[o as usize] >> DELTA_BITS) as u64
    }

    #[inline]
    pub fn offset(&self, o: u32) -> u64 {
        offset_in(&self.entries, &self.bases, &self.wide, o as usize)
    }

    /// The `packed` value of object `o` (kind and offset).
    #[cfg(test)]
    pub fn packed(&self, o: u32) -> u64 {
        packed_of(self.entries[o as usize], self.offset(o))
    }

    /// Whether `bases` and `wide` fit the entries (a cache file read back): a base per block,
    /// and every wide block's offsets inside `wide`.
    pub(crate) fn fits(&self) -> bool {
        let n = self.entries.len();
        self.bases.len() == n.div_ceil(BLOCK)
            && self.bases.iter().enumerate().all(|(b, &base)| {
                base & WIDE == 0 || ((base & !WIDE) as usize).checked_add(BLOCK.min(n - b * BLOCK)).is_some_and(|end| end <= self.wide.len())
            })
    }
}

/// The `packed` value of entry `e` whose offset is `offset`.
#[inline]
fn packed_of(e: u32, offset: u64) -> u64 {
    pack((e >> DELTA_BITS) as u64, offset)
}

#[inline]
fn offset_in(entries: &[u32], bases: &[u64], wide: &[u64], i: usize) -> u64 {
    let base = bases[i / BLOCK];
    if base & WIDE == 0 {
        base + (entries[i] & DELTA_MASK) as u64
    } else {
        wide[(base & !WIDE) as usize + i % BLOCK]
    }
}

/// Puts `packed` values into `Places` form block by block (the blocks' bases and the wide
/// offsets; the entries go where the caller keeps them).
#[derive(Default)]
pub(crate) struct PlaceCoder {
    pub(crate) bases: Vec<u64>,
    pub(crate) wide: Vec<u64>,
}

impl PlaceCoder {
    /// Encodes one block (`packed`, at most `BLOCK` values) into `out` (as long) and returns
    /// its base, for the caller to put in `bases`.
    pub(crate) fn encode(&mut self, packed: &[u64], out: &mut [u32]) -> u64 {
        debug_assert!(!packed.is_empty() && packed.len() <= BLOCK && packed.len() == out.len());
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for &p in packed {
            lo = lo.min(p & OFFSET_MASK);
            hi = hi.max(p & OFFSET_MASK);
        }
        let kind = |p: u64| ((p >> KIND_SHIFT) as u32) << DELTA_BITS;
        if hi - lo <= DELTA_MASK as u64 {
            for (e, &p) in out.iter_mut().zip(packed) {
                *e = kind(p) | ((p & OFFSET_MASK) - lo) as u32;
            }
            lo
        } else {
            let at = self.wide.len() as u64;
            self.wide.extend(packed.iter().map(|&p| p & OFFSET_MASK));
            for (e, &p) in out.iter_mut().zip(packed) {
                *e = kind(p);
            }
            WIDE | at
        }
    }

    /// `other`'s blocks after this coder's.
    pub(crate) fn append(&mut self, other: PlaceCoder) {
        let shift = self.wide.len() as u64;
        self.bases.extend(other.bases.iter().map(|&b| if b & WIDE == 0 { b } else { b + shift }));
        self.wide.extend_from_slice(&other.wide);
    }

    /// Encodes one block and appends its base.
    pub(crate) fn push_block(&mut self, packed: &[u64], out: &mut [u32]) {
        let base = self.encode(packed, out);
        self.bases.push(base);
    }

    /// The `packed` values of entries `from..from + out.len()` (encoded by this coder), a
    /// block at a time; `entries[k]` is entry `origin + k` (a block-aligned part of them).
    pub(crate) fn decode_run(&self, entries: &[u32], origin: usize, from: usize, out: &mut [u64]) {
        let (mut i, end) = (from, from + out.len());
        while i < end {
            let stop = ((i / BLOCK + 1) * BLOCK).min(end);
            let (src, dst) = (&entries[i - origin..stop - origin], &mut out[i - from..stop - from]);
            let base = self.bases[i / BLOCK];
            if base & WIDE == 0 {
                for (x, &e) in dst.iter_mut().zip(src) {
                    *x = packed_of(e, base + (e & DELTA_MASK) as u64);
                }
            } else {
                let at = (base & !WIDE) as usize + i % BLOCK;
                for ((x, &e), &w) in dst.iter_mut().zip(src).zip(&self.wide[at..]) {
                    *x = packed_of(e, w);
                }
            }
            i = stop;
        }
    }

    /// The `packed` value of entry `i` of `entries` (encoded by this coder).
    #[inline]
    pub(crate) fn decode(&self, entries: &[u32], i: usize) -> u64 {
        packed_of(entries[i], offset_in(entries, &self.bases, &self.wide, i))
    }
}

pub struct ObjIndex {
    pub places: Places,
    pub id_lo: BigArray<u32>,
    /// (high 32 bits, first object index with that high half), ascending.
    pub runs: Vec<(u32, u32)>,
    pub(crate) buckets: Vec<u32>,
    pub(crate) shift: u32,
    /// `min_id >> shift`.
    pub(crate) base: u64,
}

/// Never more buckets than a few per 16 objects (a sparse id space falls back to binary search).
const MAX_BUCKETS: u64 = 1 << 28;

/// Accumulates objects in ascending id order (the caller guarantees order and uniqueness)
/// into arrays allocated once for all of them.
pub struct IndexBuilder {
    entries: BigArray<u32>,
    coder: PlaceCoder,
    /// The values of the block being filled (the entries before it are encoded).
    pending: Vec<u64>,
    id_lo: BigArray<u32>,
    /// Objects written so far.
    len: usize,
    runs: Vec<(u32, u32)>,
}

impl IndexBuilder {
    /// Room for `capacity` objects, placed by `place`.
    #[cfg(test)]
    pub fn with_capacity(capacity: usize, place: &heapql_scratch::Placement) -> IndexBuilder {
        IndexBuilder::from_parts(BigArray::zeroed(capacity, place), PlaceCoder::default(), Vec::new(), BigArray::zeroed(capacity, place), 0, Vec::new())
    }

    /// Objects already merged into the first `len` entries of the arrays, with the runs of
    /// their ids' high halves: the entries of whole blocks encoded by `coder`, the rest
    /// (`pending`, fewer than a block) still `packed` values. The arrays have room for the
    /// objects pushed afterwards.
    pub(crate) fn from_parts(entries: BigArray<u32>, coder: PlaceCoder, pending: Vec<u64>, id_lo: BigArray<u32>, len: usize, runs: Vec<(u32, u32)>) -> IndexBuilder {
        debug_assert_eq!(coder.bases.len() * BLOCK + pending.len(), len);
        IndexBuilder { entries, coder, pending, id_lo, len, runs }
    }

    /// The first `len` values of `packed` (the objects, `id_lo` their ids' low halves), with
    /// room for as many objects as `id_lo` has.
    pub(crate) fn from_packed(packed: &[u64], id_lo: BigArray<u32>, len: usize, runs: Vec<(u32, u32)>, place: &heapql_scratch::Placement) -> IndexBuilder {
        let mut entries: BigArray<u32> = BigArray::zeroed(id_lo.len(), place);
        let mut coder = PlaceCoder::default();
        let whole = len / BLOCK * BLOCK;
        for (p, e) in packed[..whole].chunks_exact(BLOCK).zip(entries[..whole].chunks_exact_mut(BLOCK)) {
            coder.push_block(p, e);
        }
        IndexBuilder::from_parts(entries, coder, packed[whole..len].to_vec(), id_lo, len, runs)
    }

    #[inline]
    pub fn push(&mut self, id: u64, packed: u64) {
        let hi = (id >> 32) as u32;
        if self.runs.last().map(|r| r.0) != Some(hi) {
            self.runs.push((hi, self.len as u32));
        }
        self.id_lo[self.len] = id as u32;
        self.pending.push(packed);
        self.len += 1;
        if self.pending.len() == BLOCK {
            self.flush();
        }
    }

    /// Encodes the pending values (a whole block, or the last one).
    fn flush(&mut self) {
        let start = self.coder.bases.len() * BLOCK;
        let end = start + self.pending.len();
        self.coder.push_block(&self.pending, &mut self.entries[start..end]);
        self.pending.clear();
    }

    pub fn finish(mut self) -> ObjIndex {
        if !self.pending.is_empty() {
            self.flush();
        }
        self.entries.truncate(self.len);
        self.id_lo.truncate(self.len);
        let PlaceCoder { bases, wide } = self.coder;
        let places = Places { entries: self.entries, bases, wide };
        let mut ix = ObjIndex { places, id_lo: self.id_lo, runs: self.runs, buckets: Vec::new(), shift: 32, base: 0 };
        ix.add_buckets();
        ix
    }
}

/// The id at position `i` of an ascending list kept as low halves plus high-half runs (the
/// index, and the builder's object lists before they become one).
#[inline]
pub(crate) fn id_at(runs: &[(u32, u32)], id_lo: &[u32], i: usize) -> u64 {
    let r = if runs.len() <= 1 { 0 } else { runs.partition_point(|&(_, start)| start as usize <= i) - 1 };
    ((runs[r].0 as u64) << 32) | id_lo[i] as u64
}

impl ObjIndex {
    /// Whether its arrays are in memory though objects were indexed (asked of an index meant for
    /// scratch files: one could not be made there).
    pub(crate) fn in_memory(&self) -> bool {
        self.len() > 0 && !self.id_lo.is_mapped()
    }

    /// `ids`/`packed` sorted by id, without duplicates.
    #[cfg(test)]
    pub fn build(ids: &[u64], packed: Vec<u64>) -> ObjIndex {
        let mut b = IndexBuilder::with_capacity(ids.len(), &heapql_scratch::Placement::Memory);
        for (&i, &p) in ids.iter().zip(&packed) {
            b.push(i, p);
        }
        b.finish()
    }

    fn add_buckets(&mut self) {
        let n = self.id_lo.len();
        if n == 0 {
            return;
        }
        let (min, max) = (self.id(0), self.id(n as u32 - 1));
        let target = (n as u64 / 16).max(1);
        let span = max - min;
        // Smallest shift (≤ 32) giving at most `target` buckets; sparse spans get shift 32.
        let mut shift = 0;
        while shift < 32 && (span >> shift) >= target {
            shift += 1;
        }
        let nb = (max >> shift) - (min >> shift) + 1;
        if nb > MAX_BUCKETS.min((target * 4).max(1 << 16)) {
            return; // ids too scattered for a table (hand-made files): binary search only
        }
        self.shift = shift;
        self.base = min >> shift;
        let mut b = vec![0u32; nb as usize + 1];
        // b[k] = first object whose bucket >= k.
        let mut k = 0usize;
        for (r, &(hi, start)) in self.runs.iter().enumerate() {
            let end = self.runs.get(r + 1).map(|x| x.1 as usize).unwrap_or(n);
            for o in start as usize..end {
                let id = ((hi as u64) << 32) | self.id_lo[o] as u64;
                let bk = ((id >> shift) - self.base) as usize;
                while k <= bk {
                    b[k] = o as u32;
                    k += 1;
                }
            }
        }
        while k < b.len() {
            b[k] = n as u32;
            k += 1;
        }
        self.buckets = b;
    }

    #[inline]
    pub fn len(&self) -> u32 {
        self.id_lo.len() as u32
    }

    #[inline]
    pub fn kind(&self, o: u32) -> u64 {
        self.places.kind(o)
    }

    #[inline]
    pub fn offset(&self, o: u32) -> u64 {
        self.places.offset(o)
    }

    #[inline]
    pub fn id(&self, o: u32) -> u64 {
        id_at(&self.runs, &self.id_lo, o as usize)
    }

    #[inline]
    pub fn index_of(&self, id: u64) -> Option<u32> {
        let (lo, hi) = if !self.buckets.is_empty() {
            let k = (id >> self.shift).wrapping_sub(self.base);
            if k as usize >= self.buckets.len() - 1 {
                return None;
            }
            (self.buckets[k as usize] as usize, self.buckets[k as usize + 1] as usize)
        } else {
            // No table: restrict to the run of the id's high half.
            let h = (id >> 32) as u32;
            let r = self.runs.partition_point(|&(x, _)| x < h);
            if r == self.runs.len() || self.runs[r].0 != h {
                return None;
            }
            let end = self.runs.get(r + 1).map(|x| x.1 as usize).unwrap_or(self.id_lo.len());
            (self.runs[r].1 as usize, end)
        };
        if lo >= hi {
            return None;
        }
        // Within a bucket (shift ≤ 32) or a run every id has the query's high half.
        let want = id as u32;
        let s = &self.id_lo[lo..hi];
        let p = s.partition_point(|&x| x < want);
        if p < s.len() && s[p] == want {
            Some((lo + p) as u32)
        } else {
            None
        }
    }

    /// Bytes of anonymous memory held by the index (not its scratch files).
    pub fn memory(&self) -> usize {
        let places = self.places.entries.heap_bytes() + (self.places.bases.capacity() + self.places.wide.capacity()) * 8;
        places + self.id_lo.heap_bytes() + self.buckets.capacity() * 4 + self.runs.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_of_finds_every_id_and_rejects_others() {
        let mut ids: Vec<u64> = Vec::new();
        let mut x = 0x7_ffff_0000u64; // crosses a 4 GiB boundary
        for k in 0..50_000u64 {
            ids.push(x);
            x += 8 + (k % 7) * 8;
        }
        ids.push(0xffff_ffff_0000_0000); // a far outlier
        let packed = vec![0u64; ids.len()];
        let ix = ObjIndex::build(&ids, packed);
        for (k, &i) in ids.iter().enumerate() {
            assert_eq!(ix.index_of(i), Some(k as u32), "id {i:#x}");
            assert_eq!(ix.id(k as u32), i);
            assert_eq!(ix.index_of(i + 1), None);
        }
        assert_eq!(ix.index_of(0), None);
        assert_eq!(ix.index_of(u64::MAX), None);
    }

    #[test]
    fn empty_and_single() {
        let ix = ObjIndex::build(&[], vec![]);
        assert_eq!(ix.index_of(5), None);
        let ix = ObjIndex::build(&[42], vec![0]);
        assert_eq!(ix.index_of(42), Some(0));
        assert_eq!(ix.index_of(41), None);
    }
}
