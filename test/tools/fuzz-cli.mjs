// Mutation driver for heapql's CLI over real dumps (not a test: run by hand, minutes to hours).
//
//   node test/tools/fuzz-cli.mjs <outdir> <count> <firstSeed> [dump|cache|both] [dumpFilter]
//
// Each seed picks a dump (fixtures/dumps/*.hprof and a few of ../shared/corpus) and either a
// mutation of it (truncations inside record headers and heap sub-records, byte flips, lengths,
// ids, tags, identifier size, class dump counts and types, array lengths, u32-max lengths,
// duplicated records, a class dump moved after its instances, records moved to the end; with
// FZ_GZ=1 also gzip then damage) or, in cache mode, a damage of one cache file written for it
// (cut, flipped, zeroed, extended). It then runs `summary`, `query` (three queries) and the
// full JSON report, each under a timeout (FZ_TIMEOUT ms, default 60000) and /usr/bin/time, and
// classifies each run: crash (signal, panic, internal error), hang, oom (> 3 GB resident),
// error (exit != 0 with a message naming an offset), error-nooffset, error-unclear, ok-same
// (the answer of the intact dump), ok-diff-warned, ok-diff-silent (to judge by hand). One JSON
// line per seed goes to <outdir>/results.ndjson; inputs of interesting cases to <outdir>/case-*.
// WT names the checkout whose bin/heapql.js runs (default: this one).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
const gzCache = new Map();
const gz = (b) => { if (!gzCache.has(b)) gzCache.set(b, zlib.gzipSync(b, { level: 1 })); return gzCache.get(b); };

const WT = process.env.WT || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = process.env.HEAPQL_CORPUS || path.resolve(WT, '../shared/corpus');
const CLI = path.join(WT, 'bin/heapql.js');
const [outDir, countS, startS, mode = 'both', filter = ''] = process.argv.slice(2);
const COUNT = Number(countS), START = Number(startS);
const TIMEOUT = Number(process.env.FZ_TIMEOUT || 60000);
fs.mkdirSync(outDir, { recursive: true });

const DUMPS = [
  ...fs.readdirSync(path.join(WT, 'fixtures/dumps')).filter((f) => f.endsWith('.hprof')).map((f) => path.join(WT, 'fixtures/dumps', f)),
  ...['oracle_jdk7_21_hprofagent.hprof', 'hprof-32.bin', 'ahat-test-dump.hprof'].map((f) => path.join(CORPUS, f)).filter((f) => fs.existsSync(f)),
].filter((d) => d.includes(filter));

const QUERIES = [
  'SELECT COUNT(*) FROM java.lang.String',
  'SELECT toString(s) FROM java.lang.String s LIMIT 40',
  'SELECT m, m.size FROM java.util.HashMap m LIMIT 20',
];

// ---------- rng ----------
function rng(seed) {
  let s = BigInt(seed) * 0x9e3779b97f4a7c15n + 0x1234567n;
  const M = (1n << 64n) - 1n;
  const next = () => {
    s = (s + 0x9e3779b97f4a7c15n) & M;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    z = z ^ (z >> 31n);
    return Number(z & 0xffffffffn);
  };
  return { next, below: (n) => (n <= 0 ? 0 : next() % n), pick: (a) => a[next() % a.length] };
}

