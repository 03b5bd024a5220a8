/**
 * Small HPROF files written from scratch (`JAVA PROFILE 1.0.2`, 4-byte ids, one heap dump
 * segment; as test/repl/tiny-dump.ts and the Rust test kit write them) for diff cases no JVM run
 * makes on demand: threads that share a name with known `tid`s, and a class whose top-level
 * instances are a group leak suspect in one dump only.
 *
 * Every dump has `java.lang.Object`, `java.lang.Class`, `byte[]`, `java.lang.Object[]`,
 * `java.lang.String` (JDK 9+ layout: `value`, `coder`, `hash`), `java.lang.Thread` (`name`,
 * `tid`, `daemon`) and `Item` (`data`); every class is a System Class root.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** HPROF basic types. */
const T = { object: 2, boolean: 4, byte: 8, int: 10, long: 11 } as const;
type FieldType = (typeof T)[keyof typeof T];
const SIZE: Record<FieldType, number> = { [T.object]: 4, [T.boolean]: 1, [T.byte]: 1, [T.int]: 4, [T.long]: 8 };

class Bytes {
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
}

/** Builds one dump: classes first (the fixed set above), then objects and roots. */
class DumpBuilder {
  private readonly records = new Bytes();
  private readonly heap = new Bytes();
  private readonly roots = new Bytes();
  private readonly classes: ClassSpec[] = [];
  private readonly names = new Map<string, number>();
  private nextId = 0x10000;
  private threadSerial = 0;
  readonly object: number;
  readonly byteArray: number;
  readonly objectArray: number;
  readonly string: number;
  readonly thread: number;
  readonly item: number;

  constructor() {
    this.object = this.defineClass('java/lang/Object', 0, []);
    this.defineClass('java/lang/Class', this.object, []);
    this.byteArray = this.defineClass('[B', this.object, []);
    this.objectArray = this.defineClass('[Ljava/lang/Object;', this.object, []);
    this.string = this.defineClass('java/lang/String', this.object, [['value', T.object], ['coder', T.byte], ['hash', T.int]]);
    this.thread = this.defineClass('java/lang/Thread', this.object, [['name', T.object], ['tid', T.long], ['daemon', T.boolean]]);
    this.item = this.defineClass('Item', this.object, [['data', T.object]]);
  }

  private record(tag: number, body: Buffer): void {
    this.records.u1(tag).u4(0).u4(body.length).raw(body);
  }

  private nameId(s: string): number {
    let id = this.names.get(s);
    if (id === undefined) {
      id = 0x100 + this.names.size * 8;
      this.names.set(s, id);
      this.record(0x01, new Bytes().u4(id).raw(Buffer.from(s, 'utf8')).buffer);
    }
    return id;
  }

  private defineClass(name: string, superId: number, fields: [string, FieldType][]): number {
    const id = this.alloc();
    this.classes.push({ id, superId, fields });
    this.record(0x02, new Bytes().u4(this.classes.length).u4(id).u4(1).u4(this.nameId(name)).buffer);
    return id;
  }

  alloc(): number {
    return (this.nextId += 0x10);
  }

  /** An instance; `values` in layout order (own fields first, then the superclass's). */
  instance(classId: number, values: number[]): number {
    const id = this.alloc();
    const layout: FieldType[] = [];
    for (let c = this.classes.find((k) => k.id === classId); c; c = this.classes.find((k) => k.id === c!.superId)) layout.push(...c.fields.map(([, t]) => t));
    const data = new Bytes();
    layout.forEach((t, i) => (SIZE[t] === 8 ? data.u8(values[i]!) : SIZE[t] === 4 ? data.u4(values[i]!) : data.u1(values[i]!)));
    const b = data.buffer;
    this.heap.u1(0x21).u4(id).u4(1).u4(classId).u4(b.length).raw(b);
    return id;
  }

  bytes(length: number): number {
    const id = this.alloc();
    this.heap.u1(0x23).u4(id).u4(1).u4(length).u1(T.byte).raw(Buffer.alloc(length));
    return id;
  }

  objects(elements: number[]): number {
    const id = this.alloc();
    this.heap.u1(0x22).u4(id).u4(1).u4(elements.length).u4(this.objectArray);
    for (const e of elements) this.heap.u4(e);
    return id;
  }

