//! The cache's promises, on a fake dump: hits, misses, every invalidation cause, damaged and
//! unfinished files, a busy writer, eviction, a full disk and an unwritable directory.

use heapql_cache::{Cache, Entry, Lookup, WriteWatch, Written};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64 as xxh3;

struct Setup {
    _tmp: tempfile::TempDir,
    dump: PathBuf,
    cache: Cache,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("app.hprof");
    std::fs::write(&dump, (0..2_000_000u32).flat_map(|i| i.to_le_bytes()).collect::<Vec<_>>()).unwrap();
    let cache = Cache::new(tmp.path().join("cache"), None);
    Setup { _tmp: tmp, dump, cache }
}

const ARRAY_LEN: u32 = 5_000_000;

fn write_index(e: &Entry) -> Written {
    e.write("index", "", |w| {
        w.array("numbers", &(0..ARRAY_LEN).collect::<Vec<u32>>())?;
        w.blob("names", &vec!["a".to_string(), "b".to_string()])
    })
}

fn read_index(e: &Entry) -> Result<(Vec<u32>, Vec<String>), String> {
    match e.open("index", "") {
        Lookup::Hit(f) => {
            let a = f.array::<u32>("numbers").map_err(|i| i.0)?;
            Ok((a.to_vec(), f.blob("names").map_err(|i| i.0)?))
        }
        Lookup::Miss => Err("miss".into()),
        Lookup::Invalid(w) => Err(w),
        Lookup::Cancelled => Err("cancelled".into()),
    }
}

fn index_file(e: &Entry) -> PathBuf {
    e.dir().join("index.hqc")
}

/// Flips the bits `mask` of byte `at` (counted from the end when negative) of the written
/// index file; returns the warning of reading it back.
fn damage_and_read(e: &Entry, at: isize, mask: u8) -> String {
    let p = index_file(e);
    let mut bytes = std::fs::read(&p).unwrap();
    let i = if at < 0 { bytes.len() - at.unsigned_abs() } else { at as usize };
    bytes[i] ^= mask;
    std::fs::write(&p, &bytes).unwrap();
    read_index(e).unwrap_err()
}

#[test]
fn a_written_file_is_a_hit_with_the_same_values() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "test-1").unwrap();
    assert_eq!(read_index(&e).unwrap_err(), "miss");
    assert!(matches!(write_index(&e), Written::Done(n) if n > 20_000_000));
    let (numbers, names) = read_index(&e).unwrap();
    assert_eq!(numbers, (0..ARRAY_LEN).collect::<Vec<_>>());
    assert_eq!(names, ["a", "b"]);
    let listed = s.cache.list();
    assert_eq!(listed.len(), 1);
    assert_eq!(Path::new(&listed[0].meta.as_ref().unwrap().dump), std::fs::canonicalize(&s.dump).unwrap());
    assert_eq!(listed[0].files, ["index.hqc"]);
}

#[test]
fn options_and_dump_numbers_are_separate_files() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "test-1").unwrap();
    write_index(&e);
    assert!(matches!(e.open("index", "reachable-only"), Lookup::Miss));
    let other_dump = s.cache.entry(&s.dump, 1, "test-1").unwrap();
    assert_ne!(other_dump.dir(), e.dir());
    assert_eq!(read_index(&other_dump).unwrap_err(), "miss");
}

#[test]
fn another_version_is_detected_and_removed() {
    let s = setup();
    write_index(&s.cache.entry(&s.dump, 0, "test-1").unwrap());
    let newer = s.cache.entry(&s.dump, 0, "test-2").unwrap();
    let w = read_index(&newer).unwrap_err();
    assert!(w.contains("another heapql version"), "{w}");
    assert!(!index_file(&newer).exists());
    assert_eq!(read_index(&newer).unwrap_err(), "miss");
}

#[test]
fn a_changed_dump_is_detected() {
    let s = setup();
    write_index(&s.cache.entry(&s.dump, 0, "t").unwrap());
    // Same size and modification time, different bytes at the start.
    let mtime = std::fs::metadata(&s.dump).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&s.dump).unwrap();
    bytes[3] ^= 1;
    std::fs::write(&s.dump, &bytes).unwrap();
    std::fs::File::options().write(true).open(&s.dump).unwrap().set_modified(mtime).unwrap();
    let w = read_index(&s.cache.entry(&s.dump, 0, "t").unwrap()).unwrap_err();
    assert!(w.contains("the dump changed") && w.contains("contents"), "{w}");
    // A different size.
    write_index(&s.cache.entry(&s.dump, 0, "t").unwrap());
    std::fs::write(&s.dump, &bytes[..bytes.len() - 1]).unwrap();
    let w = read_index(&s.cache.entry(&s.dump, 0, "t").unwrap()).unwrap_err();
    assert!(w.contains("the dump changed") && w.contains("size"), "{w}");
}

/// What a build of the "index" reads from the dump: the sum of its bytes.
fn dump_sum(dump: &Path) -> u64 {
    std::fs::read(dump).unwrap().iter().map(|&b| b as u64).sum()
}

