/**
 * The terminal closed while heapql draws a progress bar (the window shut, ssh dropped) when
 * heapql is not the one process the hang-up reaches: run from a script, the script (the
 * session leader) gets SIGHUP, heapql does not, and its next write to the terminal fails with
 * EIO. heapql then ends as a hang-up ends it, by SIGHUP (status 129): before, the error was
 * uncaught and Node's exit, putting back the settings of a terminal that is gone, aborted
 * (SIGABRT, a core dump). Both the report command and the REPL's `!analyze`.
 *
 * Driven in a real pseudo-terminal: `sh` runs heapql, ignores the hang-up itself and writes
 * heapql's exit status (128 + signal when a signal ended it) to a file when heapql is gone.
 *
 * And SIGTERM to the REPL while its bar is drawn: the signal, re-raised once the bar is down,
 * ends the process without Node's own reset of the terminal, which stayed in raw mode with
 * bracketed paste on; now both are turned off first.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { writeSlowDump } from '../mcp/slow-dump.js';
import { closeTerminals, Terminal } from '../repl/pty-terminal.js';

const BIN = path.resolve(__dirname, '../../bin/heapql.js');
/** heapql in the background of a script that outlives the hang-up, then its status in $STATUS. */
const SCRIPT = 'exec 3<&0; "$@" <&3 3<&- & trap "" HUP; wait $!; echo $? > "$STATUS"';

let dir: string;
let dump: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-terminal-gone-'));
  // Big enough for the full analysis to run for a while after its bar appears.
  dump = writeSlowDump(dir, 3_000_000);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => closeTerminals());

function underScript(args: string[], status: string): Terminal {
  return new Terminal(['-c', SCRIPT, 'sh', process.execPath, BIN, ...args], dir, { program: '/bin/sh', env: { STATUS: status } });
}

/** Closes the terminal, waits for the script to end, and returns heapql's status. */
async function closeAndStatus(term: Terminal, status: string): Promise<number> {
  (term.pty as unknown as { destroy(): void }).destroy();
  await term.exited;
  return Number(readFileSync(status, 'utf8').trim());
}

describe('the terminal closed while the progress bar is drawn', () => {
  it('heapql <dump> <report>: ends by SIGHUP (129), not by SIGABRT or SIGSEGV', async () => {
    const status = path.join(dir, 'report.status');
    const term = underScript([dump, path.join(dir, 'report.md'), '--no-cache'], status);
    await term.waitFor(/\d+%/);
    expect(await closeAndStatus(term, status)).toBe(129);
  });

  it('the REPL during !analyze: the same', async () => {
    const status = path.join(dir, 'repl.status');
    const term = underScript(['query', dump, '--repl', '--no-cache'], status);
    await term.waitFor('oql> ');
    term.type('!analyze\r');
    await term.waitFor(/\d+%/);
    expect(await closeAndStatus(term, status)).toBe(129);
  });
});

describe('SIGTERM to the REPL while !analyze draws its bar', () => {
  it('the terminal is given back as it was: raw mode off (icanon, echo), bracketed paste off', async () => {
    // heapql under a script that then shows the terminal's modes (`stty -a`) as heapql left them.
    const script = 'exec 3<&0; "$@" <&3 3<&- & echo "heapql pid $!"; wait $!; echo "status $?"; stty -a';
    const t = new Terminal(['-c', script, 'sh', process.execPath, BIN, 'query', dump, '--repl', '--no-cache'], dir, { program: '/bin/sh' });
    let at = await t.waitFor(/heapql pid \d+/);
    const pid = Number(/heapql pid (\d+)/.exec(t.screen)![1]);
    at = await t.waitFor('oql> ', at);
    t.type('!analyze\r');
    at = await t.waitFor(/\d+%/, at);
    process.kill(pid, 'SIGTERM');
    at = await t.waitFor('status 143', at);
    await t.exited;
    const modes = t.screen.slice(at);
    expect(modes).toMatch(/(^|[\s;])icanon\b/m);
    expect(modes).toMatch(/(^|[\s;])echo\b/m);
    expect(t.raw.lastIndexOf('\x1b[?2004l')).toBeGreaterThan(t.raw.lastIndexOf('\x1b[?2004h'));
  });
});

describe('Ctrl-C while a long query prints to the terminal', () => {
  it('stops the output soon after (exit 130), not when every row is printed', async () => {
    const t = new Terminal(['query', dump, '--no-cache', '--query', 'SELECT n FROM Node n'], dir);
    // Some 3000 rows on the screen (the rows come in object order): the output is well under way.
    await t.waitFor('Node @ 0x10bb50');
    t.type('\x03');
    expect(await t.exited).toBe(130);
    const rows = t.screen.split('\n').filter((l) => l.includes('Node @')).length;
    // The stream lets the event loop turn every 8 batches of 1000 rows: the Ctrl-C is acted on
    // within a few thousand rows (16,000 seen), where it waited for hundreds of thousands before.
    expect(rows).toBeLessThan(100_000);
    expect(t.screen).toContain('interrupted');
  });
});
