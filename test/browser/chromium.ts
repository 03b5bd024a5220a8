/**
 * Headless Chromium for the HTML tests (Debian's `chromium`, driven by playwright-core): where
 * it is, how it is launched, and a page that records console errors, page errors, failed and
 * all requests, so each test can insist a file opened from disk needs nothing else.
 */
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.HEAPQL_CHROMIUM ?? '/usr/bin/chromium';
export const chromiumAvailable = fs.existsSync(CHROMIUM);
// CI installs Chromium (.ci/run): there a missing one is a failure, not a skipped test.
if (!chromiumAvailable && process.env.CI) throw new Error(`no Chromium at ${CHROMIUM}: CI must run the browser tests (.ci/run installs it)`);
if (!chromiumAvailable) console.warn(`skipping the browser test: no Chromium at ${CHROMIUM} (apt-get install chromium, or set HEAPQL_CHROMIUM)`);

/** `extraArgs`: more of Chromium's switches (`--host-resolver-rules=…` maps a made-up host name to 127.0.0.1). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

/** A tab whose problems (console errors and warnings, page errors, failed requests) and requests are recorded. */
export interface WatchedPage {
  page: Page;
  problems: string[];
  requests: string[];
}

/** The viewport of watchedPage's pages. */
export const WATCHED_VIEWPORT = { width: 1280, height: 1000 };

/** A 1280×1000 page whose problems (console errors and warnings, page errors, failed requests) and requests are recorded. */
export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  return watchPage(await browser.newPage({ viewport: WATCHED_VIEWPORT }));
}

/** Records `page`'s problems (console errors and warnings, page errors, failed requests) and requests from now on. */
export function watchPage(page: Page): WatchedPage {
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('request', (r) => requests.push(r.url()));
  return { page, problems, requests };
}
