/**
 * `heapql mcp` on a dump cut short (the first bytes of the demo dump, as `head -c` makes it):
 * the first answer, whichever tool gives it, carries the dump's warnings after its result,
 * naming where the data ends; describe_dump lists them (and then no other answer repeats them).
 * A file cut inside its header is an error for every tool. The CLI prints these warnings on
 * stderr, which an assistant never sees.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeSlowDump } from './slow-dump.js';

const root = path.resolve(__dirname, '../..');
const bin = path.join(root, 'bin/heapql.js');
const demo = path.join(root, 'fixtures/demo/demo.hprof');
const NO_TIMEOUT = { timeout: 2_147_483_647 };
/** Where the copy is cut: inside the heap data of the 5 MB demo dump. */
const CUT = 2_000_000;

let dir: string;
let cut: string;
let header: string;
let noHeap: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-mcp-damaged-'));
  const bytes = readFileSync(demo);
  expect(bytes.length).toBeGreaterThan(CUT);
  cut = path.join(dir, 'cut.hprof');
  writeFileSync(cut, bytes.subarray(0, CUT));
  header = path.join(dir, 'header.hprof');
  writeFileSync(header, bytes.subarray(0, 10));
  // Cut inside its first records, before any heap data: a dump of no objects.
  noHeap = path.join(dir, 'no-heap.hprof');
  writeFileSync(noHeap, bytes.subarray(0, 100));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Call = (name: string, args?: Record<string, unknown>, options?: Record<string, unknown>) => Promise<{ isError: boolean; texts: string[] }>;

async function withServer(dump: string, test: (call: Call) => Promise<void>) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', dump, '--no-cache'], cwd: root, stderr: 'pipe' });
  const client = new Client({ name: 'heapql-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    await test(async (name, args = {}, options = {}) => {
      const result = await client.callTool({ name, arguments: args }, undefined, { ...NO_TIMEOUT, ...options });
      return { isError: result.isError === true, texts: (result.content as { text: string }[]).map((c) => c.text) };
    });
  } finally {
    await client.close();
  }
}

const WARNING = /^Warning: reading .*cut\.hprof gave (\d+) warnings?; every answer rests on what could be read \(describe_dump lists them again, under warnings\):\n- /;