  text(s: string): number {
    const value = this.alloc();
    const b = Buffer.from(s, 'latin1');
    this.heap.u1(0x23).u4(value).u4(1).u4(b.length).u1(T.byte).raw(b);
    return this.instance(this.string, [value, 0, 0]);
  }

  /** A JNI Global root. */
  global(id: number): void {
    this.roots.u1(0x01).u4(id).u4(0);
  }

  /** A started thread: a java.lang.Thread, its THREAD OBJECT root, and `locals` held in its top frame. */
  startThread(name: string, tid: number, locals: number[]): number {
    const serial = ++this.threadSerial;
    const t = this.instance(this.thread, [this.text(name), tid, 1]);
    const frame = 0x9000 + serial;
    this.record(0x04, new Bytes().u4(frame).u4(this.nameId('run')).u4(this.nameId('()V')).u4(this.nameId('Worker.java')).u4(1).u4(10).buffer);
    this.record(0x05, new Bytes().u4(100 + serial).u4(serial).u4(1).u4(frame).buffer);
    this.roots.u1(0x08).u4(t).u4(serial).u4(100 + serial);
    for (const l of locals) this.roots.u1(0x03).u4(l).u4(serial).u4(0);
    return t;
  }

  write(file: string): string {
    const seg = new Bytes();
    for (const c of this.classes) {
      const instanceBytes = (k: ClassSpec | undefined): number => (k ? k.fields.reduce((n, [, t]) => n + SIZE[t], 0) + instanceBytes(this.classes.find((s) => s.id === k.superId)) : 0);
      seg.u1(0x20).u4(c.id).u4(1).u4(c.superId).u4(0).u4(0).u4(0).u4(0).u4(0).u4(instanceBytes(c)).u2(0).u2(0).u2(c.fields.length);
      for (const [name, t] of c.fields) seg.u4(this.nameId(name)).u1(t);
    }
    seg.raw(this.heap.buffer);
    for (const c of this.classes) seg.u1(0x05).u4(c.id);
    seg.raw(this.roots.buffer);
    const out = new Bytes().raw(Buffer.from('JAVA PROFILE 1.0.2\0', 'latin1')).u4(4).u4(0x18b).u4(0xcfee5c00);
    out.raw(this.records.buffer);
    out.u1(0x1c).u4(0).u4(seg.buffer.length).raw(seg.buffer);
    out.u1(0x2c).u4(0).u4(0);
    writeFileSync(file, out.buffer);
    return file;
  }
}

/** One thread of `writeThreadsDump`: its name, tid and the bytes of the `byte[]` its frame holds. */
export interface ThreadSpec {
  name: string;
  tid: number;
  holds: number;
}

/** A dump of these threads, each holding one `byte[]` in a local, and nothing else of note. */
export function writeThreadsDump(dir: string, name: string, threads: ThreadSpec[]): string {
  const d = new DumpBuilder();
  for (const t of threads) d.startThread(t.name, t.tid, [d.bytes(t.holds)]);
  return d.write(path.join(dir, name));
}

/** What `writeItemsDump` makes. */
export interface ItemsSpec {
  /** `Item`s that are GC roots (JNI Global) of their own, each holding a `byte[1000]`: top-level dominators. */
  topLevel: number;
  /** `Item`s held by one `Object[]` root, each holding a `byte[1000]`: dominated by the array. */
  held: number;
  /** Bytes of a `byte[]` that one more top-level `Item` holds (a single suspect of class Item), 0 for none. */
  big: number;
}

/**
 * A dump of `Item`s: those that are top-level dominators make a group suspect when they retain
 * more than 10 % of the heap; the class histogram's retained size of `Item` counts the held ones too.
 */
export function writeItemsDump(dir: string, name: string, spec: ItemsSpec): string {
  const d = new DumpBuilder();
  for (let i = 0; i < spec.topLevel; i++) d.global(d.instance(d.item, [d.bytes(1000)]));
  const held: number[] = [];
  for (let i = 0; i < spec.held; i++) held.push(d.instance(d.item, [d.bytes(1000)]));
  d.global(d.objects(held));
  if (spec.big > 0) d.global(d.instance(d.item, [d.bytes(spec.big)]));
  d.startThread('main', 1, []);
  return d.write(path.join(dir, name));
}
