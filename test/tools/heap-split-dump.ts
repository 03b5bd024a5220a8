/**
 * A copy of an Android dump whose objects are spread over other heaps: each HEAP DUMP INFO
 * record (Android sub-record 0xFE, which switches the heap of the objects after it) is rewritten
 * to name the heap a function picks for it, every other byte kept. ART writes one such record
 * at the start of each heap dump segment, so a dump whose objects are all in the app heap (the
 * AOSP ahat test dump) becomes one with image, zygote and app objects, real objects and
 * references throughout. Tests use it to compare dumps whose heaps differ in known ways without
 * a device, and without files outside the test's temp directory.
 *
 * The sub-records are walked as the format lays them out (hprof-format.md §6-9), 4- or 8-byte
 * ids, so this reader shares no code with heapql's.
 */
import fs from 'node:fs';

/** ART's heap ids. */
const HEAP_ID: Record<string, number> = { app: 0x41, image: 0x49, zygote: 0x5a, default: 0 };

/** Bytes of a value of each basic type (2 = object: the id size). */
function typeSize(t: number, ids: number): number {
  const size = ({ 2: ids, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8 } as Record<number, number>)[t];
  if (size === undefined) throw new Error(`heap-split-dump: unknown basic type ${t}`);
  return size;
}

/** Bytes after the tag of each GC root sub-record. */
function rootSize(tag: number, ids: number): number | undefined {
  switch (tag) {
    case 0xff: case 0x05: case 0x07: case 0x89: case 0x8a: case 0x8b: case 0x8c: case 0x8d: case 0x90:
      return ids;
    case 0x01:
      return 2 * ids;
    case 0x02: case 0x03: case 0x08: case 0x8e:
      return ids + 8;
    case 0x04: case 0x06:
      return ids + 4;
    default:
      return undefined;
  }
}

/**
 * Writes `out`: `source` with its k-th HEAP DUMP INFO record (of `count`, in file order) naming
 * the heap `heapOf(k, count)` (`app`, `zygote`, `image`), the names' UTF8 records added after
 * the header. Returns how many such records the dump has.
 */
export function writeHeapSplitDump(source: string, out: string, heapOf: (k: number, count: number) => string): number {
  const data = fs.readFileSync(source);
  const headerEnd = data.indexOf(0) + 1;
  const ids = data.readUInt32BE(headerEnd);
  const readId = (at: number) => (ids === 4 ? data.readUInt32BE(at) : Number(data.readBigUInt64BE(at)));
  const start = headerEnd + 12;
  // First pass: the UTF8 ids in use and where each HEAP DUMP INFO is.
  let maxString = 0;
  const marks: number[] = [];
  for (let pos = start; pos < data.length; ) {
    const tag = data[pos]!;
    const end = pos + 9 + data.readUInt32BE(pos + 5);
    if (tag === 0x01) maxString = Math.max(maxString, readId(pos + 9));
    if (tag === 0x0c || tag === 0x1c) {
      for (let q = pos + 9; q < end; ) {
        const st = data[q]!;
        const at = q++;
        const root = rootSize(st, ids);
        if (root !== undefined) q += root;
        else if (st === 0xfe) {
          marks.push(at);
          q += 4 + ids;
        } else if (st === 0x20) {
          q += ids + 4 + 6 * ids + 4;
          const constants = data.readUInt16BE(q);
          q += 2;
          for (let i = 0; i < constants; i++) q += 3 + typeSize(data[q + 2]!, ids);
          const statics = data.readUInt16BE(q);
          q += 2;
          for (let i = 0; i < statics; i++) q += ids + 1 + typeSize(data[q + ids]!, ids);
          const fields = data.readUInt16BE(q);
          q += 2 + fields * (ids + 1);
        } else if (st === 0x21) q += 2 * ids + 8 + data.readUInt32BE(q + 2 * ids + 4);
        else if (st === 0x22) q += 2 * ids + 8 + data.readUInt32BE(q + ids + 4) * ids;
        else if (st === 0x23) q += ids + 9 + data.readUInt32BE(q + ids + 4) * typeSize(data[q + ids + 8]!, ids);
        else if (st === 0xc3) q += ids + 9;
        else throw new Error(`heap-split-dump: sub-record ${st.toString(16)} at byte ${at} of ${source} is not one this tool reads`);
      }
    }
    pos = end;
  }
  const copy = Buffer.from(data);
  const nameIds = new Map<string, number>();
  const added: Buffer[] = [];
  marks.forEach((at, k) => {
    const name = heapOf(k, marks.length);
    let id = nameIds.get(name);
    if (id === undefined) {
      id = maxString + 1 + nameIds.size;
      nameIds.set(name, id);
      const text = Buffer.from(name, 'utf8');
      const rec = Buffer.alloc(9 + ids + text.length);
      rec[0] = 0x01;
      rec.writeUInt32BE(ids + text.length, 5);
      if (ids === 4) rec.writeUInt32BE(id, 9);
      else rec.writeBigUInt64BE(BigInt(id), 9);
      text.copy(rec, 9 + ids);
      added.push(rec);
    }
    copy.writeUInt32BE(HEAP_ID[name] ?? 0x41, at + 1);
    if (ids === 4) copy.writeUInt32BE(id, at + 5);
    else copy.writeBigUInt64BE(BigInt(id), at + 5);
  });
  fs.writeFileSync(out, Buffer.concat([copy.subarray(0, start), ...added, copy.subarray(start)]));
  return marks.length;
}