fn cached_sum(e: &Entry) -> Result<u64, String> {
    match e.open("sum", "") {
        Lookup::Hit(f) => f.blob::<u64>("sum").map_err(|i| i.0),
        Lookup::Miss => Err("miss".into()),
        Lookup::Invalid(w) => Err(w),
        Lookup::Cancelled => Err("cancelled".into()),
    }
}

#[test]
fn a_dump_rewritten_in_place_outside_the_samples_with_its_mtime_set_back_is_rebuilt() {
    use std::os::unix::fs::{FileExt, MetadataExt};
    let s = setup();
    let before = dump_sum(&s.dump);
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    assert!(matches!(e.write("sum", "", |w| w.blob("sum", &before)), Written::Done(_)));
    // The ordinary case: the same file, untouched, is a hit in a later run.
    assert_eq!(cached_sum(&s.cache.entry(&s.dump, 0, "t").unwrap()), Ok(before));

    // Rewritten in place (same inode, same size) between the sampled blocks, its modification
    // time put back as `touch -r`, `cp -p` or `rsync -t` do. The kernel's clock for ctime moves
    // in ticks of a few milliseconds: wait one out so the write lands in a later one.
    let old = std::fs::metadata(&s.dump).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    let f = std::fs::File::options().read(true).write(true).open(&s.dump).unwrap();
    let at = 100_000; // after the first 64 KiB block, before the first sample (~530 KB)
    let mut byte = [0u8];
    f.read_exact_at(&mut byte, at).unwrap();
    f.write_all_at(&[byte[0] ^ 0x5a], at).unwrap();
    f.set_times(std::fs::FileTimes::new().set_modified(old.modified().unwrap())).unwrap();
    drop(f);
    let new = std::fs::metadata(&s.dump).unwrap();
    assert_eq!((new.ino(), new.len(), new.modified().unwrap()), (old.ino(), old.len(), old.modified().unwrap()));
    assert_ne!((new.ctime(), new.ctime_nsec()), (old.ctime(), old.ctime_nsec()), "the write moved ctime");
    let after = dump_sum(&s.dump);
    assert_ne!(after, before);

    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    let w = cached_sum(&e).unwrap_err();
    assert!(w.contains("the dump changed since it was cached") && w.contains("ctime"), "{w}");
    assert!(!e.dir().join("sum.hqc").exists(), "the stale file is removed");
    // Built again from the new bytes, and a hit from then on.
    assert!(matches!(e.write("sum", "", |w| w.blob("sum", &dump_sum(&s.dump))), Written::Done(_)));
    assert_eq!(cached_sum(&s.cache.entry(&s.dump, 0, "t").unwrap()), Ok(after));
}

#[test]
fn a_file_of_another_cache_format_is_reported_as_such() {
    // A header whose version string is not this one's, and whose rest does not decode as this
    // format's header: "another version", not "damaged".
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    write_index(&e);
    let p = index_file(&e);
    let mut bytes = std::fs::read(&p).unwrap();
    let body_len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let mut body = Vec::new();
    let old_version = b"1/t";
    body.push(old_version.len() as u8);
    body.extend_from_slice(old_version);
    body.extend_from_slice(&[0xff; 9]);
    assert!(body.len() <= body_len);
    bytes[8..12].copy_from_slice(&(body.len() as u32).to_le_bytes());
    bytes[16..24].copy_from_slice(&xxh3(&body).to_le_bytes());
    bytes[24..24 + body.len()].copy_from_slice(&body);
    std::fs::write(&p, &bytes).unwrap();
    let w = read_index(&e).unwrap_err();
    assert!(w.contains("another heapql version") && w.contains("cache format 1/t"), "{w}");
}

#[test]
fn a_flipped_byte_in_the_middle_of_an_array_is_detected() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    write_index(&e);
    let mid = 4096 + (ARRAY_LEN as usize * 4) / 2 + 1;
    let w = damage_and_read(&e, mid as isize, 0x10);
    assert!(w.contains("section numbers is damaged"), "{w}");
    assert!(!index_file(&e).exists(), "the damaged file is removed");
}

#[test]
fn damaged_headers_and_tables_are_detected() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    for (at, expect) in [(40, "header is damaged"), (-3, "table of contents is damaged")] {
        write_index(&e);
        let w = damage_and_read(&e, at, 0xff);
        assert!(w.contains(expect), "{w}");
    }
}

#[test]
fn a_truncated_file_is_detected() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    write_index(&e);
    let p = index_file(&e);
    let len = std::fs::metadata(&p).unwrap().len();
    std::fs::File::options().write(true).open(&p).unwrap().set_len(len / 2).unwrap();
    let w = read_index(&e).unwrap_err();
    assert!(w.contains("cut short"), "{w}");
    std::fs::write(&p, b"HEAP").unwrap();
    assert!(read_index(&e).unwrap_err().contains("not a heapql cache file"));
}

