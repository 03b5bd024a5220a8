//! `Appender`: an array of known-in-advance use — written once, front to back, read only after
//! — whose values reach its scratch file by `write`, a piece at a time, instead of through a
//! mapping. A store through a mapping into a page the file does not hold yet is a fault that
//! reads the page's whole read-around block first (2 MiB, `advice`): zeros where nothing was
//! written, and, inside a memory limit that has already written the block's first pages back
//! and evicted them, those pages again from disk. A `write` of whole pages makes them without
//! reading anything, and needs no zeros laid down first (`fill::lay_zeros`).

use crate::{BigArray, Placement, Plain, SpillFile};

/// Bytes buffered before a write (the pieces `fill::write_in_pieces` writes).
const PIECE: usize = 64 << 10;

/// The finished array's mapping, its page tables filled at once while memory is plentiful
/// (`Pages::prefault`, as `fill::lay_zeros` decides): its pages were just written, so they are
/// in the page cache, and one call maps them all where the passes reading the array would take
/// a fault per page (a scratch mapping gets no fault-around: `advice`). Inside a memory limit
/// the pages may be gone already, and are left to come back when read.
fn mapped<T: Plain>(f: &SpillFile<T>) -> std::io::Result<BigArray<T>> {
    let a = f.map_shared()?;
    if crate::memory_to_spare() / 4 >= crate::BigArray::file_bytes(&a) as u64 {
        crate::Pages::of(&a).prefault();
    }
    Ok(a)
}

pub struct Appender<T: Plain> {
    /// Values not yet written out (file form only).
    buf: Vec<T>,
    out: Out<T>,
}

enum Out<T: Plain> {
    Memory(Vec<T>),
    File(SpillFile<T>),
}

impl<T: Plain> Appender<T> {
    /// An empty array expected to reach `expected` values, in a scratch file when `place` says
    /// so and one can be made (else in memory).
    pub fn new(expected: usize, place: &Placement) -> Appender<T> {
        if let Placement::Files(dir) = place {
            if let Ok(f) = SpillFile::create(dir) {
                return Appender { buf: Vec::with_capacity(Self::chunk()), out: Out::File(f) };
            }
        }
        Appender { buf: Vec::new(), out: Out::Memory(Vec::with_capacity(expected)) }
    }

    fn chunk() -> usize {
        (PIECE / std::mem::size_of::<T>()).max(1)
    }

    #[inline]
    pub fn push(&mut self, v: T) {
        match &mut self.out {
            Out::Memory(m) => m.push(v),
            Out::File(_) => {
                self.buf.push(v);
                if self.buf.len() == self.buf.capacity() {
                    self.write_out();
                }
            }
        }
    }

