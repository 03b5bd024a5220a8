//! Feeds arbitrary bytes to the reader and the index, then touches every answer the index
//! gives (fields, arrays, strings, references, roots, threads): nothing may panic or hang.
#![no_main]

use heapql_heap::{Heap, OpenOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(h) = Heap::open_bytes(data, "fuzz.hprof", OpenOptions::default()) {
        heapql_heap::exercise(&h);
    }
});
