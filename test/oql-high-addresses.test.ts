/**
 * Addresses at or above 2^63 (a 64-bit dump may place objects there): a hex literal
 * 0x8000000000000000 .. 0xffffffffffffffff is the long of those 64 bits, as Java reads the hex
 * literal 0xffff800000001000L and as `@objectAddress` holds such an address, so WHERE finds the
 * object exactly (`@objectAddress = 0x…`, `x = 0x…`, an address IN a subquery of objects); two
 * objects are ordered by their addresses as unsigned numbers. The planner used to refuse such a
 * literal ("beyond a Java long"), and an address IN a subquery of objects never matched. Over a
 * dump with 8-byte ids written here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../ts/index.js';

/** Big-endian bytes with 8-byte ids. */
class Out {
  parts: Buffer[] = [];
  private put(n: number, w: (b: Buffer) => void): this {
    const b = Buffer.alloc(n);
    w(b);
    this.parts.push(b);
    return this;
  }
  u1(v: number): this {
    return this.put(1, (b) => b.writeUInt8(v));
  }
  u2(v: number): this {
    return this.put(2, (b) => b.writeUInt16BE(v));
  }
  u4(v: number): this {
    return this.put(4, (b) => b.writeUInt32BE(v));
  }
  id(v: bigint): this {
    return this.put(8, (b) => b.writeBigUInt64BE(v));
  }
  raw(b: Buffer): this {
    this.parts.push(b);
    return this;
  }
  get buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const HIGH_1 = 0xffff800000001000n;
const HIGH_2 = 0xffff800000001010n;
const LOW = 0x2000n;
const MIDDLE = 0x7fff000000000000n;

/**
 * Classes java.lang.Object, java.lang.Class and Holder (`int n`, `Holder other`); Holders n = 1
 * at HIGH_1, 2 at HIGH_2, 3 at LOW (other = the one at HIGH_1), 4 at MIDDLE; all roots.
 */
function dumpBytes(): Buffer {
  const records = new Out();
  const names = new Map<string, bigint>();
  const name = (s: string): bigint => {
    let id = names.get(s);
    if (id === undefined) {
      id = 0x100n + BigInt(names.size) * 8n;
      names.set(s, id);
      const body = new Out().id(id).raw(Buffer.from(s, 'utf8')).buffer;
      records.u1(0x01).u4(0).u4(body.length).raw(body);
    }
    return id;
  };
  const seg = new Out();
  const classes: [string, bigint, bigint, [string, number][]][] = [
    ['java/lang/Object', 0x1000n, 0n, []],
    ['java/lang/Class', 0x1010n, 0x1000n, []],
    ['Holder', 0x1020n, 0x1000n, [['n', 10], ['other', 2]]],
  ];
  classes.forEach(([className, id, superId, fields], i) => {
    const body = new Out().u4(i + 1).id(id).u4(1).id(name(className)).buffer;
    records.u1(0x02).u4(0).u4(body.length).raw(body);
    const size = fields.reduce((n, [, t]) => n + (t === 2 ? 8 : 4), 0);
    seg.u1(0x20).id(id).u4(1).id(superId).id(0n).id(0n).id(0n).id(0n).id(0n).u4(size).u2(0).u2(0).u2(fields.length);
    for (const [f, t] of fields) seg.id(name(f)).u1(t);
    seg.u1(0x05).id(id);
  });
  const holder = (id: bigint, n: number, other: bigint) => {
    const data = new Out().u4(n).id(other).buffer;
    seg.u1(0x21).id(id).u4(1).id(0x1020n).u4(data.length).raw(data);
    seg.u1(0xff).id(id);
  };
  holder(HIGH_1, 1, 0n);
  holder(HIGH_2, 2, 0n);
  holder(LOW, 3, HIGH_1);
  holder(MIDDLE, 4, 0n);
  const segment = seg.buffer;
  return new Out()
    .raw(Buffer.from('JAVA PROFILE 1.0.2\0', 'latin1'))
    .u4(8)
    .u4(0)
    .u4(0)
    .raw(records.buffer)
    .u1(0x1c).u4(0).u4(segment.length).raw(segment)
    .u1(0x2c).u4(0).u4(0).buffer;
}

const dir = mkdtempSync(path.join(tmpdir(), 'heapql-high-'));
const dump = path.join(dir, 'high-addresses.hprof');
let heap: HeapSession;
beforeAll(async () => {
  writeFileSync(dump, dumpBytes());
  heap = await openHeap(dump, { noCache: true });
});
afterAll(() => {
  heap?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A long of the 64 bits of an address: what `@objectAddress` gives and a hex literal means. */
const asLong = (a: bigint) => Number(BigInt.asIntN(64, a));

describe('addresses at or above 2^63', () => {
  test('the dump has the objects where the test put them', async () => {
    const r = await heap.query('SELECT h.n, h FROM Holder h ORDER BY h.n');
    expect(r.rows.map(([n, o]) => [n, (o as { address: string }).address])).toEqual([
      [1, '0xffff800000001000'],
      [2, '0xffff800000001010'],
      [3, '0x2000'],
      [4, '0x7fff000000000000'],
    ]);
  });

  test('@objectAddress = a hex literal of the address finds the object', async () => {
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h.@objectAddress = 0xffff800000001000')).rows).toEqual([[1]]);
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h.@objectAddress = 0xFFFF800000001010')).rows).toEqual([[2]]);
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h.@objectAddress != 0xffff800000001000 ORDER BY h.n')).rows).toEqual([[2], [3], [4]]);
    // The value is the long of its 64 bits, as in Java (MAT's getObjectAddress() is a long).
    expect((await heap.query('SELECT h.@objectAddress FROM Holder h WHERE h.n = 1')).rows).toEqual([[asLong(HIGH_1)]]);
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h.@objectAddress = 0x7fff000000000000')).rows).toEqual([[4]]);
  });

  test('an object = a hex literal, and an address IN a subquery of objects or of addresses', async () => {
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h = 0xffff800000001010')).rows).toEqual([[2]]);
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h.other = 0xffff800000001000')).rows).toEqual([[3]]);
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h.@objectAddress IN (SELECT g FROM Holder g WHERE g.n = 2)')).rows).toEqual([[2]]);
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h IN (SELECT g.@objectAddress FROM Holder g WHERE g.n = 1)')).rows).toEqual([[1]]);
    expect((await heap.query('SELECT h.n FROM OBJECTS 0xffff800000001010 h')).rows).toEqual([[2]]);
  });

  test('two objects are ordered by their addresses as unsigned numbers', async () => {
    expect((await heap.query('SELECT h.n FROM Holder h ORDER BY h')).rows).toEqual([[3], [4], [1], [2]]);
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h.other > h')).rows).toEqual([[3]]);
    expect((await heap.query('SELECT h.n FROM Holder h WHERE h.other < h')).rows).toEqual([]);
  });

  test('a hex literal has at most 64 bits', async () => {
    await expect(heap.query('SELECT h.n FROM Holder h WHERE h.@objectAddress = 0x10000000000000000')).rejects.toThrow(/the hex number 0x10000000000000000 is beyond 64 bits/);
  });
});
