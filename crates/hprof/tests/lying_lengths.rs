//! Lengths that lie far off (into heap data, past the end of the file), damaged gzip member
//! headers and long runs of unknown records: the damage is an error naming the record (or
//! member) and where the records resume, never most of a healthy dump dropped as "trailing
//! junk" or "cut short" with a warning naming the wrong cause.

use heapql_hprof::records::walk;
use heapql_hprof::subrecords::scan_segment;
use heapql_hprof::testkit::{Body, Writer};
use heapql_hprof::types::{sub, tag};
use heapql_hprof::{BasicType, Control, Cursor, Error, Layout, Record, Source, Sub, SubVisitor};

fn walk_bytes(bytes: &[u8]) -> Result<Layout, Error> {
    let src = Source::from_bytes(bytes);
    let header = heapql_hprof::read_header(&src).unwrap();
    walk(&src, &header, Control::none(), &mut |_r: Record<'_>| {})
}

struct Count(u64);
impl SubVisitor for Count {
    fn sub(&mut self, _s: Sub) {
        self.0 += 1;
    }
}

/// Walks, then scans every segment of every dump: the first error, or the warnings and the
/// number of sub-records read.
fn read_all(bytes: &[u8]) -> Result<(Vec<String>, u64), Error> {
    let src = Source::from_bytes(bytes);
    let header = heapql_hprof::read_header(&src).unwrap();
    let l = walk(&src, &header, Control::none(), &mut |_r: Record<'_>| {})?;
    let mut warnings: Vec<String> = l.warnings.into_iter().map(|w| w.message).collect();
    let mut cur = Cursor::new(&src);
    let mut n = Count(0);
    let ctl = Control::none();
    let mut tick = ctl.ticker("test", 1);
    for d in &l.dumps {
        for s in &d.segments {
            if let Some(w) = scan_segment(&mut cur, s, header.id_size, &mut n, &mut tick)?.warning {
                warnings.push(w.message);
            }
        }
    }
    Ok((warnings, n.0))
}

fn corrupt(r: Result<impl std::fmt::Debug, Error>) -> (u64, String) {
    match r {
        Err(Error::Corrupt { offset, reason }) => (offset, reason),
        other => panic!("not called corrupt: {other:?}"),
    }
}

/// Offsets of the parts of `dump()`.
struct Parts {
    bytes: Vec<u8>,
    utf8: usize,
    trace: usize,
    segs: [usize; 3],
    /// Where the run of zeros (a 30000-byte primitive array's data) in the second segment starts.
    zeros: usize,
}

/// Strings, a trace, then three heap dump segments (the second holding a long all-zero byte
/// array, as heap data often does) and a HEAP DUMP END.
fn dump() -> Parts {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    for i in 0..5u64 {
        w.utf8(0x7f00_0000 + i * 0x10, &format!("com.example.Name{i}"));
    }
    let utf8 = w.buf.len();
    w.utf8(0x7f00_1000, "java.lang.String");
    w.utf8(0x7f00_1010, "java.lang.Object");
    let trace = w.buf.len();
    w.trace(7, 1, &[]);
    w.trace(8, 1, &[]);
    w.load_class(1, 0x1000, 0x7f00_1010);
    let mut segs = [0; 3];
    let mut zeros = 0;
    for (k, s) in segs.iter_mut().enumerate() {
        let mut b = Body::new(8);
        b.root(sub::ROOT_STICKY_CLASS, 0x1000);
        b.instance(0x2000 + k as u64 * 0x100, 0x1000, &[0, 0, 0, 1]);
        if k == 1 {
            b.prim_array(0x3000, BasicType::Byte, 30_000, &[0; 30_000]);
        }
        b.instance(0x2010 + k as u64 * 0x100, 0x1000, &[0, 0, 0, 2]);
        *s = w.buf.len();
        if k == 1 {
            // Header, sticky class root, instance, primitive array header.
            zeros = *s + 9 + 9 + 29 + 18;
        }
        w.heap_dump_segment(&b);
    }
    w.heap_dump_end();
    let bytes = w.finish();
    assert!(bytes[zeros - 1] == BasicType::Byte.code() && bytes[zeros..zeros + 30_000].iter().all(|&b| b == 0));
    Parts { bytes, utf8, trace, segs, zeros }
}

fn set_len(b: &mut [u8], at: usize, len: u32) {
    b[at + 5..at + 9].copy_from_slice(&len.to_be_bytes());
}

#[test]
fn the_healthy_dump_reads_whole() {
    let p = dump();
    let (w, n) = read_all(&p.bytes).unwrap();
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(n, 3 * 3 + 1);
}

/// 2a: a small record whose length lands in a run of zeros far into the heap data: the walk
/// finds no record there and none near it, but records do go on to the end of the file. That is
/// the small record's length lying (found from its body), not trailing junk.
#[test]
fn a_length_landing_in_heap_zeros_is_corrupt_naming_the_record() {
    let p = dump();
    let land = p.zeros + 15_000;
    for (at, kind, true_len) in [(p.utf8, "UTF8", 8 + 16), (p.trace, "TRACE", 12)] {
        let mut bad = p.bytes.clone();
        let lie = (land - at - 9) as u32;
        set_len(&mut bad, at, lie);
        let (off, reason) = corrupt(walk_bytes(&bad));
        assert_eq!(off, at as u64, "{reason}");
        assert!(reason.contains(&format!("the record at byte offset {at} ({kind}, {lie} bytes) is followed by bytes that are no record at byte offset {land}")), "{reason}");
        assert!(
            reason.contains(&format!("records resume at byte offset {}, as if it held {true_len} bytes", at + 9 + true_len)),
            "{reason}"
        );
        assert!(reason.contains("The file is not cut short"), "{reason}");
    }
}

/// 2a, a heap record: the first segment's length lands in the zeros of the second, far from
/// any record; whole records resume at the third segment and go on to the end.
#[test]
fn a_heap_length_landing_in_heap_zeros_names_where_records_resume() {
    let p = dump();
    let mut bad = p.bytes.clone();
    let land = p.zeros + 15_000;
    set_len(&mut bad, p.segs[0], (land - p.segs[0] - 9) as u32);
    let (off, reason) = corrupt(walk_bytes(&bad));
    assert_eq!(off, p.segs[0] as u64, "{reason}");
    assert!(reason.contains(&format!("no record at byte offset {land}")), "{reason}");
    assert!(reason.contains(&format!("records resume at byte offset {}", p.segs[2])), "{reason}");
    // Bytes after a whole dump that never form records again are still a trailer.
    let mut tail = p.bytes.clone();
    tail.extend_from_slice(&[0x5a; 5000]);
    let l = walk_bytes(&tail).unwrap();
    assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
    assert!(l.warnings[0].message.contains("are not HPROF records"), "{:?}", l.warnings);
}

/// 2b: a segment that is not the last whose length is 0 (read as never patched) or runs past
/// the end (read as a cut file): its sub-records end where whole top-level records go on to the
/// end of the file. An error naming the segment and where its data ends, not "cut short".
/// Here the sticky class root that starts each segment reads as a TRACE record header, so the
/// empty segment looks believable, and the walk finds the lie.
#[test]
fn a_segment_length_running_over_the_next_records_is_corrupt() {
    let p = dump();
    let mut bad = p.bytes.clone();
    set_len(&mut bad, p.segs[0], 0);
    let (off, reason) = corrupt(walk_bytes(&bad));
    assert_eq!(off, p.segs[0] as u64, "{reason}");
    assert!(
        reason.contains(&format!(
            "the record at byte offset {} (HEAP DUMP SEGMENT, 0 bytes) is followed by bytes that are no record at byte offset {}",
            p.segs[0],
            p.segs[0] + 9
        )),
        "{reason}"
    );
    assert!(reason.contains(&format!("records resume at byte offset {}, as if it held {} bytes", p.segs[1], p.segs[1] - p.segs[0] - 9)), "{reason}");
}

/// 2b, as the scan finds it: with a first sub-record that is no record header, a segment of
/// length 0 is read as one whose length was never patched, and one past the end as a cut.
#[test]
fn a_segment_length_running_over_the_next_records_is_corrupt_when_scanned() {
    let mut p = dump();
    p.bytes[p.segs[0] + 9] = sub::ROOT_UNKNOWN;
    for lie in [0u32, 0xFFFF_FFFF] {
        let mut bad = p.bytes.clone();
        set_len(&mut bad, p.segs[0], lie);
        let (off, reason) = corrupt(read_all(&bad));
        assert_eq!(off, p.segs[0] as u64, "{reason}");
        assert!(reason.contains(&format!("the HEAP DUMP SEGMENT record at byte offset {} claims", p.segs[0])), "{reason}");
        assert!(reason.contains(&format!("its heap data ends at byte offset {}", p.segs[1])), "{reason}");
        assert!(reason.contains(&format!("it holds {} bytes", p.segs[1] - p.segs[0] - 9)), "{reason}");
    }
    // A file really cut short inside its last segment is still read with a warning.
    let cut = &p.bytes[..p.segs[2] + 30];
    let (w, _) = read_all(cut).unwrap();
    assert!(w.iter().any(|w| w.contains("cut short")), "{w:?}");
}

/// 3a: a record whose own length lies (past the end) after one that read right: that record is
/// named, with its true length, not the one before it.
#[test]
fn the_record_whose_length_lies_is_named_not_the_one_before() {
    let p = dump();
    let at = p.utf8;
    let mut bad = p.bytes.clone();
    set_len(&mut bad, at, 0x7fff_ffff);
    let (off, reason) = corrupt(walk_bytes(&bad));
    assert_eq!(off, at as u64, "{reason}");
    assert!(reason.contains(&format!("the record at byte offset {at} (UTF8) claims 2147483647 bytes")), "{reason}");
    assert!(reason.contains(&format!("records resume at byte offset {}, as if it held 24 bytes", at + 9 + 24)), "{reason}");
}

/// 3b: well-formed records of unknown kinds, however many in a row, are skipped; the warnings
/// name the first 20 and then say how many more.
#[test]
fn any_number_of_unknown_records_is_skipped_and_counted() {
    for (n, body) in [(18usize, &[1u8, 2, 3, 4][..]), (500, &[][..]), (3000, &[9u8; 4][..])] {
        let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
        w.utf8(1, "x");
        for _ in 0..n {
            w.record(0x77, body);
        }
        let mut seg = Body::new(8);
        seg.root(sub::ROOT_UNKNOWN, 0x1000);
        w.utf8(2, "y").heap_dump_segment(&seg).heap_dump_end();
        let l = walk_bytes(&w.finish()).unwrap_or_else(|e| panic!("{n}: {e}"));
        assert_eq!(l.dumps.len(), 1);
        let named = l.warnings.iter().filter(|w| w.message.contains("unknown record tag 0x77")).count();
        assert_eq!(named, n.min(20), "{n}");
        let more: Vec<_> = l.warnings.iter().filter(|w| w.message.starts_with("…and")).collect();
        if n > 20 {
            assert_eq!(more.len(), 1, "{n}");
            assert!(more[0].message.contains(&format!("…and {} more records of unknown kinds skipped ({n} in all", n - 20)), "{:?}", more);
        } else {
            assert!(more.is_empty());
        }
        assert!(l.record_counts.contains(&(tag::UTF8, 2)));
    }
}

fn gzip_members(plain: &[u8], chunk: usize) -> (Vec<u8>, Vec<usize>) {
    gzip_members_named(plain, chunk, true)
}

/// `plain` in gzip members of `chunk` bytes, the first with the JVM's comment when `jvm`; and
/// where each member starts.
fn gzip_members_named(plain: &[u8], chunk: usize, jvm: bool) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut starts = Vec::new();
    for (k, part) in plain.chunks(chunk).enumerate() {
        let mut b = flate2::GzBuilder::new();
        if k == 0 && jvm {
            b = b.comment(format!("HPROF BLOCKSIZE={chunk}"));
        }
        let mut e = b.write(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, part).unwrap();
        starts.push(out.len());
        out.extend(e.finish().unwrap());
    }
    (out, starts)
}

fn open_gz(name: &str, bytes: &[u8]) -> Result<Source, Error> {
    let p = std::env::temp_dir().join(format!("heapql-lying-{}-{name}.gz", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    let r = Source::open(&p, Control::none());
    std::fs::remove_file(&p).ok();
    r
}

/// 2c: a damaged byte in the header of a member after the first (chunked, and several members
/// of a plain gzip file): the member before it ends there, so a member must start there. An
/// error naming that compressed offset, not the rest of the file ignored as trailing bytes.
#[test]
fn a_damaged_gzip_member_header_is_corrupt_not_trailing_bytes() {
    let p = dump();
    let (gz, starts) = gzip_members(&p.bytes, 8 * 1024);
    assert!(starts.len() >= 4);
    assert!(open_gz("ok", &gz).unwrap().warnings().is_empty());
    for (k, byte) in [(1, 1), (2, 0), (starts.len() - 1, 1), (starts.len() - 1, 2)] {
        let at = starts[k];
        let mut bad = gz.clone();
        bad[at + byte] ^= 0x20;
        let (off, reason) = corrupt(open_gz("bad", &bad).map(|_| ()));
        assert_eq!(off, at as u64, "{reason}");
        assert!(reason.contains(&format!("a gzip member ends at compressed offset {at}")), "{reason}");
    }
    // A plain gzip file of several members (no BLOCKSIZE comment, inflated whole): the same.
    let (plain, starts) = gzip_members_named(&p.bytes, 8 * 1024, false);
    let mut bad = plain.clone();
    bad[starts[2] + 1] ^= 0x20;
    let (off, reason) = corrupt(open_gz("plain", &bad).map(|_| ()));
    assert_eq!(off, starts[2] as u64, "{reason}");
    // Junk appended after the last member is still ignored with a warning.
    let mut tail = gz.clone();
    tail.extend_from_slice(b"appended by a transfer tool\n");
    let src = open_gz("tail", &tail).unwrap();
    assert!(src.warnings().iter().any(|w| w.message.contains("are not gzip data; ignored")), "{:?}", src.warnings());
}

/// 3a: a segment one byte short ends on its last byte, which reads as the tag of a LOAD CLASS
/// record whose length cannot be a LOAD CLASS's: the segment is named, not that non-record.
#[test]
fn a_segment_one_byte_short_is_named_not_the_byte_it_ends_on() {
    let p = dump();
    assert_eq!(p.bytes[p.segs[1] - 1], tag::LOAD_CLASS);
    let held = (p.segs[1] - p.segs[0] - 9) as u32;
    for lie in [held - 1, held + 1] {
        let mut bad = p.bytes.clone();
        set_len(&mut bad, p.segs[0], lie);
        let (off, reason) = corrupt(walk_bytes(&bad));
        assert_eq!(off, p.segs[0] as u64, "{lie}: {reason}");
        assert!(reason.contains(&format!("the record at byte offset {} (HEAP DUMP SEGMENT, {lie} bytes)", p.segs[0])), "{reason}");
        assert!(reason.contains(&format!("records resume at byte offset {}, as if it held {held} bytes", p.segs[1])), "{reason}");
    }
}

/// The very first record's length lies past the end of the file (its high byte damaged): no
/// record before it to blame, but whole records resume where a UTF8 record of its text ends.
/// Not a file cut short in its first record with every record after it dropped.
#[test]
fn the_first_records_length_lying_past_the_end_is_corrupt_naming_where_records_resume() {
    let p = dump();
    let first = 31; // header "JAVA PROFILE 1.0.2\0", id size, time stamp
    let mut bad = p.bytes.clone();
    bad[first + 5] = 0xff;
    let lie = u32::from_be_bytes(bad[first + 5..first + 9].try_into().unwrap());
    let (off, reason) = corrupt(walk_bytes(&bad));
    assert_eq!(off, first as u64, "{reason}");
    let held = 8 + "com.example.Name0".len();
    assert!(reason.contains(&format!("the record at byte offset {first} (UTF8) claims {lie} bytes, but only")), "{reason}");
    assert!(reason.contains(&format!("records resume at byte offset {}, as if it held {held} bytes", first + 9 + held)), "{reason}");
    assert!(reason.contains("The file is not cut short"), "{reason}");
}

/// A heap dump segment's tag byte damaged: the record is of no known kind and is skipped, as
/// unknown records are, but the warning says it is most likely heap data lost, not a writer's
/// record of its own.
#[test]
fn a_segment_with_a_damaged_tag_is_skipped_with_a_warning_naming_the_loss() {
    let p = dump();
    let mut bad = p.bytes.clone();
    bad[p.segs[1]] = 0x55;
    let (w, n) = read_all(&bad).unwrap();
    assert_eq!(n, 2 * 3, "the two whole segments are read");
    let at = p.segs[1];
    assert!(
        w.iter().any(|m| m.contains(&format!("unknown record tag 0x55 at byte offset {at}"))
            && m.contains("most likely a HEAP DUMP SEGMENT (0x1C) whose tag byte was damaged")
            && m.contains("missing from every answer")),
        "{w:?}"
    );
}

/// Records that look like damaged segments are unknown records like any other: the first 20
/// named, then counted (a warning per record would let a hostile file grow them without end,
/// and the count would say "the first 20 are named above" of more).
#[test]
fn segments_with_damaged_tags_are_named_only_among_the_first_unknown_records() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.utf8(1, "x");
    let mut seg = Body::new(8);
    seg.root(sub::ROOT_UNKNOWN, 0x1000);
    for _ in 0..30 {
        w.heap_dump_segment(&seg).record(0x55, &seg.b);
    }
    w.heap_dump_segment(&seg).heap_dump_end();
    let l = walk_bytes(&w.finish()).unwrap();
    let named = l.warnings.iter().filter(|w| w.message.contains("unknown record tag 0x55")).count();
    assert_eq!(named, 20, "{:?}", l.warnings);
    assert!(l.warnings.iter().any(|w| w.message.contains("most likely a HEAP DUMP SEGMENT")));
    let more: Vec<_> = l.warnings.iter().filter(|w| w.message.starts_with("…and")).collect();
    assert_eq!(more.len(), 1);
    assert!(more[0].message.contains("…and 10 more records of unknown kinds skipped (30 in all"), "{:?}", more);
}

/// A LOAD CLASS record (always 8 + 2 ids = 24 bytes here) whose length grew by exactly the size
/// of the next record: read by its length the walk lands on a whole record and goes on, the
/// class loaded by the swallowed record silently lost. Its kind gives its true length and
/// whole records follow there: the length lies. Likewise a TRACE longer than its frame count
/// by one record, and one at the end of the data swallowing the heap dump end record.
#[test]
fn a_fixed_length_record_swallowing_the_next_record_is_corrupt() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.utf8(0x7f00_1000, "java.lang.String");
    w.utf8(0x7f00_1010, "java.lang.Object");
    let first = w.buf.len();
    w.load_class(1, 0x1000, 0x7f00_1010);
    w.load_class(2, 0x1100, 0x7f00_1000);
    w.load_class(3, 0x1200, 0x7f00_1000);
    let trace = w.buf.len();
    w.trace(7, 1, &[]);
    w.trace(8, 1, &[]);
    w.trace(9, 1, &[]);
    let mut b = Body::new(8);
    b.root(sub::ROOT_STICKY_CLASS, 0x1000);
    w.heap_dump_segment(&b);
    w.heap_dump_end();
    w.trace(10, 1, &[]);
    let good = w.finish();
    assert!(read_all(&good).unwrap().0.is_empty());
    let end = good.len() - 21 - 9;
    for (at, kind, true_len, lie) in [(first, "LOAD CLASS", 24u32, 24 + 9 + 24), (trace, "TRACE", 12, 12 + 9 + 12), (end, "HEAP DUMP END", 0, 21)] {
        let mut bad = good.clone();
        set_len(&mut bad, at, lie);
        let (off, reason) = corrupt(walk_bytes(&bad));
        assert_eq!(off, at as u64, "{reason}");
        assert!(reason.contains(&format!("the record at byte offset {at} ({kind}) claims {lie} bytes, but its kind and counts give it {true_len}")), "{reason}");
        assert!(reason.contains(&format!("records resume at byte offset {}, as if it held {true_len} bytes", at + 9 + true_len as usize)), "{reason}");
        assert!(reason.contains("The file is not cut short"), "{reason}");
    }
}

/// A UTF8 record's tag byte damaged into HEAP DUMP END (which holds no bytes): its length still
/// leads to the next record, but no record resumes where a HEAP DUMP END ends. The string is
/// lost; a warning says so and names the record, rather than nothing.
#[test]
fn a_record_longer_than_its_kind_whose_tag_is_damaged_is_named_in_a_warning() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.utf8(0x7f00_1000, "java.lang.String");
    let at = w.buf.len();
    w.utf8(0x7f00_1010, "java.lang.Object");
    w.load_class(1, 0x1000, 0x7f00_1010);
    let mut b = Body::new(8);
    b.root(sub::ROOT_STICKY_CLASS, 0x1000);
    w.heap_dump_segment(&b);
    w.heap_dump_end();
    let mut bad = w.finish();
    bad[at] = tag::HEAP_DUMP_END;
    let (warnings, _) = read_all(&bad).unwrap();
    let len = 8 + "java.lang.Object".len();
    assert!(
        warnings.iter().any(|m| m.contains(&format!("the HEAP DUMP END record at byte offset {at} holds {len} bytes, but its kind and counts give it 0: its tag or counts are probably damaged"))),
        "{warnings:?}"
    );
}

