import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { HeapqlError } from '../ts/errors.js';
import { checkOutputWritable, chooseOutput, renderReport, writeReport } from '../ts/report/output.js';
import { sampleModel } from './report-sample.js';

function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(HeapqlError);
    expect((e as HeapqlError).code).toBe('ERR_USAGE');
    return (e as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('output choice', () => {
  test('the extension decides; --format overrides; no path is Markdown on stdout', () => {
    expect(chooseOutput('out/report.md')).toEqual({ format: 'md', path: 'out/report.md' });
    expect(chooseOutput('report.HTML')).toEqual({ format: 'html', path: 'report.HTML' });
    expect(chooseOutput('r.htm')).toEqual({ format: 'html', path: 'r.htm' });
    expect(chooseOutput('r.json')).toEqual({ format: 'json', path: 'r.json' });
    expect(chooseOutput('r.md', 'json')).toEqual({ format: 'json', path: 'r.md' });
    expect(chooseOutput('report', 'html')).toEqual({ format: 'html', path: 'report' });
    expect(chooseOutput()).toEqual({ format: 'md', path: null });
    expect(chooseOutput(undefined, 'json')).toEqual({ format: 'json', path: null });
  });

  test('an unknown extension or format is a usage error naming the choices', () => {
    expect(usage(() => chooseOutput('report.txt'))).toBe(
      'cannot tell the report format from the extension ".txt" of report.txt; name the file .md, .html or .json, or give --format md|html|json',
    );
    expect(usage(() => chooseOutput('report'))).toContain('a path without an extension');
    expect(usage(() => chooseOutput('r.md', 'pdf'))).toBe('unknown report format "pdf"; use --format md, html or json');
  });
});

describe('an output path that holds a heap dump', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-out-dump-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fixtures = path.join(import.meta.dirname, '../fixtures');

  test('is refused before anything runs, plain, gzip or chunked gzip, whatever --format says', () => {
    const plain = path.join(dir, 'b.hprof');
    fs.copyFileSync(path.join(fixtures, 'demo/demo.hprof'), plain);
    const single = path.join(dir, 'b.hprof.gz');
    fs.writeFileSync(single, zlib.gzipSync(fs.readFileSync(plain)));
    const chunked = path.join(dir, 'small.hprof.gz');
    fs.copyFileSync(path.join(fixtures, 'dumps/gz/GzSmall-jdk17.hprof.gz'), chunked);
    for (const p of [plain, single, chunked]) {
      for (const format of ['md', 'json', undefined]) {
        expect(usage(() => chooseOutput(p, format))).toBe(
          `${p} is a heap dump: heapql does not write its output over it; name a new file (.md, .html or .json) (to compare two dumps: heapql diff <baseline> <current>)`,
        );
      }
    }
    // Untouched.
    expect(fs.readFileSync(plain).subarray(0, 12).toString()).toBe('JAVA PROFILE');
  });

  test('an earlier report, or a gzip file of something else, is written over as before', () => {
    const old = path.join(dir, 'old.md');
    fs.writeFileSync(old, '# an earlier report\n');
    expect(chooseOutput(old)).toEqual({ format: 'md', path: old });
    const other = path.join(dir, 'notes.gz');
    fs.writeFileSync(other, zlib.gzipSync('not a dump'));
    expect(chooseOutput(other, 'json')).toEqual({ format: 'json', path: other });
  });
});

