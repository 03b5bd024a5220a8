/**
 * The browser REPL splits a text of several lines (a paste) into statements as the terminal
 * REPL runs piped lines (ts/web/block.ts against ts/repl/terminal.ts itself): the same
 * statements, in the same order. The terminal runs a statement still open at the end of its
 * input; the browser leaves it at the prompt (`rest`), as the terminal does with a paste.
 */
import { PassThrough, Readable } from 'node:stream';

import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';

import { openHeap, type HeapSession } from '../../ts/index.js';
import { Repl } from '../../ts/repl/dispatch.js';
import { runTerminalRepl } from '../../ts/repl/terminal.js';
import { splitBlock } from '../../ts/web/block.js';
import { DEMO_DUMP } from './repl-server.js';

const TEXTS = [
  'SELECT COUNT(*) FROM java.lang.String;\nSELECT COUNT(*) FROM Demo$Session;',
  '!set limit 5\n!count',
  '!help\nSELECT COUNT(*) FROM java.lang.String',
  'SELECT s FROM Demo$Session s\n!count',
  'SELECT s FROM Demo$Session s\nWHERE s.createdAt > 0\nORDER BY s.createdAt\n!count',
  '-- @viz histogram\nSELECT toString(s.user) AS u, COUNT(*) AS n FROM Demo$Session s GROUP BY toString(s.user)\nSELECT s FROM Demo$Session s LIMIT 1',
  'SELECT s\nFROM Demo$Session s\n\nSELECT x FROM java.lang.String x',
  'SELECT s FROM Demo$Session s\nSELEKT x',
  'SELECT s\n\nFROM Demo$Session s',
  'SELECT COUNT(*) FROM java.lang.String; SELECT 1',
  '  SELECT s FROM Demo$Session s  \n\n\n!count\n',
  'SELECT s FROM Demo$Session s LIMIT 1\nSELECT s\nFROM',
  '-- a comment\n-- @viz piechart\nSELECT toString(s.user) AS u, COUNT(*) AS n FROM Demo$Session s GROUP BY toString(s.user)',
];

describe('splitBlock', () => {
  let session: HeapSession;
  beforeAll(async () => {
    session = await openHeap(DEMO_DUMP);
  });
  afterAll(() => session?.close());

  /** The statements the terminal REPL runs for `text` piped to it (none is run for real; empty ones, which run nothing, left out). */
  async function terminalStatements(text: string): Promise<string[]> {
    const ran: string[] = [];
    const spy = vi.spyOn(Repl.prototype, 'execute').mockImplementation(async (statement: string) => {
      ran.push(statement);
      return true;
    });
    try {
      const output = new PassThrough() as unknown as NodeJS.WriteStream;
      await runTerminalRepl(session, { input: Readable.from([text]), output, errors: output, historyFile: null });
    } finally {
      spy.mockRestore();
    }
    return ran.filter((statement) => statement.trim() !== '');
  }

  test.each(TEXTS)('%j runs as the terminal runs it', async (text) => {
    const { statements, rest } = splitBlock(text);
    expect([...statements, ...(rest.trim() !== '' ? [rest] : [])]).toEqual(await terminalStatements(text));
  });

  test('several statements, and what is left open', () => {
    expect(splitBlock('SELECT s FROM Demo$Session s LIMIT 1\nSELECT s\nFROM')).toEqual({ statements: ['SELECT s FROM Demo$Session s LIMIT 1'], rest: 'SELECT s\nFROM' });
    expect(splitBlock('SELECT s\nFROM Demo$Session s\nWHERE s.createdAt > 0')).toEqual({ statements: ['SELECT s\nFROM Demo$Session s\nWHERE s.createdAt > 0'], rest: '' });
    expect(splitBlock('SELECT s FROM')).toEqual({ statements: [], rest: 'SELECT s FROM' });
  });
});
