/**
 * HPROF files written from scratch for tests that need contents no fixture dump has (as the Rust
 * test kit, `crates/hprof/src/testkit.rs`, writes them for the Rust tests): `JAVA PROFILE 1.0.2`
 * (or another format), 4-byte ids, one heap dump segment holding the class dumps, then the
 * objects (with Android's HEAP DUMP INFO records among them), then the roots.
 */
import { writeFileSync } from 'node:fs';

/** HPROF basic types. */
export const T = { object: 2, boolean: 4, char: 5, float: 6, double: 7, byte: 8, short: 9, int: 10, long: 11 } as const;
export type FieldType = (typeof T)[keyof typeof T];

/** Bytes of a value of each type, with 4-byte ids. */
const SIZE: Record<FieldType, number> = { [T.object]: 4, [T.boolean]: 1, [T.char]: 2, [T.float]: 4, [T.double]: 8, [T.byte]: 1, [T.short]: 2, [T.int]: 4, [T.long]: 8 };

/** Big-endian bytes appended piece by piece. */
export class Bytes {
  readonly parts: Buffer[] = [];
  private put(size: number, write: (b: Buffer) => void): this {
    const b = Buffer.alloc(size);
    write(b);
    this.parts.push(b);
    return this;
  }
  u1(v: number): this {
    return this.put(1, (b) => b.writeUInt8(v & 0xff));
  }
  u2(v: number): this {
    return this.put(2, (b) => b.writeUInt16BE(v));
  }
  u4(v: number): this {
    return this.put(4, (b) => b.writeUInt32BE(v >>> 0));
  }
  u8(v: number): this {
    return this.put(8, (b) => b.writeBigUInt64BE(BigInt(v)));
  }
  f4(v: number): this {
    return this.put(4, (b) => b.writeFloatBE(v));
  }
  /** A value of a field, a static or an array element of type `t`. */
  value(t: FieldType, v: number): this {
    if (t === T.float) return this.f4(v);
    if (t === T.double) return this.put(8, (b) => b.writeDoubleBE(v));
    const size = SIZE[t];
    return size === 8 ? this.u8(v) : size === 4 ? this.u4(v) : size === 2 ? this.u2(v) : this.u1(v);
  }
  raw(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  get buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

interface ClassSpec {
  id: number;
  superId: number;
  fields: [string, FieldType][];
  statics: [string, FieldType, number][];
}

/** One dump: classes defined first, then objects and roots in any order; `write` lays them out. */
export class HprofWriter {
  private readonly records = new Bytes();
  private readonly heap = new Bytes();
  /** GC root sub-records, written after the objects. */
  readonly roots = new Bytes();
  private readonly classes: ClassSpec[] = [];
  private readonly names = new Map<string, number>();
  private nextId = 0x10000;

  /** A top-level record (tag, time 0, length, body). */
  record(tag: number, body: Buffer): void {
    this.records.u1(tag).u4(0).u4(body.length).raw(body);
  }

  /** The id of the UTF8 record holding `s`, written the first time. */
  nameId(s: string): number {
    let id = this.names.get(s);
    if (id === undefined) {
      id = 0x100 + this.names.size * 8;
      this.names.set(s, id);
      this.record(0x01, new Bytes().u4(id).raw(Buffer.from(s, 'utf8')).buffer);
    }
    return id;
  }

  /** A fresh object id (objects given their own ids must stay below 0x10000). */
  alloc(): number {
    return (this.nextId += 0x10);
  }

  /** LOAD CLASS now, CLASS DUMP (with its fields and statics) in the heap segment. */
  defineClass(name: string, superId: number, fields: [string, FieldType][] = [], statics: [string, FieldType, number][] = []): number {
    const id = this.alloc();
    this.classes.push({ id, superId, fields, statics });
    this.record(0x02, new Bytes().u4(this.classes.length).u4(id).u4(1).u4(this.nameId(name)).buffer);
    return id;
  }

  /** An instance; `values` in layout order (own fields first, then the superclass's). */
  instance(classId: number, values: number[], id = this.alloc()): number {
    const layout: FieldType[] = [];
    for (let c = this.classOf(classId); c; c = this.classOf(c.superId)) layout.push(...c.fields.map(([, t]) => t));
    const data = new Bytes();
    layout.forEach((t, i) => data.value(t, values[i]!));
    const b = data.buffer;
    this.heap.u1(0x21).u4(id).u4(1).u4(classId).u4(b.length).raw(b);
    return id;
  }

  /** Android HEAP DUMP INFO: the objects written after it are in heap `name` (ART's ids: 0x41 app, 0x5a zygote, 0x49 image). */
  heapInfo(heapId: number, name: string): void {
    this.heap.u1(0xfe).u4(heapId).u4(this.nameId(name));
  }

  /** A primitive array of `length` elements of type `type` whose contents are `data`. */
  primitiveArray(type: FieldType, length: number, data: Buffer, id = this.alloc()): number {
    this.heap.u1(0x23).u4(id).u4(1).u4(length).u1(type).raw(data);
    return id;
  }

  /** A primitive array dumped without its contents (Android's PRIMITIVE ARRAY NODATA). */
  noDataArray(type: FieldType, length: number, id = this.alloc()): number {
    this.heap.u1(0xc3).u4(id).u4(0).u4(length).u1(type);
    return id;
  }

  /** An object array of class `classId`. */
  objectArray(classId: number, elements: number[], id = this.alloc()): number {
    this.heap.u1(0x22).u4(id).u4(1).u4(elements.length).u4(classId);
    for (const e of elements) this.heap.u4(e);
    return id;
  }

  /** The file's bytes; with `systemClassRoots`, every class is a System Class root; `format` the header's text (default `JAVA PROFILE 1.0.2`). */
  fileBytes(options: { systemClassRoots?: boolean; format?: string } = {}): Buffer {
    const seg = new Bytes();
    for (const c of this.classes) {
      seg.u1(0x20).u4(c.id).u4(1).u4(c.superId).u4(0).u4(0).u4(0).u4(0).u4(0).u4(this.instanceBytes(c)).u2(0).u2(c.statics.length);
      for (const [name, t, v] of c.statics) seg.u4(this.nameId(name)).u1(t).value(t, v);
      seg.u2(c.fields.length);
      for (const [name, t] of c.fields) seg.u4(this.nameId(name)).u1(t);
    }
    seg.raw(this.heap.buffer);
    if (options.systemClassRoots) for (const c of this.classes) seg.u1(0x05).u4(c.id);
    seg.raw(this.roots.buffer);
    const out = new Bytes().raw(Buffer.from(`${options.format ?? 'JAVA PROFILE 1.0.2'}\0`, 'latin1')).u4(4).u4(0x18b).u4(0xcfee5c00);
    out.raw(this.records.buffer);
    out.u1(0x1c).u4(0).u4(seg.buffer.length).raw(seg.buffer);
    out.u1(0x2c).u4(0).u4(0);
    return out.buffer;
  }

  /** Writes the file (see `fileBytes`) and returns its path. */
  write(file: string, options: { systemClassRoots?: boolean; format?: string } = {}): string {
    writeFileSync(file, this.fileBytes(options));
    return file;
  }

  private classOf(id: number): ClassSpec | undefined {
    return this.classes.find((k) => k.id === id);
  }

  private instanceBytes(c: ClassSpec | undefined): number {
    return c ? c.fields.reduce((n, [, t]) => n + SIZE[t], 0) + this.instanceBytes(this.classOf(c.superId)) : 0;
  }
}
