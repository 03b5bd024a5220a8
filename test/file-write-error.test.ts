/**
 * One wording for a failed write of a file the user named (ts/file-write-error.ts): every code
 * it knows, on real paths where the reason looks at them (a missing directory against one that
 * takes no new files, the part of a path that is a file); and the same failure through the
 * report writer (report/output.ts) and the REPL's `!save` (repl/file-save.ts) reads the same
 * after each caller's own `cannot write …:` (they used to word it each its own way).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';

import { cannotWrite, fileWriteProblem } from '../ts/file-write-error.js';
import { problem, saveBlocks } from '../ts/repl/file-save.js';
import { checkOutputWritable, chooseOutput, writeReport } from '../ts/report/index.js';
import { sampleModel } from './report-sample.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'heapql-write-error-'));
});

const failed = (code: string, message = `${code}: raw message`) => Object.assign(new Error(message), { code });

describe('fileWriteProblem', () => {
  it('says what each code means and what to do', () => {
    const missing = path.join(dir, 'no-such-dir', 'out.csv');
    writeFileSync(path.join(dir, 'plain'), 'x');
    const throughFile = path.join(dir, 'plain', 'deeper', 'out.csv');
    mkdirSync(path.join(dir, 'taken.csv'));
    const inDir = path.join(dir, 'out.csv');
    const table: [code: string, file: string, reason: string][] = [
      ['ENOENT', missing, `the directory ${path.join(dir, 'no-such-dir')} does not exist (ENOENT): create it, or choose another path`],
      // The directory is there: it takes no new files (/proc, a directory being removed).
      ['ENOENT', inDir, `${dir} takes no new files (ENOENT): choose a path in a directory you may write to`],
      ['ENOTDIR', throughFile, `${path.join(dir, 'plain')} is not a directory (ENOTDIR): check the path, or choose another`],
      ['ENOTDIR', inDir, `a part of ${dir} is not a directory (ENOTDIR): check the path`],
      ['EISDIR', path.join(dir, 'taken.csv'), `${path.join(dir, 'taken.csv')} is a directory (EISDIR): name a file, such as ${path.join(dir, 'taken.csv', 'result.csv')}`],
      ['EACCES', inDir, 'permission denied (EACCES): choose a path in a directory you may write to, or change the permissions'],
      ['EPERM', inDir, 'permission denied (EPERM): choose a path in a directory you may write to, or change the permissions'],
      ['EROFS', inDir, `${dir} is on a read-only file system (EROFS): choose a path on another file system`],
      ['ENOSPC', inDir, 'no space left on the device (ENOSPC): free some space, or choose a path on another device'],
      ['EDQUOT', inDir, 'the disk quota is used up (EDQUOT): free some space, or choose a path on another device'],
      ['EFBIG', inDir, "the file grew past the largest this file system or the process's file size limit (ulimit -f) allows (EFBIG): choose a path on another file system, or raise the limit"],
      ['ENAMETOOLONG', inDir, 'the name is too long for the file system (ENAMETOOLONG): choose a shorter one'],
      ['ELOOP', inDir, `the path goes through too many symbolic links, or a loop of them (ELOOP): check the links along ${inDir}`],
      // A code of no meaning here: the system's words, and what to do.
      ['EIO', inDir, 'EIO: raw message: check the path, or choose another'],
    ];
    for (const [code, file, reason] of table) expect([code, fileWriteProblem(failed(code), file)]).toEqual([code, reason]);
  });

  it('shows the path as given, suggests the name it is told, and never names the temporary file', () => {
    const home = path.join(dir, 'home');
    mkdirSync(home);
    // `~/missing/x.csv` is `<home>/missing/x.csv` to the file system.
    expect(fileWriteProblem(failed('ENOENT'), path.join(home, 'missing', 'x.csv'), { shown: '~/missing/x.csv' })).toBe(
      'the directory ~/missing does not exist (ENOENT): create it, or choose another path',
    );
    writeFileSync(path.join(home, 'f'), '');
    expect(fileWriteProblem(failed('ENOTDIR'), path.join(home, 'f', 'x.csv'), { shown: '~/f/x.csv' })).toBe('~/f is not a directory (ENOTDIR): check the path, or choose another');
    expect(fileWriteProblem(failed('EISDIR'), home, { shown: 'out', suggestedName: 'report.html' })).toBe('out is a directory (EISDIR): name a file, such as out/report.html');
    const tmp = path.join(dir, 'r.md.123.tmp');
    expect(fileWriteProblem(failed('EIO', `EIO: i/o error, write '${tmp}'`), path.join(dir, 'r.md'), { temporary: tmp })).toBe(
      `EIO: i/o error, write '${path.join(dir, 'r.md')}': check the path, or choose another`,
    );
    expect(cannotWrite('a.md', 'why', 'the report')).toBe('cannot write the report to a.md: why');
    expect(cannotWrite('a.md', 'why')).toBe('cannot write a.md: why');
  });
});

/** The reason after `cannot write the report to <p>: `, from the check before the analysis and from the write. */
function reportReasons(p: string, format = 'md'): string[] {
  const reasons: string[] = [];
  for (const attempt of [() => checkOutputWritable(chooseOutput(p, format)), () => writeReport(sampleModel(), chooseOutput(p, format))]) {
    let message = 'written';
    try {
      attempt();
    } catch (e) {
      message = (e as Error).message;
    }
    const prefix = `cannot write the report to ${p}: `;
    expect(message.startsWith(prefix), message).toBe(true);
    reasons.push(message.slice(prefix.length));
  }
  return reasons;
}

