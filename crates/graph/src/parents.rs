//! The dominator DFS's tree parents (`parent[k] <= k`, preorder numbers) in about a byte per
//! vertex instead of four: a child is numbered soon after its parent, so most vertices keep
//! `k - parent[k]` in one byte, and the rest an escape byte with the full value in a second
//! array, in order. The array goes to scratch files, and inside a memory limit every byte of
//! it is a byte the kernel writes back and reads again. It is read two ways only: downwards
//! (the semidominator step, vertices in reverse preorder) and front to back (the NCA step's
//! copy); each reader keeps its place in the escape array as it goes. On bench-1g.hprof
//! 0.67 % of the 12.6 M vertices escape (65 % are a step of 1, 99.3 % within 254): 13.0 MB
//! instead of 50.5, and the DFS dirties 144 MiB of page cache instead of 180. Small dumps
//! escape more (up to 42 % on the corpus's: 2.7 B per vertex), never past 5 B.

use heapql_heap::{Appender, BigArray, Placement};

/// The step byte of a vertex whose parent is in the escape array.
const ESCAPE: u8 = u8::MAX;

/// `Parents` being written, one vertex at a time in preorder.
pub(crate) struct ParentsAppender {
    steps: Appender<u8>,
    far: Appender<u32>,
    /// The next vertex's preorder number.
    next: usize,
}

impl ParentsAppender {
    /// For about `expected` vertices, placed by `place` (see `Appender::new`); in memory the
    /// escape array starts with room for 1 in 64 (bench-1g: 1 in 150).
    pub(crate) fn new(expected: usize, place: &Placement) -> ParentsAppender {
        ParentsAppender { steps: Appender::new(expected, place), far: Appender::new(expected / 64, place), next: 0 }
    }

    /// The parent of the next vertex (the root's: 0). Inlined into the DFS's loop (a plain
    /// `#[inline]` was left a call there), the rare escape kept out of it.
    #[inline(always)]
    pub(crate) fn push(&mut self, parent: u32) {
        let k = self.next;
        debug_assert!(parent as usize <= k, "parent {parent} of vertex {k} numbered after it");
        let step = k - parent as usize;
        if step < ESCAPE as usize {
            self.steps.push(step as u8);
        } else {
            self.escape(parent);
        }
        self.next = k + 1;
    }

    #[cold]
    #[inline(never)]
    fn escape(&mut self, parent: u32) {
        self.steps.push(ESCAPE);
        self.far.push(parent);
    }

    pub(crate) fn finish(self) -> Parents {
        Parents { steps: self.steps.finish(), far: self.far.finish() }
    }
}

/// The parents written by `ParentsAppender`.
pub(crate) struct Parents {
    /// `k - parent[k]` per vertex, or `ESCAPE`.
    steps: BigArray<u8>,
    /// The parents of the escaped vertices, in preorder.
    far: BigArray<u32>,
}

impl Parents {
    /// Vertices.
    pub(crate) fn len(&self) -> usize {
        self.steps.len()
    }

    /// Vertices whose parent needed the escape array.
    #[cfg(test)]
    pub(crate) fn escapes(&self) -> usize {
        self.far.len()
    }

    /// Bytes held, in memory or in files.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.steps.len() + 4 * self.far.len()
    }

    /// A reader for vertices in decreasing order (see `Down::get`).
    pub(crate) fn down(&self) -> Down<'_> {
        Down { steps: &self.steps, far: &self.far, above: self.steps.len(), far_below: self.far.len() }
    }

    /// Every parent, front to back, into `out` (as long as the array).
    pub(crate) fn copy_to(&self, out: &mut [u32]) {
        assert_eq!(out.len(), self.steps.len(), "parents copied into an array of another length");
        let mut far = self.far.iter();
        for (k, (o, &step)) in out.iter_mut().zip(self.steps.iter()).enumerate() {
            *o = if step == ESCAPE { *far.next().expect("an escape array entry per escape") } else { (k - step as usize) as u32 };
        }
        debug_assert!(far.next().is_none(), "escape array entries left over");
    }
}

/// Reads parents for vertices in decreasing order, each any number of times in a row; the
/// vertices skipped between two are walked over (their escapes counted off).
pub(crate) struct Down<'a> {
    steps: &'a [u8],
    far: &'a [u32],
    /// The vertices from `above` up are passed.
    above: usize,
    /// Escapes among the vertices below `above`.
    far_below: usize,
}

