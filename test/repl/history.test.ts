/**
 * The terminal REPL's history file and entries (ts/repl/history.ts): one entry per statement,
 * a multi-line one kept whole in the file (its newlines stored as CR) and read back whole;
 * entries appended (sessions open at once keep each other's), the file trimmed past the cap
 * by one session at a time, without losing what another session appends meanwhile.
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { appendHistory, HISTORY_CAP, loadHistory, statementEntry } from '../../ts/repl/history.js';

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'heapql-history-'));
  dirs.push(dir);
  return path.join(dir, 'history');
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('statementEntry', () => {
  it('keeps one line as typed and joins the lines of a statement with newlines', () => {
    expect(statementEntry(['  !top 3 '])).toBe('  !top 3 ');
    expect(statementEntry(['SELECT COUNT(*)', 'FROM Demo$Session s'])).toBe('SELECT COUNT(*)\nFROM Demo$Session s');
    // The empty line that ended a statement is not part of it.
    expect(statementEntry(['SELECT s FROM X s WHERE', 's.a = ', ''])).toBe('SELECT s FROM X s WHERE\ns.a = ');
    expect(statementEntry(['-- @viz histogram', 'SELECT COUNT(*) AS n FROM X'])).toBe('-- @viz histogram\nSELECT COUNT(*) AS n FROM X');
    expect(statementEntry([''])).toBe('');
    expect(statementEntry(['   '])).toBe('');
  });
});

describe('the history file', () => {
  it('appends a multi-line entry as one line of the file (mode 0600) and reads it back as one entry', () => {
    const file = tempFile();
    const entries = ['SELECT COUNT(*) AS n -- sessions\nFROM Demo$Session s\nWHERE s.createdAt > 0', '!top 3', 'SELECT s FROM X s'];
    for (const e of [...entries].reverse()) expect(appendHistory(file, e)).toBeNull();
    expect(readFileSync(file, 'utf8')).toBe('SELECT s FROM X s\n!top 3\nSELECT COUNT(*) AS n -- sessions\rFROM Demo$Session s\rWHERE s.createdAt > 0\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadHistory(file)).toEqual(entries);
    // The last entry again is not written twice; an older one is, and is read once, as the newest.
    appendHistory(file, entries[0]!);
    appendHistory(file, '!top 3');
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(5);
    expect(loadHistory(file)).toEqual(['!top 3', entries[0], 'SELECT s FROM X s']);
  });

  it('keeps what another session appended since this one started', () => {
    const file = tempFile();
    appendHistory(file, 'mine 1');
    writeFileSync(file, 'theirs 1\n', { flag: 'a' });
    appendHistory(file, 'mine 2');
    expect(loadHistory(file)).toEqual(['mine 2', 'theirs 1', 'mine 1']);
  });

  it('past twice the cap of lines, keeps the newest HISTORY_CAP entries', () => {
    const file = tempFile();
    const old = Array.from({ length: 2 * HISTORY_CAP }, (_, i) => `SELECT ${i} FROM X`);
    writeFileSync(file, `${old.join('\n')}\n`, { mode: 0o600 });
    expect(appendHistory(file, 'SELECT a\nFROM X')).toBeNull();
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(HISTORY_CAP + 1);
    expect(lines.at(-2)).toBe('SELECT a\rFROM X');
    expect(lines[0]).toBe(`SELECT ${HISTORY_CAP + 1} FROM X`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadHistory(file)[0]).toBe('SELECT a\nFROM X');
  });

  it('a trim carries over what another session appended after it read the file', () => {
    const file = tempFile();
    const old = Array.from({ length: 2 * HISTORY_CAP }, (_, i) => `SELECT ${i} FROM X`);
    writeFileSync(file, `${old.join('\n')}\n`, { mode: 0o600 });
    // The other session writes to the file the trim has read and is about to replace.
    expect(appendHistory(file, 'mine', { afterTrimRead: () => appendFileSync(file, 'theirs\n') })).toBeNull();
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.slice(-3)).toEqual(['mine', 'theirs', '']);
    expect(lines).toHaveLength(HISTORY_CAP + 2);
    expect(loadHistory(file).slice(0, 2)).toEqual(['theirs', 'mine']);
    expect(readdirSync(path.dirname(file))).toEqual(['history']);
  });

  it('an entry written to a file that the trim of another session replaced meanwhile is written again to the new file', () => {
    const file = tempFile();
    writeFileSync(file, 'SELECT 1 FROM X\n', { mode: 0o600 });
    // The other session renames its trimmed file over the path between this one's open and write.
    const trimmedByOther = () => {
      writeFileSync(`${file}.other`, 'SELECT 1 FROM X\ntheirs\n', { mode: 0o600 });
      renameSync(`${file}.other`, file);
    };
    expect(appendHistory(file, 'mine', { beforeAppend: trimmedByOther })).toBeNull();
    expect(readFileSync(file, 'utf8')).toBe('SELECT 1 FROM X\ntheirs\nmine\n');
  });

  it('trims only while holding the lock file: not while another session trims; a lock left behind is removed', () => {
    const file = tempFile();
    const lock = `${file}.lock`;
    const old = Array.from({ length: 2 * HISTORY_CAP }, (_, i) => `SELECT ${i} FROM X`);
    writeFileSync(file, `${old.join('\n')}\n`, { mode: 0o600 });
    writeFileSync(lock, '1\n');
    const lines = () => readFileSync(file, 'utf8').split('\n').length - 1;
    expect(appendHistory(file, 'first')).toBeNull();
    expect(lines()).toBe(2 * HISTORY_CAP + 1);
    expect(existsSync(lock)).toBe(true);
    // A lock of a session that ended while trimming (old): removed; the next append trims.
    utimesSync(lock, new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(appendHistory(file, 'second')).toBeNull();
    expect(existsSync(lock)).toBe(false);
    expect(lines()).toBe(2 * HISTORY_CAP + 2);
    expect(appendHistory(file, 'third')).toBeNull();
    expect(lines()).toBe(HISTORY_CAP);
    expect(loadHistory(file).slice(0, 3)).toEqual(['third', 'second', 'first']);
    expect(readdirSync(path.dirname(file))).toEqual(['history']);
  });

  it('reads a file written before (one line an entry, backslashes as they are) and one saved with CRLF', () => {
    const file = tempFile();
    writeFileSync(file, 'SELECT s FROM java.lang.String s WHERE toString(s) LIKE "a\\\\.b"\n\n!count\n');
    expect(loadHistory(file)).toEqual(['!count', 'SELECT s FROM java.lang.String s WHERE toString(s) LIKE "a\\\\.b"']);
    writeFileSync(file, '!count\r\nSELECT COUNT(*)\rFROM X\r\n');
    expect(loadHistory(file)).toEqual(['SELECT COUNT(*)\nFROM X', '!count']);
  });
});