#[test]
fn leftovers_of_a_killed_writer_are_removed_once() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    std::fs::create_dir_all(e.dir()).unwrap();
    std::fs::write(e.dir().join("index.hqc.lock"), b"").unwrap();
    std::fs::write(e.dir().join("index.hqc.tmp.99999"), vec![1u8; 10_000]).unwrap();
    let w = read_index(&e).unwrap_err();
    assert!(w.contains("interrupted"), "{w}");
    assert_eq!(read_index(&e).unwrap_err(), "miss");
    assert!(matches!(write_index(&e), Written::Done(_)));
    assert!(read_index(&e).is_ok());
}

#[test]
fn a_writer_holding_the_lock_makes_others_skip_and_readers_miss() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    std::fs::create_dir_all(e.dir()).unwrap();
    let lock = std::fs::File::create(e.dir().join("index.hqc.lock")).unwrap();
    lock.lock().unwrap();
    std::fs::write(e.dir().join("index.hqc.tmp.1"), b"half").unwrap();
    assert_eq!(read_index(&e).unwrap_err(), "miss", "a file being written is not stale");
    assert!(matches!(write_index(&e), Written::Busy));
    assert!(e.dir().join("index.hqc.tmp.1").exists());
    lock.unlock().unwrap();
    assert!(matches!(write_index(&e), Written::Done(_)));
    assert!(!e.dir().join("index.hqc.tmp.1").exists());
}

#[test]
fn least_recently_used_entries_go_first_under_the_cap() {
    let tmp = tempfile::tempdir().unwrap();
    let dumps: Vec<PathBuf> = (0..3)
        .map(|i| {
            let p = tmp.path().join(format!("d{i}.hprof"));
            std::fs::write(&p, vec![i as u8; 1000]).unwrap();
            p
        })
        .collect();
    // Room for two entries of ~20 MB, not three.
    let cache = Cache::new(tmp.path().join("cache"), Some(45_000_000));
    let entries: Vec<Entry> = dumps.iter().map(|d| cache.entry(d, 0, "t").unwrap()).collect();
    write_index(&entries[0]);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    write_index(&entries[1]);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert!(read_index(&entries[0]).is_ok(), "entry 0 used again: entry 1 is now the oldest");
    write_index(&entries[2]);
    let left: Vec<String> = cache.list().iter().map(|e| e.meta.as_ref().unwrap().dump.clone()).collect();
    assert_eq!(left.len(), 2, "{left:?}");
    assert!(!left.iter().any(|d| d.ends_with("d1.hprof")), "{left:?}");
    let too_small = Cache::new(tmp.path().join("cache"), Some(1000));
    let w = write_index(&too_small.entry(&dumps[1], 0, "t").unwrap());
    assert!(matches!(&w, Written::Failed(m) if m.contains("cap")), "{w:?}");
}

#[test]
fn clear_removes_one_dump_or_all() {
    let s = setup();
    write_index(&s.cache.entry(&s.dump, 0, "t").unwrap());
    write_index(&s.cache.entry(&s.dump, 1, "t").unwrap());
    let other = s.dump.with_file_name("other.hprof");
    std::fs::write(&other, b"x").unwrap();
    write_index(&s.cache.entry(&other, 0, "t").unwrap());
    assert_eq!(s.cache.list().len(), 3);
    assert_eq!(s.cache.clear(Some(&other)).unwrap().entries, 1);
    assert_eq!(s.cache.list().len(), 2);
    assert_eq!(s.cache.clear(None).unwrap().entries, 2);
    assert!(s.cache.list().is_empty());
}

#[test]
fn an_entry_whose_meta_json_is_lost_or_damaged_is_still_listed_cleared_and_capped() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 1, "t").unwrap();
    write_index(&e);
    let meta = e.dir().join("meta.json");
    let written = std::fs::read(&meta).unwrap();
    let other = s.dump.with_file_name("other.hprof");
    std::fs::write(&other, b"x").unwrap();
    write_index(&s.cache.entry(&other, 0, "t").unwrap());
    for damage in [None, Some(&b"{\"dump\":"[..])] {
        match damage {
            None => std::fs::remove_file(&meta).unwrap(),
            Some(bytes) => std::fs::write(&meta, bytes).unwrap(),
        }
        // Listed with the dump its cache file names, and the metadata written again.
        let listed = s.cache.list();
        let found = listed.iter().find(|x| x.dir == e.dir()).expect("the entry is listed");
        let m = found.meta.as_ref().expect("its dump is named");
        assert_eq!(Path::new(&m.dump), std::fs::canonicalize(&s.dump).unwrap());
        assert_eq!((m.dump_number, found.files.as_slice()), (1, &["index.hqc".to_string()][..]));
        assert_eq!(std::fs::read(&meta).unwrap(), written);
    }
    // A hit repairs it too.
    std::fs::remove_file(&meta).unwrap();
    assert!(read_index(&e).is_ok());
    assert_eq!(std::fs::read(&meta).unwrap(), written);
    // Cleared by its dump, and by a clear of everything.
    std::fs::remove_file(&meta).unwrap();
    assert_eq!(s.cache.clear(Some(&s.dump)).unwrap().entries, 1);
    assert!(!e.dir().exists());
    write_index(&e);
    std::fs::write(&meta, b"garbage").unwrap();
    assert_eq!(s.cache.clear(None).unwrap().entries, 2);
    assert!(s.cache.list().is_empty());
    // A directory that is not an entry of its file's dump is left alone.
    write_index(&e);
    std::fs::remove_file(&meta).unwrap();
    let moved = s.cache.root().join("0000000000000000-not-an-entry");
    std::fs::rename(e.dir(), &moved).unwrap();
    assert!(s.cache.list().is_empty());
    assert_eq!(s.cache.clear(None).unwrap().entries, 0);
    assert!(moved.exists());
}

