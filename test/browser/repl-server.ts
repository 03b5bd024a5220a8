/**
 * The browser REPL for the tests in real Chromium: the page's script bundled from ts/web/main.ts
 * (as `npm run build:web` does, not minified), statements entered in the page, and taps on what
 * the server's session streams and the page receives. repl-page.ts starts the server and the
 * browser.
 */
import path from 'node:path';
import { build } from 'esbuild';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

import type { HeapSession } from '../../ts/index.js';

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