// ---------- hprof structure ----------
const TSIZE = { 2: 0, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8 };
function parse(buf) {
  const hdrEnd = buf.indexOf(0) + 1;
  const idSize = buf.readUInt32BE(hdrEnd);
  const idOff = hdrEnd;
  const rd = (o) => (idSize === 8 ? Number(buf.readBigUInt64BE(o)) : buf.readUInt32BE(o));
  const recs = [], subs = [];
  let p = hdrEnd + 12;
  while (p + 9 <= buf.length) {
    const tag = buf[p], len = buf.readUInt32BE(p + 5);
    const r = { off: p, tag, len, body: p + 9, end: p + 9 + len };
    if (r.end > buf.length) break;
    recs.push(r);
    if (tag === 0x0c || tag === 0x1c) {
      let q = r.body;
      while (q < r.end) {
        const st = buf[q];
        const s = { off: q, tag: st, seg: r, fields: {} };
        let x = q + 1;
        const id = () => { const o = x; x += idSize; return o; };
        const u4 = () => { const o = x; x += 4; return o; };
        const u2 = () => { const o = x; x += 2; return o; };
        const u1 = () => { const o = x; x += 1; return o; };
        switch (st) {
          case 0xff: case 0x05: case 0x07: case 0x89: case 0x8a: case 0x8b: case 0x8c: case 0x8d: case 0x90: id(); break;
          case 0x01: id(); id(); break;
          case 0x02: case 0x03: case 0x08: case 0x8e: id(); u4(); u4(); break;
          case 0x04: case 0x06: id(); u4(); break;
          case 0xfe: u4(); id(); break;
          case 0xc3: id(); u4(); u4(); u1(); break;
          case 0x20: {
            s.fields.id = id(); u4(); s.fields.super = id(); s.fields.loader = id(); id(); id(); id(); id();
            s.fields.instSize = u4();
            s.fields.cpCount = u2();
            const ncp = buf.readUInt16BE(s.fields.cpCount);
            s.fields.types = [];
            for (let i = 0; i < ncp; i++) { u2(); const t = u1(); s.fields.types.push(t); x += idSize && buf[t] === 2 ? idSize : TSIZE[buf[t]]; }
            s.fields.staticCount = u2();
            const ns = buf.readUInt16BE(s.fields.staticCount);
            for (let i = 0; i < ns; i++) { id(); const t = u1(); s.fields.types.push(t); x += buf[t] === 2 ? idSize : TSIZE[buf[t]]; }
            s.fields.instCount = u2();
            const ni = buf.readUInt16BE(s.fields.instCount);
            for (let i = 0; i < ni; i++) { id(); s.fields.types.push(u1()); }
            break;
          }
          case 0x21: s.fields.id = id(); u4(); s.fields.cls = id(); s.fields.len = u4(); x += buf.readUInt32BE(s.fields.len); s.fields.data = s.fields.len + 4; break;
          case 0x22: s.fields.id = id(); u4(); s.fields.len = u4(); s.fields.cls = id(); s.fields.data = x; x += idSize * buf.readUInt32BE(s.fields.len); break;
          case 0x23: {
            s.fields.id = id(); u4(); s.fields.len = u4(); s.fields.etype = u1(); s.fields.data = x;
            x += TSIZE[buf[s.fields.etype]] * buf.readUInt32BE(s.fields.len); break;
          }
          default: x = r.end; s.unknown = true;
        }
        s.end = x;
        subs.push(s);
        if (s.unknown || x > r.end) break;
        q = x;
      }
    }
    p = r.end;
  }
  return { idSize, idOff, hdrEnd, recs, subs, rd };
}

function setU4(b, o, v) { if (o + 4 <= b.length) b.writeUInt32BE(v >>> 0, o); }
function setU2(b, o, v) { if (o + 2 <= b.length) b.writeUInt16BE(v & 0xffff, o); }
const EXTREME = [0, 1, 0xffffffff, 0x7fffffff, 0x80000000, 0xfffffff0, 0x10000000];

