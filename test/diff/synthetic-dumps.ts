/**
 * Small HPROF files written from scratch (test/tools/hprof-writer.ts) for diff cases no JVM run
 * makes on demand: threads that share a name with known `tid`s, and a class whose top-level
 * instances are a group leak suspect in one dump only.
 *
 * Every dump has `java.lang.Object`, `java.lang.Class`, `byte[]`, `java.lang.Object[]`,
 * `java.lang.String` (JDK 9+ layout: `value`, `coder`, `hash`), `java.lang.Thread` (`name`,
 * `tid`, `daemon`) and `Item` (`data`); every class is a System Class root.
 */
import path from 'node:path';

import { Bytes, HprofWriter, T } from '../tools/hprof-writer.js';

/** The fixed classes above, and what the diff cases put in a dump. */
class DumpBuilder extends HprofWriter {
  private threadSerial = 0;
  readonly object: number;
  readonly byteArray: number;
  readonly objectArrayClass: number;
  readonly string: number;
  readonly thread: number;
  readonly item: number;

  constructor() {
    super();
    this.object = this.defineClass('java/lang/Object', 0);
    this.defineClass('java/lang/Class', this.object);
    this.byteArray = this.defineClass('[B', this.object);
    this.objectArrayClass = this.defineClass('[Ljava/lang/Object;', this.object);
    this.string = this.defineClass('java/lang/String', this.object, [['value', T.object], ['coder', T.byte], ['hash', T.int]]);
    this.thread = this.defineClass('java/lang/Thread', this.object, [['name', T.object], ['tid', T.long], ['daemon', T.boolean]]);
    this.item = this.defineClass('Item', this.object, [['data', T.object]]);
  }

  bytes(length: number): number {
    return this.primitiveArray(T.byte, length, Buffer.alloc(length));
  }

  objects(elements: number[]): number {
    return this.objectArray(this.objectArrayClass, elements);
  }

  text(s: string): number {
    const b = Buffer.from(s, 'latin1');
    return this.instance(this.string, [this.primitiveArray(T.byte, b.length, b), 0, 0]);
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

  /** Every class is a System Class root. */
  save(file: string): string {
    return this.write(file, { systemClassRoots: true });
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
  return d.save(path.join(dir, name));
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
  return d.save(path.join(dir, name));
}
