/**
 * A copy of a fixture dump with some of its names replaced: the dump's UTF8 records (class,
 * field and method names) rewritten, every other record kept byte for byte. Tests use it for
 * names no JVM would be asked to make (a class name of a megabyte, a right-to-left override),
 * without a JDK and without files outside the test's temp directory.
 */
import fs from 'node:fs';

/**
 * Writes `out`: `source` with each UTF8 record whose text is a key of `names` (internal form,
 * `Demo$Session`, `java/lang/String`) holding the value's text (UTF-8) instead. Returns how many
 * records were replaced.
 */
export function writeRenamedDump(source: string, out: string, names: Record<string, string>): number {
  const data = fs.readFileSync(source);
  const headerEnd = data.indexOf(0) + 1;
  const idSize = data.readUInt32BE(headerEnd);
  let pos = headerEnd + 12;
  const wanted = new Map(Object.entries(names).map(([k, v]) => [k, Buffer.from(v, 'utf8')]));
  const parts: Buffer[] = [data.subarray(0, pos)];
  let replaced = 0;
  while (pos < data.length) {
    const tag = data[pos]!;
    const length = data.readUInt32BE(pos + 5);
    const end = pos + 9 + length;
    const replacement = tag === 0x01 ? wanted.get(data.subarray(pos + 9 + idSize, end).toString('utf8')) : undefined;
    if (replacement) {
      const head = Buffer.from(data.subarray(pos, pos + 9 + idSize));
      head.writeUInt32BE(idSize + replacement.length, 5);
      parts.push(head, replacement);
      replaced++;
    } else {
      parts.push(data.subarray(pos, end));
    }
    pos = end;
  }
  fs.writeFileSync(out, Buffer.concat(parts));
  return replaced;
}
