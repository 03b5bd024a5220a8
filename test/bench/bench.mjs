#!/usr/bin/env node
// `npm run bench [-- --sizes 1,4] [-- --keep]`: generates heap dumps of the requested sizes (GiB)
// into bench-out/ (reused when present), warms the page cache by reading the dump before every
// run (see `warm`), runs each step of STEPS as its own process and prints wall time, throughput (dump GB / s) and peak
// resident memory as a Markdown table (also written to bench-out/results.md and results.json).
// `--runs N` runs the steps N times, alternating (step A, step B, A, B, ...), and reports each
// step's median wall time with its spread, CPU time and sampled anonymous memory; a step with
// `compareTo` gets the per-run ratio of its time to that step's (median and range).
// Numbers are measurements, never assertions: nothing here fails on a slow result.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, 'bench-out');
const GENERATOR = path.join(ROOT, 'fixtures/programs/BenchHeap.java');
const CLI = path.join(ROOT, 'bin/heapql.js');
const TIME = '/usr/bin/time';
/** The index cache of the cache steps (cleared before each cold step). */
const CACHE = path.join(OUT, 'cache');
const clearCache = () => fs.rmSync(CACHE, { recursive: true, force: true });
const cached = (args) => [...args, '--cache-dir', CACHE, '--cache-max', '1T'];
const COUNT_STRINGS = 'SELECT COUNT(*) FROM java.lang.String';
const TOP_RETAINED = 'SELECT s.@retainedHeapSize AS retained FROM java.lang.Thread s ORDER BY retained DESC LIMIT 1';

/** The larger-than-memory limit: half the dump, at most 4 GiB (the issue's 8 GB dump in 4 GiB). */
function halfDumpAtMost4GiB(dumpBytes) {
  return Math.min(Math.floor(dumpBytes / 2), 4 * 2 ** 30);
}

/** Empties the page cache (root only); false when this machine does not allow it. */
function dropPageCache() {
  try {
    spawnSync('sync');
    fs.writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch {
    return false;
  }
}

/**
 * The machine's disk traffic so far (`/proc/vmstat`: `nr_written` pages written back, `pgpgin`
 * KiB read from disk), or null elsewhere. Machine-wide: on the idle bench machine the difference
 * over one step is that step's. A memory-limited run is paced by it: its scratch pages are
 * written out under the limit and read back.
 */
function diskCounters() {
  try {
    const stat = Object.fromEntries(
      fs.readFileSync('/proc/vmstat', 'utf8').trim().split('\n').map((l) => l.split(' ')),
    );
    const written = Number(stat.nr_written);
    const read = Number(stat.pgpgin);
    if (!Number.isFinite(written) || !Number.isFinite(read)) return null;
    return { writtenMB: (written * 4096) / 1e6, readMB: (read * 1024) / 1e6 };
  } catch {
    return null;
  }
}

/** "disk: written W MB, read R MB" of a run (or of medians), or '' without the counters. */
function diskNote(writtenMB, readMB, what = 'disk') {
  return writtenMB == null ? '' : `${what}: written ${Math.round(writtenMB)} MB, read ${Math.round(readMB)} MB`;
}

/** Bytes of the cache directory. */
function cacheBytes() {
  let total = 0;
  const walk = (d) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else total += fs.statSync(p).size;
    }
  };
  walk(CACHE);
  return total;
}

/** Objects of the dump, from a report written by an earlier step. */
function objectCount(size) {
  for (const f of [`report-${size}g.json`, `report-${size}g-cache-cold.json`]) {
    try {
      return JSON.parse(fs.readFileSync(path.join(OUT, f), 'utf8')).overview.heap.objects;
    } catch {
      // not written by this run
    }
  }
  return null;
}

/** Size of the cache and, against the uncached report of this run, what writing it cost. */
function cacheCostNote(size, rows) {
  const bytes = cacheBytes();
  const objects = objectCount(size);
  const parts = [`cache ${Math.round(bytes / 1048576)} MB`];
  if (objects) parts.push(`${(bytes / objects).toFixed(1)} B/object`);
  const plain = rows.find((r) => r.step === 'full report' && r.ok && r.size === size);
  const cold = rows.find((r) => r.step.startsWith('cache cold: full report') && r.ok && r.size === size);
  if (plain && cold) parts.push(`write cost ≈ ${((cold.seconds - plain.seconds) / (bytes / 2 ** 30)).toFixed(2)} s/GiB (vs the uncached report)`);
  return parts.join(', ');
}

