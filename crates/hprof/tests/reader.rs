//! The reader alone: header, record walk, sub-record scan, sources.

use heapql_hprof::records::walk;
use heapql_hprof::subrecords::scan_segment;
use heapql_hprof::testkit::{Body, Writer};
use heapql_hprof::types::{sub, tag};
use heapql_hprof::{parse_header, BasicType, Control, Cursor, Record, Source, Sub, SubVisitor};

#[test]
fn header_variants() {
    for v in ["JAVA PROFILE 1.0", "JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3"] {
        for id in [4u32, 8] {
            let w = Writer::new(v, id, 1234);
            let h = parse_header(&w.buf).unwrap();
            assert_eq!((h.format.as_str(), h.id_size, h.timestamp_ms, h.records_start), (v, id, 1234, (v.len() + 13) as u64));
        }
    }
    assert_eq!(parse_header(b"").unwrap_err(), "file is empty");
    assert!(parse_header(b"PK\x03\x04").unwrap_err().contains("no 'JAVA PROFILE"));
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.buf[19 + 3] = 3;
    assert!(parse_header(&w.buf).unwrap_err().contains("identifier size 3"));
}

#[derive(Default)]
struct Collect(Vec<String>);
impl SubVisitor for Collect {
    fn sub(&mut self, s: Sub) {
        self.0.push(match s {
            Sub::Root { tag, id, thread, frame } => format!("root {tag:x} {id:x} {thread:?} {frame:?}"),
            Sub::ThreadObject { id, thread_serial, trace_serial } => format!("thread {id:x} {thread_serial} {trace_serial}"),
            Sub::Class(c) => format!("class {:x} super {:x} statics {} fields {}", c.id, c.super_id, c.statics.len(), c.fields.len()),
            Sub::Instance { id, class_id, data_len, .. } => format!("instance {id:x} {class_id:x} {data_len}"),
            Sub::ObjArray { id, len, class_id, .. } => format!("objarray {id:x} {len} {class_id:x}"),
            Sub::PrimArray { id, len, ty, nodata, .. } => format!("primarray {id:x} {len} {ty:?} {nodata}"),
            Sub::HeapInfo { heap_id, name_id, .. } => format!("heapinfo {heap_id:x} {name_id:x}"),
        })
    }
}

