#!/usr/bin/env node
// `node test/bench/lookups.mjs <dump> [--samples N]`: point look-ups of the session core after
// the full analysis, timed one by one on objects drawn at random (fixed seed): !obj (object),
// referents, referrers, path to a GC root, dominator, describe class, a `WHERE @objectId = n`
// query, and a whole-heap count the class histogram answers. The first referrer and path
// look-ups build their indexes once; they are timed apart ("first call"). Prints one line per
// kind (p50 / p99 / max in ms) and, last, one JSON line for bench.mjs. Measures, never asserts.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { openHeap } = await import(path.join(ROOT, 'dist/index.js'));

const args = process.argv.slice(2);
const dump = args.find((a) => !a.startsWith('--'));
const samplesAt = args.indexOf('--samples');
const samples = samplesAt >= 0 ? Number(args[samplesAt + 1]) : 300;
if (!dump || !(samples > 0)) {
  process.stderr.write('usage: node test/bench/lookups.mjs <dump> [--samples N]\n');
  process.exit(2);
}

/** xorshift32: the same objects every run. */
let seed = 0x9e3779b9;
function random() {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 2 ** 32;
}

const t0 = performance.now();
const session = await openHeap(dump, { scratch: 'disk' });
const opened = performance.now();
await session.analyze();
const analyzed = performance.now();
const count = session.info().objectCount;
const ids = Array.from({ length: samples }, () => Math.floor(random() * count));

const first = {};
const time = async (fn) => {
  const s = performance.now();
  await fn();
  return performance.now() - s;
};
first.referrers = await time(() => session.referrers(ids[0], 25));
first.pathToRoot = await time(() => session.pathToRoot(ids[0]));

const kinds = {
  object: (id) => session.object(id),
  referents: (id) => session.referents(id, 25),
  referrers: (id) => session.referrers(id, 25),
  pathToRoot: (id) => session.pathToRoot(id),
  dominator: (id) => session.dominator(id, 10),
  describeClass: async (id) => session.describeClass((await session.object(id, { fieldLimit: 0 })).object.className),
  queryObjectId: (id) => session.query(`SELECT x, @usedHeapSize FROM INSTANCEOF java.lang.Object x WHERE @objectId = ${id}`),
  histogramCount: () => session.query('SELECT COUNT(*) FROM java.lang.String'),
};

const pct = (sorted, p) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
const results = {};
for (const [kind, fn] of Object.entries(kinds)) {
  const n = samples;
  const ms = [];
  for (const id of ids.slice(0, n)) ms.push(await time(() => fn(id)));
  ms.sort((a, b) => a - b);
  results[kind] = { n, p50: +pct(ms, 50).toFixed(2), p99: +pct(ms, 99).toFixed(2), max: +ms.at(-1).toFixed(2) };
  process.stdout.write(`${kind.padEnd(15)} n=${String(n).padEnd(4)} p50 ${results[kind].p50} ms  p99 ${results[kind].p99} ms  max ${results[kind].max} ms\n`);
}
process.stdout.write(`first call: referrers ${first.referrers.toFixed(0)} ms (builds the referrer index), pathToRoot ${first.pathToRoot.toFixed(0)} ms (builds the BFS parents)\n`);
process.stdout.write(`open ${((opened - t0) / 1000).toFixed(1)} s, analyze ${((analyzed - opened) / 1000).toFixed(1)} s, ${count} objects\n`);
process.stdout.write(`${JSON.stringify({ objects: count, first, results })}\n`);
session.close();