/** `!save`'s reason (what `cannot write <p>: ` is put before). */
async function saveReason(p: string): Promise<string> {
  return saveBlocks(p, ['a\n']).then(
    () => 'written',
    (e: unknown) => (e as Error).message,
  );
}

describe('the report writer and !save say the same', () => {
  it('a missing directory, a path through a file, a directory as the target', async () => {
    writeFileSync(path.join(dir, 'plain'), 'x');
    mkdirSync(path.join(dir, 'taken'));
    const cases: [string, string][] = [
      // Were: "directory … does not exist; create it or choose another path" against
      // "the directory … does not exist (ENOENT): create it first, or save somewhere else".
      [path.join(dir, 'missing', 'out.md'), `the directory ${path.join(dir, 'missing')} does not exist (ENOENT): create it, or choose another path`],
      // Were: "… is not a directory; choose another path" against "… is not a directory, or a part of it is not (ENOTDIR): check the path".
      [path.join(dir, 'plain', 'out.md'), `${path.join(dir, 'plain')} is not a directory (ENOTDIR): check the path, or choose another`],
      [path.join(dir, 'plain', 'deeper', 'out.md'), `${path.join(dir, 'plain')} is not a directory (ENOTDIR): check the path, or choose another`],
    ];
    for (const [p, reason] of cases) {
      expect(reportReasons(p)).toEqual([reason, reason]);
      expect(await saveReason(p)).toBe(reason);
    }
    // Were: "it is a directory; name a file ending in .md" against "<p> is a directory (EISDIR): name a file, such as <p>/result.csv";
    // each suggests a name of its own kind.
    const taken = path.join(dir, 'taken');
    expect(reportReasons(taken)).toEqual(Array(2).fill(`${taken} is a directory (EISDIR): name a file, such as ${path.join(taken, 'report.md')}`));
    expect(await saveReason(taken)).toBe(`${taken} is a directory (EISDIR): name a file, such as ${path.join(taken, 'result.csv')}`);
  });

  it.skipIf(process.platform !== 'linux')('a directory that takes no new files (/proc): the same words, no temporary file named', async () => {
    // Were: "no file can be created in /proc (it does not take new files); choose a path in a directory you can write to"
    // against "the directory /proc does not exist (ENOENT): create it first, or save somewhere else" (which it does).
    const reason = '/proc takes no new files (ENOENT): choose a path in a directory you may write to';
    expect(reportReasons('/proc/heapql-out.md')).toEqual([reason, reason]);
    expect(await saveReason('/proc/heapql-out.md')).toBe(reason);
  });

  it('!save reads as the module says for every code', () => {
    for (const code of ['ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'EFBIG', 'ENAMETOOLONG', 'ELOOP', 'EIO']) {
      const file = path.join(dir, 'x.csv');
      expect(problem(failed(code), file)).toBe(fileWriteProblem(failed(code), file, { suggestedName: 'result.csv' }));
    }
  });
});
