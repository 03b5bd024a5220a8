/**
 * A long result table (`!set limit 0`) goes out a block of rows at a time: `show()` to a front
 * that takes text as it comes (`ReplIO.write`), whole to one that does not (the browser); the
 * first block sets the widths and a later wider cell is said in the footer; Ctrl-C stops it
 * between blocks. The terminal's writer waits while its output is not read, and a closed
 * output ends the session. (The same in a real terminal: long-listing-pty.test.ts.)
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { formatTable } from '../../ts/query/format.js';
import type { QueryResult, Value } from '../../ts/query/schema.js';
import { initialState, show, type ReplBackend, type ReplContext, type ReplIO } from '../../ts/repl/index.js';
import { BLOCK_ROWS } from '../../ts/repl/long-table.js';
import { runTerminalRepl } from '../../ts/repl/terminal.js';

const root = path.resolve(__dirname, '../..');
const demo = path.join(root, 'fixtures/demo/demo.hprof');

/** `n` rows of (`r<i>`, i); row `wideAt` (1-based) has a longer name. */
function result(n: number, wideAt = 0): QueryResult {
  const rows: Value[][] = [];
  for (let i = 1; i <= n; i++) rows.push([i === wideAt ? `row-${i}-much-wider-than-the-rest` : `r${i}`, i]);
  return { name: 'q1', oql: 'SELECT …', columns: [{ name: 'name', type: 'string' }, { name: 'n', type: 'number' }], rows, rowCount: n, truncated: false, elapsedMs: 1 };
}

/** A front that records what it is given; `write` is left out for a front without one. */
function front(withWrite: boolean, onWrite: (blocks: string[]) => void = () => {}) {
  const printed: string[] = [];
  const blocks: string[] = [];
  const io: ReplIO = {
    print: (t) => printed.push(t),
    error: (t) => printed.push(t),
    saveFile: () => {},
    quit: () => {},
    ...(withWrite
      ? {
          write: async (t: string, signal?: AbortSignal) => {
            blocks.push(t);
            onWrite(blocks);
            return !signal?.aborted;
          },
        }
      : {}),
  };
  return { io, printed, blocks };
}

function context(io: ReplIO, limit: number, signal?: AbortSignal): ReplContext {
  return { backend: {} as ReplBackend, io, state: { ...initialState(), limit }, ...(signal ? { signal } : {}) };
}

const rowLines = (text: string) => text.split('\n').filter((l) => /^r\d+ +\| +\d+$/.test(l) || /^row-/.test(l)).length;

describe('show() of a long table', () => {
  it('writes a block of rows at a time: the first block is formatTable of those rows, the rest follow with the footer', async () => {
    const r = result(2500);
    const { io, printed, blocks } = front(true);
    await show(context(io, 0), r);
    expect(printed).toEqual([]);
    expect(blocks.map(rowLines)).toEqual([BLOCK_ROWS, BLOCK_ROWS, 500, 0]);
    expect(blocks[0]).toBe(`${formatTable({ ...r, rows: r.rows.slice(0, BLOCK_ROWS) }, { footer: false })}\n`);
    // Every row fits the first block's widths: the same text as the whole table.
    expect(blocks.join('')).toBe(`${formatTable(r)}\n`);
  });

  it('a later cell wider than its column widens it from its row on, and the footer says from which row', async () => {
    const { io, blocks } = front(true);
    await show(context(io, 0), result(2500, 1700));
    const text = blocks.join('');
    expect(text).toMatch(/\nr1699 +\| 1699\nrow-1700-much-wider-than-the-rest \| 1700\nr1701 {29}\| 1701\n/);
    expect(text.endsWith('(2500 rows)\nnote: a wider cell from row 1700 on widened its column there (the widths came from the first 1000 rows)\n')).toBe(true);
  });

  it('a limit above a block is listed the same way and ends with the limit footer', async () => {
    const { io, blocks } = front(true);
    await show(context(io, 1500), result(2500));
    expect(blocks.map(rowLines)).toEqual([BLOCK_ROWS, 500, 0]);
    expect(blocks.at(-1)).toBe('(2500 rows; showing the first 1500: !tail, !row N, !set limit 0 for all)\n');
  });

  it('Ctrl-C (the signal) stops it between blocks; the footer says how many rows were shown', async () => {
    const stop = new AbortController();
    const { io, blocks } = front(true, (b) => b.length === 2 && stop.abort());
    await show(context(io, 0, stop.signal), result(5000));
    expect(blocks.map(rowLines)).toEqual([BLOCK_ROWS, BLOCK_ROWS, 0]);
    expect(blocks.at(-1)).toBe('(5000 rows; interrupted after showing 2000: !tail, !row N, !save for the rest)\n');
  });

  it('a front without write (the browser) gets the whole table in one print, as before', () => {
    const r = result(2500);
    const { io, printed } = front(false);
    expect(show(context(io, 0), r)).toBeUndefined();
    expect(printed).toEqual([formatTable(r)]);
  });
});