// Each returns {desc, buf}
const MUTATORS = {
  truncRandom(b, s, r) { const n = r.below(b.length); return { desc: `truncate at ${n}`, buf: b.subarray(0, n) }; },
  truncRecHeader(b, s, r) { const rec = r.pick(s.recs); const n = rec.off + 1 + r.below(8); return { desc: `truncate at ${n} inside header of record tag 0x${rec.tag.toString(16)} @${rec.off}`, buf: b.subarray(0, n) }; },
  truncSub(b, s, r) { const sub = r.pick(s.subs); const n = sub.off + 1 + r.below(Math.max(1, Math.min(sub.end - sub.off - 1, 200))); return { desc: `truncate at ${n} inside sub-record 0x${sub.tag.toString(16)} @${sub.off}`, buf: b.subarray(0, n) }; },
  flipRandom(b, s, r) { const c = Buffer.from(b); const k = 1 + r.below(4); const d = []; for (let i = 0; i < k; i++) { const o = r.below(c.length); const bit = r.below(8); c[o] ^= 1 << bit; d.push(`${o}^${1 << bit}`); } return { desc: `flip ${d.join(',')}`, buf: c }; },
  idSize(b, s, r) { const c = Buffer.from(b); const v = r.pick([0, 1, 2, 3, 5, 7, 16, 0xffffffff, s.idSize === 8 ? 4 : 8]); setU4(c, s.idOff, v); return { desc: `identifier size ${s.idSize} -> ${v} @${s.idOff}`, buf: c }; },
  recLen(b, s, r) { const c = Buffer.from(b); const rec = r.pick(s.recs); const v = r.below(2) ? r.pick(EXTREME) : rec.len + r.pick([-1, 1, -8, 8, 100, -100]); setU4(c, rec.off + 5, v); return { desc: `record tag 0x${rec.tag.toString(16)} @${rec.off} length ${rec.len} -> ${v >>> 0}`, buf: c }; },
  recTag(b, s, r) { const c = Buffer.from(b); const rec = r.pick(s.recs); const v = r.pick([0x00, 0x01, 0x02, 0x04, 0x05, 0x0c, 0x1c, 0x2c, 0x0d, 0x42, 0xff, r.below(256)]); c[rec.off] = v; return { desc: `record @${rec.off} tag 0x${rec.tag.toString(16)} -> 0x${v.toString(16)}`, buf: c }; },
  subTag(b, s, r) { const c = Buffer.from(b); const sub = r.pick(s.subs); const v = r.pick([0x20, 0x21, 0x22, 0x23, 0xff, 0x01, 0x08, 0x00, 0x24, 0xc3, 0xfe, r.below(256)]); c[sub.off] = v; return { desc: `sub-record @${sub.off} tag 0x${sub.tag.toString(16)} -> 0x${v.toString(16)}`, buf: c }; },
  idFlip(b, s, r) {
    const c = Buffer.from(b); const cand = s.subs.filter((x) => x.fields.cls || x.fields.id || x.fields.super);
    const sub = r.pick(cand); const which = r.pick(['id', 'cls', 'super', 'loader'].filter((k) => sub.fields[k] !== undefined));
    const o = sub.fields[which] + r.below(s.idSize); const old = c[o]; c[o] = r.below(3) ? c[o] ^ (1 << r.below(8)) : 0xff;
    return { desc: `sub 0x${sub.tag.toString(16)} @${sub.off} ${which} byte ${o} ${old} -> ${c[o]}`, buf: c };
  },
  classCounts(b, s, r) {
    const c = Buffer.from(b); const sub = r.pick(s.subs.filter((x) => x.tag === 0x20));
    const which = r.pick(['cpCount', 'staticCount', 'instCount']); const o = sub.fields[which]; const old = c.readUInt16BE(o);
    const v = r.pick([0, 0xffff, old + 1, old - 1, old + 2, 0x8000]); setU2(c, o, v);
    return { desc: `class dump @${sub.off} ${which} ${old} -> ${v & 0xffff}`, buf: c };
  },
  classTypes(b, s, r) {
    const c = Buffer.from(b); const sub = r.pick(s.subs.filter((x) => x.tag === 0x20 && x.fields.types.length));
    if (!sub) return null; const o = r.pick(sub.fields.types); const old = c[o]; const v = r.pick([0, 1, 3, 12, 255, 2, 4, 7, 11, r.below(256)]); c[o] = v;
    return { desc: `class dump @${sub.off} field type byte ${o} ${old} -> ${v}`, buf: c };
  },
  instSize(b, s, r) {
    const c = Buffer.from(b); const sub = r.pick(s.subs.filter((x) => x.tag === 0x20)); const old = c.readUInt32BE(sub.fields.instSize);
    const v = r.pick([...EXTREME, old + 4, old - 4]); setU4(c, sub.fields.instSize, v);
    return { desc: `class dump @${sub.off} instance size ${old} -> ${v >>> 0}`, buf: c };
  },
  arrayLen(b, s, r) {
    const c = Buffer.from(b); const sub = r.pick(s.subs.filter((x) => x.tag === 0x22 || x.tag === 0x23 || x.tag === 0x21)); const old = c.readUInt32BE(sub.fields.len);
    const v = r.pick([...EXTREME, old + 1, old - 1, old * 2, old + 1000]); setU4(c, sub.fields.len, v);
    return { desc: `sub 0x${sub.tag.toString(16)} @${sub.off} length ${old} -> ${v >>> 0}`, buf: c };
  },
  primType(b, s, r) {
    const c = Buffer.from(b); const sub = r.pick(s.subs.filter((x) => x.tag === 0x23)); const old = c[sub.fields.etype];
    const v = r.pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 255]); c[sub.fields.etype] = v;
    return { desc: `prim array @${sub.off} elem type ${old} -> ${v}`, buf: c };
  },
  primValue(b, s, r) {
    const c = Buffer.from(b); const sub = r.pick(s.subs.filter((x) => x.tag === 0x23 && x.end > x.fields.data)); if (!sub) return null;
    const o = sub.fields.data + r.below(sub.end - sub.fields.data); c[o] ^= 1 << r.below(8);
    return { desc: `prim array @${sub.off} value byte ${o} flipped`, buf: c };
  },
  dupRecord(b, s, r) {
    const rec = r.pick(s.recs); const at = r.pick(s.recs).off; const chunk = b.subarray(rec.off, rec.end);
    return { desc: `duplicate record tag 0x${rec.tag.toString(16)} @${rec.off} (${rec.end - rec.off} bytes) inserted at ${at}`, buf: Buffer.concat([b.subarray(0, at), chunk, b.subarray(at)]) };
  },
  dupSub(b, s, r) {
    const sub = r.pick(s.subs); const seg = sub.seg; const chunk = b.subarray(sub.off, sub.end);
    const at = r.below(2) ? sub.end : seg.body; const c = Buffer.concat([b.subarray(0, at), chunk, b.subarray(at)]);
    setU4(c, seg.off + 5, seg.len + chunk.length);
    return { desc: `duplicate sub-record 0x${sub.tag.toString(16)} @${sub.off} (${chunk.length} bytes) at ${at}, segment @${seg.off} length adjusted`, buf: c };
  },
  classLast(b, s, r) {
    // Move a class dump to the end of the last heap segment: its instances come before it.
    const sub = r.pick(s.subs.filter((x) => x.tag === 0x20)); const lastSeg = s.recs.filter((x) => x.tag === 0x0c || x.tag === 0x1c).pop();
    const chunk = Buffer.from(b.subarray(sub.off, sub.end)); const n = chunk.length;
    let c = Buffer.concat([b.subarray(0, sub.off), b.subarray(sub.end)]);
    setU4(c, sub.seg.off + 5, sub.seg.len - n);
    const segOff = lastSeg.off > sub.off ? lastSeg.off - n : lastSeg.off; const segLen = c.readUInt32BE(segOff + 5); const end = segOff + 9 + segLen;
    c = Buffer.concat([c.subarray(0, end), chunk, c.subarray(end)]); setU4(c, segOff + 5, segLen + n);
    return { desc: `class dump @${sub.off} (${n} bytes) moved to end of last segment`, buf: c };
  },
  loadClassLast(b, s, r) {
    const recs = s.recs.filter((x) => x.tag === 0x02 || x.tag === 0x01); const rec = r.pick(recs);
    const chunk = Buffer.from(b.subarray(rec.off, rec.end)); const c = Buffer.concat([b.subarray(0, rec.off), b.subarray(rec.end), chunk]);
    return { desc: `record tag 0x${rec.tag.toString(16)} @${rec.off} moved to end of file`, buf: c };
  },
  gzFlip(b, s, r) { const c = Buffer.from(gz(b)); const k = 1 + r.below(3); const d = []; for (let i = 0; i < k; i++) { const o = r.below(c.length); c[o] ^= 1 << r.below(8); d.push(o); } return { desc: `gzip, then flip compressed bytes ${d.join(',')} of ${c.length}`, buf: c }; },
  gzTrunc(b, s, r) { const g = gz(b); const n = r.below(g.length); return { desc: `gzip, then truncate at compressed ${n} of ${g.length}`, buf: g.subarray(0, n) }; },
  huge(b, s, r) {
    const c = Buffer.from(b); const choices = [];
    const rec = r.pick(s.recs); choices.push([rec.off + 5, `record 0x${rec.tag.toString(16)} @${rec.off} length`]);
    const sub = r.pick(s.subs.filter((x) => x.fields.len)); if (sub) choices.push([sub.fields.len, `sub 0x${sub.tag.toString(16)} @${sub.off} length`]);
    const [o, what] = r.pick(choices); setU4(c, o, 0xffffffff); return { desc: `${what} -> u32 max`, buf: c };
  },
};

