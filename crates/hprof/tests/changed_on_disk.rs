//! A mapped dump written over in place after it was opened is refused before it is read: its
//! index describes the old bytes, and reading the new ones through it is a silent wrong answer.

use heapql_hprof::{Control, Source};
use std::io::Write;
use std::time::{Duration, SystemTime};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("heapql-changed-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_dump_grown_in_place_is_refused() {
    let dir = scratch("grown");
    let p = dir.join("dump.hprof");
    std::fs::write(&p, vec![7u8; 1 << 16]).unwrap();
    let src = Source::open(&p, Control::none()).unwrap();
    assert!(src.check_unchanged().is_ok());
    // `cp bigger.hprof dump.hprof`: the same file, longer.
    std::fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(&[9u8; 4096]).unwrap();
    let e = src.check_unchanged().unwrap_err().to_string();
    assert!(e.contains("written to on disk since it was opened (69632 bytes now, 65536 then)") && e.contains("open it again"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_dump_rewritten_in_place_with_its_length_kept_is_refused() {
    let dir = scratch("same-length");
    let p = dir.join("dump.hprof");
    std::fs::write(&p, vec![7u8; 1 << 16]).unwrap();
    let opened_at = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&p).unwrap().set_modified(opened_at).unwrap();
    let src = Source::open(&p, Control::none()).unwrap();
    assert!(src.check_unchanged().is_ok());
    let mut f = std::fs::File::options().write(true).open(&p).unwrap();
    f.write_all(&[1u8; 64]).unwrap();
    f.set_modified(opened_at + Duration::from_secs(1)).unwrap();
    let e = src.check_unchanged().unwrap_err().to_string();
    assert!(e.contains("written to on disk since it was opened (its modification time changed)"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_dump_rewritten_in_place_with_its_modification_time_set_back_is_refused() {
    let dir = scratch("time-set-back");
    let p = dir.join("dump.hprof");
    std::fs::write(&p, vec![7u8; 1 << 16]).unwrap();
    let opened_at = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&p).unwrap().set_modified(opened_at).unwrap();
    let src = Source::open(&p, Control::none()).unwrap();
    // `cp -p other.hprof dump.hprof` or a write then `touch -r`: same length, same modification
    // time, new bytes; only the status-change time tells.
    std::thread::sleep(Duration::from_millis(20));
    let mut f = std::fs::File::options().write(true).open(&p).unwrap();
    f.write_all(&[1u8; 64]).unwrap();
    f.set_modified(opened_at).unwrap();
    let e = src.check_unchanged().unwrap_err().to_string();
    assert!(e.contains("its status-change time, ctime, moved") && e.contains("open it again"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_new_dump_renamed_over_the_open_one_or_the_open_one_deleted_is_no_change() {
    let dir = scratch("replaced");
    let p = dir.join("dump.hprof");
    std::fs::write(&p, vec![7u8; 1 << 16]).unwrap();
    let src = Source::open(&p, Control::none()).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    // The safe way to replace an open dump: the open file loses its link, not a byte.
    let new = dir.join("new.hprof");
    std::fs::write(&new, vec![1u8; 1 << 16]).unwrap();
    std::fs::rename(&new, &p).unwrap();
    assert!(src.check_unchanged().is_ok(), "{:?}", src.check_unchanged().err().map(|e| e.to_string()));
    std::fs::remove_file(&p).unwrap();
    assert!(src.check_unchanged().is_ok());
    std::fs::remove_dir_all(&dir).ok();
}
