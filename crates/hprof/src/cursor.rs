//! A moving window over a `Source`: the whole mapped file at once, or a few MiB at a time of a
//! chunked gzip file. Passes ask for `[off, off + n)` and get at most what exists.

use crate::source::Source;
use std::borrow::Cow;

pub struct Cursor<'s> {
    src: &'s Source,
    base: u64,
    win: Cow<'s, [u8]>,
    chunk: usize,
    len: u64,
}

/// Window size for sources that cannot be mapped whole.
pub const WINDOW: usize = 8 << 20;

impl<'s> Cursor<'s> {
    pub fn new(src: &'s Source) -> Cursor<'s> {
        let win = match src.as_slice() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Borrowed(&[][..]),
        };
        Cursor { src, base: 0, win, chunk: WINDOW, len: src.len() }
    }

    /// Total length of the data.
    #[inline]
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Up to `n` bytes at `off` (fewer only at the end of the data).
    #[inline]
    pub fn get(&mut self, off: u64, n: usize) -> &[u8] {
        let wl = self.win.len() as u64;
        if off >= self.base && off.saturating_add(n as u64) <= self.base + wl {
            let s = (off - self.base) as usize;
            return &self.win[s..s + n];
        }
        self.slow(off, n)
    }

    #[cold]
    fn slow(&mut self, off: u64, n: usize) -> &[u8] {
        if off >= self.len {
            return &[];
        }
        if self.src.as_slice().is_some() {
            // Mapped: the window is the whole file; this is a read running past the end.
            let s = off as usize;
            let e = (off.saturating_add(n as u64)).min(self.len) as usize;
            return &self.win[s..e];
        }
        self.base = off;
        self.win = self.src.bytes(off, n.max(self.chunk));
        let e = n.min(self.win.len());
        &self.win[..e]
    }
}
