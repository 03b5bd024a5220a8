/**
 * The set-up every repl-*.test.ts shares: a server with the browser REPL on a dump (a fixture
 * read in place, or a copy of the demo dump with some classes renamed, test/tools/renamed-dump.ts,
 * in a directory of its own), headless Chromium, and tabs on the REPL page, watched
 * (chromium.ts's watchPage) and connected; with hooks for what a file adds between those steps
 * (`prepare` the session, `watch` a tab), and one close() for all of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import type { ServerOptions } from '../../ts/server/context.js';
import { listen, type RunningServer } from '../../ts/server/listen.js';
import { writeRenamedDump } from '../tools/renamed-dump.js';
import { launchChromium, WATCHED_VIEWPORT, watchPage, type WatchedPage } from './chromium.js';
import { DEMO_DUMP, replScript } from './repl-server.js';

export interface ReplOptions {
  /**
   * The dump the server serves: a file, read in place; or the demo dump written again as
   * `fileName` with the classes `renames` renames (each must be found), in a directory of its
   * own, opened without the index cache, removed by close().
   */
  dump: string | { fileName: string; renames: Record<string, string> };
  /** Open the dump without the index cache (openHeap's `noCache`). */
  noCache?: boolean;
  /** Runs on the session before the server starts on it: replaces or taps its calls. */
  prepare?: (session: HeapSession) => void | Promise<void>;
  /** The server's options besides the page's script (`storedQueries`). */
  server?: Omit<ServerOptions, 'port' | 'replScript'>;
  /** The tabs' viewport; watchedPage's (1280×1000) unless given. */
  viewport?: { width: number; height: number };
  /** What follows `/repl` in the tabs' address (`?pageRows=100`). */
  search?: string;
  /** The test file's own watchers of a tab (dialogs, requests, answers), added before it opens the REPL. */
  watch?: (page: Page) => void;
}

/** A server with the browser REPL on a dump, and Chromium to open it in. */
export interface ReplServer {
  browser: Browser;
  /** The browser context of every tab open() opens (they share its localStorage). */
  context: BrowserContext;
  /** The session on the dump. */
  session: HeapSession;
  /** The server; a test that starts another (on the same port) sets it here, for close(). */
  server: RunningServer;
  /** The server's options (with the page's script): a server started again is started with them. */
  serverOptions: Omit<ServerOptions, 'port'>;
  /** The dump file served. */
  dump: string;
  /** A new tab, watched (watchPage and the options' `watch`), on the REPL page once it says "Connected.". */
  open(): Promise<WatchedPage>;
  /** Closes the browser, the server and the session, and removes a renamed dump's directory. */
  close(): Promise<void>;
}

/** A ReplServer and its first tab. */
export type ReplPage = ReplServer & WatchedPage;

/**
 * Bundles the page's script, opens a session on the dump (`prepare` sees it first), starts a
 * server with the browser REPL on it on a free loopback port and launches Chromium. On a failure
 * on the way, what was started is closed again.
 */
export async function startRepl(options: ReplOptions): Promise<ReplServer> {
  const held: { dir?: string; session?: HeapSession; server?: RunningServer; browser?: Browser } = {};
  const close = async () => {
    await held.browser?.close();
    await held.server?.close();
    held.session?.close();
    if (held.dir) fs.rmSync(held.dir, { recursive: true, force: true });
  };
  try {
    let dump: string;
    if (typeof options.dump === 'string') dump = options.dump;
    else {
      held.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-repl-'));
      dump = path.join(held.dir, options.dump.fileName);
      expect(writeRenamedDump(DEMO_DUMP, dump, options.dump.renames)).toBe(Object.keys(options.dump.renames).length);
    }
    const script = await replScript();
    const session = (held.session = await openHeap(dump, { noCache: options.noCache === true || held.dir !== undefined }));
    await options.prepare?.(session);
    const serverOptions = { ...options.server, replScript: () => script };
    held.server = await listen(session, 0, serverOptions);
    const browser = (held.browser = await launchChromium());
    const context = await browser.newContext({ viewport: options.viewport ?? WATCHED_VIEWPORT });
    return {
      browser,
      context,
      session,
      get server() {
        return held.server!;
      },
      set server(server: RunningServer) {
        held.server = server;
      },
      serverOptions,
      dump,
      async open() {
        const watched = watchPage(await context.newPage());
        options.watch?.(watched.page);
        await watched.page.goto(`${held.server!.url}/repl${options.search ?? ''}`);
        await watched.page.getByText('Connected.').waitFor();
        return watched;
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** startRepl, and a first tab open on the REPL. */
export async function openReplPage(options: ReplOptions): Promise<ReplPage> {
  const repl = await startRepl(options);
  try {
    return Object.assign(repl, await repl.open());
  } catch (e) {
    await repl.close();
    throw e;
  }
}
