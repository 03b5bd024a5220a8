//! A String's exact text (`string_text`: its UTF-16 units when it holds an unpaired surrogate,
//! which `string_value` shows as U+FFFD), its length without decoding it (`string_length`, also
//! for an Android String whose array was dumped without its contents), and the flag of such an
//! array (`array_contents_missing`), on hand-made dumps.

use heapql_heap::{Heap, OpenOptions};
use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;

mod common;
use common::nodata;

fn open(bytes: &[u8]) -> Heap {
    Heap::open_bytes(bytes, "test.hprof", OpenOptions::default()).unwrap()
}

fn utf16_string(b: &mut DumpBuilder, units: &[u16]) -> u64 {
    let bytes: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
    let value = b.byte_array(&bytes);
    b.instance(b.string_class, &[Val::Obj(value), Val::Byte(1), Val::Int(0)])
}

fn char_string(b: &mut DumpBuilder, units: &[u16]) -> u64 {
    let chars: Vec<Val> = units.iter().map(|&u| Val::Char(u)).collect();
    let value = b.primitive_array(BasicType::Char, &chars);
    b.instance(b.string_class, &[Val::Obj(value), Val::Byte(0), Val::Int(0)])
}

#[test]
fn strings_keep_unpaired_surrogates_exactly() {
    let mut b = DumpBuilder::new(8);
    let lone = utf16_string(&mut b, &[0xD800, 0x78]);
    let lone_chars = char_string(&mut b, &[0x78, 0xDFFF]);
    let pair = utf16_string(&mut b, &[0xD83D, 0xDE00]);
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
    let bytes = nodata(&mut b, BasicType::Byte, 6);
    let chars = nodata(&mut b, BasicType::Char, 3);
    let latin1 = b.instance(b.string_class, &[Val::Obj(bytes), Val::Byte(0), Val::Int(0)]);
    let utf16 = b.instance(b.string_class, &[Val::Obj(bytes), Val::Byte(1), Val::Int(0)]);
    let from_chars = b.instance(b.string_class, &[Val::Obj(chars), Val::Byte(0), Val::Int(0)]);
    let null = b.instance(b.string_class, &[Val::Obj(0), Val::Byte(0), Val::Int(0)]);
    let h = open(&b.build());
    let o = |id: u64| h.index_of(id).unwrap();
    assert!(h.array_contents_missing(o(bytes)) && h.array_contents_missing(o(chars)));
    for (s, n) in [(latin1, Some(6)), (utf16, Some(3)), (from_chars, Some(3)), (null, None)] {
        assert_eq!(h.string_text(o(s)), None);
        assert_eq!(h.string_length(o(s)), n, "{s:#x}");
    }
    assert_eq!(h.string_length(o(bytes)), None, "not a String");
}