impl Down<'_> {
    /// The parent of vertex `w`: `w` not above the vertex asked for last.
    #[inline(always)]
    pub(crate) fn get(&mut self, w: usize) -> u32 {
        assert!(w < self.above, "parent of vertex {w} asked for after vertex {}", self.above - 1);
        while self.above > w + 1 {
            self.above -= 1;
            self.far_below -= (self.steps[self.above] == ESCAPE) as usize;
        }
        let step = self.steps[w];
        if step == ESCAPE {
            self.far[self.far_below - 1]
        } else {
            (w - step as usize) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn written(parent: &[u32], place: &Placement) -> Parents {
        let mut a = ParentsAppender::new(parent.len(), place);
        parent.iter().for_each(|&p| a.push(p));
        a.finish()
    }

    /// A DFS-like parent array: mostly short steps back, some far (up to the root), some
    /// exactly at the escape's edge.
    fn random_parents(n: usize, seed: u64) -> Vec<u32> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        (0..n)
            .map(|k| match (k, rng.random_range(0..10)) {
                (0, _) => 0,
                (_, 0) => rng.random_range(0..k) as u32,
                (_, 1) if k >= 255 => (k - rng.random_range(253..=255)) as u32,
                _ => (k - rng.random_range(1..=k.min(20))) as u32,
            })
            .collect()
    }

    fn placements(dir: &tempfile::TempDir) -> [Placement; 2] {
        [Placement::Memory, Placement::Files(std::sync::Arc::from(dir.path()))]
    }

    #[test]
    fn parents_come_back_front_to_back_and_downwards() {
        let dir = tempfile::tempdir().unwrap();
        for place in placements(&dir) {
            for (n, seed) in [(1, 1), (2, 2), (300, 3), (200_000, 4)] {
                let parent = random_parents(n, seed);
                let p = written(&parent, &place);
                let escapes = (0..n).filter(|&k| k - parent[k] as usize >= 255).count();
                assert_eq!((p.len(), p.escapes(), p.bytes()), (n, escapes, n + 4 * escapes), "n {n}");
                if n == 200_000 {
                    assert!(escapes > 20_000, "the far parents escaped: {escapes}");
                    assert_eq!(p.steps.is_mapped(), place != Placement::Memory);
                }
                let mut out = vec![NONE_YET; n];
                p.copy_to(&mut out);
                assert_eq!(out, parent, "n {n}: front to back");
                // Each vertex asked for twice, as the semidominator step does.
                let mut down = p.down();
                for w in (0..n).rev() {
                    assert_eq!((down.get(w), down.get(w)), (parent[w], parent[w]), "n {n}: vertex {w}");
                }
            }
        }
    }

    /// The root alone: its entry 0, no escape.
    #[test]
    fn the_root_alone() {
        let dir = tempfile::tempdir().unwrap();
        for place in placements(&dir) {
            let p = written(&[0], &place);
            assert_eq!((p.len(), p.escapes(), p.bytes()), (1, 0, 1));
            let mut out = [NONE_YET];
            p.copy_to(&mut out);
            assert_eq!(out, [0]);
            assert_eq!(p.down().get(0), 0);
        }
    }

    /// Vertices skipped on the way down, escaped ones among them, leave the reader in place.
    #[test]
    fn skipped_vertices_are_walked_over() {
        let dir = tempfile::tempdir().unwrap();
        for place in placements(&dir) {
            let n = 100_000;
            let parent = random_parents(n, 5);
            let p = written(&parent, &place);
            let mut rng = rand::rngs::StdRng::seed_from_u64(6);
            let mut w = n - 1 - rng.random_range(0..1000);
            let mut asked = 0;
            loop {
                assert_eq!(p.down().get(w), parent[w], "a fresh reader at vertex {w}");
                asked += 1;
                let mut down = p.down();
                let mut v = w;
                // Gaps from none to thousands of vertices.
                while let Some(below) = v.checked_sub(1 + rng.random_range(0..[1, 10, 3000][v % 3])) {
                    v = below;
                    assert_eq!(down.get(v), parent[v], "vertex {v} after a skip");
                }
                if w < 1000 {
                    break;
                }
                w /= 2;
            }
            assert!(asked > 5);
            let mut down = p.down();
            assert_eq!((down.get(n - 1), down.get(0)), (parent[n - 1], 0), "straight down to the root");
        }
    }

    #[test]
    #[should_panic(expected = "asked for after vertex")]
    fn a_vertex_above_the_last_one_is_refused() {
        let p = written(&random_parents(10, 7), &Placement::Memory);
        let mut down = p.down();
        down.get(5);
        down.get(6);
    }

    /// A value no parent array here holds.
    const NONE_YET: u32 = u32::MAX;
}
