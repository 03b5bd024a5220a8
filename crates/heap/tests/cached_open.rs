//! Opening a dump through its cache entry: the verification of the cached index is a progress
//! phase (`verifying cache`, bytes of the total, rising per block) and stops at the cancel flag
//! with `HeapError::Cancelled`, the cached file left in place. On a fixture dump.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use heapql_cache::Cache;
use heapql_heap::{CacheUse, Heap, HeapError, OpenOptions, Progress, VERIFYING_CACHE};

#[test]
fn a_cached_open_tells_the_bytes_verified_and_stops_when_cancelled() {
    let dump = common::repo().join("fixtures/dumps/KnownHeap-jdk17-coops.hprof");
    assert!(dump.exists(), "{} is missing: run fixtures/make-fixtures.sh", dump.display());
    let dir = tempfile::tempdir().unwrap();
    let entry = Cache::new(dir.path().join("cache"), None).entry(&dump, 0, "test").unwrap();
    let (_, used) = Heap::open_with_cache(&dump, OpenOptions::default(), &entry, &mut Vec::new()).unwrap();
    assert_eq!(used, CacheUse::Written);
    let index = entry.dir().join("index.hqc");

    let told = Arc::new(Mutex::new(Vec::<(u64, u64)>::new()));
    let cancel = Arc::new(AtomicBool::new(false));
    let with = |cancel_at_first_block: bool| {
        let (t, c) = (told.clone(), cancel.clone());
        OpenOptions {
            progress: Some(Arc::new(move |p: Progress| {
                if p.phase == VERIFYING_CACHE {
                    t.lock().unwrap().push((p.done, p.total));
                    if cancel_at_first_block && p.done > 0 {
                        c.store(true, Ordering::Relaxed);
                    }
                }
            })),
            cancel: Some(cancel.clone()),
            ..OpenOptions::default()
        }
    };

    let (_, used) = Heap::open_with_cache(&dump, with(false), &entry, &mut Vec::new()).unwrap();
    assert_eq!(used, CacheUse::Hit);
    let seen = told.lock().unwrap().clone();
    let total = seen[0].1;
    // The index's sections, one count per block: from 0 up to the whole, never back.
    assert!(total > 0 && total < std::fs::metadata(&index).unwrap().len(), "{seen:?}");
    assert_eq!(seen.first(), Some(&(0, total)));
    assert_eq!(seen.last(), Some(&(total, total)));
    assert!(seen.len() > 2, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0 && w[1].1 == total), "{seen:?}");

    // Cancelled after the first block: Cancelled, as any cancelled opening; the file stays.
    told.lock().unwrap().clear();
    let r = Heap::open_with_cache(&dump, with(true), &entry, &mut Vec::new());
    assert!(matches!(r, Err(HeapError::Cancelled)), "{:?}", r.map(|(_, u)| u));
    assert!(told.lock().unwrap().last().unwrap().0 < total);
    assert!(index.exists(), "a cancelled opening removed the cached index");
    cancel.store(false, Ordering::Relaxed);
    let (_, used) = Heap::open_with_cache(&dump, OpenOptions::default(), &entry, &mut Vec::new()).unwrap();
    assert_eq!(used, CacheUse::Hit);
}
