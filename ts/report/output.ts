/**
 * Where the report goes and in which format: the format follows the path's extension (`.md`,
 * `.html`, `.json`), `--format` overrides, and no path prints Markdown to stdout.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

import { HeapqlError, usageError } from '../errors.js';
import { cannotWrite, fileWriteProblem } from '../file-write-error.js';
import { withVizWarnings } from './charts.js';
import { renderHtml, renderWasteHtml } from './html.js';
import { renderJson, renderWasteJson } from './json.js';
import { renderMarkdown, renderWasteMarkdown } from './markdown.js';
import type { ReportModel, WasteModel } from './model.js';

export type ReportFormat = 'md' | 'html' | 'json';
export const REPORT_FORMATS: readonly ReportFormat[] = ['md', 'html', 'json'];

const BY_EXTENSION: Record<string, ReportFormat> = { '.md': 'md', '.markdown': 'md', '.html': 'html', '.htm': 'html', '.json': 'json' };
const BY_NAME: Record<string, ReportFormat> = { md: 'md', markdown: 'md', html: 'html', json: 'json' };

export interface OutputChoice {
  format: ReportFormat;
  /** null: standard output. */
  path: string | null;
}

/**
 * Decides the format; a usage error names the choices when neither the path nor --format tells,
 * and refuses a path that holds a heap dump (a slip such as `heapql a.hprof b.hprof --format
 * json`, meant as a diff, would replace the dump, often the only copy, with the report). A
 * directory is said to be one, with a file in it to name (`what` names the output, as
 * `checkOutputWritable`'s errors do), before its lack of an extension is.
 */
export function chooseOutput(reportPath?: string | null, format?: string | null, what: OutputName = REPORT_OUTPUT): OutputChoice {
  const p = reportPath || null;
  if (p !== null && isHeapDump(p)) {
    throw usageError(
      `${p} is a heap dump: heapql does not write its output over it; name a new file (.md, .html or .json)` +
        ' (to compare two dumps: heapql diff <baseline> <current>)',
    );
  }
  if (format) {
    const f = Object.hasOwn(BY_NAME, format.toLowerCase()) ? BY_NAME[format.toLowerCase()] : undefined; // not `constructor`
    if (!f) throw usageError(`unknown report format "${format}"; use --format md, html or json`);
    return { format: f, path: p };
  }
  if (p === null) return { format: 'md', path: null };
  const ext = path.extname(p).toLowerCase();
  const f = BY_EXTENSION[ext];
  if (!f) {
    if (isDirectory(p)) {
      const reason = fileWriteProblem({ code: 'EISDIR' }, path.resolve(p), { shown: p, suggestedName: `${what.stem}.md` });
      throw new HeapqlError('ERR_IO', cannotWrite(p, `${reason} (its extension, .md, .html or .json, gives the format)`, what.the));
    }
    throw usageError(
      `cannot tell the report format from ${ext ? `the extension "${ext}"` : 'a path without an extension'} of ${p}; ` +
        'name the file .md, .html or .json, or give --format md|html|json',
    );
  }
  return { format: f, path: p };
}