/// `meta.json` lost and the header of every cache file damaged too (cut short, a flipped
/// byte): nothing names the dump, but the directory is an entry's and holds only the cache's
/// files. It is listed (no dump named), cleared, and evicted before any other entry, rather
/// than left on disk unseen by `cache list`, `cache clear` and the cap.
#[test]
fn an_entry_whose_meta_json_is_lost_and_files_are_damaged_is_listed_cleared_and_evicted() {
    let tmp = tempfile::tempdir().unwrap();
    let dumps = two_dumps(tmp.path());
    let cache = Cache::new(tmp.path().join("cache"), Some(1 << 30));
    let first = cache.entry(&dumps[0], 0, "t").unwrap();
    let second = cache.entry(&dumps[1], 0, "t").unwrap();
    for damage in ["cut", "flip"] {
        write_index(&second);
        std::fs::remove_file(second.dir().join("meta.json")).unwrap();
        let f = index_file(&second);
        let mut bytes = std::fs::read(&f).unwrap();
        match damage {
            "cut" => bytes.truncate(100),
            _ => bytes[30] ^= 1,
        }
        std::fs::write(&f, &bytes).unwrap();
        let listed = cache.list();
        let found = listed.iter().find(|x| x.dir == second.dir()).unwrap_or_else(|| panic!("{damage}: not listed: {listed:?}"));
        assert!(found.meta.is_none() && found.bytes >= bytes.len() as u64, "{damage}: {found:?}");
        assert_eq!(cache.clear(None).unwrap().entries, 1, "{damage}");
        assert!(!second.dir().exists(), "{damage}");
    }
    // Evicted by the next write, whatever the cap.
    write_index(&second);
    std::fs::remove_file(second.dir().join("meta.json")).unwrap();
    std::fs::write(index_file(&second), b"HEAPQLC\0damaged").unwrap();
    assert!(matches!(write_index(&first), Written::Done(_)));
    assert!(!second.dir().exists(), "kept: {:?}", names_in(second.dir()));
    assert_eq!(cache.list().len(), 1);
    // A directory named as an entry but holding another file is left alone.
    write_index(&second);
    std::fs::remove_file(second.dir().join("meta.json")).unwrap();
    std::fs::write(index_file(&second), b"damaged").unwrap();
    std::fs::write(second.dir().join("notes.txt"), b"mine").unwrap();
    assert_eq!(cache.list().len(), 1);
    assert_eq!(cache.clear(None).unwrap().entries, 1);
    assert!(second.dir().join("notes.txt").exists());
}

#[test]
fn a_lost_meta_json_still_counts_against_the_cap() {
    let tmp = tempfile::tempdir().unwrap();
    let dumps = two_dumps(tmp.path());
    // Room for one entry of ~20 MB, not two.
    let cache = Cache::new(tmp.path().join("cache"), Some(30_000_000));
    let first = cache.entry(&dumps[0], 0, "t").unwrap();
    write_index(&first);
    std::fs::remove_file(first.dir().join("meta.json")).unwrap();
    assert!(matches!(write_index(&cache.entry(&dumps[1], 0, "t").unwrap()), Written::Done(_)));
    assert!(!first.dir().exists(), "the older entry was evicted although its meta.json was lost");
    assert_eq!(cache.list().len(), 1);
}

#[test]
fn an_unwritable_directory_is_one_warning() {
    let s = setup();
    let blocked = s.dump.with_file_name("not-a-dir");
    std::fs::write(&blocked, b"file").unwrap();
    let cache = Cache::new(blocked.join("cache"), None);
    let e = cache.entry(&s.dump, 0, "t").unwrap();
    let w = write_index(&e);
    // The warning says what to do, not only the system's "Not a directory".
    let hint = format!("{}, or a directory above it, is a file; give --cache-dir (the library's cacheDir) a directory); this run continues without caching it", blocked.join("cache").display());
    assert!(matches!(&w, Written::Failed(m) if m.ends_with(&hint)), "{w:?}");
    assert_eq!(read_index(&e).unwrap_err(), "miss");
}

