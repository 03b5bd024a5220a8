/**
 * The browser REPL's server for the tests in real Chromium: the page's script bundled from
 * ts/web/main.ts (as `npm run build:web` does, not minified), and a server on a copy of the demo
 * dump with some classes renamed (test/tools/renamed-dump.ts) in a directory of its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { listen, type RunningServer } from '../../ts/server/listen.js';
import { writeRenamedDump } from '../tools/renamed-dump.js';

const root = path.resolve(__dirname, '../..');
export const DEMO_DUMP = path.join(root, 'fixtures/demo/demo.hprof');

/** The page's script, bundled from the sources. */
export async function replScript(): Promise<string> {
  const bundle = await build({ entryPoints: [path.join(root, 'ts/web/main.ts')], bundle: true, format: 'iife', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' });
  return bundle.outputFiles[0]!.text;
}

/**
 * Types `statement` into the page's input, presses Enter and waits for its entry (the one
 * headed by its echo) and for the input to take the next statement; returns that entry.
 */
export async function enterStatement(page: Page, statement: string): Promise<Locator> {
  const entries = page.locator('section.entry:has(pre.echo)');
  const before = await entries.count();
  await page.locator('#input').fill(statement);
  await page.locator('#input').press('End');
  await page.locator('#input').press('Enter');
  await entries.nth(before).waitFor();
  await expect.poll(() => page.locator('#input').isDisabled()).toBe(false);
  return entries.nth(before);
}

export interface RenamedDumpServer {
  session: HeapSession;
  server: RunningServer;
  /** The directory the dump was written to. */
  dir: string;
  /** Stops the server, closes the dump and removes its directory. */
  close(): Promise<void>;
}

/** A server with the browser REPL on the demo dump, saved as `fileName` with the classes `renames` renames (each must be found). */
export async function renamedDumpServer(fileName: string, renames: Record<string, string>): Promise<RenamedDumpServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-repl-'));
  const dump = path.join(dir, fileName);
  expect(writeRenamedDump(DEMO_DUMP, dump, renames)).toBe(Object.keys(renames).length);
  const script = await replScript();
  const session = await openHeap(dump, { noCache: true });
  const server = await listen(session, 0, { replScript: () => script });
  return {
    session,
    server,
    dir,
    async close() {
      await server.close();
      session.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Watches the session's query streams (the server's scans): `onBatch` sees each batch a stream
 * hands out, with the stream's options (`skip` for a run from a row on), before the server gets
 * it; a promise it returns holds the stream there (the scan waits) until it settles.
 */
export function tapQueryStreams(session: HeapSession, onBatch: (rows: number, options: { skip?: number }) => void | Promise<void>): void {
  const real = session.queryBatches.bind(session);
  session.queryBatches = (q, options = {}) =>
    (async function* () {
      const batches = real(q, options);
      try {
        for (;;) {
          const next = await batches.next();
          if (next.done) return next.value;
          await onBatch(next.value.rows.length, options);
          yield next.value;
        }
      } finally {
        // Closed early (the server's `return()`): the real stream is closed as it would be.
        await batches.return(undefined as never);
      }
    })();
}

/** Counts the rows in the page's answers from `/pages…` (a query's first page, then its rows), its counts and closes left out. */
export function countRowsReceived(page: Page, onAnswer: (rows: number, body: { cursor?: string | null }) => void): void {
  page.on('response', async (r) => {
    const url = new URL(r.url());
    if (!url.pathname.startsWith('/pages') || url.pathname.endsWith('/count') || r.request().method() === 'DELETE') return;
    const body = (await r.json()) as { rows?: unknown[]; result?: { rows: unknown[] }; cursor?: string | null };
    onAnswer((body.result?.rows ?? body.rows ?? []).length, body);
  });
}
