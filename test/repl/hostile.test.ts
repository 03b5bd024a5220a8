/**
 * Text from the dump that a terminal would act on (ESC and C1 CSI sequences, CR, line breaks,
 * bidi overrides, NUL) reaches the REPL's terminal only escaped: query tables, `!row`, `!obj`,
 * `!refs`, `!path`, `!dom`, `!classes`, `!describe` and Tab completion; `!save` TSV escapes CR;
 * a backslash is shown doubled. The dump is the demo with hostile names and strings patched in
 * (hostile-dump.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ESCAPED_COMPLETION_NOTE } from '../../ts/repl/terminal.js';
import { closeTerminals, Terminal } from './pty-terminal.js';
import {
  CJK_CLASS, HOSTILE_CLASS_SHOWN, HOSTILE_FIELD_SHOWN, HOSTILE_THREAD, HOSTILE_THREAD_SHOWN, NUL_THREAD_SHOWN, root, writeHostileDump,
} from './hostile-dump.js';

const dir = mkdtempSync(path.join(tmpdir(), 'heapql-hostile-'));
let dump: string;
beforeAll(() => {
  dump = writeHostileDump(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A character a terminal acts on, or that reorders the line (LF aside: it ends output lines). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** The piped REPL (`heapql <command> <dump> --repl`) on `lines`. */
function repl(lines: string[], command = 'query'): { out: string; err: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), command, dump, '--repl'], {
    input: `${lines.join('\n')}\n`,
    encoding: 'utf8',
    env: { ...process.env, XDG_STATE_HOME: dir, HEAPQL_DEBUG: '', NO_COLOR: '1' },
  });
  expect(r.status, r.stderr).toBe(0);
  return { out: r.stdout, err: r.stderr };
}

/** `out` carries no control character, and no line begins where a name's line break would put it. */
function expectClean(out: string): void {
  expect(out).not.toMatch(CONTROL);
  expect(out).not.toMatch(/^(fake|At\b)/m);
}

const THREADS = 'SELECT toString(t.name) AS n, t FROM java.lang.Thread t';
// (`[\s\S]`: the name has a line break.)
const CTX = 'SELECT x FROM INSTANCEOF java.lang.Object x WHERE classof(x).@name LIKE "Demo.Ctx[\\s\\S]*" LIMIT 1';

describe('the piped REPL on hostile text', () => {
  it('tables and !row show thread names escaped (CR as \\r, backslash doubled), columns aligned', () => {
    const { out } = repl([THREADS, '!filter 31m', '!row 1', '!unique n 3']);
    expectClean(out);
    expect(out).toContain(HOSTILE_THREAD_SHOWN);
    expect(out).toContain(NUL_THREAD_SHOWN);
    expect(out).toContain(`n = ${HOSTILE_THREAD_SHOWN}\n`);
    const table = out.split('\n').slice(0, 15);
    const bar = table[0]!.indexOf(' | ');
    for (const line of table.slice(2)) expect(line.indexOf(' | '), line).toBe(bar);
  });

  it('!save .tsv escapes CR, LF, TAB and backslash: one line per row, the rest as it is', () => {
    const file = path.join(dir, 'threads.tsv');
    repl([THREADS, `!save ${file}`]);
    const tsv = readFileSync(file, 'utf8');
    expect(tsv).not.toContain('\r');
    expect(tsv.split('\n')).toHaveLength(15);
    expect(tsv).toContain(`${HOSTILE_THREAD.replace(/\\/g, '\\\\').replace('\r', '\\r').replace('\n', '\\n')}\t`);
    expect(tsv).toContain('real\x00nul\\rcr!!\t');
  });

  it('!classes, !describe and !obj show class and field names escaped', () => {
    const { out } = repl(['!classes Demo', '!describe Demo$Session', 'SELECT s FROM Demo$Session s LIMIT 1', '!obj', CTX, '!obj']);
    expectClean(out);
    expect(out).toContain(HOSTILE_CLASS_SHOWN);
    expect(out).toContain(CJK_CLASS);
    // !describe and !obj: the field's name, its column aligned with the others'.
    expect(out).toMatch(new RegExp(`\\n  long    ${HOSTILE_FIELD_SHOWN.replace(/[\\[\]$]/g, '\\$&')}  \\(Demo\\$Session\\)\\n`));
    expect(out).toMatch(/\n {2}object {2}attributes {12}\(Demo\$Session\)\n/);
    expect(out).toMatch(new RegExp(`\\n  long    ${HOSTILE_FIELD_SHOWN.replace(/[\\[\]$]/g, '\\$&')}  = \\d+\\n`));
    expect(out).toMatch(/\n {2}object {2}attributes {12}= java\.util\.ArrayList @/);
    expect(out).toMatch(new RegExp(`\\nobject +${HOSTILE_CLASS_SHOWN.replace(/[\\[\]$]/g, '\\$&')} @ 0x`));
  });

  it('errors: a did-you-mean class name escaped, and no control character typed in a command comes back raw', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'bin/heapql.js'), 'query', dump, '--repl'], {
      input: `!describe Demo$Ctx]0;TITLE[31mRED[0mfakeC1rtl\\u0000\n${THREADS}\n!sort \x1b]0;T\x07\n`,
      encoding: 'utf8',
      env: { ...process.env, XDG_STATE_HOME: dir, HEAPQL_DEBUG: '', NO_COLOR: '1' },
    });
    expect(r.stderr).toContain(`did you mean ${HOSTILE_CLASS_SHOWN}`);
    expect(r.stderr).toContain("no column '\\u001b]0;T\\u0007' in the last result");
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).not.toMatch(/^fake/m);
  });

  it('!refs, !path and !dom (full analysis) show labels escaped', () => {
    const { out } = repl([CTX, '!refs', '!path', '!dom'], 'analyze');
    expectClean(out);
    const label = new RegExp(`${HOSTILE_CLASS_SHOWN.replace(/[\\[\]$]/g, '\\$&')} @ 0x[0-9a-f]+  #\\d+`, 'g');
    // !refs' heading and its referrers, the path's last step, !dom's heading.
    expect(out.match(label)?.length).toBeGreaterThanOrEqual(3);
    expect(out).toContain('referred to by (');
    expect(out).toMatch(/└─ \.\S+ → Demo\$Ctx\\u001b/);
    expect(out).toMatch(/\nretained size {2}\d/);
  });
});