/// A read-only file system (root is not stopped by a directory's mode): one warning that says
/// what to do. Needs root (mount): fails, not skips, where it cannot.
#[test]
fn a_read_only_directory_is_one_warning_that_says_what_to_do() {
    let s = setup();
    let mnt = tempfile::tempdir().unwrap();
    let ok = std::process::Command::new("mount").args(["-t", "tmpfs", "-o", "size=1m,ro", "tmpfs"]).arg(mnt.path()).status().is_ok_and(|st| st.success());
    assert!(ok, "cannot mount a read-only tmpfs on {} (needs root)", mnt.path().display());
    let cache = Cache::new(mnt.path().to_path_buf(), None);
    let w = write_index(&cache.entry(&s.dump, 0, "t").unwrap());
    let _ = std::process::Command::new("umount").arg(mnt.path()).status();
    let hint = format!("give --cache-dir (the library's cacheDir) a directory you may write to instead of {}, or --no-cache (noCache)); this run continues without caching it", mnt.path().display());
    assert!(matches!(&w, Written::Failed(m) if m.contains("Read-only file system") && m.ends_with(&hint)), "{w:?}");
}

/// A write that fails half-way (here the filler's own error; on a full disk, `write_all`'s):
/// one warning line, no temporary file and no entry file left, the next read a plain miss.
/// Runs everywhere, unlike the tmpfs test below that needs root.
#[test]
fn a_write_failing_half_way_leaves_nothing_behind() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    let w = e.write("index", "", |w| {
        w.array("numbers", &(0..ARRAY_LEN).collect::<Vec<u32>>())?;
        Err(std::io::Error::other("simulated write failure"))
    });
    assert!(matches!(&w, Written::Failed(m) if m.contains("simulated write failure") && m.contains("continues without caching")), "{w:?}");
    let left: Vec<String> = std::fs::read_dir(e.dir()).unwrap().flatten().map(|f| f.file_name().to_string_lossy().to_string()).collect();
    assert!(!left.iter().any(|n| n.contains(".tmp.") || n.ends_with(".hqc")), "{left:?}");
    assert_eq!(read_index(&e).unwrap_err(), "miss");
}

/// A 2 MiB tmpfs: the 20 MB file cannot fit. Needs root (mount): fails, not skips, where it
/// cannot (the test above covers the clean-up on any machine).
#[test]
fn a_full_disk_is_one_warning_and_leaves_nothing_behind() {
    let s = setup();
    let mnt = tempfile::tempdir().unwrap();
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(mnt.path())
        .status()
        .is_ok_and(|st| st.success());
    assert!(ok, "cannot mount a small tmpfs on {} (needs root)", mnt.path().display());
    let cache = Cache::new(mnt.path().join("cache"), Some(u64::MAX));
    let e = cache.entry(&s.dump, 0, "t").unwrap();
    let w = write_index(&e);
    let leftovers: Vec<_> = std::fs::read_dir(e.dir()).unwrap().flatten().map(|f| f.file_name()).filter(|n| n.to_string_lossy().contains(".tmp.")).collect();
    let _ = std::process::Command::new("umount").arg(mnt.path()).status();
    assert!(matches!(&w, Written::Failed(m) if m.contains("No space left") && m.contains(&format!("free some space on the disk of {}, or give --cache-dir (the library's cacheDir) a directory on another disk)", mnt.path().join("cache").display()))), "{w:?}");
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// A process id that no process has now: a child's, once it has ended and been reaped.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

#[test]
fn leftovers_are_listed_with_their_writer_and_cleared_only_when_it_is_gone() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    write_index(&e);
    let (dead, alive) = (dead_pid(), std::process::id());
    let stale = format!("index.hqc.tmp.{dead}");
    let live = format!("analysis.0123456789abcdef.hqc.tmp.{alive}");
    std::fs::write(e.dir().join(&stale), vec![1u8; 10_000]).unwrap();
    std::fs::write(e.dir().join(&live), vec![2u8; 20_000]).unwrap();
    let listed = s.cache.list();
    assert_eq!(listed.len(), 1);
    let l = &listed[0].leftovers;
    assert_eq!(l.len(), 2, "{l:?}");
    assert_eq!((l[0].file.as_str(), l[0].bytes, l[0].pid, l[0].writer_alive), (live.as_str(), 20_000, Some(alive), true));
    assert_eq!((l[1].file.as_str(), l[1].bytes, l[1].pid, l[1].writer_alive), (stale.as_str(), 10_000, Some(dead), false));
    assert_eq!(listed[0].files, vec!["index.hqc".to_string()], "leftovers are no cache files");

    let c = s.cache.clear(None).unwrap();
    assert_eq!(c.entries, 1);
    assert_eq!(c.leftovers_removed.iter().map(|(_, l)| l.file.clone()).collect::<Vec<_>>(), vec![stale.clone()]);
    assert_eq!(c.being_written.iter().map(|(_, l)| l.file.clone()).collect::<Vec<_>>(), vec![live.clone()]);
    assert!(!e.dir().join(&stale).exists());
    assert!(!e.dir().join("index.hqc").exists());
    assert!(e.dir().join(&live).exists(), "a live writer's file was removed");
    assert_eq!(c.bytes, listed[0].bytes - 20_000 - std::fs::metadata(e.dir().join("meta.json")).unwrap().len());
}

