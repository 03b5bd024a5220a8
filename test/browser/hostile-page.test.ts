/**
 * What a web page of another site can do to the server through the user's real browser (headless
 * Chromium, the server on loopback): `<img>` of a report (which would start the full analysis)
 * or a look-up, a `no-cors` fetch POSTing a query or `/analyze`, a form POSTing `/analyze`, a
 * frame of the browser REPL, a script tag of `/repl.js`. Every one that reaches the server is
 * refused (403), nothing runs, the frame is not shown; and a name of the attacker's that resolves
 * to 127.0.0.1 (DNS rebinding, here by Chromium's host resolver rules) is refused by its Host.
 */
import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { listen, type RunningServer } from '../../ts/server/listen.js';
import { chromiumAvailable, launchChromium } from './chromium.js';
import { DEMO_DUMP } from './repl-server.js';

/** The attacker's host names, both resolved to 127.0.0.1 by the browser. */
const ATTACKER = 'attacker.test';
const REBOUND = 'rebound.test';

describe.skipIf(!chromiumAvailable)('a hostile web page in the user\'s browser', () => {
  let browser: Browser;
  let session: HeapSession;
  let server: RunningServer;
  let attacker: http.Server;
  /** Every answer the heapql server sent: method, path, status. */
  const answered: { method: string; url: string; status: number }[] = [];
  /** What ran in the session: analyses started, queries planned. */
  const ran: string[] = [];
  const onFinish = (message: unknown) => {
    const { request, response, server: from } = message as { request: http.IncomingMessage; response: http.ServerResponse; server: http.Server };
    if (from !== attacker) answered.push({ method: request.method!, url: request.url!, status: response.statusCode });
  };

  beforeAll(async () => {
    session = await openHeap(DEMO_DUMP);
    for (const name of ['startAnalysis', 'prepare', 'queryBatches', 'queryStream', 'queryCount', 'report'] as const) {
      const real = (session[name] as (...a: unknown[]) => unknown).bind(session);
      (session as unknown as Record<string, unknown>)[name] = (...a: unknown[]) => {
        ran.push(name);
        return real(...a);
      };
    }
    server = await listen(session, 0);
    const target = server.url;
    const page = `<!doctype html><meta charset="utf-8"><title>cute cats</title>
<img src="${target}/report"><img src="${target}/report/leaks?format=md"><img src="${target}/objects/1">
<iframe id="framed" src="${target}/repl"></iframe>
<script src="${target}/repl.js"></script>
<form id="form" method="POST" action="${target}/analyze" target="sink" enctype="text/plain"><input name="x" value="y"></form><iframe name="sink"></iframe>
<script>
window.done = Promise.allSettled([
  fetch('${target}/query', { method: 'POST', mode: 'no-cors', body: 'SELECT COUNT(*) FROM java.lang.String' }),
  fetch('${target}/analyze', { method: 'POST', mode: 'no-cors' }),
  fetch('${target}/pages', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"query": "SELECT s FROM java.lang.String s"}' }),
  fetch('${target}/status').then((r) => r.text()),
]).then((all) => all.map((r) => r.status + (r.status === 'fulfilled' && typeof r.value === 'string' ? ' ' + r.value : '')));
document.getElementById('form').submit();
</script>`;
    attacker = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    diagnostics.subscribe('http.server.response.finish', onFinish);
    browser = await launchChromium([`--host-resolver-rules=MAP ${ATTACKER} 127.0.0.1, MAP ${REBOUND} 127.0.0.1`]);
  });
  afterAll(async () => {
    diagnostics.unsubscribe('http.server.response.finish', onFinish);
    await browser?.close();
    await new Promise<void>((r) => (attacker ? attacker.close(() => r()) : r()));
    await server?.close();
    session?.close();
  });

  test('another site\'s images, fetches, form, frame and script: each refused, nothing runs, the REPL is not framed', async () => {
    const page = await browser.newPage();
    await page.goto(`http://${ATTACKER}:${(attacker.address() as AddressInfo).port}/`);
    const outcomes = (await page.evaluate('window.done')) as string[];
    // The answers are unreadable to the page: the no-cors ones opaque, the CORS one refused by the browser.
    expect(outcomes.slice(0, 3)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(outcomes[3]).toBe('rejected');
    // The form's POST and the images reached the server too.
    await expect.poll(() => answered.filter((a) => a.method === 'POST').length).toBeGreaterThanOrEqual(4);
    await expect.poll(() => answered.filter((a) => a.url.startsWith('/report')).length).toBe(2);
    for (const a of answered) {
      // A link or a frame may load the REPL's page (it does no work), never anything else.
      if (a.method === 'GET' && a.url === '/repl') continue;
      expect(a, JSON.stringify(a)).toMatchObject({ status: 403 });
    }
    expect(answered.some((a) => a.url === '/objects/1')).toBe(true);
    expect(ran).toEqual([]);
    expect(session.status.state).toBe('query-only');
    // X-Frame-Options: DENY: the framed REPL shows nothing of the server's.
    const framed = page.frames().find((f) => f.name() !== 'sink' && f !== page.mainFrame() && f.url().includes(server.url.replace('http://', '')));
    const shown = framed ? await framed.evaluate(() => document.body?.innerText ?? '').catch(() => '') : '';
    expect(shown).not.toMatch(/oql>|heapql/);
    await page.close();
  });

  test('DNS rebinding: the attacker\'s name resolving to the server is refused by its Host', async () => {
    const page = await browser.newPage();
    const before = answered.length;
    const answer = await page.goto(`http://${REBOUND}:${server.port}/repl`);
    expect(answer!.status()).toBe(403);
    expect(JSON.parse(await answer!.text()).error).toEqual({ kind: 'forbidden', message: expect.stringMatching(new RegExp(`^Host '${REBOUND}:${server.port}' refused: .*DNS rebinding`)) });
    // From that origin (the attacker's page after rebinding), a query is refused the same way.
    const status = await page.evaluate(() => fetch('/query', { method: 'POST', body: 'SELECT COUNT(*) FROM java.lang.String' }).then((r) => r.status));
    expect(status).toBe(403);
    // (and the browser's own request for /favicon.ico)
    const since = answered.slice(before);
    expect(since.filter((a) => a.url === '/repl' || a.url === '/query')).toHaveLength(2);
    for (const a of since) expect(a, JSON.stringify(a)).toMatchObject({ status: 403 });
    expect(ran).toEqual([]);
    await page.close();
  });
});