describe('heapql mcp on a dump cut short', () => {
  it('the first answer carries the warnings, naming where the data ends; later answers do not repeat them', async () => {
    await withServer(cut, async (call) => {
      const first = await call('list_classes', { limit: 3 });
      expect(first.isError).toBe(false);
      expect(first.texts).toHaveLength(2);
      // The result stays the first block.
      expect(JSON.parse(first.texts[0]!).classes).toHaveLength(3);
      expect(first.texts[1]).toMatch(WARNING);
      expect(first.texts[1]).toMatch(/\n- the file is cut short: .*data ends at byte offset 2000000/);

      const second = await call('list_classes', { limit: 3 });
      expect(second.texts).toHaveLength(1);
      // describe_dump lists every one, with the same words.
      const summary = JSON.parse((await call('describe_dump')).texts[0]!);
      const count = Number(WARNING.exec(first.texts[1]!)![1]);
      expect(summary.warnings).toHaveLength(count);
      expect(first.texts[1]).toContain(summary.warnings[0].message);
    });
  });

  it('an error answer carries them too; two first calls at once: one of them', async () => {
    await withServer(cut, async (call) => {
      const answers = await Promise.all([call('run_oql', { query: 'SELECT COUNT(*) FROM no.such.Class c' }), call('analysis_status')]);
      expect(answers.map((a) => a.texts.length).sort()).toEqual([1, 2]);
      const warned = answers.find((a) => a.texts.length === 2)!;
      expect(warned.texts[1]).toMatch(WARNING);
      expect(answers[0]!.isError).toBe(true);
      expect(answers[0]!.texts[0]).toMatch(/^ERR_UNKNOWN_CLASS: /);
    });
  });

  it('a first call cancelled (its answer never sent): the next answer carries the warnings', async () => {
    // A million objects, cut short: the analysis runs long enough to be cancelled while it runs.
    const slow = writeSlowDump(dir, 1_000_000, 'slow.hprof');
    const bytes = readFileSync(slow);
    const slowCut = path.join(dir, 'slow-cut.hprof');
    writeFileSync(slowCut, bytes.subarray(0, Math.floor(bytes.length * 0.9)));
    await withServer(slowCut, async (call) => {
      const controller = new AbortController();
      let running!: () => void;
      const progressed = new Promise<void>((resolve) => (running = resolve));
      const first = call('analyze_heap', {}, { signal: controller.signal, onprogress: () => running() });
      await progressed;
      controller.abort();
      await expect(first).rejects.toThrow(/abort/i);
      // The next call analyze_heap: its analysis starts only once the cancelled one has wound
      // down (ts/session analyze), and the cancelled call's handler ends in that same turn, on
      // the analysis's end; so this answer, a whole analysis later, comes after that handler
      // has ended (a call answered before it would carry the warnings with or without the fix).
      const next = await call('analyze_heap');
      expect(next.isError, next.texts[0]).toBe(false);
      expect(JSON.parse(next.texts[0]!).state).toBe('full');
      expect(next.texts).toHaveLength(2);
      expect(next.texts[1]).toMatch(/^Warning: reading .*slow-cut\.hprof gave \d+ warnings?; .*\n- the file is cut short: /s);
      // Said once.
      expect((await call('analysis_status')).texts).toHaveLength(1);
    });
  });

  it('describe_dump first: it lists them, and no other answer repeats them', async () => {
    await withServer(cut, async (call) => {
      const d = await call('describe_dump');
      expect(d.texts).toHaveLength(1);
      expect(JSON.parse(d.texts[0]!).warnings.map((w: { message: string }) => w.message).join('\n')).toMatch(/cut short: .*data ends at byte offset 2000000/);
      expect((await call('run_oql', { query: 'SELECT COUNT(*) FROM java.lang.Class c' })).texts).toHaveLength(1);
    });
  });

  it('a dump cut short on disk while served: every tool says so and that the server must be restarted', async () => {
    const shrinking = path.join(dir, 'shrinking.hprof');
    copyFileSync(demo, shrinking);
    await withServer(shrinking, async (call) => {
      expect((await call('list_classes', { limit: 1 })).isError).toBe(false);
      truncateSync(shrinking, CUT);
      for (const name of ['list_classes', 'describe_dump']) {
        const answer = await call(name);
        expect(answer.isError).toBe(true);
        expect(answer.texts).toHaveLength(1);
        expect(answer.texts[0]).toMatch(/^ERR_DUMP_CHANGED: .*shrinking\.hprof: the dump file was cut short on disk since it was opened \(2000000 bytes now, \d+ then\)/);
        expect(answer.texts[0]).toMatch(/\n\(In this MCP server: no tool opens a dump; restart the server \(reconnect it in the client\) to read the file as it is now\.\)$/);
      }
    });
  });

  it('compare_with_baseline against a baseline cut short: its warnings come with the comparison', async () => {
    await withServer(demo, async (call) => {
      const answer = await call('compare_with_baseline', { baseline: cut, limit: 2 });
      expect(answer.isError).toBe(false);
      const result = JSON.parse(answer.texts[0]!);
      expect(result.baseline).toBe(cut);
      expect(result.baselineWarnings[0]).toMatch(/^the file is cut short: .*data ends at byte offset 2000000$/);
      expect(result.baselineWarningsNote).toMatch(/^reading the baseline dump gave these warnings: the comparison rests on what could be read of it/);
      // The whole baseline against itself: no warning to give.
      const whole = JSON.parse((await call('compare_with_baseline', { baseline: demo, limit: 2 })).texts[0]!);
      expect(whole).not.toHaveProperty('baselineWarnings');
    });
  });

  it('a baseline file rewritten on disk since a comparison read it: the next comparison opens it anew', async () => {
    const baseline = path.join(dir, 'rewritten-baseline.hprof');
    copyFileSync(demo, baseline);
    const knownNocoops = path.join(root, 'fixtures/dumps/KnownHeap-jdk25-nocoops.hprof');
    await withServer(path.join(root, 'fixtures/dumps/KnownHeap-jdk25-coops.hprof'), async (call) => {
      const before = await call('compare_with_baseline', { baseline, limit: 1 });
      expect(before.isError, before.texts[0]).toBe(false);
      expect(JSON.parse(before.texts[0]!).totals.baseline.objects).toBe(20437);
      // Rewritten in place (the same file, another dump): the session kept could never read it again.
      copyFileSync(knownNocoops, baseline);
      // Two calls at once both see the change (one opening does not close the other's), then one more.
      const twice = await Promise.all([1, 2].map(() => call('compare_with_baseline', { baseline, limit: 1 })));
      for (const after of [...twice, await call('compare_with_baseline', { baseline, limit: 1 })]) {
        expect(after.isError, after.texts[0]).toBe(false);
        expect(JSON.parse(after.texts[0]!).totals.baseline.objects).toBe(49766);
      }
      // The served dump itself is still read as it was.
      expect((await call('list_classes', { limit: 1 })).isError).toBe(false);
    });
  });

  it('a file cut before its heap data: the failed analysis is said, not "call analyze_heap first"; no object is', async () => {
    await withServer(noHeap, async (call) => {
      const analyze = await call('analyze_heap');
      expect(analyze.isError).toBe(true);
      expect(analyze.texts[0]).toMatch(/^ERR_NO_SUCH_DUMP: .*no-heap\.hprof holds no heap dump/);
      // The command line's advice (`heapql summary`) said as this server's tool, in every answer that gives the error.
      expect(analyze.texts[0]).toMatch(/: there are no objects to analyze\. describe_dump shows what the file holds \(its warnings say where its data ends\);/);
      const status = await call('analysis_status');
      expect(status.isError).toBe(false);
      const state = JSON.parse(status.texts[0]!);
      expect(state.state).toBe('failed');
      expect(state.error).toMatch(/describe_dump shows what the file holds/);
      expect(state.next).toMatch(/describe_dump shows what the file holds/);
      const why = /needs the full analysis, which failed: .*no-heap\.hprof holds no heap dump .*\(analyze_heap tries again\)$/;
      const report = await call('get_report_section', { section: 'overview' });
      expect(report.isError).toBe(true);
      expect(report.texts[0]).toMatch(new RegExp(`^the report ${why.source}`));
      const named = await call('run_named_query', { name: 'top-retained-by-class' });
      expect(named.texts[0]).toMatch(new RegExp(`^the named query 'top-retained-by-class' ${why.source}`));
      for (const text of [analyze.texts[0], status.texts[0], report.texts[0], named.texts[0]]) expect(text).not.toMatch(/heapql summary/);
      const object = await call('inspect_object', { object: 0 });
      expect(object.isError).toBe(true);
      expect(object.texts[0]).toBe('ERR_NO_SUCH_OBJECT: object 0 does not exist (the heap has no objects)');
    });
  });

  it('a file cut inside its header: every tool says it is no heap dump and why', async () => {
    await withServer(header, async (call) => {
      for (const name of ['describe_dump', 'list_classes']) {
        const answer = await call(name);
        expect(answer.isError).toBe(true);
        expect(answer.texts).toEqual([`ERR_NOT_HPROF: ${header} is not an HPROF heap dump (file ends inside the 'JAVA PROFILE' header)`]);
      }
    });
  });
});