#[test]
fn a_held_lock_keeps_a_leftover_whatever_its_pid() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    write_index(&e);
    let lock = std::fs::File::create(e.dir().join("index.hqc.lock")).unwrap();
    lock.lock().unwrap();
    let name = format!("index.hqc.tmp.{}", dead_pid());
    std::fs::write(e.dir().join(&name), b"half").unwrap();
    assert!(s.cache.list()[0].leftovers[0].writer_alive);
    assert!(s.cache.clear(None).unwrap().being_written.len() == 1);
    assert!(e.dir().join(&name).exists());
    lock.unlock().unwrap();
    assert!(!s.cache.list()[0].leftovers[0].writer_alive);
    assert_eq!(s.cache.clear(None).unwrap().leftovers_removed.len(), 1);
    assert!(!e.dir().exists());
}

#[test]
fn eviction_removes_stale_leftovers_before_entries_and_never_a_live_writers_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dumps = two_dumps(tmp.path());
    // Room for two entries of ~20 MB, not for a third one's worth of leftovers besides.
    let cache = Cache::new(tmp.path().join("cache"), Some(45_000_000));
    let first = cache.entry(&dumps[0], 0, "t").unwrap();
    write_index(&first);
    let stale = first.dir().join(format!("analysis.0123456789abcdef.hqc.tmp.{}", dead_pid()));
    std::fs::write(&stale, vec![0u8; 20_000_000]).unwrap();
    assert!(matches!(write_index(&cache.entry(&dumps[1], 0, "t").unwrap()), Written::Done(_)));
    assert!(!stale.exists(), "the stale leftover was kept");
    assert!(first.dir().join("index.hqc").exists(), "an entry was evicted while a stale leftover could go");
    assert_eq!(cache.list().len(), 2);

    // A live writer's file (this process's) is neither counted nor removed: no eviction for it.
    let live = first.dir().join(format!("analysis.0123456789abcdef.hqc.tmp.{}", std::process::id()));
    std::fs::write(&live, vec![0u8; 20_000_000]).unwrap();
    assert!(matches!(write_index(&cache.entry(&dumps[1], 0, "t").unwrap()), Written::Done(_)));
    assert!(live.exists());
    assert!(first.dir().join("index.hqc").exists());
}

#[test]
fn a_write_tells_its_bytes_and_stops_when_cancelled() {
    let s = setup();
    let told = Arc::new(AtomicU64::new(u64::MAX));
    let t = told.clone();
    let cancel = Arc::new(AtomicBool::new(false));
    let watch = WriteWatch { progress: Some(Arc::new(move |b| t.store(b, Ordering::Relaxed))), cancel: Some(cancel.clone()), ..Default::default() };
    let e = s.cache.entry(&s.dump, 0, "t").unwrap().watched(watch);
    assert!(matches!(write_index(&e), Written::Done(_)));
    assert!(told.load(Ordering::Relaxed) >= 4 * ARRAY_LEN as u64, "{}", told.load(Ordering::Relaxed));
    std::fs::remove_file(e.dir().join("index.hqc")).unwrap();
    cancel.store(true, Ordering::Relaxed);
    assert!(matches!(write_index(&e), Written::Interrupted));
    let left: Vec<_> = std::fs::read_dir(e.dir()).unwrap().flatten().map(|f| f.file_name().to_string_lossy().to_string()).filter(|n| n.contains(".tmp.")).collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(!e.dir().join("index.hqc").exists());
}