// ---------- runner ----------
function run(args, cwd, extraEnv = {}) {
  return new Promise((resolve) => {
    const timeFile = path.join(cwd, 'time.txt');
    try { fs.unlinkSync(timeFile); } catch {}
    const child = spawn('/usr/bin/time', ['-f', '%M', '-o', timeFile, 'node', CLI, ...args], { cwd, detached: true, env: { ...process.env, HEAPQL_DEBUG: '', ...extraEnv } });
    let out = '', err = '';
    // GNU time missing (or node): say so rather than die on an unhandled ENOENT.
    child.on('error', (e) => resolve({ code: null, signal: null, out, err: `cannot run /usr/bin/time node: ${e.message} (apt-get install time)`, timedOut: false, ms: 0, rssMB: 0 }));
    child.stdout.on('data', (d) => { if (out.length < 4e6) out += d; });
    child.stderr.on('data', (d) => { if (err.length < 1e6) err += d; });
    let timedOut = false; const t0 = Date.now();
    const timer = setTimeout(() => { timedOut = true; try { process.kill(-child.pid, 'SIGKILL'); } catch {} }, TIMEOUT);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let rss = 0, sig = signal;
      try { const t = fs.readFileSync(timeFile, 'utf8'); rss = Number(t.trim().split('\n').pop()) || 0; const m = t.match(/terminated by signal (\d+)/); if (m) sig = Number(m[1]); } catch {}
      resolve({ code, signal: sig, out, err, timedOut, ms: Date.now() - t0, rssMB: Math.round(rss / 1024) });
    });
  });
}