#[test]
fn walk_and_scan_every_record_kind() {
    for id in [4u32, 8] {
        let mut w = Writer::new("JAVA PROFILE 1.0.3", id, 0);
        w.utf8(7, "java.lang.Object").load_class(1, 0x100, 7).frame(0x55, 7, 7, 7, 1, -3).trace(2, 1, &[0x55]);
        w.record(0x55, &[9, 9]); // unknown: skipped with a warning
        let mut seg = Body::new(id);
        seg.u1(sub::HEAP_DUMP_INFO).u4(0x5A).id(7);
        seg.class_dump(0x100, 0, 0, 8, &[(7, heapql_hprof::testkit::Val::Long(1))], &[(7, BasicType::Int)]);
        seg.instance(0x200, 0x100, &[0, 0, 0, 1]);
        seg.obj_array(0x210, 0x100, &[0x200, 0]);
        seg.prim_array(0x220, BasicType::Char, 2, &[0, 65, 0, 66]);
        seg.u1(sub::PRIM_ARRAY_NODATA).id(0x230).u4(0).u4(5).u1(BasicType::Long.code());
        seg.root(sub::ROOT_UNKNOWN, 1).root_jni_global(2, 3).root_frame(sub::ROOT_JNI_LOCAL, 4, 1, 0);
        seg.root_frame(sub::ROOT_JAVA_FRAME, 5, 1, 2).root_thread(sub::ROOT_NATIVE_STACK, 6, 1).root(sub::ROOT_STICKY_CLASS, 0x100);
        seg.root_thread(sub::ROOT_THREAD_BLOCK, 7, 1).root(sub::ROOT_MONITOR_USED, 8).root_thread_object(9, 1, 2);
        for t in [sub::ROOT_INTERNED_STRING, sub::ROOT_FINALIZING, sub::ROOT_DEBUGGER, sub::ROOT_REFERENCE_CLEANUP, sub::ROOT_VM_INTERNAL, sub::UNREACHABLE] {
            seg.root(t, 10);
        }
        seg.root_frame(sub::ROOT_JNI_MONITOR, 11, 1, -1);
        w.heap_dump_segment(&Body::new(id)).heap_dump_segment(&seg).heap_dump_end();
        let src = Source::from_bytes(&w.finish());
        let header = heapql_hprof::read_header(&src).unwrap();
        let mut recs = Vec::new();
        let layout = walk(&src, &header, Control::none(), &mut |r: Record<'_>| recs.push(format!("{r:?}"))).unwrap();
        assert_eq!(recs.len(), 4, "{recs:?}");
        assert!(layout.warnings.iter().any(|w| w.message.contains("unknown record tag 0x55")));
        assert_eq!(layout.dumps.len(), 1);
        assert_eq!(layout.dumps[0].segments.len(), 2);
        let mut c = Collect::default();
        let mut cur = Cursor::new(&src);
        let mut tick = Control::none().ticker("t", src.len());
        for s in &layout.dumps[0].segments {
            let end = scan_segment(&mut cur, s, id, &mut c, &mut tick).unwrap();
            assert!(end.warning.is_none());
        }
        assert_eq!(c.0.len(), 6 + 16, "{:?}", c.0);
        assert_eq!(c.0[1], "class 100 super 0 statics 1 fields 1");
        assert_eq!(c.0[2], "instance 200 100 4");
        assert_eq!(c.0[5], "primarray 230 5 Long true");
        assert!(c.0.contains(&"root 3 5 Some(1) Some(2)".to_string()));
        assert!(c.0.contains(&"thread 9 1 2".to_string()));
    }
}

#[test]
fn several_dumps_are_kept_apart() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    let mut seg = Body::new(8);
    seg.root(sub::ROOT_UNKNOWN, 1);
    w.heap_dump_segment(&seg).heap_dump_segment(&seg).heap_dump_end();
    w.heap_dump_segment(&seg).heap_dump_end();
    w.heap_dump(&seg);
    let src = Source::from_bytes(&w.finish());
    let header = heapql_hprof::read_header(&src).unwrap();
    let l = walk(&src, &header, Control::none(), &mut |_r: Record<'_>| {}).unwrap();
    assert_eq!(l.dumps.iter().map(|d| d.segments.len()).collect::<Vec<_>>(), vec![2, 1, 1]);
    assert_eq!(l.record_counts.iter().find(|c| c.0 == tag::HEAP_DUMP_SEGMENT).unwrap().1, 3);
}

#[test]
fn gzip_single_member_is_inflated_and_mapped() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.utf8(1, "hello");
    let plain = w.finish();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, &plain).unwrap();
    let gz = e.finish().unwrap();
    let p = std::env::temp_dir().join(format!("heapql-reader-{}.bin", std::process::id()));
    std::fs::write(&p, &gz).unwrap();
    let src = Source::open(&p, Control::none()).unwrap();
    std::fs::remove_file(&p).ok();
    assert_eq!(src.compression().name(), "gzip");
    assert_eq!(src.len(), plain.len() as u64);
    assert_eq!(&src.bytes(0, 1000)[..], &plain[..]);
}

/// gzip's magic with a compression method other than deflate (byte 2 damaged) says so, not
/// "no JAVA PROFILE header" (it read as an uncompressed file of the wrong kind).
#[test]
fn gzip_with_another_compression_method_is_named() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w.utf8(1, "hello");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, &w.finish()).unwrap();
    let mut gz = e.finish().unwrap();
    gz[2] = 9;
    let p = std::env::temp_dir().join(format!("heapql-reader-method-{}.bin", std::process::id()));
    std::fs::write(&p, &gz).unwrap();
    let err = Source::open(&p, Control::none()).err().expect("refused");
    std::fs::remove_file(&p).ok();
    let text = err.to_string();
    assert!(text.contains("compression method 9 at byte offset 2"), "{text}");
}