#[test]
fn opening_tells_the_bytes_verified_per_block_and_stops_when_cancelled() {
    let s = setup();
    write_index(&s.cache.entry(&s.dump, 0, "t").unwrap());
    let told = Arc::new(std::sync::Mutex::new(Vec::<(u64, u64)>::new()));
    let cancel = Arc::new(AtomicBool::new(false));
    let (t, c) = (told.clone(), cancel.clone());
    // Cancels once the first block is verified (when `stop_after` is set).
    let stop_after = Arc::new(AtomicBool::new(false));
    let stop = stop_after.clone();
    let watch = WriteWatch {
        verifying: Some(Arc::new(move |done, total| {
            t.lock().unwrap().push((done, total));
            if done > 0 && stop.load(Ordering::Relaxed) {
                c.store(true, Ordering::Relaxed);
            }
        })),
        cancel: Some(cancel.clone()),
        ..Default::default()
    };
    let e = s.cache.entry(&s.dump, 0, "t").unwrap().watched(watch);
    assert!(read_index(&e).is_ok());
    let seen = told.lock().unwrap().clone();
    // The array (20 MB: two 16 MiB blocks) and the blob: 0 first, one count per block after.
    let total = 4 * ARRAY_LEN as u64 + postcard_len_of_names();
    assert!(seen.iter().all(|&(_, t)| t == total), "{seen:?}");
    assert_eq!(seen.first(), Some(&(0, total)), "{seen:?}");
    assert_eq!(seen.last(), Some(&(total, total)), "{seen:?}");
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "not increasing: {seen:?}");

    // Cancelled after the first block: no file, the entry intact, and a hit when opened again.
    told.lock().unwrap().clear();
    stop_after.store(true, Ordering::Relaxed);
    assert!(matches!(e.open("index", ""), Lookup::Cancelled));
    let seen = told.lock().unwrap().clone();
    assert!(seen.last().unwrap().0 < total, "verified to the end although cancelled: {seen:?}");
    assert!(index_file(&e).exists(), "a cancelled opening removed the file");
    stop_after.store(false, Ordering::Relaxed);
    cancel.store(false, Ordering::Relaxed);
    assert!(read_index(&e).is_ok());

    // Through `load_or_build`: the step's error is `Cancelled`, nothing is built.
    stop_after.store(true, Ordering::Relaxed);
    let mut warnings = Vec::new();
    let r: Result<((), heapql_cache::CacheUse), heapql_cache::Cancelled> =
        e.load_or_build("index", "", &mut warnings, |_| Ok(()), || panic!("built although cancelled"), |_, _| Ok(()));
    assert_eq!(r.unwrap_err(), heapql_cache::Cancelled);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(index_file(&e).exists());
}

/// The bytes of the `names` blob `write_index` writes (postcard: a length, then each string).
fn postcard_len_of_names() -> u64 {
    3 + 2
}

/// The names of the files in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().flatten().map(|f| f.file_name().to_string_lossy().to_string()).collect();
    v.sort();
    v
}

#[test]
fn an_entry_whose_writer_died_before_its_meta_json_was_in_place_is_listed_and_cleared() {
    let s = setup();
    let e = s.cache.entry(&s.dump, 0, "t").unwrap();
    let dead = dead_pid();
    let tmp_name = format!("meta.json.tmp.{dead}");
    let whole = format!("{{\"dump\":{:?},\"dumpNumber\":0,\"dumpSize\":8000000}}", std::fs::canonicalize(&s.dump).unwrap().display().to_string());
    for (text, named) in [(&b"{\"dump\":"[..], false), (&b""[..], false), (whole.as_bytes(), true)] {
        std::fs::create_dir_all(e.dir()).unwrap();
        std::fs::File::create(e.dir().join("index.hqc.lock")).unwrap();
        std::fs::write(e.dir().join(&tmp_name), text).unwrap();
        let listed = s.cache.list();
        assert_eq!(listed.len(), 1, "{text:?}: not listed");
        let found = &listed[0];
        assert_eq!(found.dir, e.dir());
        // Cut short: the dump is unknown; whole: the text names it.
        assert_eq!(found.meta.as_ref().map(|m| Path::new(&m.dump).to_path_buf()), named.then(|| std::fs::canonicalize(&s.dump).unwrap()), "{text:?}");
        assert!(found.files.is_empty());
        assert_eq!(found.leftovers, vec![heapql_cache::Leftover { file: tmp_name.clone(), bytes: text.len() as u64, pid: Some(dead), writer_alive: false }]);
        // A clear of another dump leaves it; a clear of everything (or of its dump, when named) removes it.
        assert_eq!(s.cache.clear(Some(&s.dump.with_file_name("other.hprof"))).unwrap().entries, 0);
        assert!(e.dir().join(&tmp_name).exists());
        let c = s.cache.clear(named.then_some(s.dump.as_path())).unwrap();
        assert_eq!(c.entries, 1, "{text:?}");
        assert_eq!(c.leftovers_removed.len(), 1);
        assert!(!e.dir().exists(), "{text:?}: {:?}", names_in(e.dir()));
    }

    // Its writer alive (the process runs, or it holds a lock of the entry): listed so, kept.
    std::fs::create_dir_all(e.dir()).unwrap();
    let live = format!("meta.json.tmp.{}", std::process::id());
    std::fs::write(e.dir().join(&live), b"").unwrap();
    assert!(s.cache.list()[0].leftovers[0].writer_alive);
    let c = s.cache.clear(None).unwrap();
    assert_eq!(c.being_written.len(), 1);
    assert_eq!(names_in(e.dir()), std::slice::from_ref(&live));
    std::fs::remove_file(e.dir().join(&live)).unwrap();
    std::fs::write(e.dir().join(&tmp_name), b"").unwrap();
    let lock = std::fs::File::create(e.dir().join("index.hqc.lock")).unwrap();
    lock.lock().unwrap();
    assert!(s.cache.list()[0].leftovers[0].writer_alive, "{:?}", s.cache.list());
    s.cache.clear(None).unwrap();
    assert_eq!(names_in(e.dir()), ["index.hqc.lock".to_string(), tmp_name.clone()]);
    lock.unlock().unwrap();
    s.cache.clear(None).unwrap();
    assert!(!e.dir().exists());

    // Only locks (killed before it wrote anything), or a leftover whose meta.json is gone.
    let stale = format!("analysis.0123456789abcdef.hqc.tmp.{dead}");
    for files in [vec!["index.hqc.lock"], vec!["analysis.0123456789abcdef.hqc.lock", &stale]] {
        std::fs::create_dir_all(e.dir()).unwrap();
        for f in &files {
            std::fs::write(e.dir().join(f), b"").unwrap();
        }
        assert_eq!(s.cache.list().len(), 1, "{files:?}");
        assert_eq!(s.cache.clear(None).unwrap().entries, 1);
        assert!(!e.dir().exists());
    }

    // What is not an entry's directory is left alone: another name, or other files beside.
    let foreign = s.cache.root().join("not-an-entry");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join(&tmp_name), b"").unwrap();
    std::fs::create_dir_all(e.dir()).unwrap();
    std::fs::write(e.dir().join(&tmp_name), b"").unwrap();
    std::fs::write(e.dir().join("notes.txt"), b"mine").unwrap();
    assert!(s.cache.list().is_empty());
    assert_eq!(s.cache.clear(None).unwrap().entries, 0);
    assert!(foreign.join(&tmp_name).exists() && e.dir().join("notes.txt").exists());
}

