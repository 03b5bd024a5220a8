//! The starts of the object graph's adjacency lists in 1.5 bytes per list instead of 4 (or 8).
//!
//! The dominator search reads them at random, once per object it enters, so their size is
//! part of the working set it pages through inside a memory limit (bench-1g: 50 MB of `u32`
//! offsets, 19 MB packed). Per block of `BLOCK` lists one `u64`: the first list's start in
//! the targets; per list one byte: its start minus its block's. A block whose lists span more
//! than 255 targets (a big object array among them) keeps its starts whole in `wide`, and its
//! word says where: `WIDE | k` for the block's starts at `wide[k * BLOCK..]`. (The heap index's
//! record offsets, `heapql_heap` `Places`, are packed the same way with wider deltas and a kind.)

use heapql_heap::{Appender, BigArray, Placement};

/// Lists per block.
const BLOCK: usize = 16;

/// Marks a block word that indexes `wide` instead of giving the block's start.
const WIDE: u64 = 1 << 63;

#[derive(Debug)]
pub struct PackedOffsets {
    pub(crate) blocks: BigArray<u64>,
    pub(crate) rel: BigArray<u8>,
    pub(crate) wide: BigArray<u64>,
}

impl PackedOffsets {
    /// The starts read back from their three arrays (a cache file); `Err` says why they are
    /// no offsets of a list of `targets` targets: wrong lengths, a block word pointing outside
    /// `wide`, starts that go down or end elsewhere than at `targets`.
    pub fn from_parts(blocks: BigArray<u64>, rel: BigArray<u8>, wide: BigArray<u64>, targets: usize) -> Result<PackedOffsets, String> {
        let p = PackedOffsets { blocks, rel, wide };
        if p.rel.is_empty() || p.blocks.len() != p.rel.len().div_ceil(BLOCK) || p.wide.len() % BLOCK != 0 {
            return Err("the graph's list starts have the wrong lengths".into());
        }
        let wide_blocks = (p.wide.len() / BLOCK) as u64;
        if p.blocks.iter().any(|&x| x & WIDE != 0 && x & !WIDE >= wide_blocks) {
            return Err("a block of the graph's list starts points outside them".into());
        }
        // One pass over every start: each at most the next, the last the end of the targets.
        let mut last = 0usize;
        for i in 0..p.len() {
            let s = p.get(i);
            if s < last {
                return Err(format!("the graph's list {i} starts before the one before it"));
            }
            last = s;
        }
        if last != targets {
            return Err("the graph's lists do not end at the end of their targets".into());
        }
        Ok(p)
    }

    /// Number of starts (lists + 1).
    #[inline]
    pub fn len(&self) -> usize {
        self.rel.len()
    }

    /// Start of list `i` (`i == len() - 1`: the end of the last list).
    #[inline]
    pub fn get(&self, i: usize) -> usize {
        let x = self.blocks[i / BLOCK];
        if x & WIDE == 0 {
            x as usize + self.rel[i] as usize
        } else {
            self.wide[(x & !WIDE) as usize * BLOCK + i % BLOCK] as usize
        }
    }

    /// Start and end of list `i`: one block word when both lie in one narrow block.
    #[inline]
    pub fn range(&self, i: usize) -> (usize, usize) {
        let x = self.blocks[i / BLOCK];
        if x & WIDE == 0 && i % BLOCK != BLOCK - 1 {
            (x as usize + self.rel[i] as usize, x as usize + self.rel[i + 1] as usize)
        } else {
            (self.get(i), self.get(i + 1))
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.blocks.heap_bytes() + self.rel.heap_bytes() + self.wide.heap_bytes()
    }

    pub fn file_bytes(&self) -> usize {
        self.blocks.file_bytes() + self.rel.file_bytes() + self.wide.file_bytes()
    }
}

/// Builds `PackedOffsets` from the starts in increasing order, a block at a time, written out
/// as they come (`Appender`: to a scratch file when `place` says so).
pub struct PackedOffsetsAppender {
    blocks: Appender<u64>,
    rel: Appender<u8>,
    /// The wide blocks' starts: few (a block is wide only when its lists hold more than 255
    /// targets), so in memory until `finish`.
    wide: Vec<u64>,
    /// The starts of the block being filled.
    block: Vec<u64>,
    /// The last start of the blocks written out (0 before any).
    last_written: u64,
    place: Placement,
}

impl PackedOffsetsAppender {
    /// For about `expected` starts.
    pub fn new(expected: usize, place: &Placement) -> PackedOffsetsAppender {
        PackedOffsetsAppender {
            blocks: Appender::new(expected.div_ceil(BLOCK), place),
            rel: Appender::new(expected, place),
            wide: Vec::new(),
            block: Vec::with_capacity(BLOCK),
            last_written: 0,
            place: place.clone(),
        }
    }

    /// Starts pushed so far.
    pub fn len(&self) -> usize {
        self.rel.len() + self.block.len()
    }