/// A small dump with enough varied bytes that its gzip members are several KiB.
fn gzip_test_dump() -> Vec<u8> {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    for i in 0..4000u64 {
        w.utf8(i + 1, &format!("string number {i} {}", i.wrapping_mul(2654435761) % 100_003));
    }
    w.finish()
}

fn gzip_members(plain: &[u8], chunk: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for (k, part) in plain.chunks(chunk).enumerate() {
        let mut b = flate2::GzBuilder::new();
        if k == 0 {
            b = b.comment(format!("HPROF BLOCKSIZE={chunk}"));
        }
        let mut e = b.write(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut e, part).unwrap();
        out.extend(e.finish().unwrap());
    }
    out
}

fn open_gz(name: &str, bytes: &[u8]) -> Result<Source, heapql_hprof::Error> {
    let p = std::env::temp_dir().join(format!("heapql-reader-{}-{name}.gz", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    let r = Source::open(&p, Control::none());
    std::fs::remove_file(&p).ok();
    r
}

/// Every gzip member's CRC32 and length are checked against its trailer, single-member (inflated
/// once) and chunked (checked in the pass that builds the member table): a damaged file is an
/// error naming the compressed offset, never a dump read from garbage.
#[test]
fn gzip_crc_and_length_are_checked() {
    let plain = gzip_test_dump();
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, &plain).unwrap();
    let single = e.finish().unwrap();
    let chunked = gzip_members(&plain, 16 * 1024);
    assert!(open_gz("ok1", &single).unwrap().warnings().is_empty());
    let ok = open_gz("ok2", &chunked).unwrap();
    assert_eq!(ok.compression().name(), "gzip-chunked");
    assert_eq!(&ok.bytes(0, plain.len())[..], &plain[..]);
    for (what, gz) in [("single", &single), ("chunked", &chunked)] {
        // The last member's trailer: CRC32 then ISIZE.
        let n = gz.len();
        let mut bad_crc = gz.clone();
        bad_crc[n - 8] ^= 0x55;
        let err = open_gz("crc", &bad_crc).err().unwrap_or_else(|| panic!("{what}: a wrong CRC is accepted")).to_string();
        assert!(err.contains("gzip data is corrupt") && err.contains("CRC") && err.contains(&format!("compressed offset {}", n - 8)), "{what}: {err}");
        assert!(err.contains("gzip -t"), "{what}: says what to do: {err}");
        let mut bad_len = gz.clone();
        bad_len[n - 4] ^= 0x01;
        let err = open_gz("len", &bad_len).err().unwrap_or_else(|| panic!("{what}: a wrong length is accepted")).to_string();
        assert!(err.contains("gzip data is corrupt") && err.contains("inflates to"), "{what}: {err}");
        // Bytes changed inside the deflate data: invalid data or a CRC that does not match.
        let mut mangled = gz.clone();
        for (k, b) in [0x00u8, 0x01, 0x02].into_iter().enumerate() {
            mangled[n / 2 + k] = b;
        }
        let err = open_gz("mangled", &mangled).err().unwrap_or_else(|| panic!("{what}: damaged data is accepted")).to_string();
        assert!(err.contains("gzip data is corrupt"), "{what}: {err}");
        // Cut: read as far as it goes, and the warning says it is the gzip file that is cut, where.
        let cut = &gz[..n * 3 / 4];
        let src = open_gz("cut", cut).unwrap();
        let w = src.warnings().iter().map(|w| w.message.clone()).collect::<Vec<_>>().join("\n");
        assert!(w.contains("the gzip file is cut short") && w.contains(&format!("compressed offset {}", cut.len())), "{what}: {w}");
        assert!(src.len() > 0 && src.len() < plain.len() as u64);
        assert_eq!(&src.bytes(0, src.len() as usize)[..], &plain[..src.len() as usize]);
        // Bytes after the last member: ignored with a warning, as gzip does.
        let mut trailing = gz.clone();
        trailing.extend_from_slice(b"garbage");
        let src = open_gz("trail", &trailing).unwrap();
        assert_eq!(src.len(), plain.len() as u64);
        assert!(src.warnings().iter().any(|w| w.message.contains("not gzip data")), "{what}: {:?}", src.warnings());
    }
}

/// The JVM's chunked gzip cut inside its FIRST member reads as a plain gzip file cut there does:
/// as far as it inflates, with the warning naming the compressed offset where the file ends (not
/// an empty file, which leaving the cut member out made it); cut before a byte inflates, the same
/// "inflates to nothing" error as a plain gzip file, saying where it is cut.
#[test]
fn chunked_gzip_cut_in_its_first_member_reads_as_far_as_it_inflates() {
    let plain = gzip_test_dump();
    let chunked = gzip_members(&plain, 16 * 1024);
    // The first member alone, as `gzip_members` writes it: its compressed length.
    let first = gzip_members(&plain[..16 * 1024], 16 * 1024).len();
    assert!(chunked[first..].starts_with(&[0x1f, 0x8b, 8]));
    assert!(first > 1000 && first < chunked.len(), "{first} of {}", chunked.len());
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, &plain).unwrap();
    let single = e.finish().unwrap();
    // 20: inside the header; 40: a few bytes of deflate data after the 34-byte header with its
    // comment; in the data; inside the trailer (CRC32 then length).
    for (what, gz) in [("chunked", &chunked), ("single", &single)] {
        // The first member, and the bytes it inflates to.
        let (member, holds) = if what == "chunked" { (first, 16 * 1024) } else { (gz.len(), plain.len()) };
        for cut in [20, 40, 1000, member / 2, member - 6, member - 1] {
            let r = open_gz(&format!("first-{cut}"), &gz[..cut]);
            let at = format!("it ends at compressed offset {cut}, inside the gzip member that starts at compressed offset 0");
            match r {
                Ok(src) => {
                    let w = src.warnings().iter().map(|w| w.message.clone()).collect::<Vec<_>>().join("\n");
                    assert!(w.contains("the gzip file is cut short") && w.contains(&at), "{what} cut at {cut}: {w}");
                    assert!(!src.is_empty() && src.len() <= holds as u64, "{what} cut at {cut}: {}", src.len());
                    assert!(w.contains(&format!("as far as it inflates ({} bytes", src.len())), "{what} cut at {cut}: {w}");
                    assert_eq!(&src.bytes(0, src.len() as usize)[..], &plain[..src.len() as usize], "{what} cut at {cut}");
                    assert!(heapql_hprof::read_header(&src).is_ok(), "{what} cut at {cut}");
                }
                Err(e) => {
                    let e = e.to_string();
                    assert!(cut <= 40, "{what} cut at {cut}: {e}");
                    assert!(e.contains("the gzip file inflates to nothing") && e.contains(&at), "{what} cut at {cut}: {e}");
                }
            }
        }
        // Inside the trailer the whole member inflated: all of it is read.
        let src = open_gz("trailer", &gz[..member - 1]).unwrap();
        assert_eq!(src.len(), holds as u64, "{what}");
    }
    // A cut in a later member keeps what that member inflated too, after the complete ones.
    let cut = first + 1000;
    let src = open_gz("second", &chunked[..cut]).unwrap();
    assert!(src.len() > 16 * 1024, "{}", src.len());
    assert_eq!(&src.bytes(0, src.len() as usize)[..], &plain[..src.len() as usize]);
    let w = &src.warnings()[0].message;
    assert!(w.contains(&format!("it ends at compressed offset {cut}, inside the gzip member that starts at compressed offset {first}")), "{w}");
}

