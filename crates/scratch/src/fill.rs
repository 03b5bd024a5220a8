//! How the pages of the files heapql writes (scratch arrays, and the index cache's files through
//! `write_in_pieces`) come to be. The kernel makes page cache in folios as large as
//! the write that asks for them, and a fault through a mapping brings in a whole readahead
//! window (`read_ahead_kb`, 8 MiB on this project's machines) of large folios. On the virtual
//! machines the budgets are measured on, memory the host has taken back is slow to hand out
//! in large blocks: a fresh 1 GiB file filled through its mapping or by one large write took
//! 0.45–1.3 GB/s, written 64 KiB at a time 6.6 GB/s, and written as 64 KiB pieces of zeros
//! and then filled through the mapping 5.5 GB/s (`/tmp` on ext4, fresh processes). So the
//! scratch arrays write their data in such pieces, and lay a fresh array's zeros down the
//! same way before it is mapped, while memory is plentiful.

use std::fs::File;
use std::io::Write;

/// Bytes per write into a scratch file.
const PIECE: usize = 64 << 10;

/// Appends `data` to `file` a piece at a time.
pub fn write_in_pieces(file: &mut File, data: &[u8]) -> std::io::Result<()> {
    data.chunks(PIECE).try_for_each(|piece| file.write_all(piece))
}

/// Writes zeros over `bytes` bytes of `file` from byte `offset` (disk space already
/// reserved), so that the pages are in the page cache, as small folios, before the mapping
/// touches them. Only while memory is plentiful (a quarter of what the process could still
/// take): inside a tight limit the zeros would be written back to disk before the array's
/// values reach them, where pages faulted in as the values are written are written back
/// once. Best effort: a failed write leaves the rest to the faults.
pub(crate) fn lay_zeros(file: &File, offset: usize, bytes: usize) {
    if bytes > 0 && crate::memory_to_spare() / 4 >= bytes as u64 {
        let _ = write_zeros(file, offset, bytes);
    }
}

/// Writes zeros over `bytes` bytes of `file` from byte `offset`, a piece at a time.
fn write_zeros(file: &File, offset: usize, bytes: usize) -> std::io::Result<()> {
    static ZEROS: [u8; PIECE] = [0; PIECE];
    let end = offset + bytes;
    let mut at = offset;
    while at < end {
        let k = (end - at).min(PIECE);
        write_at(file, &ZEROS[..k], at)?;
        at += k;
    }
    Ok(())
}

#[cfg(unix)]
pub(crate) fn write_at(file: &File, data: &[u8], at: usize) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, data, at as u64)
}

#[cfg(not(unix))]
pub(crate) fn write_at(mut file: &File, data: &[u8], at: usize) -> std::io::Result<()> {
    use std::io::Seek;
    file.seek(std::io::SeekFrom::Start(at as u64))?;
    file.write_all(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek};

    #[test]
    fn pieces_make_the_same_file_as_one_write() {
        let data: Vec<u8> = (0..(3 * PIECE + 123)).map(|i| (i * 7 % 251) as u8).collect();
        let mut f = tempfile::tempfile().unwrap();
        write_in_pieces(&mut f, &data).unwrap();
        write_in_pieces(&mut f, &data[..5]).unwrap();
        let mut back = Vec::new();
        f.rewind().unwrap();
        f.read_to_end(&mut back).unwrap();
        assert_eq!(back.len(), data.len() + 5);
        assert_eq!(&back[..data.len()], &data[..]);
        assert_eq!(&back[data.len()..], &data[..5]);
    }

    #[test]
    fn zeros_cover_exactly_the_range() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&vec![9u8; 2 * PIECE + 10]).unwrap();
        write_zeros(&f, 5, PIECE + 3).unwrap();
        let mut back = Vec::new();
        f.rewind().unwrap();
        f.read_to_end(&mut back).unwrap();
        assert_eq!(back.len(), 2 * PIECE + 10);
        assert!(back[..5].iter().all(|&b| b == 9));
        assert!(back[5..5 + PIECE + 3].iter().all(|&b| b == 0));
        assert!(back[5 + PIECE + 3..].iter().all(|&b| b == 9));
    }
}
