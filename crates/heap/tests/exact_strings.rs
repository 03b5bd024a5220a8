//! A String's exact text (`string_text`: its UTF-16 units when it holds an unpaired surrogate,
//! which `string_value` shows as U+FFFD), its length without decoding it (`string_length`, also
//! for an Android String whose array was dumped without its contents), and the flag of such an
//! array (`array_contents_missing`), on hand-made dumps.

use heapql_heap::{Heap, OpenOptions};
use heapql_hprof::testkit::DumpBuilder;
use heapql_hprof::BasicType;

fn open(bytes: &[u8]) -> Heap {
    Heap::open_bytes(bytes, "test.hprof", OpenOptions::default()).unwrap()
}

#[test]
fn strings_keep_unpaired_surrogates_exactly() {
    let mut b = DumpBuilder::new(8);
    let lone = b.utf16_string(&[0xD800, 0x78]);
    let lone_chars = b.char_string(&[0x78, 0xDFFF]);
    let pair = b.utf16_string(&[0xD83D, 0xDE00]);
    let latin1 = b.string("héllo");
    let h = open(&b.build());
    let o = |id: u64| h.index_of(id).unwrap();
    assert_eq!(h.string_text(o(lone)), Some(Err(vec![0xD800, 0x78])));
    assert_eq!(h.string_value(o(lone)).as_deref(), Some("\u{fffd}x"));
    assert_eq!(h.string_text(o(lone_chars)), Some(Err(vec![0x78, 0xDFFF])));
    assert_eq!(h.string_text(o(pair)), Some(Ok("😀".to_string())));
    assert_eq!(h.string_text(o(latin1)), Some(Ok("héllo".to_string())));
    for (s, n) in [(lone, 2), (lone_chars, 2), (pair, 2), (latin1, 5)] {
        assert_eq!(h.string_length(o(s)), Some(n), "{s:#x}");
    }
    assert!(!h.array_contents_missing(o(lone)));
}

#[test]
fn strings_without_contents_have_their_stated_length() {
    let mut b = DumpBuilder::new(4);
    let bytes = b.nodata_array(BasicType::Byte, 6);
    let chars = b.nodata_array(BasicType::Char, 3);
    let latin1 = b.string_over(bytes, 0);
    let utf16 = b.string_over(bytes, 1);
    let from_chars = b.string_over(chars, 0);
    let null = b.string_over(0, 0);
    let h = open(&b.build());
    let o = |id: u64| h.index_of(id).unwrap();
    assert!(h.array_contents_missing(o(bytes)) && h.array_contents_missing(o(chars)));
    for (s, n) in [(latin1, Some(6)), (utf16, Some(3)), (from_chars, Some(3)), (null, None)] {
        assert_eq!(h.string_text(o(s)), None);
        assert_eq!(h.string_length(o(s)), n, "{s:#x}");
    }
    assert_eq!(h.string_length(o(bytes)), None, "not a String");
}

#[test]
fn a_string_label_escapes_quotes_and_backslashes_in_its_text() {
    let mut b = DumpBuilder::new(8);
    let json = b.string("{\n  \"program\": \"a\\b\"}");
    let plain = b.string("n2");
    let h = open(&b.build());
    let o = |id: u64| h.index_of(id).unwrap();
    let (address, _, label) = heapql_heap::describe(&h, o(json));
    // The text ends where the quotes do; the line feed stays as it is (outputs escape it).
    assert_eq!(label, format!("java.lang.String @ {address}  \"{{\n  \\\"program\\\": \\\"a\\\\b\\\"}}\""));
    let (address, _, label) = heapql_heap::describe(&h, o(plain));
    assert_eq!(label, format!("java.lang.String @ {address}  \"n2\""));
}
