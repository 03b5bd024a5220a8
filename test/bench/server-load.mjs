#!/usr/bin/env node
// `node test/bench/server-load.mjs <dump> [--clients 200] [--seconds 30]`: load on the HTTP
// server. Starts `heapql server <dump> --port 0` (query-only path), then runs N concurrent
// clients for S seconds, each sending one request after another, a fixed mix: point queries
// (one object by @objectId, 60%), aggregates (a class histogram from the index, a count and a
// sum over every String by scan; 25%) and POST /stream of 1000 rows (15%). Reports throughput,
// p50 / p99 latency per kind, errors (non-200 answers, broken streams, network errors) and the
// server's peak memory (VmHWM and sampled RssAnon). Prints a table and, last, one JSON line for
// bench.mjs. Measures, never asserts.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Agent, setGlobalDispatcher } from 'undici';

import { seededRandom } from './random.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const dump = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const clients = opt('--clients', 200);
const seconds = opt('--seconds', 30);
if (!dump || !(clients > 0) || !(seconds > 0)) {
  process.stderr.write('usage: node test/bench/server-load.mjs <dump> [--clients 200] [--seconds 30]\n');
  process.exit(2);
}
setGlobalDispatcher(new Agent({ connections: clients, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 0, bodyTimeout: 0 }));

function status(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

// ---- the server ----
const t0 = performance.now();
const server = spawn(process.execPath, [path.join(ROOT, 'bin/heapql.js'), 'server', dump, '--port', '0', '--no-cache'], { stdio: ['ignore', 'pipe', 'pipe'] });
let banner = '';
let stderr = '';
server.stderr.on('data', (d) => (stderr += d));
const url = await new Promise((resolve, reject) => {
  server.stdout.on('data', (d) => {
    banner += d;
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner);
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${stderr.trim().split('\n').pop()}`)));
});
const startSeconds = (performance.now() - t0) / 1000;
let peakAnonKB = 0;
const sampler = setInterval(() => (peakAnonKB = Math.max(peakAnonKB, status(server.pid, 'RssAnon'))), 50);

const info = await (await fetch(`${url}/status`)).json();
const objects = info.objects;

/** The same objects every run. */
const random = seededRandom();

const AGGREGATES = [
  'SELECT classof(x) AS class, COUNT(*) AS count FROM INSTANCEOF java.lang.Object x GROUP BY classof(x) ORDER BY count DESC LIMIT 20',
  'SELECT COUNT(*) FROM java.lang.String',
  'SELECT SUM(s.@usedHeapSize) FROM java.lang.String s',
];

function nextRequest() {
  const r = random();
  if (r < 0.6) return { kind: 'point', path: '/query', body: `SELECT x, x.@usedHeapSize FROM INSTANCEOF java.lang.Object x WHERE x.@objectId = ${Math.floor(random() * objects)}`, expectRows: 1 };
  if (r < 0.85) return { kind: 'aggregate', path: '/query', body: AGGREGATES[Math.floor(random() * AGGREGATES.length)] };
  return { kind: 'stream', path: '/stream', body: 'SELECT s, toString(s) AS text FROM java.lang.String s LIMIT 1000', expectRows: 1000 };
}

const latencies = { point: [], aggregate: [], stream: [] };
const errors = [];
let done = 0;
const until = performance.now() + seconds * 1000;

async function client() {
  while (performance.now() < until) {
    const req = nextRequest();
    const start = performance.now();
    try {
      const res = await fetch(url + req.path, { method: 'POST', body: req.body });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 120)}`);
      const rows = req.kind === 'stream' ? text.trim().split('\n').length : JSON.parse(text).rowCount;
      if (req.expectRows !== undefined && rows !== req.expectRows) throw new Error(`${req.kind}: ${rows} rows, expected ${req.expectRows}`);
      latencies[req.kind].push(performance.now() - start);
      done++;
    } catch (err) {
      errors.push(`${req.kind}: ${err.message}`);
    }
  }
}

const loadStart = performance.now();
await Promise.all(Array.from({ length: clients }, client));
const loadSeconds = (performance.now() - loadStart) / 1000;
const peakHwmKB = status(server.pid, 'VmHWM');
clearInterval(sampler);
server.kill('SIGTERM');
const exitCode = await new Promise((r) => server.on('exit', (c) => r(c)));

const q = (xs, p) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] * 10) / 10;
};
const all = Object.values(latencies).flat();
const results = {
  clients,
  seconds: Math.round(loadSeconds * 10) / 10,
  requests: done,
  throughput: Math.round((done / loadSeconds) * 10) / 10,
  p50: q(all, 50),
  p99: q(all, 99),
  byKind: Object.fromEntries(Object.entries(latencies).map(([k, v]) => [k, { requests: v.length, p50: q(v, 50), p99: q(v, 99) }])),
  errors: errors.length,
  firstErrors: [...new Set(errors)].slice(0, 5),
  serverPeakRssMB: Math.round(peakHwmKB / 1024),
  serverPeakAnonMB: Math.round(peakAnonKB / 1024),
  serverStartSeconds: Math.round(startSeconds * 10) / 10,
  serverExit: exitCode,
};
process.stdout.write(
  [
    `server: ${url}, index built in ${results.serverStartSeconds} s; ${clients} clients for ${results.seconds} s`,
    `requests ${done} (${results.throughput}/s), errors ${errors.length}, latency p50 ${results.p50} ms, p99 ${results.p99} ms`,
    ...Object.entries(results.byKind).map(([k, v]) => `  ${k.padEnd(9)} ${String(v.requests).padStart(7)} requests  p50 ${v.p50} ms  p99 ${v.p99} ms`),
    `server peak memory: RSS ${results.serverPeakRssMB} MB (mapped dump pages included), anonymous ~${results.serverPeakAnonMB} MB; exit after SIGTERM: ${exitCode}`,
    ...results.firstErrors.map((e) => `error: ${e}`),
    JSON.stringify({ results }),
  ].join('\n') + '\n',
);