function norm(text, p) { return text.split(p).join('<DUMP>').replace(/\(\d+(\.\d+)? [KMG]?i?B\)/, ''); }
function reportDigest(file) {
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8'));
    delete j.generatedAt; if (j.overview) delete j.overview.file; delete j.warnings;
    return crypto.createHash('sha1').update(JSON.stringify(j)).digest('hex');
  } catch (e) { return 'unreadable:' + e.message; }
}

function classify(res, base) {
  const text = res.err + res.out;
  if (res.timedOut) return 'hang';
  if (res.rssMB > 3000) return 'oom';
  if (res.signal || res.code === null || res.code >= 128) return 'crash';
  if (/internal error|ERR_INTERNAL|panicked|RangeError|TypeError|Maximum call stack|FATAL|Aborted|out of memory/i.test(text)) return 'crash';
  if (res.code !== 0) {
    if (!/error/i.test(res.err)) return 'error-unclear';
    if (!/offset|line|byte/i.test(res.err)) return 'error-nooffset';
    return 'error';
  }
  if (base === undefined) return 'ok';
  if (res.cmp === base) return 'ok-same';
  return /warning/i.test(res.err) ? 'ok-diff-warned' : 'ok-diff-silent';
}

async function steps(dump, wdir, cacheArgs, base) {
  const res = {};
  const s = await run(['summary', dump, ...cacheArgs], wdir);
  s.cmp = norm(s.out, dump); res.summary = { ...s, cls: classify(s, base?.summary) };
  if (base && res.summary.cls.startsWith('error') && cacheArgs[0] === '--no-cache') return res; // the same index path: stop
  const q = await run(['query', dump, ...cacheArgs, '--format', 'json', ...QUERIES.flatMap((x) => ['--query', x])], wdir);
  q.cmp = q.out.replace(/"elapsedMs": ?[0-9.e-]+/g, ''); res.query = { ...q, cls: classify(q, base?.query) };
  const rep = path.join(wdir, 'out.json'); try { fs.unlinkSync(rep); } catch {}
  const r = await run([dump, rep, ...cacheArgs], wdir);
  r.cmp = r.code === 0 ? reportDigest(rep) : ''; res.report = { ...r, cls: classify(r, base?.report) };
  return res;
}