afterEach(closeTerminals);

describe('Tab completion in a terminal', () => {
  it('lists a class name with control characters escaped, and inserts only what can be typed of it', async () => {
    const t = new Terminal(['query', dump, '--repl'], dir, { cols: 200 });
    let at = await t.waitFor('oql> ');
    // (A Tab completes only as the last key of what arrives at once: one write each, after the echo.)
    t.pty.write('!describe Demo$Ct');
    at = await t.waitFor('!describe Demo$Ct', at);
    // One candidate: Tab inserts up to the ESC, never the sequence.
    t.pty.write('\t');
    at = await t.waitFor('x', at);
    // Tab again: the list, escaped, with the note; the line stays as it was.
    t.pty.write('\t');
    at = await t.waitFor(ESCAPED_COMPLETION_NOTE, at);
    expect(t.screen.slice(at - 400, at)).toContain(`\n${HOSTILE_CLASS_SHOWN}\n`);
    at = await t.waitFor('oql> !describe Demo$Ctx', at);
    // Every Demo class: Tab inserts their common prefix (`Demo`), Tab again lists them.
    t.pty.write('\x15');
    t.pty.write('!describe Dem');
    at = await t.waitFor('!describe Dem', at);
    t.pty.write('\t');
    at = await t.waitFor('o', at);
    // Everything the second Tab prints: the list, the note, the line again.
    const listFrom = at;
    t.pty.write('\t');
    at = await t.waitFor(ESCAPED_COMPLETION_NOTE, at);
    const list = t.screen.slice(listFrom, at);
    expect(list).toContain(HOSTILE_CLASS_SHOWN);
    expect(list).toContain(CJK_CLASS);
    expect(list).toContain('Demo$Session');
    expect(list).not.toContain('java.lang.String');
    t.pty.write('\x15!quit\r');
    expect(await t.exited).toBe(0);
    // The dump's sequences never reached the terminal (readline's own CSI sequences aside).
    for (const raw of ['\x1b]0;TITLE', '\x07', '\x1b[31mRED', '\u009b', '\u202e', '\nfake']) expect(t.raw).not.toContain(raw);
  });
});

describe('errors in a terminal', () => {
  it('an error quoting a name with a line break keeps it on its line (the break escaped); an OQL error keeps its indented lines', async () => {
    const t = new Terminal(['query', dump, '--repl'], dir);
    let at = await t.waitFor('oql> ');
    // The field `created\e[2J\nAt` of Demo$Session, quoted in the list of its fields.
    t.type('SELECT x.nope FROM Demo$Session x\r');
    at = await t.waitFor(/has no field 'nope'[^\n]*\n/, at);
    at = await t.waitFor('oql> ', at);
    const typed = t.raw.indexOf('SELECT x.nope');
    const answer = t.raw.slice(t.raw.indexOf('\n', typed) + 1, t.raw.indexOf('oql> ', typed));
    // Every byte as the terminal got it: the message on one line, ended by the terminal's CR LF,
    // with the name's ESC and line break as escapes (`At` starts no line); only the error's own
    // lines follow it (the query and a caret, indented), then readline's CSIs that redraw the
    // prompt.
    // eslint-disable-next-line no-control-regex
    const [line, ...rest] = answer.replace(/(\x1b\[[0-9;]*[A-Za-z])*$/, '').split('\r\n');
    expect(line).toMatch(/^error: .*has no field 'nope' \(its fields: .*created\\u001b\[2J\\nAt, /);
    expect(line).not.toMatch(CONTROL);
    expect(rest.at(-1)).toBe('');
    for (const own of rest.slice(0, -1)) {
      expect(own, JSON.stringify(answer)).toMatch(/^ {2}/);
      expect(own).not.toMatch(CONTROL);
    }
    // An OQL error's own lines (the query and the caret, indented) stay lines.
    t.type('SELECT s FORM Demo$Session s\r');
    at = await t.waitFor('oql> ', await t.waitFor('^^^^', at));
    const syntax = t.raw.slice(t.raw.indexOf('SELECT s FORM'));
    expect(syntax).toMatch(/\r\nerror: query:1:10: [^\r\n]*\r\n {2}SELECT s FORM Demo\$Session s\r\n {11}\^{4}\r\n/);
    t.type('!quit\r');
    expect(await t.exited).toBe(0);
  });
});
