// `npm test`: every Rust and TypeScript suite, then one closing line `N passed, N failed`.
// Each runner's own output streams through; the counts are read from its summary lines. Both
// runners (and whatever their tests start) get one temporary directory of their own as TMPDIR,
// removed at the end, so a run leaves nothing in the system's temporary directory.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runTmp = mkdtempSync(path.join(tmpdir(), 'heapql-test-run-'));
const env = { ...process.env, TMPDIR: runTmp };
/** The runner running now, stopped with this one. */
let current;
// Interrupted, the runner goes (Ctrl-C reaches it anyway; a SIGTERM to this process alone
// would leave it running), and the directory all the same.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(signal, () => {
    current?.kill(signal);
    rmSync(runTmp, { recursive: true, force: true });
    process.exit(code);
  });
}

function run(cmd, args, onLine) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    current = child;
    const feed = (stream, sink) => {
      let buf = '';
      stream.on('data', (chunk) => {
        sink.write(chunk);
        buf += chunk.toString();
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          onLine(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      });
      stream.on('end', () => buf && onLine(buf));
    };
    feed(child.stdout, process.stdout);
    feed(child.stderr, process.stderr);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

let passed = 0;
let failed = 0;
/** Tests not run (cargo's ignored: the corpus tests where it is absent; vitest's skipped). */
let skipped = 0;

// cargo: one `test result: ok. 12 passed; 0 failed; ...` line per test binary.
const cargoCode = await run('cargo', ['test', '--workspace', '--exclude', 'heapql-node', '--no-fail-fast'], (line) => {
  const m = /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/.exec(line);
  if (m) {
    passed += Number(m[1]);
    failed += Number(m[2]);
    skipped += Number(m[3]);
  }
});
if (cargoCode !== 0 && failed === 0) failed += 1; // a build failure counts as a failure

// vitest: counts come from its JSON report, the console keeps the default reporter.
const report = path.join(runTmp, 'vitest-report.json');
const vitestCode = await run(
  process.execPath,
  [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
  () => {},
);
try {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  skipped += json.numPendingTests + json.numTodoTests;
  if (vitestCode !== 0 && json.numFailedTests === 0) failed += 1; // e.g. a suite that failed to load
} catch {
  failed += 1;
  process.stderr.write('vitest did not write its report\n');
}
rmSync(runTmp, { recursive: true, force: true });

// Not counted as passed: said once, above the closing line.
if (skipped > 0) process.stdout.write(`\n${skipped} not run (ignored or skipped: see the runners' output above)`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 ? 1 : 0);