/// Many records longer than their kind (a writer that pads one kind, or a tag damaged all
/// along): the first 20 are named, one more warning counts the rest, instead of a warning per
/// record.
#[test]
fn many_records_longer_than_their_kind_are_named_twenty_times_then_counted() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    let mut at = Vec::new();
    for i in 0..25u64 {
        at.push(w.buf.len());
        w.utf8(0x7f00_2000 + i, "padded");
        w.utf8(0x7f00_3000 + i, "whole");
    }
    let mut b = Body::new(8);
    b.root(sub::ROOT_STICKY_CLASS, 0x1000);
    w.heap_dump_segment(&b);
    w.heap_dump_end();
    let mut bad = w.finish();
    for &a in &at {
        bad[a] = tag::HEAP_DUMP_END;
    }
    let (warnings, _) = read_all(&bad).unwrap();
    let named = warnings.iter().filter(|m| m.contains("its tag or counts are probably damaged")).count();
    assert_eq!(named, 20, "{warnings:?}");
    assert!(warnings.iter().any(|m| m.starts_with("…and 5 more records whose length is not their kind's (25 in all; the first 20 are named above)")), "{warnings:?}");
}

/// A UTF8 record in the middle whose length (one a UTF8 record may have) lies past the end of
/// the file, while whole records, the heap dump's among them, go on after its text: an error
/// naming it and where the records resume, not a file cut short there with every record after
/// it (the whole heap dump) dropped.
#[test]
fn a_utf8_length_lying_past_the_end_in_the_middle_is_corrupt_not_cut_short() {
    let p = dump();
    let at = p.utf8;
    let mut bad = p.bytes.clone();
    let left = (bad.len() - at - 9) as u32;
    set_len(&mut bad, at, left + 1000);
    let (off, reason) = corrupt(walk_bytes(&bad));
    assert_eq!(off, at as u64, "{reason}");
    assert!(reason.contains(&format!("the record at byte offset {at} (UTF8) claims {} bytes, but only {left} remain", left + 1000)), "{reason}");
    assert!(reason.contains(&format!("records resume at byte offset {}, as if it held 24 bytes", at + 9 + 24)), "{reason}");
    assert!(reason.contains("The file is not cut short"), "{reason}");
    // A file really cut short inside that record is still read up to it, with a warning.
    let l = walk_bytes(&p.bytes[..at + 20]).unwrap();
    assert!(l.warnings.iter().any(|w| w.message.contains("the file is cut short")), "{:?}", l.warnings);
}