/**
 * The measured steps, in order. `cmd` is `heapql` (node bin/heapql.js) or an external program
 * (skipped with a note when it is not on PATH). A step that exits non-zero is reported as
 * skipped with the last line of its stderr, and the run goes on. A step with `output` must
 * (re)create that file, or it did not do the work being timed and is reported as skipped.
 * `install` says how to get an external program (default `cargo install <cmd>`).
 */
const STEPS = [
  { name: 'index + summary', cmd: 'heapql', args: (d) => ['summary', d, '--no-cache'] },
  {
    name: 'query: count strings',
    cmd: 'heapql',
    compareTo: 'hprof-slurp histogram (peer)',
    args: (d) => ['query', d, '--query', 'SELECT COUNT(*) FROM java.lang.String', '--no-cache'],
  },
  {
    // INSTANCEOF: every object of the heap (FROM java.lang.Object alone is that exact class).
    name: 'query: objects by class',
    cmd: 'heapql',
    args: (d) => ['query', d, '--query', 'SELECT classof(x), COUNT(*) FROM INSTANCEOF java.lang.Object x GROUP BY classof(x)', '--no-cache'],
  },
  {
    name: 'full report',
    cmd: 'heapql',
    output: (size) => path.join(OUT, `report-${size}g.json`),
    args: (d, size) => [d, path.join(OUT, `report-${size}g.json`), '--no-cache'],
  },
  {
    // The same report inside a memory cgroup limited to 0.35 × the dump (the budget): page
    // cache the process brings in (its scratch files) counts against the limit too, so this
    // shows the memory the analysis really needs, not only its anonymous part.
    name: 'full report, memory limited to 0.35 × dump',
    cmd: 'heapql',
    memoryLimit: (dumpBytes) => Math.floor(dumpBytes * 0.35),
    // A working set over the limit pages forever: stop after 5 minutes and say so.
    timeoutSeconds: 300,
    output: (size) => path.join(OUT, `report-${size}g-limited.json`),
    args: (d, size) => [d, path.join(OUT, `report-${size}g-limited.json`), '--no-cache'],
  },
  {
    // The issue's second memory budget: inside 0.2 × the dump the report must complete.
    name: 'full report, memory limited to 0.2 × dump',
    cmd: 'heapql',
    memoryLimit: (dumpBytes) => Math.floor(dumpBytes * 0.2),
    timeoutSeconds: 600,
    output: (size) => path.join(OUT, `report-${size}g-limited-0.2.json`),
    args: (d, size) => [d, path.join(OUT, `report-${size}g-limited-0.2.json`), '--no-cache'],
  },
  // Larger than memory: the dump is twice the limit (at most 4 GiB) and the page cache is dropped
  // first, so the dump's own pages are read from disk and charged to the cgroup as well (a warm
  // dump's pages belong to whoever read them first and would not count). `--sizes 8` with
  // `--steps "larger than memory"` is the issue's run: an 8.59 GB dump in a 4 GiB cgroup.
  {
    name: 'larger than memory: query, cgroup ½ × dump, cold page cache',
    cmd: 'heapql',
    memoryLimit: halfDumpAtMost4GiB,
    dropCaches: true,
    timeoutSeconds: 900,
    args: (d) => ['query', d, '--query', COUNT_STRINGS, '--no-cache'],
  },
  {
    name: 'larger than memory: full report, cgroup ½ × dump, cold page cache',
    cmd: 'heapql',
    memoryLimit: halfDumpAtMost4GiB,
    dropCaches: true,
    timeoutSeconds: 1800,
    output: (size) => path.join(OUT, `report-${size}g-larger-than-memory.json`),
    args: (d, size) => [d, path.join(OUT, `report-${size}g-larger-than-memory.json`), '--no-cache'],
  },
  {
    // The session core's point look-ups after the full analysis (p50 / p99 per kind in the note;
    // the whole list in bench-out/logs/*point-look-ups*.out).
    name: 'point look-ups',
    script: 'test/bench/lookups.mjs',
    args: (d) => [d, '--samples', '300'],
  },
  // The index cache: cold (built and written) against warm (memory-mapped) runs, then the
  // warm runs under the memory limit. Each cold step starts from an empty cache.
  {
    name: 'cache cold: query (index built + written)',
    cmd: 'heapql',
    before: clearCache,
    args: (d) => cached(['query', d, '--query', COUNT_STRINGS]),
  },
  { name: 'cache warm: query (index mapped)', cmd: 'heapql', args: (d) => cached(['query', d, '--query', COUNT_STRINGS]) },
  {
    name: 'cache cold: full report (all written)',
    cmd: 'heapql',
    before: clearCache,
    output: (size) => path.join(OUT, `report-${size}g-cache-cold.json`),
    args: (d, size) => cached([d, path.join(OUT, `report-${size}g-cache-cold.json`)]),
    after: cacheCostNote,
  },
  { name: 'cache warm: first @retainedHeapSize', cmd: 'heapql', args: (d) => cached(['analyze', d, '--query', TOP_RETAINED]) },
  {
    name: 'cache warm: full report',
    cmd: 'heapql',
    output: (size) => path.join(OUT, `report-${size}g-cache-warm.json`),
    args: (d, size) => cached([d, path.join(OUT, `report-${size}g-cache-warm.json`)]),
  },
  {
    name: 'cache warm: query, memory limited to 0.35 × dump',
    cmd: 'heapql',
    memoryLimit: (dumpBytes) => Math.floor(dumpBytes * 0.35),
    timeoutSeconds: 300,
    args: (d) => cached(['query', d, '--query', COUNT_STRINGS]),
  },
  {
    name: 'cache warm: full report, memory limited to 0.35 × dump',
    cmd: 'heapql',
    memoryLimit: (dumpBytes) => Math.floor(dumpBytes * 0.35),
    timeoutSeconds: 300,
    output: (size) => path.join(OUT, `report-${size}g-cache-limited.json`),
    args: (d, size) => cached([d, path.join(OUT, `report-${size}g-cache-limited.json`)]),
  },
  {
    // The HTTP server under load: 200 clients for 30 s mixing point queries, aggregates and
    // /stream (throughput, p50/p99, errors and the server's peak memory in the note; the
    // details in bench-out/logs/*server-load*.out). Wall time and memory columns are the driver's.
    name: 'server load (200 clients, 30 s)',
    script: 'test/bench/server-load.mjs',
    args: (d) => [d, '--clients', '200', '--seconds', '30'],
    note: serverLoadNote,
  },
  // Peers, side by side: hprof-slurp's class histogram pass, hprof-analyzer's query-only path
  // and its full report (the same work as ours above).
  { name: 'hprof-slurp histogram (peer)', cmd: 'hprof-slurp', args: (d) => [d] },
  {
    name: 'hprof-analyzer query: count strings (peer)',
    cmd: 'hprof-analyzer',
    install: 'cargo install --locked hprof-analyzer',
    args: (d) => ['query', d, '--query', 'SELECT COUNT(*) FROM java.lang.String'],
  },
  {
    name: 'hprof-analyzer full report (peer)',
    cmd: 'hprof-analyzer',
    install: 'cargo install --locked hprof-analyzer',
    output: (size) => path.join(OUT, `peer-report-${size}g.json`),
    args: (d, size) => [d, path.join(OUT, `peer-report-${size}g.json`)],
  },
];

