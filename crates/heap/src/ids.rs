//! The dense object index: objects numbered in id order, 12 bytes each.
//!
//! * `packed[o]`: the sub-record's file offset (low 60 bits) and the object kind (top 4 bits);
//! * `id_lo[o]`: the low 32 bits of the id; the high 32 bits come from `runs` (sorted ids share
//!   their high half over long runs: a HotSpot heap spans a few GiB at most);
//! * `buckets`: for each 2^shift-wide slice of the id space (shift ≤ 32, so a bucket never
//!   spans two high halves), the first object whose id falls in it. `index_of` is one bucket
//!   read plus a short binary search over `id_lo` (about n/16 buckets: 0.25 byte per object).

use heapql_scratch::BigArray;
#[cfg(test)]
use heapql_scratch::Placement;

// Kind codes stored in the top 4 bits of `packed`.
pub const K_INSTANCE: u64 = 0;
pub const K_OBJ_ARRAY: u64 = 1;
pub const K_CLASS: u64 = 2;
/// A class fabricated by the index (no CLASS DUMP in the file): low bits hold the class index.
pub const K_SYNTH_CLASS: u64 = 3;
/// Primitive arrays: the HPROF type code 4..=11.
pub const K_PRIM_FIRST: u64 = 4;
/// Android PRIMITIVE ARRAY NODATA (element type read from the record).
pub const K_PRIM_NODATA: u64 = 12;

pub const KIND_SHIFT: u32 = 60;
pub const OFFSET_MASK: u64 = (1u64 << KIND_SHIFT) - 1;

#[inline]
pub fn pack(kind: u64, offset: u64) -> u64 {
    (kind << KIND_SHIFT) | (offset & OFFSET_MASK)
}

pub struct ObjIndex {
    pub packed: BigArray<u64>,
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
    packed: BigArray<u64>,
    id_lo: BigArray<u32>,
    /// Objects written so far.
    len: usize,
    runs: Vec<(u32, u32)>,
}

impl IndexBuilder {
    /// Room for `capacity` objects, placed by `place`.
    #[cfg(test)]
    pub fn with_capacity(capacity: usize, place: &Placement) -> IndexBuilder {
        IndexBuilder { packed: BigArray::zeroed(capacity, place), id_lo: BigArray::zeroed(capacity, place), len: 0, runs: Vec::new() }
    }

    /// Objects already merged into the first `len` entries of the arrays, with the runs of
    /// their ids' high halves.
    pub fn from_parts(packed: BigArray<u64>, id_lo: BigArray<u32>, len: usize, runs: Vec<(u32, u32)>) -> IndexBuilder {
        IndexBuilder { packed, id_lo, len, runs }
    }

    #[inline]
    pub fn push(&mut self, id: u64, packed: u64) {
        let hi = (id >> 32) as u32;
        if self.runs.last().map(|r| r.0) != Some(hi) {
            self.runs.push((hi, self.len as u32));
        }
        self.id_lo[self.len] = id as u32;
        self.packed[self.len] = packed;
        self.len += 1;
    }

    pub fn finish(mut self) -> ObjIndex {
        self.packed.truncate(self.len);
        self.id_lo.truncate(self.len);
        let mut ix = ObjIndex { packed: self.packed, id_lo: self.id_lo, runs: self.runs, buckets: Vec::new(), shift: 32, base: 0 };
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
    /// `ids`/`packed` sorted by id, without duplicates.
    #[cfg(test)]
    pub fn build(ids: &[u64], packed: Vec<u64>) -> ObjIndex {
        let mut b = IndexBuilder::with_capacity(ids.len(), &Placement::Memory);
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
        self.packed.len() as u32
    }

    #[inline]
    pub fn kind(&self, o: u32) -> u64 {
        self.packed[o as usize] >> KIND_SHIFT
    }

    #[inline]
    pub fn offset(&self, o: u32) -> u64 {
        self.packed[o as usize] & OFFSET_MASK
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
        self.packed.heap_bytes() + self.id_lo.heap_bytes() + self.buckets.capacity() * 4 + self.runs.capacity() * 8
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