describe('writing', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heapql-out-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('writes each format to its file, and Markdown to stdout', () => {
    for (const ext of ['md', 'html', 'json'] as const) {
      const p = path.join(dir, `report.${ext}`);
      writeReport(sampleModel(), chooseOutput(p));
      expect(fs.readFileSync(p, 'utf8')).toBe(renderReport(sampleModel(), ext));
    }
    expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8')).schemaVersion).toBe(10);
    let out = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((out += String(chunk)), done()) });
    writeReport(sampleModel(), chooseOutput(), sink);
    expect(out).toMatch(/^# Heap report: demo-service\.hprof\n/);
    expect(fs.readdirSync(dir).sort()).toEqual(['report.html', 'report.json', 'report.md']);
  });

  test('viz fallbacks land in the written report\'s warnings', () => {
    const m = sampleModel();
    m.queries[3].viz = { kind: 'treemap' };
    const json = JSON.parse(renderReport(m, 'json'));
    expect(json.warnings).toEqual([{ source: 'viz', message: 'q4: cannot draw a treemap: the result has no numeric column to chart; showing the table' }]);
  });

  test('a missing directory or a directory as the target is a clear I/O error', () => {
    const missing = path.join(dir, 'nope', 'r.md');
    expect(() => writeReport(sampleModel(), chooseOutput(missing))).toThrow(
      `cannot write the report to ${missing}: the directory ${path.join(dir, 'nope')} does not exist (ENOENT): create it, or choose another path`,
    );
    fs.mkdirSync(path.join(dir, 'd.html'));
    expect(() => writeReport(sampleModel(), chooseOutput(path.join(dir, 'd.html')))).toThrow(
      `cannot write the report to ${path.join(dir, 'd.html')}: ${path.join(dir, 'd.html')} is a directory (EISDIR): name a file, such as ${path.join(dir, 'd.html', 'report.html')}`,
    );
  });

  test.skipIf(!fs.existsSync('/proc/version'))('a directory that takes no new file: the error names the path and the reason, not the temporary file', () => {
    for (const attempt of [() => writeReport(sampleModel(), chooseOutput('/proc/version.md')), () => checkOutputWritable(chooseOutput('/proc/version.md'))]) {
      let message = '';
      try {
        attempt();
      } catch (e) {
        expect((e as HeapqlError).code).toBe('ERR_IO');
        message = (e as Error).message;
      }
      expect(message).toBe('cannot write the report to /proc/version.md: /proc takes no new files (ENOENT): choose a path in a directory you may write to');
    }
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, '');
    expect(() => checkOutputWritable(chooseOutput(path.join(file, 'r.md')))).toThrow(
      `cannot write the report to ${path.join(file, 'r.md')}: ${file} is not a directory (ENOTDIR): check the path, or choose another`,
    );
  });

  test('a symbolic link to a file: the file gets the report, the link stays', () => {
    const real = path.join(dir, 'real.md');
    const link = path.join(dir, 'link.md');
    fs.writeFileSync(real, 'previous report');
    fs.symlinkSync(real, link);
    checkOutputWritable(chooseOutput(link));
    writeReport(sampleModel(), chooseOutput(link));
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(real, 'utf8')).toBe(renderReport(sampleModel(), 'md'));
    expect(fs.readdirSync(dir).sort()).toEqual(['link.md', 'real.md']);
  });

  test('a FIFO, a device or a link to nothing is refused before anything is written, never replaced', () => {
    const fifo = path.join(dir, 'fifo.md');
    execFileSync('mkfifo', [fifo]);
    // A link to /dev/null: were it renamed over, the link would be replaced, not the device.
    const device = path.join(dir, 'null.md');
    fs.symlinkSync('/dev/null', device);
    const dangling = path.join(dir, 'dangling.md');
    fs.symlinkSync(path.join(dir, 'missing.md'), dangling);
    const cases: [string, string][] = [
      [fifo, 'it is a FIFO, and a report is written whole to a file or not at all'],
      [device, 'it is a character device, and a report is written whole to a file or not at all'],
      [dangling, 'it is a symbolic link to nothing; name the file itself'],
    ];
    for (const [p, reason] of cases) {
      // chooseOutput's look for a heap dump there must not wait on the FIFO.
      const choice = chooseOutput(p, 'md');
      expect(() => checkOutputWritable(choice)).toThrow(`cannot write the report to ${p}: ${reason}`);
      expect(() => writeReport(sampleModel(), choice)).toThrow(`cannot write the report to ${p}: ${reason}`);
    }
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
    expect(fs.readlinkSync(device)).toBe('/dev/null');
    expect(fs.readdirSync(dir).sort()).toEqual(['dangling.md', 'fifo.md', 'null.md']);
  });

  test('the check before the analysis leaves nothing behind and an existing report untouched', () => {
    const p = path.join(dir, 'old.md');
    fs.writeFileSync(p, 'previous report');
    checkOutputWritable(chooseOutput(p));
    checkOutputWritable(chooseOutput(path.join(dir, 'new.json')));
    checkOutputWritable(chooseOutput());
    expect(fs.readdirSync(dir)).toEqual(['old.md']);
    expect(fs.readFileSync(p, 'utf8')).toBe('previous report');
  });
});