    /// Values pushed so far.
    pub fn len(&self) -> usize {
        match &self.out {
            Out::Memory(m) => m.len(),
            Out::File(f) => f.len() + self.buf.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The buffered values to the file; on a write error (a full disk) everything moves to
    /// memory and stays there.
    fn write_out(&mut self) {
        let Out::File(f) = &mut self.out else { return };
        if f.append(&self.buf).is_err() {
            let Out::File(f) = std::mem::replace(&mut self.out, Out::Memory(Vec::new())) else { unreachable!() };
            let mut all = f.into_vec().unwrap_or_else(|e| panic!("reading a scratch file back failed: {e}"));
            all.extend_from_slice(&self.buf);
            self.out = Out::Memory(all);
        }
        self.buf.clear();
    }

    /// The values, mapped from the file (writable, as a `BigArray::zeroed` is), or in memory.
    pub fn finish(mut self) -> BigArray<T> {
        self.write_out();
        match self.out {
            Out::Memory(m) => BigArray::from(m),
            Out::File(f) => match mapped(&f) {
                Ok(a) => a,
                Err(_) => {
                    crate::fell_back();
                    BigArray::from(f.into_vec().unwrap_or_else(|e| panic!("reading a scratch file back failed: {e}")))
                }
            },
        }
    }
}

/// An array of a fixed length whose values are written a piece at a time at their places
/// (each once, in any order), by `write` as `Appender`'s are, and read only once complete.
pub struct PieceArray<T: Plain> {
    out: Out<T>,
}

impl<T: Plain> PieceArray<T> {
    /// `len` zeros until written, in a scratch file when `place` says so and one can be made.
    pub fn new(len: usize, place: &Placement) -> PieceArray<T> {
        if let Placement::Files(dir) = place {
            if let Ok(mut f) = SpillFile::create(dir) {
                if f.file.set_len((len * std::mem::size_of::<T>()) as u64).is_ok() {
                    f.len = len;
                    return PieceArray { out: Out::File(f) };
                }
                crate::fell_back();
            }
        }
        PieceArray { out: Out::Memory(vec![T::default(); len]) }
    }

    /// `values` at places `at..at + values.len()`; on a write error (a full disk) the array
    /// moves to memory and stays there.
    pub fn write(&mut self, at: usize, values: &[T]) {
        match &mut self.out {
            Out::Memory(m) => m[at..at + values.len()].copy_from_slice(values),
            Out::File(f) => {
                let bytes = crate::as_bytes(values);
                if crate::fill::write_at(&f.file, bytes, at * std::mem::size_of::<T>()).is_err() {
                    crate::fell_back();
                    let Out::File(f) = std::mem::replace(&mut self.out, Out::Memory(Vec::new())) else { unreachable!() };
                    let mut all = f.into_vec().unwrap_or_else(|e| panic!("reading a scratch file back failed: {e}"));
                    all[at..at + values.len()].copy_from_slice(values);
                    self.out = Out::Memory(all);
                }
            }
        }
    }

    /// The values, mapped from the file (writable), or in memory.
    pub fn finish(self) -> BigArray<T> {
        match self.out {
            Out::Memory(m) => BigArray::from(m),
            Out::File(f) => match mapped(&f) {
                Ok(a) => a,
                Err(_) => {
                    crate::fell_back();
                    BigArray::from(f.into_vec().unwrap_or_else(|e| panic!("reading a scratch file back failed: {e}")))
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::files;
    use std::path::Path;
    use std::sync::Arc;

    /// Values across several written pieces come back in order, from a writable mapping of
    /// the file (a change in place stays in the page cache, not in anonymous memory).
    #[test]
    fn appended_values_come_back_mapped_and_writable() {
        let (_dir, place) = files();
        let values: Vec<u32> = (0..100_000u32).map(|k| k.wrapping_mul(2_654_435_761)).collect();
        let mut a: Appender<u32> = Appender::new(values.len(), &place);
        for &v in &values {
            a.push(v);
        }
        assert_eq!(a.len(), values.len());
        let mut out = a.finish();
        assert!(out.is_mapped() && out.heap_bytes() == 0);
        assert_eq!(&out[..], &values[..]);
        out[99_999] = 7;
        assert_eq!(out[99_999], 7);
    }

    #[test]
    fn appender_in_memory_and_where_no_file_can_be_made() {
        for place in [Placement::Memory, Placement::Files(Arc::from(Path::new("/nonexistent/heapql-scratch")))] {
            let mut a: Appender<u64> = Appender::new(3, &place);
            assert!(a.is_empty());
            [5u64, 6, 7].into_iter().for_each(|v| a.push(v));
            let out = a.finish();
            assert!(!out.is_mapped());
            assert_eq!(&out[..], &[5, 6, 7]);
        }
        let (_dir, place) = files();
        assert!(Appender::<u32>::new(0, &place).finish().is_empty());
    }

    /// Pieces written in any order, the places never written reading as zeros.
    #[test]
    fn pieces_land_at_their_places() {
        let (_dir, place) = files();
        for place in [place, Placement::Memory] {
            let mut p: PieceArray<u32> = PieceArray::new(50_000, &place);
            p.write(40_000, &[1, 2, 3]);
            p.write(3, &(0..20_000).collect::<Vec<u32>>());
            p.write(49_999, &[9]);
            let out = p.finish();
            assert_eq!(out.is_mapped(), place != Placement::Memory);
            assert_eq!(out.len(), 50_000);
            assert_eq!((out[0], out[3], out[20_002], out[20_003]), (0, 0, 19_999, 0));
            assert_eq!((&out[40_000..40_003], out[40_003], out[49_999]), (&[1, 2, 3][..], 0, 9));
        }
    }
}
