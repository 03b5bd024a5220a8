//! `(key, value)` pairs partitioned by key range: the dominator phase's predecessor lists
//! without a random write. Each bucket covers a fixed range of keys and is appended to in
//! order (a small buffer per bucket, written to its own scratch file when full), then read
//! back whole, one bucket at a time: every file access is sequential, and only one bucket's
//! pairs are in memory when they are used.

use heapql_heap::Placement;
use heapql_scratch::SpillFile;

/// Values buffered per bucket before it is written out (64 KiB).
const BUFFER: usize = 1 << 14;

/// Pairs of `u32`s bucketed by key range.
pub(crate) struct Buckets {
    /// First key.
    lo: usize,
    /// How a key finds its bucket.
    route: Route,
    /// Key boundaries: bucket `b` holds keys `bounds[b]..bounds[b + 1]`.
    bounds: Vec<usize>,
    parts: Vec<Bucket>,
    /// Values buffered per bucket before it is written out.
    buffer: usize,
    /// Directory for the buckets' files (`None`: everything stays in memory).
    dir: Option<std::sync::Arc<std::path::Path>>,
}

enum Route {
    /// Bucket `(key - lo) >> shift`.
    Shift(u32),
    /// Bucket `table[key - lo]`.
    Table(Vec<u32>),
}

struct Bucket {
    /// Interleaved keys and values not yet written out.
    buf: Vec<u32>,
    /// The values written out before `buf` (created on the first write).
    file: Option<SpillFile<u32>>,
}

impl Buckets {
    /// Buckets for keys `lo..hi`, at most 128 of them, in files when `place` is
    /// `Placement::Files`.
    pub(crate) fn new(lo: usize, hi: usize, place: &Placement) -> Buckets {
        let wanted = (hi - lo).div_ceil(128).max(1);
        let shift = usize::BITS - (wanted - 1).leading_zeros();
        let count = (hi - lo).div_ceil(1 << shift).max(1);
        let bounds = (0..=count).map(|b| lo + (b << shift)).collect();
        Buckets::with(lo, Route::Shift(shift), bounds, BUFFER, place)
    }

    /// Buckets over consecutive key ranges starting at `bounds[0]` (bucket `b` holds keys
    /// `bounds[b]..bounds[b + 1]`), with a smaller buffer each: there may be many.
    pub(crate) fn with_bounds(bounds: Vec<usize>, place: &Placement) -> Buckets {
        let lo = bounds[0];
        let mut table = vec![0u32; bounds[bounds.len() - 1] - lo];
        for (b, w) in bounds.windows(2).enumerate() {
            table[w[0] - lo..w[1] - lo].fill(b as u32);
        }
        Buckets::with(lo, Route::Table(table), bounds, BUFFER / 4, place)
    }

    fn with(lo: usize, route: Route, bounds: Vec<usize>, buffer: usize, place: &Placement) -> Buckets {
        let dir = match place {
            Placement::Files(d) => Some(d.clone()),
            Placement::Memory => None,
        };
        let parts = (1..bounds.len()).map(|_| Bucket { buf: Vec::new(), file: None }).collect();
        Buckets { lo, route, bounds, parts, buffer, dir }
    }

    pub(crate) fn count(&self) -> usize {
        self.parts.len()
    }

    /// The keys of bucket `b`: `lo..hi` (`hi` may pass the last key).
    pub(crate) fn range(&self, b: usize) -> (usize, usize) {
        (self.bounds[b], self.bounds[b + 1])
    }

    /// Pairs in bucket `b`.
    pub(crate) fn len(&self, b: usize) -> usize {
        let p = &self.parts[b];
        (p.file.as_ref().map_or(0, |f| f.len()) + p.buf.len()) / 2
    }

    #[inline]
    pub(crate) fn push(&mut self, key: u32, value: u32) {
        let k = key as usize - self.lo;
        let b = match &self.route {
            Route::Shift(shift) => k >> shift,
            Route::Table(table) => table[k] as usize,
        };
        let b = &mut self.parts[b];
        b.buf.push(key);
        b.buf.push(value);
        if b.buf.len() >= self.buffer {
            if let Some(dir) = &self.dir {
                if !b.spill(dir) {
                    // Not tried again on every push (each would be a file made and the
                    // whole bucket written anew): the buckets go on in memory.
                    self.dir = None;
                }
            }
        }
    }

    /// Writes every buffer out and frees it (in files only): the pushing is over, and the
    /// buckets are read back one at a time.
    pub(crate) fn flush(&mut self) {
        for b in &mut self.parts {
            if let Some(dir) = &self.dir {
                if !b.buf.is_empty() && !b.spill(dir) {
                    self.dir = None;
                }
            }
            if b.file.is_some() && b.buf.is_empty() {
                b.buf = Vec::new();
            }
        }
    }

    /// Bucket `b`'s pairs (interleaved key, value) in the order pushed; the bucket is emptied
    /// and its file closed.
    pub(crate) fn take(&mut self, b: usize) -> Vec<u32> {
        let bucket = &mut self.parts[b];
        let buf = std::mem::take(&mut bucket.buf);
        let Some(file) = bucket.file.take() else { return buf };
        let mut all = read_back(file);
        all.extend_from_slice(&buf);
        all
    }