/** Takes what is written but finishes a write only when told (`release`): a reader that does not read. */
class HeldOutput extends Writable {
  chunks: string[] = [];
  private held: (() => void)[] = [];
  constructor() {
    super({ highWaterMark: 1024, decodeStrings: false });
  }
  override _write(chunk: string, _encoding: string, done: () => void): void {
    this.chunks.push(String(chunk));
    this.held.push(done);
  }
  release(): void {
    for (const done of this.held.splice(0)) done();
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the terminal REPL with a long listing', () => {
  let session: HeapSession;
  const dir = mkdtempSync(path.join(tmpdir(), 'heapql-long-'));
  beforeAll(async () => {
    session = await openHeap(demo);
  });
  afterAll(() => session.close());

  const ALL = 'SELECT x, x.@usedHeapSize AS size FROM INSTANCEOF java.lang.Object x';

  it('waits while its output is not read: one block at a time, the next once the last is taken', async () => {
    const output = new HeldOutput();
    const input = Readable.from([`!set limit 0\n${ALL}\n!count\n`]);
    let exit: number | undefined;
    const done = runTerminalRepl(session, { input, output: output as unknown as NodeJS.WriteStream, historyFile: null }).then((code) => (exit = code));
    // The first block arrives (its write waits for the reader).
    // The scan runs on the addon's thread: under load it outlasts any count of event-loop turns,
    // so the wait is in small sleeps (bounded: 10,000 of them).
    for (let i = 0; i < 10_000 && !output.chunks.some((c) => c.includes('-+-')); i++) {
      await new Promise<void>((resolve) => setTimeout(resolve, 5));
      output.chunks.length === 1 && output.release(); // `limit = 0`
    }
    const first = output.chunks.findIndex((c) => c.includes('-+-'));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(output.chunks[first]!.split('\n').length).toBeLessThanOrEqual(BLOCK_ROWS + 3);
    // Nothing more comes while it is not read.
    const seen = output.chunks.length;
    const pending = output.writableLength;
    for (let i = 0; i < 200; i++) await turn();
    expect(output.chunks.length).toBe(seen);
    expect(output.writableLength).toBe(pending);
    // Read on: the rest comes block by block, and the session goes on.
    for (let i = 0; i < 10_000 && exit === undefined; i++) {
      output.release();
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
    }
    await done;
    expect(exit).toBe(0);
    // (What the session wrote last may still wait for the reader.)
    for (let i = 0; i < 100 && output.writableLength > 0; i++) {
      output.release();
      await turn();
    }
    const text = output.chunks.join('');
    expect(text).toContain('\n(20437 rows)\n');
    expect(text).toContain('\n20437 rows\n');
    expect(Math.max(...output.chunks.map((c) => c.split('\n').length))).toBeLessThanOrEqual(BLOCK_ROWS + 3);
  });

  it('an output closed during the listing (a reader gone) stops it and ends the session: nothing after it runs', async () => {
    const saved = path.join(dir, 'after.csv');
    const chunks: string[] = [];
    const output = new Writable({
      decodeStrings: false,
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
        // The reader goes away once the listing has begun.
        if (String(chunk).includes('-+-')) this.destroy();
      },
    });
    const input = Readable.from([`!set limit 0\n${ALL}\n!save ${saved}\n`]);
    const exit = await runTerminalRepl(session, { input, output: output as unknown as NodeJS.WriteStream, historyFile: null });
    expect(exit).toBe(0);
    expect(chunks.join('')).not.toContain('(20437 rows');
    expect(existsSync(saved)).toBe(false);
  });
});