const brief = (x) => x && { cls: x.cls, code: x.code, signal: x.signal, ms: x.ms, rssMB: x.rssMB, err: x.err.slice(0, 1500) };

async function main() {
  const wdir = path.join(outDir, 'work'); fs.mkdirSync(wdir, { recursive: true });
  const results = fs.createWriteStream(path.join(outDir, 'results.ndjson'), { flags: 'a' });
  const bases = {}, parsed = {}, raw = {};
  const bfile = path.join(path.dirname(outDir), 'baselines-' + path.basename(WT) + '.json');
  const saved = fs.existsSync(bfile) ? JSON.parse(fs.readFileSync(bfile, 'utf8')) : {};
  // A baseline is the CLI's answers to one dump: taken again when the CLI or the dump changed.
  const stamp = (f) => { const st = fs.statSync(f); return `${st.size}:${st.mtimeMs}`; };
  const cliStamp = stamp(fs.realpathSync(path.join(WT, 'dist/heapql-cli.js')));
  for (const d of DUMPS) {
    raw[d] = fs.readFileSync(d); parsed[d] = parse(raw[d]);
    const key = `${d}|${stamp(d)}|${cliStamp}`;
    if (saved[key]) { bases[d] = saved[key]; continue; }
    const copy = path.join(wdir, 'orig-' + path.basename(d));
    fs.writeFileSync(copy, raw[d]);
    const b = await steps(copy, wdir, ['--no-cache']);
    for (const k of Object.keys(b)) b[k].cmp = b[k].cmp.split(copy).join('<DUMP>');
    bases[d] = { summary: b.summary.cmp, query: b.query.cmp, report: b.report.cmp };
    saved[key] = bases[d]; fs.writeFileSync(bfile, JSON.stringify(saved));
    console.log('baseline', path.basename(d), b.summary.cls, b.query.cls, b.report.cls, parsed[d].recs.length, 'records', parsed[d].subs.length, 'subs');
  }
  const names = Object.keys(MUTATORS).filter((k) => process.env.FZ_GZ || !k.startsWith('gz'));
  const CACHE_KINDS = ['truncate', 'flip', 'flipHeader', 'zeroBlock', 'extend'];
  for (let i = 0; i < COUNT; i++) {
    const seed = START + i; const r = rng(seed);
    const d = DUMPS[r.below(DUMPS.length)];
    const doCache = mode === 'cache' || (mode === 'both' && r.below(5) === 0);
    const mdump = path.join(wdir, 'm.hprof');
    let rec;
    if (!doCache) {
      const kind = names[r.below(names.length)];
      let m = null; try { m = MUTATORS[kind](raw[d], parsed[d], r); } catch (e) { m = null; }
      if (!m) continue;
      fs.writeFileSync(mdump, m.buf);
      const res = await steps(mdump, wdir, ['--no-cache'], bases[d]);
      if (res.summary.cmp) res.summary.cmp = res.summary.cmp.split(mdump).join('<DUMP>');
      rec = { seed, dump: path.basename(d), kind, desc: m.desc, summary: brief(res.summary), query: brief(res.query), report: brief(res.report) };
      if (!['error', 'ok-same'].includes(res.summary.cls) || ['hang', 'crash', 'oom', 'ok-diff-silent', 'error-unclear'].some((c) => [res.query?.cls, res.report?.cls].includes(c))) fs.writeFileSync(path.join(outDir, `case-${seed}.hprof`), m.buf);
    } else {
      // Cache: populate, corrupt one .hqc, run again with the cache.
      const cdir = path.join(wdir, 'cache'); fs.rmSync(cdir, { recursive: true, force: true });
      fs.writeFileSync(mdump, raw[d]);
      const ca = ['--cache-dir', cdir];
      await run(['summary', mdump, ...ca], wdir); await run([mdump, path.join(wdir, 'out.json'), ...ca], wdir);
      const files = []; const walk = (p) => { for (const e of fs.readdirSync(p, { withFileTypes: true })) { const f = path.join(p, e.name); if (e.isDirectory()) walk(f); else if (f.endsWith('.hqc')) files.push(f); } };
      walk(cdir); files.sort();
      if (!files.length) { console.log('no cache files'); continue; }
      const f = files[r.below(files.length)]; const b = fs.readFileSync(f); const kind = CACHE_KINDS[r.below(CACHE_KINDS.length)];
      let desc, nb = Buffer.from(b);
      if (kind === 'truncate') { const n = r.below(b.length); nb = b.subarray(0, n); desc = `truncate to ${n} of ${b.length}`; }
      else if (kind === 'flip') { const k = 1 + r.below(3); const d2 = []; for (let j = 0; j < k; j++) { const o = r.below(nb.length); nb[o] ^= 1 << r.below(8); d2.push(o); } desc = `flip bytes ${d2.join(',')} of ${b.length}`; }
      else if (kind === 'flipHeader') { const o = r.below(Math.min(nb.length, 512)); const v = r.pick([0, 0xff, nb[o] ^ 1, nb[o] ^ 0x80]); nb[o] = v; desc = `header byte ${o} -> ${v} of ${b.length}`; }
      else if (kind === 'zeroBlock') { const o = r.below(nb.length); const n = Math.min(nb.length - o, 1 + r.below(65536)); nb.fill(0, o, o + n); desc = `zero ${n} bytes at ${o} of ${b.length}`; }
      else { const n = 1 + r.below(100000); nb = Buffer.concat([b, Buffer.alloc(n, r.below(256))]); desc = `append ${n} bytes to ${b.length}`; }
      fs.writeFileSync(f, nb);
      const res = await steps(mdump, wdir, ca, bases[d]);
      if (res.summary.cmp) res.summary.cmp = res.summary.cmp.split(mdump).join('<DUMP>');
      rec = { seed, dump: path.basename(d), kind: 'cache-' + kind, file: path.relative(cdir, f), desc, summary: brief(res.summary), query: brief(res.query), report: brief(res.report) };
      if (['hang', 'crash', 'oom', 'ok-diff-silent', 'error-unclear', 'error', 'error-nooffset'].some((c) => [res.summary.cls, res.query?.cls, res.report?.cls].includes(c))) fs.writeFileSync(path.join(outDir, `case-${seed}.hqc`), nb);
    }
    results.write(JSON.stringify(rec) + '\n');
    console.log(seed, rec.kind, rec.summary?.cls, rec.query?.cls, rec.report?.cls, rec.desc.slice(0, 100));
  }
  results.end();
}
main();
