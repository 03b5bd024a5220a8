/**
 * The demo dump with hostile text in it, for the tests of what reaches a terminal: names
 * (UTF8 records: a class and a field) rewritten to hold control characters, a line break, a C1
 * CSI, a bidi override and a backslash; a class renamed to CJK; and two thread names (byte[]
 * contents, Latin-1 strings, same length) with ESC, CR/LF, C1 CSI, NUL, a lone CR and the six
 * characters `\u0000`. Written once per call into `dir`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const root = path.resolve(__dirname, '../..');
export const demo = path.join(root, 'fixtures/demo/demo.hprof');

const bytes = (s: string) => Buffer.from(s, 'utf8');
const latin1 = (s: string) => Buffer.from(s, 'latin1');

/** `Demo$RequestContext` (302 instances, in the summary's top 20) becomes this. */
export const HOSTILE_CLASS = 'Demo$Ctx\x1b]0;TITLE\x07\x1b[31mRED\x1b[0m\nfake\u009bC1\u202ertl\\u0000';
/** …as a terminal shows it. */
export const HOSTILE_CLASS_SHOWN = 'Demo$Ctx\\u001b]0;TITLE\\u0007\\u001b[31mRED\\u001b[0m\\nfake\\u009bC1\\u202ertl\\\\u0000';
/** `Demo$RequestListener` (300 instances) becomes this (each character two cells wide). */
export const CJK_CLASS = 'Demo$中文类名';
/** The field `createdAt` of `Demo$Session` becomes this. */
export const HOSTILE_FIELD = 'created\x1b[2J\nAt';
export const HOSTILE_FIELD_SHOWN = 'created\\u001b[2J\\nAt';
/** The thread `metrics-reporter` is renamed to this (16 characters, like the old name). */
export const HOSTILE_THREAD = 'm\x1b[31m\r\n\u009b\\u0000x';
export const HOSTILE_THREAD_SHOWN = 'm\\u001b[31m\\r\\n\\u009b\\\\u0000x';
/** The thread `cache-evictor` is renamed to this (13 characters: a real NUL and a lone CR). */
export const NUL_THREAD = 'real\x00nul\rcr!!';
export const NUL_THREAD_SHOWN = 'real\\u0000nul\\rcr!!';

/** Writes the hostile dump into `dir` and returns its path. */
export function writeHostileDump(dir: string, name = 'hostile.hprof'): string {
  const data = readFileSync(demo);
  const headerEnd = data.indexOf(0) + 1;
  const idSize = data.readUInt32BE(headerEnd);
  const names = new Map<string, Buffer>([
    ['Demo$RequestContext', bytes(HOSTILE_CLASS)],
    ['Demo$RequestListener', bytes(CJK_CLASS)],
    ['createdAt', bytes(HOSTILE_FIELD)],
  ]);
  // A byte[] of the old name (length, element type 8 = byte, contents) gets the new contents.
  const renames: [string, string][] = [
    ['metrics-reporter', HOSTILE_THREAD],
    ['cache-evictor', NUL_THREAD],
  ];
  const arrays = renames.map(([from, to]): [Buffer, Buffer] => {
    if (from.length !== to.length) throw new Error(`${JSON.stringify(to)} must be as long as ${from}`);
    const head = Buffer.alloc(5);
    head.writeUInt32BE(from.length, 0);
    head[4] = 8;
    return [Buffer.concat([head, latin1(from)]), latin1(to)];
  });
  const out: Buffer[] = [data.subarray(0, headerEnd + 12)];
  const done = new Set<string>();
  let arraysPatched = 0;
  for (let pos = headerEnd + 12; pos < data.length; ) {
    const tag = data[pos]!;
    const length = data.readUInt32BE(pos + 5);
    let record = data.subarray(pos, pos + 9 + length);
    if (tag === 0x01) {
      const text = record.subarray(9 + idSize).toString('latin1');
      const to = names.get(text);
      if (to) {
        const head = Buffer.from(record.subarray(0, 9 + idSize));
        head.writeUInt32BE(idSize + to.length, 5);
        record = Buffer.concat([head, to]);
        done.add(text);
      }
    } else if (tag === 0x0c || tag === 0x1c) {
      record = Buffer.from(record);
      for (const [from, to] of arrays) {
        for (let i = record.indexOf(from); i >= 0; i = record.indexOf(from, i + 1)) {
          to.copy(record, i + 5);
          arraysPatched++;
        }
      }
    }
    out.push(record);
    pos += 9 + length;
  }
  if (done.size !== names.size || arraysPatched !== arrays.length) throw new Error(`the demo dump changed: patched ${[...done]} and ${arraysPatched} arrays`);
  const file = path.join(dir, name);
  writeFileSync(file, Buffer.concat(out));
  return file;
}
