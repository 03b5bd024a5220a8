/**
 * A tiny HPROF file written from scratch (test/tools/hprof-writer.ts) for tests that need
 * contents the demo dump does not have: Java strings with unpaired surrogates, `float`
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
import path from 'node:path';

import { Bytes, HprofWriter, T } from '../tools/hprof-writer.js';

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

/** Writes the tiny dump into `dir` and returns its path. */
export function writeTinyDump(dir: string, name = 'tiny.hprof'): string {
  const d = new HprofWriter();
  const object = d.defineClass('java/lang/Object', 0);
  d.defineClass('java/lang/Class', object);
  for (const p of ['Z', 'C', 'F', 'D', 'B', 'S', 'I', 'J']) d.defineClass(`[${p}`, object);
  const string = d.defineClass('java/lang/String', object, [['value', T.object], ['coder', T.byte], ['hash', T.int]]);
  const tiny = d.defineClass('Tiny', object, [['c', T.char], ['f', T.float], ['s', T.object], ['a', T.object]], [['SF', T.float, 0.1]]);

  const utf16le = (units: number[]) => {
    const b = Buffer.alloc(units.length * 2);
    units.forEach((u, i) => b.writeUInt16LE(u, 2 * i));
    return b;
  };
  const x = 'x'.charCodeAt(0);
  d.primitiveArray(T.byte, 4, utf16le([0xd800, x]), TINY.loneValue);
  d.instance(string, [TINY.loneValue, 1, 0], TINY.lone);
  d.primitiveArray(T.byte, 4, utf16le([0xdc00, x]), TINY.lowValue);
  d.instance(string, [TINY.lowValue, 1, 0], TINY.low);
  d.primitiveArray(T.char, 2, new Bytes().u2(0xd800).u2(x).buffer, TINY.chars);
  d.primitiveArray(T.float, 2, new Bytes().f4(0.1).f4(1.1).buffer, TINY.floats);
  d.noDataArray(T.byte, 5, TINY.nodata);
  d.instance(string, [TINY.nodata, 0, 0], TINY.blank);
  d.instance(tiny, [0xd800, 0.1, TINY.lone, TINY.floats], TINY.tiny);
  return d.write(path.join(dir, name));
}