describe('the server log names a dump that cannot be opened once (lib38)', () => {
  /** Serves `dump`, calls describe_dump (its answer waits for the open) and gives stderr's text. */
  async function logOf(dump: string): Promise<{ answer: string; stderr: string }> {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', dump, '--no-cache'], cwd: root, stderr: 'pipe' });
    let stderr = '';
    const stream = transport.stderr!;
    stream.on('data', (d) => (stderr += d));
    // stderr is read to its end (the server exited), not only as far as it came before the answer.
    const ended = new Promise((resolve) => stream.once('end', resolve));
    const client = new Client({ name: 'heapql-test', version: '1.0.0' });
    await client.connect(transport);
    let answer: string;
    try {
      const result = await client.callTool({ name: 'describe_dump', arguments: {} }, undefined, NO_TIMEOUT);
      expect(result.isError).toBe(true);
      answer = (result.content as { text: string }[])[0]!.text;
    } finally {
      await client.close();
    }
    await ended;
    return { answer, stderr };
  }

  it('a directory: "cannot open <dir>: is a directory", not "cannot open <dir>: cannot open <dir>: …"', async () => {
    const { answer, stderr } = await logOf(dir);
    expect(answer).toBe(`ERR_IO: cannot open ${dir}: is a directory, not a heap dump file`);
    expect(stderr).toContain(`heapql mcp: error: cannot open ${dir}: is a directory, not a heap dump file\n`);
    expect(stderr.split(dir).length - 1).toBe(2); // "serving <dir> over stdio", then the error
  });

  it('a file cut inside its header: its own words, the path once', async () => {
    const { stderr } = await logOf(header);
    const line = stderr.split('\n').find((l) => l.includes('error:'))!;
    expect(line).toMatch(/^heapql mcp: error: .*header\.hprof is not an HPROF heap dump/);
    expect(line.split(header).length - 1).toBe(1);
  });
});
