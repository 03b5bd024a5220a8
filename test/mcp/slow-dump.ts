/**
 * A synthetic HPROF file (`JAVA PROFILE 1.0.2`, 4-byte ids) of many small objects, for tests
 * that need the full analysis to run for a while (a second or so) — long enough for requests to
 * join it and cancel while it runs — without a JDK or a big fixture in the repository.
 *
 * Classes: `java.lang.Object`, `java.lang.Class` and `Node` (`next`, `other`: objects). `count`
 * nodes: node i's `next` is node i + 1 (the last's null) and its `other` an earlier node picked
 * by a fixed pseudo-random sequence, so the dominator tree is not a plain chain; node 0 and every
 * 1000th node are GC roots (ROOT UNKNOWN). Written into one buffer sized up front, not with
 * test/tools/hprof-writer.ts, whose pieces per value would cost millions of small buffers here.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes the dump into `dir` and returns its path. */
export function writeSlowDump(dir: string, count: number, name = 'slow.hprof'): string {
  const parts: Buffer[] = [];
  const u4 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(v >>> 0);
    return b;
  };
  parts.push(Buffer.from('JAVA PROFILE 1.0.2\0', 'latin1'), u4(4), u4(0x18b), u4(0xcfee5c00));
  const record = (tag: number, body: Buffer) => parts.push(Buffer.from([tag]), u4(0), u4(body.length), body);

  const names: [number, string][] = [
    [0x10, 'java/lang/Object'],
    [0x18, 'java/lang/Class'],
    [0x20, 'Node'],
    [0x28, 'next'],
    [0x30, 'other'],
  ];
  for (const [id, s] of names) record(0x01, Buffer.concat([u4(id), Buffer.from(s, 'utf8')]));
  const classes: [number, number, number][] = [
    [0x1000, 0x10, 0],
    [0x1010, 0x18, 0x1000],
    [0x1020, 0x20, 0x1000],
  ];
  classes.forEach(([id, nameId], i) => record(0x02, Buffer.concat([u4(i + 1), u4(id), u4(1), u4(nameId)])));

  const NODE = 0x1020;
  const BASE = 0x100000;
  const STEP = 16;
  const rootEvery = 1000;
  const roots = Math.ceil(count / rootEvery);
  const classBytes = (fields: number) => 1 + 4 * 8 + 4 + 2 + 2 + 2 + fields * 5;
  const segSize = classBytes(0) * 2 + classBytes(2) + roots * 5 + count * 25;
  const seg = Buffer.alloc(segSize);
  let at = 0;
  const b1 = (v: number) => (at = seg.writeUInt8(v, at));
  const b2 = (v: number) => (at = seg.writeUInt16BE(v, at));
  const b4 = (v: number) => (at = seg.writeUInt32BE(v >>> 0, at));
  for (const [id, , superId] of classes) {
    const fields = id === NODE ? 2 : 0;
    b1(0x20);
    b4(id);
    b4(1);
    b4(superId);
    for (let k = 0; k < 5; k++) b4(0);
    b4(fields * 4);
    b2(0);
    b2(0);
    b2(fields);
    if (fields) {
      b4(0x28);
      b1(2);
      b4(0x30);
      b1(2);
    }
  }
  for (let i = 0; i < count; i += rootEvery) {
    b1(0xff);
    b4(BASE + i * STEP);
  }
  let seed = 12345;
  for (let i = 0; i < count; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    b1(0x21);
    b4(BASE + i * STEP);
    b4(1);
    b4(NODE);
    b4(8);
    b4(i + 1 < count ? BASE + (i + 1) * STEP : 0);
    b4(i > 0 ? BASE + (seed % i) * STEP : 0);
  }
  if (at !== segSize) throw new Error(`segment size ${at}, expected ${segSize}`);
  record(0x1c, seg);
  record(0x2c, Buffer.alloc(0));
  const file = path.join(dir, name);
  writeFileSync(file, Buffer.concat(parts));
  return file;
}
