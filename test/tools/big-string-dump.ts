/**
 * A dump holding a String of 600 000 000 Latin-1 characters, written as a sparse file: the
 * characters (zeros) are a hole, so the file takes no disk and reading it no time, but a reader
 * that reads the String whole holds 600 MB or more. For the tests of what a query reads of a
 * long String (query-cell-too-large, query-long-string-comparisons).
 */
import { closeSync, openSync, writeSync } from 'node:fs';

import { Bytes, HprofWriter, T } from './hprof-writer.js';

/** More than 2^29 − 24 UTF-16 units, the most one V8 string holds. */
export const BIG_STRING_UNITS = 600_000_000;

/**
 * Writes the dump to `file`: a `Holder` class (fields `int a`, `String s`) with two instances,
 * `a = 1` holding the String of BIG_STRING_UNITS characters U+0000, `a = 2` holding "ok"; both
 * are JNI global roots.
 */
export function writeBigStringDump(file: string): void {
  const d = new HprofWriter();
  const object = d.defineClass('java/lang/Object', 0);
  d.defineClass('java/lang/Class', object);
  for (const p of ['Z', 'C', 'F', 'D', 'B', 'S', 'I', 'J']) d.defineClass(`[${p}`, object);
  const string = d.defineClass('java/lang/String', object, [['value', T.object], ['coder', T.byte], ['hash', T.int]]);
  const holder = d.defineClass('Holder', object, [['a', T.int], ['s', T.object]]);
  const bigValue = 0x3000;
  const big = d.instance(string, [bigValue, 0, 0]);
  const shortValue = d.primitiveArray(T.byte, 2, Buffer.from('ok', 'latin1'));
  const short = d.instance(string, [shortValue, 0, 0]);
  const h1 = d.instance(holder, [1, big]);
  const h2 = d.instance(holder, [2, short]);
  for (const h of [h1, h2]) d.roots.u1(0x01).u4(h).u4(0);
  const bytes = d.fileBytes();
  // Without its end record (9 bytes), then a second segment holding only the big byte[].
  const head = bytes.subarray(0, bytes.length - 9);
  const arrayHeader = new Bytes().u1(0x23).u4(bigValue).u4(1).u4(BIG_STRING_UNITS).u1(T.byte).buffer;
  const segment = new Bytes().u1(0x1c).u4(0).u4(arrayHeader.length + BIG_STRING_UNITS).buffer;
  const fd = openSync(file, 'w');
  writeSync(fd, head);
  writeSync(fd, segment);
  writeSync(fd, arrayHeader);
  const end = new Bytes().u1(0x2c).u4(0).u4(0).buffer;
  writeSync(fd, end, 0, end.length, head.length + segment.length + arrayHeader.length + BIG_STRING_UNITS);
  closeSync(fd);
}
