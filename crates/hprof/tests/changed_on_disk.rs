//! A mapped dump written over in place after it was opened is refused before it is read: its
//! index describes the old bytes, and reading the new ones through it is a silent wrong answer.

use heapql_hprof::{Control, Source};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// A 64 KiB dump in a scratch directory of its own (removed on drop), its modification time set
/// to `modified` when given, then opened.
struct Opened {
    dir: PathBuf,
    path: PathBuf,
    src: Source,
}

impl Drop for Opened {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

fn open_dump(name: &str, modified: Option<SystemTime>) -> Opened {
    let dir = std::env::temp_dir().join(format!("heapql-changed-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dump.hprof");
    std::fs::write(&path, vec![7u8; 1 << 16]).unwrap();
    if let Some(t) = modified {
        std::fs::File::options().write(true).open(&path).unwrap().set_modified(t).unwrap();
    }
    let src = Source::open(&path, Control::none()).unwrap();
    Opened { dir, path, src }
}

#[test]
fn a_dump_grown_in_place_is_refused() {
    let Opened { path: p, src, .. } = &open_dump("grown", None);
    assert!(src.check_unchanged().is_ok());
    // `cp bigger.hprof dump.hprof`: the same file, longer.
    std::fs::OpenOptions::new().append(true).open(p).unwrap().write_all(&[9u8; 4096]).unwrap();
    let e = src.check_unchanged().unwrap_err().to_string();
    assert!(e.contains("written to on disk since it was opened (69632 bytes now, 65536 then)") && e.contains("open it again"), "{e}");
}

#[test]
fn a_dump_rewritten_in_place_with_its_length_kept_is_refused() {
    let opened_at = SystemTime::now() - Duration::from_secs(3600);
    let Opened { path: p, src, .. } = &open_dump("same-length", Some(opened_at));
    assert!(src.check_unchanged().is_ok());
    let mut f = std::fs::File::options().write(true).open(p).unwrap();
    f.write_all(&[1u8; 64]).unwrap();
    f.set_modified(opened_at + Duration::from_secs(1)).unwrap();
    let e = src.check_unchanged().unwrap_err().to_string();
    assert!(e.contains("written to on disk since it was opened (its modification time changed)"), "{e}");
}

#[test]
fn a_dump_rewritten_in_place_with_its_modification_time_set_back_is_refused() {
    let opened_at = SystemTime::now() - Duration::from_secs(3600);
    let Opened { path: p, src, .. } = &open_dump("time-set-back", Some(opened_at));
    assert!(src.check_unchanged().is_ok());
    // `cp -p other.hprof dump.hprof` or a write then `touch -r`: same length, same modification
    // time, new bytes; only the status-change time tells.
    std::thread::sleep(Duration::from_millis(20));
    let mut f = std::fs::File::options().write(true).open(p).unwrap();
    f.write_all(&[1u8; 64]).unwrap();
    f.set_modified(opened_at).unwrap();
    let e = src.check_unchanged().unwrap_err().to_string();
    assert!(e.contains("its status-change time, ctime, moved") && e.contains("open it again"), "{e}");
}

#[test]
fn a_new_dump_renamed_over_the_open_one_or_the_open_one_deleted_is_no_change() {
    let Opened { dir, path: p, src } = &open_dump("replaced", None);
    std::thread::sleep(Duration::from_millis(20));
    // The safe way to replace an open dump: the open file loses its link, not a byte.
    let new = dir.join("new.hprof");
    std::fs::write(&new, vec![1u8; 1 << 16]).unwrap();
    std::fs::rename(&new, p).unwrap();
    assert!(src.check_unchanged().is_ok(), "{:?}", src.check_unchanged().err().map(|e| e.to_string()));
    std::fs::remove_file(p).unwrap();
    assert!(src.check_unchanged().is_ok());
}

/// A dump cut short on disk while it is being read: the read past its new end raises SIGBUS,
/// which would stop the process with no word (in a server, every session with it). The read
/// gives zeros instead, and the fault is noted on the source (`read_fault`), which refuses every
/// piece of work from then on (`check_unchanged`), also once the file looks as it did.
#[cfg(unix)]
#[test]
fn a_dump_cut_short_while_it_is_read_is_an_error_for_that_work_not_a_dead_process() {
    let dir = std::env::temp_dir().join(format!("heapql-changed-sigbus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dump.hprof");
    let other_path = dir.join("other.hprof");
    std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
    std::fs::write(&other_path, vec![9u8; 1 << 20]).unwrap();
    let src = Source::open(&path, Control::none()).unwrap();
    let other = Source::open(&other_path, Control::none()).unwrap();
    assert_eq!(&src.bytes(512 * 1024, 4)[..], &[7, 7, 7, 7]);
    assert_eq!(src.read_fault(), None);
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(4096).unwrap();
    // Past the new end: SIGBUS, recovered from.
    assert_eq!(&src.bytes(512 * 1024, 16)[..], &[0u8; 16]);
    assert_eq!(&src.bytes(1000 * 1024, 16)[..], &[0u8; 16]);
    // Before it: the file's bytes still.
    assert_eq!(&src.bytes(100, 4)[..], &[7, 7, 7, 7]);
    assert_eq!(src.read_fault(), Some(heapql_hprof::Fault::CutShort));
    let e = src.check_unchanged().unwrap_err().to_string();
    assert!(e.contains("cut short on disk since it was opened (4096 bytes now, 1048576 then)"), "{e}");
    // The file grown back to its length: its mapping still reads zeros there, so still refused.
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(1 << 20).unwrap();
    let e = src.check_unchanged().unwrap_err().to_string();
    assert!(e.contains("written to on disk") || e.contains("cut short on disk while heapql was reading it"), "{e}");
    // Another dump is not concerned.
    assert_eq!(other.read_fault(), None);
    assert!(other.check_unchanged().is_ok());
    assert_eq!(&other.bytes(512 * 1024, 2)[..], &[9, 9]);
    drop(src);
    drop(other);
    std::fs::remove_dir_all(&dir).ok();
}