function usage(message) {
  if (message) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write(
    'usage: npm run bench -- [--sizes 1,4] [--keep] [--steps NAME,...] [--runs N]\n' +
      '  --sizes  dump sizes in GiB, comma-separated (default 1)\n' +
      '  --keep   keep the dumps generated by this run in bench-out/ for the next run\n' +
      '           (dumps that were already there are always kept and reused)\n' +
      '  --steps  only the steps whose names contain one of these words (=NAME: that step alone; ", " is part of a name)\n' +
      '  --runs   run the steps N times, alternating; report medians and spread (default 1)\n' +
      'env: BENCH_JAVA=/path/to/bin/java (default: JAVA_HOME, then JDK 17, then java on PATH)\n',
  );
  process.exit(message ? 2 : 0);
}

function parseArgs(argv) {
  const opts = { sizes: [1], keep: false, steps: null, runs: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--keep') opts.keep = true;
    else if (a === '--help' || a === '-h') usage();
    else if (a === '--runs') {
      opts.runs = Number(argv[++i]);
      if (!Number.isInteger(opts.runs) || opts.runs < 1) usage(`--runs wants a positive whole number, got ${argv[i]}`);
    } else if (a === '--sizes' || a === '--steps') {
      const v = argv[++i];
      if (!v) usage(`${a} needs a value`);
      if (a === '--sizes') {
        opts.sizes = v.split(',').map(Number);
        if (opts.sizes.some((s) => !(s > 0))) usage(`--sizes wants positive numbers of GiB, got ${v}`);
      } else opts.steps = v.split(/,(?! )/).map((s) => s.trim().toLowerCase()); // ", " belongs to a step's name
    } else usage(`unknown argument ${a}`);
  }
  return opts;
}

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v "${cmd}"`], { encoding: 'utf8' }).stdout.trim() || null;
}

function findJava() {
  const candidates = [
    process.env.BENCH_JAVA,
    process.env.JAVA_HOME && path.join(process.env.JAVA_HOME, 'bin/java'),
    '/usr/lib/jvm/java-17-openjdk-amd64/bin/java',
    onPath('java'),
  ].filter(Boolean);
  const java = candidates.find((c) => fs.existsSync(c));
  if (!java) throw new Error('no Java found to generate the dumps: set BENCH_JAVA or JAVA_HOME (a JDK 17+)');
  const javac = path.join(path.dirname(java), 'javac');
  if (!fs.existsSync(javac)) throw new Error(`${java} has no javac beside it: point BENCH_JAVA at a JDK, not a JRE`);
  return { java, javac };
}

const gb = (bytes) => bytes / 1e9;

/** Generates bench-out/bench-<size>g.hprof unless it exists; returns {path, generated, seconds}. */
function ensureDump(size) {
  const file = path.join(OUT, `bench-${size}g.hprof`);
  if (fs.existsSync(file)) return { file, generated: false };
  const free = fs.statfsSync(OUT);
  const needed = size * 2 ** 30 * 1.1;
  if (free.bavail * free.bsize < needed) {
    throw new Error(`not enough disk in ${OUT} for a ${size} GiB dump (${gb(free.bavail * free.bsize).toFixed(1)} GB free)`);
  }
  const { java, javac } = findJava();
  const classes = path.join(OUT, 'classes');
  const compiled = path.join(classes, 'BenchHeap.class');
  if (!fs.existsSync(compiled) || fs.statSync(compiled).mtimeMs < fs.statSync(GENERATOR).mtimeMs) {
    const r = spawnSync(javac, ['--release', '17', '-d', classes, GENERATOR], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`javac failed on ${GENERATOR}`);
  }
  // The live heap is ~0.85x the dump (measured: 0.91 GB live for a 1.08 GB dump). A small young
  // generation (-Xmn) leaves nearly all of -Xmx to the old generation, where everything ends.
  const xmx = Math.ceil(size * 1.0 + 1.5);
  if (xmx * 2 ** 30 > os.totalmem() * 0.9) {
    throw new Error(`a ${size} GiB dump needs a ${xmx} GiB Java heap; this machine has ${gb(os.totalmem()).toFixed(0)} GB`);
  }
  // Dumped under a temporary name (it must end in .hprof for the JVM) so an interrupted run
  // never leaves a half-written file that a later run would reuse.
  const partial = path.join(OUT, `bench-${size}g.partial.hprof`);
  fs.rmSync(partial, { force: true });
  process.stderr.write(`bench: generating a ${size} GiB dump with ${java} (-Xmx${xmx}g) ...\n`);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(java, ['-XX:+UseSerialGC', `-Xmx${xmx}g`, `-Xms${xmx}g`, '-Xmn256m', '-cp', classes, 'BenchHeap', partial, String(size)], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) {
    fs.rmSync(partial, { force: true });
    throw new Error(`BenchHeap exited with ${r.status ?? r.signal}`);
  }
  fs.renameSync(partial, file);
  process.stderr.write(`bench: generated ${path.relative(ROOT, file)} in ${seconds.toFixed(1)} s\n`);
  return { file, generated: true, seconds };
}

/**
 * Reads the file so the next run starts from the page cache; returns seconds taken. Done before
 * every run, not once per dump: a machine may page out page cache left unread for a while (this
 * project's VMs run a DAMON `pageout` scheme that takes file pages idle for 60 s, some 400 MB of
 * a 4 GB dump between runs a minute apart), and a run that reads them back from disk measures
 * the disk, not the program.
 */
function warm(file) {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(8 << 20);
  const t0 = process.hrtime.bigint();
  try {
    while (fs.readSync(fd, buf, 0, buf.length, null) > 0);
  } finally {
    fs.closeSync(fd);
  }
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** The process and its descendants (GNU time runs the measured program as its child). */
function processTree(pid) {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    try {
      const kids = fs.readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, 'utf8').trim();
      if (kids) pids.push(...kids.split(/\s+/).map(Number));
    } catch {
      // gone, or no /proc
    }
  }
  return pids;
}

/** Sums a /proc/<pid>/status field (kB) over the process tree. */
function treeStatus(pid, field) {
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m) total += Number(m[1]);
    } catch {
      // exited between two reads
    }
  }
  return total;
}

/**
 * A memory cgroup limited to `bytes` (cgroup v1 memory controller, or v2 with it enabled), or
 * null when this machine does not let us make one (not root, controller not mounted).
 * Returns {argv(wrapped), peakBytes(), remove()}.
 */
function memoryCgroup(bytes, argv) {
  const name = `heapql-bench-${process.pid}`;
  const v1 = '/sys/fs/cgroup/memory';
  const v2 = '/sys/fs/cgroup';
  let dir, peakFile;
  try {
    if (fs.existsSync(path.join(v1, 'memory.limit_in_bytes'))) {
      dir = path.join(v1, name);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), String(bytes));
      peakFile = 'memory.max_usage_in_bytes';
    } else if (fs.readFileSync(path.join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('memory')) {
      dir = path.join(v2, name);
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'memory.max'), String(bytes));
      fs.writeFileSync(path.join(dir, 'memory.swap.max'), '0');
      peakFile = 'memory.peak';
    } else return null;
  } catch {
    if (dir) fs.rmSync(dir, { recursive: false, force: true });
    return null;
  }
  const procs = path.join(dir, 'cgroup.procs');
  return {
    argv: ['/bin/sh', '-c', `echo $$ > '${procs}' && exec "$@"`, 'sh', ...argv],
    peakBytes: () => Number(fs.readFileSync(path.join(dir, peakFile), 'utf8').trim()),
    remove: () => fs.rmdirSync(dir),
  };
}

/**
 * The environment of every measured program: this one's, without NODE_EXTRA_CA_CERTS. Where it
 * is set (the project's machines point it at the system's whole CA bundle), Node 20 parses
 * every certificate in it at each start, 30 ms before any of heapql's code runs, though no
 * query makes a TLS connection; the peers are not Node programs. The table's machine line says
 * when it was taken out.
 */
const MEASURED_ENV = (() => {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
})();

/**
 * Runs one command, its output going to log files; returns {ok, seconds, rssMB, anonMB, note}.
 * Peak RSS is GNU time's %M (the child's getrusage maxrss); it counts the pages of a
 * memory-mapped dump the program touched, which are page cache shared with every reader. So the
 * process tree's RssAnon (private memory: heaps, indexes) is also sampled every 20 ms, and its
 * peak reported. Without /usr/bin/time, peak RSS is the sampled VmHWM (marked approximate).
 */
async function measure(argv, logBase, timeoutSeconds = 0) {
  const out = fs.openSync(`${logBase}.out`, 'w');
  const err = fs.openSync(`${logBase}.err`, 'w');
  const timeFile = `${logBase}.time`;
  const useTime = fs.existsSync(TIME);
  const full = useTime ? [TIME, '-f', '%e %M %U %S', '-o', timeFile, ...argv] : argv;
  const t0 = process.hrtime.bigint();
  let hwm = 0;
  let anon = 0;
  let timedOut = false;
  const code = await new Promise((resolve) => {
    // Its own process group, so a timeout stops the whole tree.
    const child = spawn(full[0], full.slice(1), { cwd: ROOT, env: MEASURED_ENV, stdio: ['ignore', out, err], detached: timeoutSeconds > 0 });
    const deadline =
      timeoutSeconds > 0
        ? setTimeout(() => {
            timedOut = true;
            try {
              process.kill(-child.pid, 'SIGKILL');
            } catch {
              // already gone
            }
          }, timeoutSeconds * 1000)
        : null;
    const timer = setInterval(() => {
      anon = Math.max(anon, treeStatus(child.pid, 'RssAnon'));
      if (!useTime) hwm = Math.max(hwm, treeStatus(child.pid, 'VmHWM'));
    }, 20);
    child.on('error', () => resolve(127));
    child.on('exit', (c, signal) => {
      clearInterval(timer);
      if (deadline) clearTimeout(deadline);
      resolve(c ?? 128 + (os.constants.signals[signal] ?? 0));
    });
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  fs.closeSync(out);
  fs.closeSync(err);
  let rssMB = hwm / 1024;
  let approx = !useTime;
  let cpuSeconds = null;
  if (useTime) {
    // time(1) writes "Command exited with non-zero status N" before the format line on failure.
    const last = fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '';
    const kb = Number(last.split(' ')[1]);
    if (Number.isFinite(kb)) rssMB = kb / 1024;
    else approx = true;
    const cpu = Number(last.split(' ')[2]) + Number(last.split(' ')[3]);
    if (Number.isFinite(cpu)) cpuSeconds = cpu;
  }
  const errText = fs.readFileSync(`${logBase}.err`, 'utf8').trim();
  const note = timedOut
    ? `did not finish within ${timeoutSeconds} s (stopped)`
    : code === 0
      ? ''
      : `exit ${code}: ${(errText.split('\n').filter(Boolean).pop() ?? 'no message').slice(0, 140)}`;
  return { ok: code === 0, seconds, cpuSeconds, rssMB, anonMB: anon / 1024, approx, note };
}

/** p50 / p99 per look-up kind from the last (JSON) line lookups.mjs prints. */
function lookupNote(outFile) {
  const last = fs.readFileSync(outFile, 'utf8').trim().split('\n').pop() ?? '{}';
  const { results = {} } = JSON.parse(last);
  return Object.entries(results)
    .map(([kind, r]) => `${kind} ${r.p50}/${r.p99} ms`)
    .join('; ') + ' (p50/p99)';
}

/** Throughput, latency, errors and server memory from the last (JSON) line server-load.mjs prints. */
function serverLoadNote(outFile) {
  const last = fs.readFileSync(outFile, 'utf8').trim().split('\n').pop() ?? '{}';
  const { results: r = {} } = JSON.parse(last);
  return `${r.requests} requests, ${r.throughput}/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.errors} errors; server peak RSS ${r.serverPeakRssMB} MB, anon ~${r.serverPeakAnonMB} MB`;
}

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

/**
 * A step's runs as one row: the median wall and CPU time, the largest peak RSS and anonymous
 * memory, and in the note the spread ((max − min) / median) and, for a step with `compareTo`,
 * the per-run ratios to that step's time (runs paired in the order they alternated).
 */
function summarizeRuns(step, runRows) {
  const mine = runRows.filter((r) => r.step === step.name);
  if (mine.length === 1 && !step.compareTo) return mine[0];
  const ok = mine.filter((r) => r.ok);
  if (ok.length < mine.length) return mine.find((r) => !r.ok);
  const secs = ok.map((r) => r.seconds);
  const cpus = ok.map((r) => r.cpuSeconds).filter((c) => c != null);
  const anons = ok.map((r) => r.anonMB);
  const med = median(secs);
  const parts = [];
  if (ok.length > 1) {
    parts.push(
      `${ok.length} runs: ${secs.map((x) => x.toFixed(2)).join(', ')} s; spread ${(((Math.max(...secs) - Math.min(...secs)) / med) * 100).toFixed(0)}%; ` +
        `anon median ~${Math.round(median(anons))} MB`,
    );
    const written = ok.map((r) => r.diskWrittenMB);
    if (written.every((w) => w != null)) parts.push(diskNote(median(written), median(ok.map((r) => r.diskReadMB)), 'disk median'));
  }
  const other = step.compareTo && runRows.filter((r) => r.step === step.compareTo && r.ok && r.size === ok[0].size);
  if (other && other.length === ok.length) {
    const ratios = ok.map((r, i) => r.seconds / other[i].seconds);
    const anonRatio = median(anons) / median(other.map((r) => r.anonMB));
    parts.push(
      `× ${step.compareTo}: time ${median(ratios).toFixed(2)} median (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}), anon ${anonRatio.toFixed(2)}`,
    );
  }
  return {
    ...ok[0],
    seconds: med,
    cpuSeconds: cpus.length ? median(cpus) : null,
    rssMB: Math.max(...ok.map((r) => r.rssMB)),
    anonMB: Math.max(...anons),
    diskWrittenMB: ok.every((r) => r.diskWrittenMB != null) ? median(ok.map((r) => r.diskWrittenMB)) : null,
    diskReadMB: ok.every((r) => r.diskReadMB != null) ? median(ok.map((r) => r.diskReadMB)) : null,
    note: [ok[0].note, ...parts].filter(Boolean).join('; '),
  };
}

function table(rows) {
  const head = ['dump', 'size GB', 'step', 'wall s', 'CPU s', 'GB/s', 'peak RSS MB', 'peak anon MB', 'note'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    lines.push(
      `| ${[
        r.dump,
        r.sizeGB.toFixed(2),
        r.step,
        r.ok ? r.seconds.toFixed(2) : '—',
        r.ok && r.cpuSeconds != null ? r.cpuSeconds.toFixed(2) : '—',
        r.ok ? (r.sizeGB / r.seconds).toFixed(2) : '—',
        r.ok && r.rssMB !== null ? `${r.approx ? '~' : ''}${Math.round(r.rssMB)}` : '—',
        r.ok && r.anonMB != null ? `~${Math.round(r.anonMB)}` : '—',
        r.note.replaceAll('|', '\\|'),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  fs.mkdirSync(path.join(OUT, 'logs'), { recursive: true });
  // A word starting with '=' names one step exactly ('=query: count strings' without the peer's).
  const picks = (name, w) => (w.startsWith('=') ? name.toLowerCase() === w.slice(1) : name.toLowerCase().includes(w));
  const steps = STEPS.filter((s) => !opts.steps || opts.steps.some((w) => picks(s.name, w)));
  const unmatched = (opts.steps ?? []).filter((w) => !STEPS.some((s) => picks(s.name, w)));
  if (unmatched.length > 0) usage(`--steps: no step is named by ${unmatched.map((w) => `"${w}"`).join(', ')}; the steps are:\n  ${STEPS.map((s) => s.name).join('\n  ')}`);
  const rows = [];
  const generated = [];
  try {
    for (const size of opts.sizes) {
      const dump = ensureDump(size);
      if (dump.generated) generated.push(dump.file);
      const sizeGB = gb(fs.statSync(dump.file).size);
      const name = path.basename(dump.file);
      if (dump.generated) {
        rows.push({ dump: name, sizeGB, step: 'generate (BenchHeap)', ok: true, seconds: dump.seconds, rssMB: null, anonMB: null, approx: false, note: 'BenchHeap build + live dump (GB/s = dump bytes / generation time)' });
      }
      const warmSeconds = warm(dump.file);
      process.stderr.write(`bench: ${name} (${sizeGB.toFixed(2)} GB) read once to warm the page cache in ${warmSeconds.toFixed(1)} s\n`);
      // One row per step and run; with --runs, the runs alternate between the steps.
      const runRows = [];
      for (let run = 0; run < opts.runs; run++) for (const step of steps) {
        let argv;
        let note = '';
        if (step.script) argv = [process.execPath, path.join(ROOT, step.script), ...step.args(dump.file, size)];
        else if (step.cmd === 'heapql') argv = [process.execPath, CLI, ...step.args(dump.file, size)];
        else {
          const exe = onPath(step.cmd);
          if (!exe) note = `skipped: ${step.cmd} is not on PATH (${step.install ?? `cargo install ${step.cmd}`})`;
          else argv = [exe, ...step.args(dump.file, size)];
        }
        if (!argv) {
          runRows.push({ dump: name, sizeGB, step: step.name, ok: false, seconds: 0, rssMB: 0, note });
          continue;
        }
        let cgroup = null;
        if (step.memoryLimit) {
          const limit = step.memoryLimit(fs.statSync(dump.file).size);
          cgroup = memoryCgroup(limit, argv);
          if (!cgroup) {
            runRows.push({ dump: name, sizeGB, step: step.name, ok: false, seconds: 0, rssMB: 0, note: 'skipped: needs a memory cgroup this user can create (root, cgroup v1 memory or v2 with the memory controller)' });
            continue;
          }
          argv = cgroup.argv;
          note = `limit ${Math.round(limit / 1048576)} MB`;
        }
        process.stderr.write(`bench: ${name}: ${step.name} ...\n`);
        const logBase = path.join(OUT, 'logs', `${size}g-${step.name.replace(/[^a-z0-9]+/gi, '-')}${opts.runs > 1 ? `-run${run + 1}` : ''}`);
        const output = step.output?.(size);
        if (output) fs.rmSync(output, { force: true });
        step.before?.();
        if (!step.dropCaches) warm(dump.file);
        if (step.dropCaches) {
          if (!dropPageCache()) {
            cgroup?.remove();
            runRows.push({ dump: name, sizeGB, step: step.name, ok: false, seconds: 0, rssMB: 0, note: 'skipped: dropping the page cache needs root (/proc/sys/vm/drop_caches)' });
            continue;
          }
          note = [note, 'page cache dropped'].filter(Boolean).join('; ');
        }
        const disk0 = diskCounters();
        const m = await measure(argv, logBase, step.timeoutSeconds);
        const disk1 = diskCounters();
        if (disk0 && disk1) {
          m.diskWrittenMB = disk1.writtenMB - disk0.writtenMB;
          m.diskReadMB = disk1.readMB - disk0.readMB;
        }
        if (cgroup) {
          note += `; cgroup peak ${Math.round(cgroup.peakBytes() / 1048576)} MB (page cache included)`;
          cgroup.remove();
        }
        if (m.ok && output && !fs.existsSync(output)) {
          m.ok = false;
          m.note = `exited 0 but wrote no ${path.basename(output)}`;
        }
        if (m.ok && step.script) note = (step.note ?? lookupNote)(`${logBase}.out`);
        if (m.ok && step.after) note = [note, step.after(size, [...rows, ...runRows])].filter(Boolean).join('; ');
        if (m.ok && opts.runs === 1) note = [note, diskNote(m.diskWrittenMB, m.diskReadMB)].filter(Boolean).join('; ');
        runRows.push({ dump: name, size, sizeGB, step: step.name, ...m, note: m.ok ? note : `skipped: ${m.note}` });
        const disk = m.diskWrittenMB == null ? '' : `, ${diskNote(m.diskWrittenMB, m.diskReadMB)}`;
        process.stderr.write(`bench:   ${m.ok ? `${m.seconds.toFixed(2)} s, CPU ${m.cpuSeconds?.toFixed(2) ?? '?'} s, anon ~${Math.round(m.anonMB)} MB${disk}` : m.note}\n`);
      }
      for (const step of steps) rows.push(summarizeRuns(step, runRows));
    }
  } finally {
    if (!opts.keep) for (const f of generated) fs.rmSync(f, { force: true });
  }
  const md = `${table(rows)}\n\nmachine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${gb(os.totalmem()).toFixed(0)} GB RAM, node ${process.version}${process.env.NODE_EXTRA_CA_CERTS ? ' (run without NODE_EXTRA_CA_CERTS, which this machine sets)' : ''}; page cache warm; logs in bench-out/logs/\n`;
  process.stdout.write(`\n${md}`);
  fs.writeFileSync(path.join(OUT, 'results.md'), md);
  fs.writeFileSync(path.join(OUT, 'results.json'), `${JSON.stringify({ date: new Date().toISOString(), rows }, null, 2)}\n`);
}

main().catch((e) => {
  process.stderr.write(`bench: ${e.message}\n`);
  process.exit(1);
});
