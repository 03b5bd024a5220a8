//! Writes a large synthetic HotSpot-style dump for timing the full analysis:
//! `cargo run --release -p heapql-graph --example gen_dump -- <out.hprof> <MiB>`
//! Shape: hash tables (Object[] of chained entries with String keys and value objects that
//! reference each other), a 200 000-node linked chain, and ~5 % unreachable garbage.

use heapql_hprof::testkit::{DumpBuilder, Val};
use heapql_hprof::BasicType;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 2 {
        eprintln!("usage: gen_dump <out.hprof> <MiB>");
        std::process::exit(2);
    }
    let target: usize = args[1].parse::<usize>().expect("MiB") << 20;
    let mut rng = StdRng::seed_from_u64(7);
    let mut b = DumpBuilder::new(8);
    let obj = b.object_class;
    let entry = b.class(
        "bench.Entry",
        Some(obj),
        &[("key", BasicType::Object), ("value", BasicType::Object), ("next", BasicType::Object), ("hash", BasicType::Int)],
    );
    let value = b.class("bench.Value", Some(obj), &[("peer", BasicType::Object), ("stamp", BasicType::Long), ("n", BasicType::Int)]);
    let link = b.class("bench.Link", Some(obj), &[("next", BasicType::Object), ("depth", BasicType::Int)]);
    let holder = b.class("bench.Holder", Some(obj), &[]);
    for c in [obj, entry, value, link, holder, b.class_class, b.string_class, b.thread_class, b.byte_array_class, b.object_array_class] {
        b.root_sticky_class(c);
    }
    let mut chain = 0u64;
    for d in 0..200_000 {
        chain = b.instance(link, &[Val::Obj(chain), Val::Int(d)]);
    }
    let mut tables = Vec::new();
    let mut values: Vec<u64> = Vec::new();
    let mut approx = 200_000 * 37usize;
    while approx < target {
        let size = 1usize << rng.random_range(4..11);
        let mut buckets = vec![0u64; size];
        for _ in 0..size * 3 / 4 {
            let len = rng.random_range(8..40);
            let key_bytes: Vec<u8> = (0..len).map(|_| rng.random_range(b'a'..=b'z')).collect();
            let key = b.string(std::str::from_utf8(&key_bytes).unwrap());
            let peer = if !values.is_empty() && rng.random_bool(0.5) { values[rng.random_range(0..values.len())] } else { 0 };
            let v = b.instance(value, &[Val::Obj(peer), Val::Long(rng.random()), Val::Int(1)]);
            values.push(v);
            let slot = rng.random_range(0..size);
            buckets[slot] = b.instance(entry, &[Val::Obj(key), Val::Obj(v), Val::Obj(buckets[slot]), Val::Int(slot as i32)]);
            approx += 53 + 38 + 42 + len + 45;
            if rng.random_bool(0.05) {
                // garbage: an unreferenced value pointing into the live graph
                b.instance(value, &[Val::Obj(v), Val::Long(0), Val::Int(0)]);
                approx += 45;
            }
        }
        tables.push(b.object_array(b.object_array_class, &buckets));
        approx += 25 + size * 8;
    }
    // Every table held by one static array; the chain by a JNI global.
    let all = b.object_array(b.object_array_class, &tables);
    b.set_statics(holder, &[("TABLES", Val::Obj(all)), ("CHAIN", Val::Obj(chain))]);
    let bytes = b.build();
    std::fs::write(&args[0], &bytes).unwrap();
    eprintln!("wrote {} ({} MiB, {} values)", args[0], bytes.len() >> 20, values.len());
}
