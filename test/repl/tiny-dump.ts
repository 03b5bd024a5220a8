/**
 * A tiny HPROF file written from scratch (`JAVA PROFILE 1.0.2`, 4-byte ids, one heap dump
 * segment), as the Rust test kit (`crates/hprof/src/testkit.rs`) writes them, for tests that
 * need contents the demo dump does not have: Java strings with unpaired surrogates, `float`
 * fields and arrays, and an Android array dumped without its contents (PRIMITIVE ARRAY NODATA).
 *
 * Classes: `java.lang.Object`, `java.lang.Class`, the primitive array classes, `java.lang.String`
 * (the JDK 9+ layout: `value`, `coder`, `hash`) and `Tiny` (`c char`, `f float`, `s String`,
 * `a float[]`, static `SF float`). Objects, by their addresses (`TINY`):
 * - `lone` `\ud800x` and `low` `\udc00x`: UTF-16 Strings (coder 1, little-endian);
 * - `chars`: a `char[]` `\ud800x`; `floats`: a `float[]` `{0.1f, 1.1f}`;
 * - `nodata`: a `byte[5]` dumped without its contents, and `blank`, a String over it;
 * - `tiny`: a `Tiny` with `c = '\ud800'`, `f = 0.1f`, `s = lone`, `a = floats`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** The objects' addresses. */
export const TINY = {
  lone: 0x2000,
  low: 0x2010,
  chars: 0x2020,
  floats: 0x2030,
  nodata: 0x2040,
  blank: 0x2050,
  tiny: 0x2060,
  loneValue: 0x2070,
  lowValue: 0x2080,
} as const;

/** HPROF basic types. */
const T = { object: 2, boolean: 4, char: 5, float: 6, double: 7, byte: 8, short: 9, int: 10, long: 11 } as const;

class Bytes {
  readonly parts: Buffer[] = [];
  u1(v: number): this {
    this.parts.push(Buffer.from([v & 0xff]));
    return this;
  }
  private put(size: number, write: (b: Buffer) => void): this {
    const b = Buffer.alloc(size);
    write(b);
    this.parts.push(b);
    return this;
  }
  u2(v: number): this {
    return this.put(2, (b) => b.writeUInt16BE(v));
  }
  u4(v: number): this {
    return this.put(4, (b) => b.writeUInt32BE(v >>> 0));
  }
  f4(v: number): this {
    return this.put(4, (b) => b.writeFloatBE(v));
  }
  id(v: number): this {
    return this.u4(v);
  }
  raw(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  get buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Writes the tiny dump into `dir` and returns its path. */
export function writeTinyDump(dir: string, name = 'tiny.hprof'): string {
  const out = new Bytes();
  out.raw(Buffer.from('JAVA PROFILE 1.0.2\0', 'latin1')).u4(4).u4(0x18b).u4(0xcfee5c00);
  const record = (tag: number, body: Buffer) => out.u1(tag).u4(0).u4(body.length).raw(body);

  let nextName = 0x100;
  const names = new Map<string, number>();
  const nameId = (s: string) => {
    let id = names.get(s);
    if (id === undefined) {
      id = nextName += 8;
      names.set(s, id);
      record(0x01, new Bytes().id(id).raw(Buffer.from(s, 'utf8')).buffer);
    }
    return id;
  };

  interface ClassSpec { id: number; name: string; superId: number; fields: [string, number][]; statics: [string, number, number][] }
  const classes: ClassSpec[] = [];
  let nextClass = 0x1000;
  const defineClass = (cname: string, superId: number, fields: [string, number][] = [], statics: [string, number, number][] = []) => {
    const id = (nextClass += 0x10);
    classes.push({ id, name: cname, superId, fields, statics });
    record(0x02, new Bytes().u4(classes.length).id(id).u4(1).id(nameId(cname)).buffer);
    return id;
  };
  const object = defineClass('java/lang/Object', 0);
  defineClass('java/lang/Class', object);
  const arrays: Record<string, number> = {};
  for (const [p, code] of [['Z', 'boolean'], ['C', 'char'], ['F', 'float'], ['D', 'double'], ['B', 'byte'], ['S', 'short'], ['I', 'int'], ['J', 'long']]) {
    arrays[code!] = defineClass(`[${p}`, object);
  }
  const string = defineClass('java/lang/String', object, [['value', T.object], ['coder', T.byte], ['hash', T.int]]);
  const tiny = defineClass('Tiny', object, [['c', T.char], ['f', T.float], ['s', T.object], ['a', T.object]], [['SF', T.float, 0.1]]);

  const seg = new Bytes();
  const size = (t: number) => (t === T.object || t === T.float || t === T.int ? 4 : t === T.char || t === T.short ? 2 : t === T.double || t === T.long ? 8 : 1);
  const fieldBytes = (c: ClassSpec): number => c.fields.reduce((n, [, t]) => n + size(t), 0) + (c.superId ? fieldBytes(classes.find((k) => k.id === c.superId)!) : 0);
  for (const c of classes) {
    seg.u1(0x20).id(c.id).u4(1).id(c.superId).id(0).id(0).id(0).id(0).id(0).u4(fieldBytes(c)).u2(0).u2(c.statics.length);
    for (const [sname, t, v] of c.statics) {
      seg.id(nameId(sname)).u1(t);
      if (t === T.float) seg.f4(v);
      else seg.u4(v);
    }
    seg.u2(c.fields.length);
    for (const [fname, t] of c.fields) seg.id(nameId(fname)).u1(t);
  }
  const instance = (id: number, classId: number, data: Bytes) => {
    const b = data.buffer;
    seg.u1(0x21).id(id).u4(1).id(classId).u4(b.length).raw(b);
  };
  const primArray = (id: number, type: number, length: number, data: Buffer) => seg.u1(0x23).id(id).u4(1).u4(length).u1(type).raw(data);
  const utf16le = (units: number[]) => {
    const b = Buffer.alloc(units.length * 2);
    units.forEach((u, i) => b.writeUInt16LE(u, 2 * i));
    return b;
  };
  const x = 'x'.charCodeAt(0);
  primArray(TINY.loneValue, T.byte, 4, utf16le([0xd800, x]));
  instance(TINY.lone, string, new Bytes().id(TINY.loneValue).u1(1).u4(0));
  primArray(TINY.lowValue, T.byte, 4, utf16le([0xdc00, x]));
  instance(TINY.low, string, new Bytes().id(TINY.lowValue).u1(1).u4(0));
  primArray(TINY.chars, T.char, 2, new Bytes().u2(0xd800).u2(x).buffer);
  primArray(TINY.floats, T.float, 2, new Bytes().f4(0.1).f4(1.1).buffer);
  // PRIMITIVE ARRAY NODATA (Android): id, stack serial, length, element type; no contents.
  seg.u1(0xc3).id(TINY.nodata).u4(0).u4(5).u1(T.byte);
  instance(TINY.blank, string, new Bytes().id(TINY.nodata).u1(0).u4(0));
  instance(TINY.tiny, tiny, new Bytes().u2(0xd800).f4(0.1).id(TINY.lone).id(TINY.floats));
  record(0x1c, seg.buffer);
  record(0x2c, Buffer.alloc(0));

  const file = path.join(dir, name);
  writeFileSync(file, out.buffer);
  return file;
}
