/**
 * The terminal REPL's history file and entries (ts/repl/history.ts): one entry per statement,
 * a multi-line one kept whole in the file (its newlines stored as CR) and read back whole.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { loadHistory, saveHistory, statementEntry } from '../../ts/repl/history.js';

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
  it('stores a multi-line entry on one line of the file and reads it back as one entry', () => {
    const file = tempFile();
    const entries = ['SELECT COUNT(*) AS n -- sessions\nFROM Demo$Session s\nWHERE s.createdAt > 0', '!top 3', 'SELECT s FROM X s'];
    expect(saveHistory(file, entries)).toBeNull();
    expect(readFileSync(file, 'utf8')).toBe('SELECT s FROM X s\n!top 3\nSELECT COUNT(*) AS n -- sessions\rFROM Demo$Session s\rWHERE s.createdAt > 0\n');
    expect(loadHistory(file)).toEqual(entries);
  });

  it('reads a file written before (one line an entry, backslashes as they are) and one saved with CRLF', () => {
    const file = tempFile();
    writeFileSync(file, 'SELECT s FROM java.lang.String s WHERE toString(s) LIKE "a\\\\.b"\n\n!count\n');
    expect(loadHistory(file)).toEqual(['!count', 'SELECT s FROM java.lang.String s WHERE toString(s) LIKE "a\\\\.b"']);
    writeFileSync(file, '!count\r\nSELECT COUNT(*)\rFROM X\r\n');
    expect(loadHistory(file)).toEqual(['SELECT COUNT(*)\nFROM X', '!count']);
  });
});