/** Whether `p` is a directory (a link to one too). */
function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `file` is an existing HPROF file, plain or gzip-compressed (by its first bytes). */
function isHeapDump(file: string): boolean {
  const magic = Buffer.from('JAVA PROFILE ');
  let head: Buffer;
  try {
    // Only a regular file is opened: opening a FIFO would wait for a writer forever.
    if (!fs.statSync(file).isFile()) return false;
    const fd = fs.openSync(file, 'r');
    try {
      head = Buffer.alloc(64 * 1024);
      head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false; // no such file (the usual case), a directory, unreadable: the write says why
  }
  if (head.subarray(0, magic.length).equals(magic)) return true;
  if (head[0] !== 0x1f || head[1] !== 0x8b) return false;
  try {
    // The start of the first member is enough; the rest of it is not there.
    const start = zlib.gunzipSync(head, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    return start.subarray(0, magic.length).equals(magic);
  } catch {
    return false;
  }
}

/** The report text in one format; viz fallbacks are added to the model's warnings first. */
export function renderReport(model: ReportModel, format: ReportFormat): string {
  const m = withVizWarnings(model);
  switch (format) {
    case 'md':
      return renderMarkdown(m);
    case 'html':
      return renderHtml(m);
    case 'json':
      return renderJson(m);
  }
}

/** The waste model's text in one format. */
export function renderWaste(model: WasteModel, format: ReportFormat): string {
  switch (format) {
    case 'md':
      return renderWasteMarkdown(model);
    case 'html':
      return renderWasteHtml(model);
    case 'json':
      return renderWasteJson(model);
  }
}

/** Renders and writes (or prints); the file is written whole or not at all. */
export function writeReport(model: ReportModel, choice: OutputChoice, stdout: NodeJS.WritableStream = process.stdout): void {
  writeOutput(renderReport(model, choice.format), choice, stdout);
}

/** `writeReport` for the waste model. */
export function writeWaste(model: WasteModel, choice: OutputChoice, stdout: NodeJS.WritableStream = process.stdout): void {
  writeOutput(renderWaste(model, choice.format), choice, stdout, WASTE_OUTPUT);
}

/** What is written, as the write's errors name it. */
export interface OutputName {
  /** `the report`, `the waste report`, `the comparison`. */
  the: string;
  /** Said of any such output (`a report is written whole …`); default `the`. */
  a?: string;
  /** The file name suggested inside a directory given as the path (`report`, then `.<format>`). */
  stem: string;
}

/** The report's name in the errors (the default). */
export const REPORT_OUTPUT: OutputName = { the: 'the report', a: 'a report', stem: 'report' };
export const WASTE_OUTPUT: OutputName = { the: 'the waste report', stem: 'waste' };

/**
 * Writes a rendered report to its path (whole or not at all), or prints it when there is none;
 * `what` names it in the errors (`REPORT_OUTPUT`).
 */
export function writeOutput(text: string, choice: OutputChoice, stdout: NodeJS.WritableStream = process.stdout, what: OutputName = REPORT_OUTPUT): void {
  if (choice.path === null) {
    stdout.write(text);
    return;
  }
  writeWhole(choice.path, choice.format, what, (tmp) => fs.writeFileSync(tmp, text));
}

/**
 * Fails now, before a long analysis, when the report could not be written to its path: the
 * same checks and the same temporary file the write makes, removed again. Nothing for stdout.
 * `what` names the output in the errors, as `writeOutput`'s.
 */
export function checkOutputWritable(choice: OutputChoice, what: OutputName = REPORT_OUTPUT): void {
  if (choice.path === null) return;
  const placed = writeWhole(choice.path, choice.format, what, (tmp) => fs.writeFileSync(tmp, '', { flag: 'wx' }), false);
  fs.rmSync(placed, { force: true });
}

/**
 * Writes through a temporary file beside the target, renamed over it when `rename` (else left
 * for the caller, whose path is returned). Errors name the user's path, what is written
 * (`what`) and the reason, never the temporary file, and say what to do.
 */
function writeWhole(userPath: string, format: ReportFormat, what: OutputName, write: (tmp: string) => void, rename = true): string {
  const fail = (reason: string, cause?: unknown) => new HeapqlError('ERR_IO', cannotWrite(userPath, reason, what.the), cause === undefined ? {} : { cause });
  const target = outputTarget(userPath, format, what, fail);
  // The user's path in the reasons, or the file a link at it names (where the write happens).
  const shown = target === path.resolve(userPath) ? userPath : target;
  const problem = (err: unknown, temporary?: string) => fileWriteProblem(err, target, { shown, suggestedName: `${what.stem}.${format}`, temporary });
  const dir = path.dirname(target);
  let isDir: boolean;
  try {
    isDir = fs.statSync(dir).isDirectory();
  } catch (err) {
    throw fail(problem(err), err); // no such directory (ENOENT), a file along the path (ENOTDIR), …
  }
  if (!isDir) throw fail(problem({ code: 'ENOTDIR' }));
  const tmp = `${target}.${process.pid}.tmp`;
  const release = rename ? guardTemporary(tmp) : () => {};
  try {
    write(tmp);
    if (rename) fs.renameSync(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw fail(problem(err, tmp), err);
  } finally {
    release();
  }
  return tmp;
}

const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** The temporary files being written now. */
const temporaries = new Set<string>();
let guarding = false;

/**
 * Ctrl-C, SIGTERM or SIGHUP while a temporary file is written: with no listener, the signal
 * ended the process in the middle of the write and left `<report>.<pid>.tmp` behind. With this
 * one, the (synchronous) write ends first; the signal then reaches it (when the event loop next
 * turns, which may be some time after the write: the listener stays until a signal comes),
 * removes any temporary file still there, and does what it would have done: ends the process
 * by it when nothing else listens. Returns the file's release (written or failed).
 */
function guardTemporary(tmp: string): () => void {
  temporaries.add(tmp);
  if (!guarding) {
    guarding = true;
    for (const s of ENDING_SIGNALS) process.on(s, onEndingSignal);
  }
  return () => temporaries.delete(tmp);
}

function onEndingSignal(signal: NodeJS.Signals): void {
  for (const tmp of temporaries) fs.rmSync(tmp, { force: true });
  temporaries.clear();
  guarding = false;
  for (const s of ENDING_SIGNALS) process.off(s, onEndingSignal);
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/**
 * The file a report replaces: the path itself, or the file a symbolic link at it names (the
 * link stays and shows the new report). Anything but a regular file there is refused: renamed
 * over, a device (`/dev/null`), a FIFO or a link to standard output would itself be replaced.
 */
function outputTarget(userPath: string, format: ReportFormat, what: OutputName, fail: (reason: string) => HeapqlError): string {
  const given = path.resolve(userPath);
  let info: fs.Stats;
  try {
    info = fs.lstatSync(given);
  } catch {
    return given; // nothing there yet: the usual case
  }
  if (info.isSymbolicLink()) {
    try {
      info = fs.statSync(given);
    } catch {
      throw fail('it is a symbolic link to nothing; name the file itself');
    }
  }
  if (info.isDirectory()) throw fail(fileWriteProblem({ code: 'EISDIR' }, given, { shown: userPath, suggestedName: `${what.stem}.${format}` }));
  if (!info.isFile()) {
    const kind = info.isFIFO() ? 'a FIFO' : info.isCharacterDevice() ? 'a character device' : info.isBlockDevice() ? 'a block device' : info.isSocket() ? 'a socket' : 'not a regular file';
    throw fail(
      `it is ${kind}, and ${what.a ?? what.the} is written whole to a file or not at all; name a file, or give no path ` +
        `(and --format) to print ${what.the} on standard output`,
    );
  }
  return fs.realpathSync(given);
}