/// A mapped dump cut short on disk after opening is refused before it is read (a read past
/// its new end would stop the process with SIGBUS); one replaced by rename stays readable.
#[test]
fn a_dump_cut_short_on_disk_is_refused_before_it_is_read() {
    let dir = std::env::temp_dir().join(format!("heapql-reader-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("dump.hprof");
    std::fs::write(&p, vec![7u8; 1 << 20]).unwrap();
    let src = Source::open(&p, Control::none()).unwrap();
    assert!(src.check_unchanged().is_ok());
    // Replaced by a rename: the mapping keeps the old file.
    let other = dir.join("new.hprof");
    std::fs::write(&other, b"x").unwrap();
    std::fs::rename(&other, &p).unwrap();
    assert!(src.check_unchanged().is_ok());
    let cut = Source::open(&p, Control::none());
    assert!(cut.is_ok());
    std::fs::write(&p, vec![7u8; 1 << 20]).unwrap();
    let src = Source::open(&p, Control::none()).unwrap();
    std::fs::OpenOptions::new().write(true).open(&p).unwrap().set_len(4096).unwrap();
    let e = src.check_unchanged().unwrap_err().to_string();
    assert!(e.contains("cut short on disk") && e.contains("4096 bytes now, 1048576 then"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A pipe or a device is refused at once (a FIFO would block the open forever).
#[cfg(unix)]
#[test]
fn special_files_are_refused() {
    let dir = std::env::temp_dir().join(format!("heapql-reader-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for p in [fifo.as_path(), std::path::Path::new("/dev/zero")] {
        let e = Source::open(p, Control::none()).err().expect("refused").to_string();
        assert!(e.contains("not a regular file"), "{}: {e}", p.display());
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The walk of `bytes`: its warnings, or its error.
fn walk_bytes(bytes: &[u8]) -> Result<Vec<String>, heapql_hprof::Error> {
    let src = Source::from_bytes(bytes);
    let header = heapql_hprof::read_header(&src).unwrap();
    walk(&src, &header, Control::none(), &mut |_r: Record<'_>| {}).map(|l| l.warnings.into_iter().map(|w| w.message).collect())
}

/// Asserts that `r` is the error naming the record at `at` (of `kind`, claiming `len` bytes) as
/// the one whose length lies, not a file cut short; `resume`: where the records go on.
fn assert_lying_length(r: Result<Vec<String>, heapql_hprof::Error>, at: u64, kind: &str, len: u32, resume: Option<u64>) {
    match r {
        Err(heapql_hprof::Error::Corrupt { offset, reason }) => {
            assert_eq!(offset, at, "{reason}");
            let next = at + 9 + len as u64;
            assert!(reason.contains(&format!("the record at byte offset {at} ({kind}, {len} bytes) is followed by bytes that are no record at byte offset {next}")), "{reason}");
            assert!(reason.contains("its length is probably wrong") && reason.contains("The file is not cut short"), "{reason}");
            if let Some(q) = resume {
                assert!(reason.contains(&format!("records resume at byte offset {q}, as if it held {} bytes", q - at - 9)), "{reason}");
            }
            assert!(reason.contains("copy it again"), "{reason}");
        }
        other => panic!("{kind} at {at} claiming {len}: not called corrupt: {other:?}"),
    }
}

/// A record whose length lies by a byte or more (or is 0) in the middle of a file: what the walk
/// then finds is no record (an unknown tag leading nowhere, a length past the end). That is an
/// error naming the lying record, never "the file is cut short" followed by "no heap dump
/// records"; a file really cut short, anywhere, is still read with that warning.
#[test]
fn a_lying_record_length_in_the_middle_is_corrupt_not_cut_short() {
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    let names = ["java.lang.Object", "java.awt.dnd.peer", "convertedToSomething", "java.util.HashMap$Node"];
    for (i, n) in names.iter().enumerate() {
        w.utf8(0x7f51_9c4d_a3f8 + i as u64 * 0x40, n);
    }
    let at = w.buf.len();
    w.utf8(0x7f51_9c4d_a400, "java.lang.String");
    for (i, n) in names.iter().enumerate() {
        w.utf8(0x7f51_9c4e_0000 + i as u64 * 0x40, n);
    }
    w.load_class(1, 0x1000, 0x7f51_9c4d_a3f8);
    let mut seg = Body::new(8);
    seg.root(sub::ROOT_UNKNOWN, 0x1000);
    seg.instance(0x2000, 0x1000, &[0, 0, 0, 1]);
    w.heap_dump_segment(&seg).heap_dump_end();
    let good = w.finish();
    assert!(walk_bytes(&good).unwrap().is_empty());
    let len = u32::from_be_bytes(good[at + 5..at + 9].try_into().unwrap());
    assert_eq!(len, 8 + 16);
    let next = at as u64 + 9 + len as u64;
    for lie in [len - 1, len + 1, 0, len - 8, len + 8] {
        let mut bad = good.clone();
        bad[at + 5..at + 9].copy_from_slice(&lie.to_be_bytes());
        assert_lying_length(walk_bytes(&bad), at as u64, "UTF8", lie, Some(next));
    }
    // Cut short anywhere, the file is read as far as it goes, with a warning (but between two
    // records, where nothing says it was cut): never corrupt.
    let mut boundaries = vec![];
    let mut p = "JAVA PROFILE 1.0.2".len() + 13;
    while p < good.len() {
        boundaries.push(p);
        p += 9 + u32::from_be_bytes(good[p + 5..p + 9].try_into().unwrap()) as usize;
    }
    for cut in boundaries[0] + 1..good.len() {
        let w = walk_bytes(&good[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        assert!(boundaries.contains(&cut) || w.iter().any(|w| w.contains("cut short")), "cut at {cut}: {w:?}");
    }
    // A record of an unknown kind that leads to the next record is skipped, as before.
    let mut w2 = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    w2.utf8(1, "x").record(0x72, &[1, 2, 3]).record(0x11, &[]).utf8(2, "y").heap_dump_segment(&seg).heap_dump_end();
    let warnings = walk_bytes(&w2.finish()).unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("unknown record tag 0x72") && warnings[1].contains("unknown record tag 0x11"), "{warnings:?}");
    // Two dumps written one after the other into one file: the first is read, with a warning.
    let mut two = good.clone();
    two.extend_from_slice(&good);
    let warnings = walk_bytes(&two).unwrap();
    assert!(warnings.iter().any(|w| w.contains(&format!("a second HPROF file header at byte offset {}", good.len()))), "{warnings:?}");
    assert!(!warnings.iter().any(|w| w.contains("cut short")), "{warnings:?}");
}

/// The same on a real dump, a copy of the demo fixture edited in a temporary directory: a UTF8
/// record's length off by one either way, or 0.
#[test]
fn a_lying_length_in_a_real_dump_names_the_record() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo/demo.hprof");
    let good = std::fs::read(&fixture).unwrap_or_else(|e| panic!("{}: {e} (a fixture of the repository)", fixture.display()));
    let header = parse_header(&good).unwrap();
    // A UTF8 record a tenth of the way in (before the heap records).
    let mut p = header.records_start as usize;
    while !(p > good.len() / 10 && good[p] == tag::UTF8) {
        p += 9 + u32::from_be_bytes(good[p + 5..p + 9].try_into().unwrap()) as usize;
    }
    let len = u32::from_be_bytes(good[p + 5..p + 9].try_into().unwrap());
    let dir = std::env::temp_dir().join(format!("heapql-reader-lie-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for lie in [len - 1, len + 1, 0] {
        let mut bad = good.clone();
        bad[p + 5..p + 9].copy_from_slice(&lie.to_be_bytes());
        let f = dir.join(format!("demo-{lie}.hprof"));
        std::fs::write(&f, &bad).unwrap();
        let src = Source::open(&f, Control::none()).unwrap();
        let h = heapql_hprof::read_header(&src).unwrap();
        let r = walk(&src, &h, Control::none(), &mut |_r: Record<'_>| {}).map(|l| l.warnings.into_iter().map(|w| w.message).collect());
        assert_lying_length(r, p as u64, "UTF8", lie, Some(p as u64 + 9 + len as u64));
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The header's identifier size damaged into the other valid one (4 for 8, 8 for 4): the
/// records whose kind fixes their length by it (LOAD CLASS, FRAME, START THREAD) say so, and
/// the walk fails naming the header's field at byte offset 19, not a heap sub-record deep in
/// the heap data with "damaged here or in the sub-record before it".
#[test]
fn an_identifier_size_damaged_into_the_other_is_named() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo/demo.hprof");
    let eight = std::fs::read(&fixture).unwrap_or_else(|e| panic!("{}: {e} (a fixture of the repository)", fixture.display()));
    assert_eq!(parse_header(&eight).unwrap().id_size, 8);
    let mut w = Writer::new("JAVA PROFILE 1.0.2", 4, 0);
    for i in 0..4u64 {
        w.utf8(0x100 + i, &format!("com.example.C{i}"));
        w.load_class(i as u32 + 1, 0x1000 + i * 0x10, 0x100 + i);
    }
    w.frame(0x2000, 0x100, 0x101, 0x102, 1, 7);
    w.trace(1, 1, &[0x2000]);
    let mut b = Body::new(4);
    b.root(sub::ROOT_STICKY_CLASS, 0x1000);
    w.heap_dump_segment(&b);
    w.heap_dump_end();
    let four = w.finish();
    assert!(walk_bytes(&four).is_ok(), "the 4-byte dump reads as written");
    for (good, from, to) in [(eight, 8u32, 4u32), (four, 4, 8)] {
        let mut bad = good.clone();
        bad[19..23].copy_from_slice(&to.to_be_bytes());
        match walk_bytes(&bad) {
            Err(heapql_hprof::Error::Corrupt { offset, reason }) => {
                assert_eq!(offset, 19, "{reason}");
                assert!(reason.contains(&format!("identifier size at byte offset 19 says {to}-byte identifiers")), "{reason}");
                assert!(reason.contains(&format!("the lengths {from}-byte identifiers give them")), "{reason}");
                assert!(reason.contains("the first the LOAD CLASS record at byte offset ") && reason.contains("and none hold its own"), "{reason}");
            }
            other => panic!("{from} → {to}: not called a damaged identifier size: {other:?}"),
        }
    }
}

/// A heap dump cut exactly between two records before its heap data (its class records whole,
/// no heap dump record): a warning says it is most likely cut short there, not only that it
/// holds no heap dump; cut among its first UTF8 records too. A file of records of no kind a
/// JVM writes first (an unknown one) gets none.
#[test]
fn a_dump_cut_between_records_before_its_heap_data_is_said_to_be_cut_short() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo/demo.hprof");
    let good = std::fs::read(&fixture).unwrap_or_else(|e| panic!("{}: {e} (a fixture of the repository)", fixture.display()));
    let mut p = parse_header(&good).unwrap().records_start as usize;
    while good[p] != tag::HEAP_DUMP_SEGMENT {
        p += 9 + u32::from_be_bytes(good[p + 5..p + 9].try_into().unwrap()) as usize;
    }
    let w = walk_bytes(&good[..p]).unwrap();
    assert!(
        w.iter().any(|w| w.contains(&format!("the file ends at byte offset {p}, right after a whole record")) && w.contains("most likely a heap dump cut short before its heap data")),
        "{w:?}"
    );
    assert!(!walk_bytes(&good).unwrap().iter().any(|w| w.contains("cut short")));
    let mut u = Writer::new("JAVA PROFILE 1.0.2", 8, 0);
    u.utf8(0x10, "java.lang.Object");
    assert!(walk_bytes(&u.finish()).unwrap().iter().any(|w| w.contains("with 1 UTF8 and 0 LOAD CLASS record(s) and no heap dump record")));
    let mut unknown = Writer::new("JAVA PROFILE 1.0.3", 4, 0).finish();
    unknown.extend_from_slice(&[0xFF, 0, 0, 0, 0, 0, 0, 0, 2, 7, 7]);
    let w = walk_bytes(&unknown).unwrap();
    assert!(w.iter().any(|w| w.contains("unknown record tag 0xFF")) && !w.iter().any(|w| w.contains("cut short")), "{w:?}");
}