    /// The last start pushed (0 before any).
    #[inline]
    pub fn last(&self) -> u64 {
        self.block.last().copied().unwrap_or(self.last_written)
    }

    /// The next start (at least the one before).
    #[inline]
    pub fn push(&mut self, start: u64) {
        debug_assert!(start >= self.last(), "list starts go up");
        self.block.push(start);
        if self.block.len() == BLOCK {
            self.write_block();
        }
    }

    fn write_block(&mut self) {
        let (first, last) = (self.block[0], self.block[self.block.len() - 1]);
        if last - first <= u8::MAX as u64 && first < WIDE {
            self.blocks.push(first);
            self.block.iter().for_each(|&s| self.rel.push((s - first) as u8));
        } else {
            self.blocks.push(WIDE | (self.wide.len() / BLOCK) as u64);
            self.wide.extend_from_slice(&self.block);
            // A last block cut short: its missing starts read as its last.
            self.wide.resize(self.wide.len().next_multiple_of(BLOCK), last);
            self.block.iter().for_each(|_| self.rel.push(0));
        }
        self.last_written = last;
        self.block.clear();
    }

    pub fn finish(mut self) -> PackedOffsets {
        if !self.block.is_empty() {
            self.write_block();
        }
        PackedOffsets { blocks: self.blocks.finish(), rel: self.rel.finish(), wide: BigArray::from_vec(self.wide, &self.place) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts from list lengths: mostly short, now and then long enough to make a block wide.
    fn starts(lengths: impl Iterator<Item = u64>) -> Vec<u64> {
        let mut s = vec![0];
        for len in lengths {
            s.push(s[s.len() - 1] + len);
        }
        s
    }

    fn packed(starts: &[u64], place: &Placement) -> PackedOffsets {
        let mut a = PackedOffsetsAppender::new(starts.len(), place);
        for &x in starts {
            a.push(x);
            assert_eq!(a.last(), x);
        }
        assert_eq!(a.len(), starts.len());
        a.finish()
    }

    #[test]
    fn every_start_reads_back_narrow_wide_and_cut_short() {
        let dir = tempfile::tempdir().unwrap();
        let files = Placement::Files(std::sync::Arc::from(dir.path()));
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut random = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for count in [0usize, 1, 15, 16, 17, 31, 32, 1000, 100_003] {
            let lengths: Vec<u64> = (0..count).map(|_| match random() % 100 {
                0 => 256 + random() % 5000,
                1 => 255,
                2..=20 => 0,
                _ => random() % 12,
            }).collect();
            let s = starts(lengths.into_iter());
            for place in [&Placement::Memory, &files] {
                let p = packed(&s, place);
                assert_eq!(p.len(), s.len(), "{count} lists");
                for i in 0..s.len() {
                    assert_eq!(p.get(i), s[i] as usize, "{count} lists: start {i}");
                }
                for i in 0..s.len() - 1 {
                    assert_eq!(p.range(i), (s[i] as usize, s[i + 1] as usize), "{count} lists: list {i}");
                }
                let (blocks, rel, wide) = (p.blocks, p.rel, p.wide);
                assert!(PackedOffsets::from_parts(blocks, rel, wide, *s.last().unwrap() as usize).is_ok());
            }
        }
        // Starts beyond u32 (more than 4 G edges) are kept whole.
        let big = [0u64, 5, 1 << 33, (1 << 33) + 7, (1 << 33) + 300];
        let p = packed(&big, &Placement::Memory);
        assert!((0..big.len()).all(|i| p.get(i) == big[i] as usize));
    }

    #[test]
    fn damaged_parts_are_refused() {
        let s = starts((0..40u64).map(|i| if i == 20 { 400 } else { i % 4 }));
        let end = *s.last().unwrap() as usize;
        let parts = || {
            let p = packed(&s, &Placement::Memory);
            (p.blocks.to_vec(), p.rel.to_vec(), p.wide.to_vec())
        };
        let try_parts = |b: Vec<u64>, r: Vec<u8>, w: Vec<u64>, end| PackedOffsets::from_parts(b.into(), r.into(), w.into(), end).err();
        let (b, r, w) = parts();
        assert!(b.iter().any(|&x| x & WIDE != 0), "the test has a wide block");
        assert_eq!(try_parts(b.clone(), r.clone(), w.clone(), end), None);
        assert!(try_parts(b.clone(), r.clone(), w.clone(), end + 1).unwrap().contains("do not end"));
        assert!(try_parts(b[..1].to_vec(), r.clone(), w.clone(), end).unwrap().contains("wrong lengths"));
        assert!(try_parts(b.clone(), r.clone(), w[..3].to_vec(), end).unwrap().contains("wrong lengths"));
        let mut far = b.clone();
        let k = far.iter().position(|&x| x & WIDE != 0).unwrap();
        far[k] = WIDE | 7;
        assert!(try_parts(far, r.clone(), w.clone(), end).unwrap().contains("outside"));
        let mut down = r.clone();
        down[2] = 200;
        assert!(try_parts(b, down, w, end).unwrap().contains("starts before"));
    }
}