#[test]
fn eviction_removes_entries_whose_writer_died_before_naming_their_dump() {
    let tmp = tempfile::tempdir().unwrap();
    let dumps = two_dumps(tmp.path());
    let cache = Cache::new(tmp.path().join("cache"), Some(1 << 30));
    let first = cache.entry(&dumps[0], 0, "t").unwrap();
    let second = cache.entry(&dumps[1], 0, "t").unwrap();
    std::fs::create_dir_all(second.dir()).unwrap();
    std::fs::File::create(second.dir().join("index.hqc.lock")).unwrap();
    std::fs::write(second.dir().join(format!("meta.json.tmp.{}", dead_pid())), b"{").unwrap();
    std::fs::write(second.dir().join(format!("index.hqc.tmp.{}", dead_pid())), vec![0u8; 1000]).unwrap();
    assert!(matches!(write_index(&first), Written::Done(_)));
    assert!(!second.dir().exists(), "kept: {:?}", names_in(second.dir()));
    assert_eq!(cache.list().len(), 1);
    // A live writer's (a lock held) stays.
    std::fs::create_dir_all(second.dir()).unwrap();
    let lock = std::fs::File::create(second.dir().join("index.hqc.lock")).unwrap();
    lock.lock().unwrap();
    std::fs::write(second.dir().join(format!("meta.json.tmp.{}", dead_pid())), b"{").unwrap();
    std::fs::remove_file(first.dir().join("index.hqc")).unwrap();
    assert!(matches!(write_index(&first), Written::Done(_)));
    assert_eq!(names_in(second.dir()).len(), 2);
    assert!(first.dir().join("index.hqc").exists());
}

/// Two small different "dumps" in `dir` (entries of their own).
fn two_dumps(dir: &Path) -> Vec<PathBuf> {
    (0..2)
        .map(|i| {
            let p = dir.join(format!("d{i}.hprof"));
            std::fs::write(&p, vec![i as u8; 1000]).unwrap();
            p
        })
        .collect()
}

/// A file larger than the cap on its own is not cached, and costs the other dumps only what the
/// cap needs without it: they were all evicted, one by one, before the write gave up, emptying
/// the cache for a file it could never hold.
#[test]
fn an_entry_larger_than_the_cap_evicts_only_what_the_cap_needs_without_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dumps = two_dumps(tmp.path());
    let roomy = Cache::new(tmp.path().join("cache"), Some(100_000_000));
    let kept = roomy.entry(&dumps[0], 0, "t").unwrap();
    assert!(matches!(write_index(&kept), Written::Done(_)));
    // 24 MB on its own against a cap of 22 MB, which holds the other entry (~20 MB).
    let big = |cache: &Cache| {
        cache.entry(&dumps[1], 0, "t").unwrap().write("index", "", |w| w.array("numbers", &(0..6_000_000u32).collect::<Vec<u32>>()))
    };
    let tight = Cache::new(tmp.path().join("cache"), Some(22_000_000));
    let w = big(&tight);
    assert!(matches!(&w, Written::Failed(m) if m.contains("cap")), "{w:?}");
    assert!(read_index(&kept).is_ok(), "the other dump's entry was evicted for a file that could not be kept anyway");
    let left: Vec<String> = tight.list().iter().map(|e| e.meta.as_ref().unwrap().dump.clone()).collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].ends_with("d0.hprof"), "{left:?}");
    // A cap the other entry does not fit either: it goes too, and the cap holds.
    let tighter = Cache::new(tmp.path().join("cache"), Some(19_000_000));
    assert!(matches!(big(&tighter), Written::Failed(_)));
    assert!(tighter.list().is_empty(), "{:?}", tighter.list());
}
