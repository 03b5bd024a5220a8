//! Bytes after a whole dump that are no records (appended by a copy or transfer, the zeros of
//! a preallocated file) are ignored with one warning: the dump before them is all there, and
//! nothing says a record's length lied (a HEAP DUMP END's is always 0).

use heapql_hprof::records::walk;
use heapql_hprof::testkit::{Body, Writer};
use heapql_hprof::types::sub;
use heapql_hprof::{Control, Record, Source};

fn walk_bytes(bytes: &[u8]) -> Result<(Vec<String>, usize), heapql_hprof::Error> {
    let src = Source::from_bytes(bytes);
    let header = heapql_hprof::read_header(&src).unwrap();
    walk(&src, &header, Control::none(), &mut |_r: Record<'_>| {}).map(|l| (l.warnings.into_iter().map(|w| w.message).collect(), l.dumps.len()))
}

fn whole_dump() -> Vec<u8> {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.utf8(0x7f51_9c4d_a3f8, "java.lang.Object");
    w.load_class(1, 0x1000, 0x7f51_9c4d_a3f8);
    let mut seg = Body::new(8);
    seg.root(sub::ROOT_UNKNOWN, 0x1000);
    seg.instance(0x2000, 0x1000, &[0, 0, 0, 1]);
    w.heap_dump_segment(&seg).heap_dump_end();
    w.finish()
}

#[test]
fn junk_after_the_last_record_is_ignored_with_one_warning() {
    let good = whole_dump();
    assert_eq!(walk_bytes(&good).unwrap(), (vec![], 1));
    // Bytes that never form records: an xorshift stream, and a run of 0xFF.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let noise: Vec<u8> = (0..100)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    for tail in [noise, vec![0xFF; 64]] {
        let mut bad = good.clone();
        bad.extend_from_slice(&tail);
        let (warnings, dumps) = walk_bytes(&bad).unwrap_or_else(|e| panic!("refused: {e}"));
        assert_eq!(dumps, 1);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(
            warnings[0],
            format!(
                "the {} bytes from byte offset {} to the end are not HPROF records (after the HEAP DUMP END record at byte offset {}); ignored: the records before them are read",
                tail.len(),
                good.len(),
                good.len() - 9
            )
        );
    }
}

#[test]
fn zero_padding_is_one_warning() {
    let good = whole_dump();
    let mut padded = good.clone();
    padded.extend_from_slice(&[0u8; 100]);
    let (warnings, dumps) = walk_bytes(&padded).unwrap();
    assert_eq!(dumps, 1);
    assert_eq!(warnings, vec![format!("the 100 bytes from byte offset {} to the end are zeros, not records (padding); ignored", good.len())]);
}