    /// Bucket `b`'s pairs as `take` gives them, in pieces of at most 64 KiB, holding no more
    /// than that in memory; the bucket stays as it is (see `clear`).
    pub(crate) fn stream(&mut self, b: usize, mut f: impl FnMut(&[u32])) {
        let bucket = &mut self.parts[b];
        if let Some(file) = &mut bucket.file {
            file.for_each_chunk(BUFFER, &mut f).unwrap_or_else(|e| cannot_read_back(e));
        }
        bucket.buf.chunks(BUFFER).for_each(&mut f);
    }

    /// `stream`, stopping at the first piece for which `f` fails (the pieces after it are
    /// read but not handed over: a file has no early way out) with that failure.
    pub(crate) fn try_stream<E>(&mut self, b: usize, mut f: impl FnMut(&[u32]) -> Result<(), E>) -> Result<(), E> {
        let mut outcome = Ok(());
        self.stream(b, |c| {
            if outcome.is_ok() {
                outcome = f(c);
            }
        });
        outcome
    }

    /// Empties bucket `b` (its file closed).
    pub(crate) fn clear(&mut self, b: usize) {
        self.parts[b] = Bucket { buf: Vec::new(), file: None };
    }
}

impl Bucket {
    /// Writes the buffer out; on failure (no space left) the bucket goes on in memory, as
    /// `BigArray` does, with what was written read back, and the answer is false.
    fn spill(&mut self, dir: &std::path::Path) -> bool {
        if self.file.is_none() {
            match SpillFile::create(dir) {
                Ok(f) => self.file = Some(f),
                Err(_) => return false,
            }
        }
        let file = self.file.as_mut().expect("just made");
        if file.append(&self.buf).is_ok() {
            self.buf.clear();
            return true;
        }
        let mut all = read_back(self.file.take().expect("just used"));
        all.extend_from_slice(&self.buf);
        self.buf = all;
        false
    }
}

/// The values of a bucket's file.
fn read_back(file: SpillFile<u32>) -> Vec<u32> {
    file.into_vec().unwrap_or_else(|e| cannot_read_back(e))
}

fn cannot_read_back(e: std::io::Error) -> ! {
    panic!("cannot read back the dominator phase's scratch file ({e})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_that_takes_no_file_is_given_up_once() {
        // Every full buffer would otherwise try to make a file again, and fail again.
        let dir = tempfile::tempdir().unwrap();
        let gone = Placement::Files(std::sync::Arc::from(dir.path().join("missing").as_path()));
        let mut b = Buckets::new(0, 1000, &gone);
        // Keys 0..8: all in the first bucket, whose buffer fills several times over.
        let pairs: Vec<(u32, u32)> = (0..(BUFFER as u32) * 3).map(|i| (i % 8, i)).collect();
        for &(k, v) in &pairs {
            b.push(k, v);
        }
        assert!(b.dir.is_none(), "the buckets went on in memory");
        b.flush();
        let mut got: Vec<(u32, u32)> = (0..b.count()).flat_map(|k| b.take(k)).collect::<Vec<u32>>().chunks(2).map(|p| (p[0], p[1])).collect();
        let mut want = pairs;
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
    }

    #[test]
    fn pairs_come_back_by_bucket_in_push_order() {
        let dir = tempfile::tempdir().unwrap();
        let files = Placement::Files(std::sync::Arc::from(dir.path()));
        let (lo, hi) = (1000usize, 1_001_000usize);
        for place in [Placement::Memory, files] {
            let mut b = Buckets::new(lo, hi, &place);
            assert!(b.count() > 1 && b.count() <= 128);
            assert_eq!((b.range(0).0, b.range(b.count() - 1).1 >= hi), (lo, true));
            // Enough pairs for several writes per bucket.
            let pairs: Vec<(u32, u32)> =
                (0..3_000_000u32).map(|i| (lo as u32 + i.wrapping_mul(2654435761) % (hi - lo) as u32, i)).collect();
            for &(k, v) in &pairs {
                b.push(k, v);
            }
            let mut seen = 0;
            for k in (0..b.count()).rev() {
                let (from, to) = b.range(k);
                let want: Vec<u32> = pairs
                    .iter()
                    .filter(|p| (from..to).contains(&(p.0 as usize)))
                    .flat_map(|&(k, v)| [k, v])
                    .collect();
                assert_eq!(b.len(k), want.len() / 2);
                let got = if k % 2 == 0 {
                    b.take(k)
                } else {
                    let mut got = Vec::new();
                    b.stream(k, |c| {
                        assert!(c.len() <= BUFFER && c.len() % 2 == 0);
                        got.extend_from_slice(c)
                    });
                    b.clear(k);
                    got
                };
                assert_eq!(got, want, "bucket {k}");
                assert_eq!(b.len(k), 0);
                seen += got.len() / 2;
            }
            assert_eq!(seen, pairs.len());
        }
    }
}
