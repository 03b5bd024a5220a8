/**
 * Where the report goes and in which format: the format follows the path's extension (`.md`,
 * `.html`, `.json`), `--format` overrides, and no path prints Markdown to stdout.
 */
import fs from 'node:fs';
import path from 'node:path';

import { HeapqlError, usageError } from '../errors.js';
import { withVizWarnings } from './charts.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import type { ReportModel } from './model.js';

export type ReportFormat = 'md' | 'html' | 'json';
export const REPORT_FORMATS: readonly ReportFormat[] = ['md', 'html', 'json'];

const BY_EXTENSION: Record<string, ReportFormat> = { '.md': 'md', '.markdown': 'md', '.html': 'html', '.htm': 'html', '.json': 'json' };
const BY_NAME: Record<string, ReportFormat> = { md: 'md', markdown: 'md', html: 'html', json: 'json' };

export interface OutputChoice {
  format: ReportFormat;
  /** null: standard output. */
  path: string | null;
}

/** Decides the format; a usage error names the choices when neither the path nor --format tells. */
export function chooseOutput(reportPath?: string | null, format?: string | null): OutputChoice {
  const p = reportPath || null;
  if (format) {
    const f = BY_NAME[format.toLowerCase()];
    if (!f) throw usageError(`unknown report format "${format}"; use --format md, html or json`);
    return { format: f, path: p };
  }
  if (p === null) return { format: 'md', path: null };
  const ext = path.extname(p).toLowerCase();
  const f = BY_EXTENSION[ext];
  if (!f) {
    throw usageError(
      `cannot tell the report format from ${ext ? `the extension "${ext}"` : 'a path without an extension'} of ${p}; ` +
        'name the file .md, .html or .json, or give --format md|html|json',
    );
  }
  return { format: f, path: p };
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

/** Renders and writes (or prints); the file is written whole or not at all. */
export function writeReport(model: ReportModel, choice: OutputChoice, stdout: NodeJS.WritableStream = process.stdout): void {
  writeOutput(renderReport(model, choice.format), choice, stdout);
}

/** Writes a rendered report to its path (whole or not at all), or prints it when there is none. */
export function writeOutput(text: string, choice: OutputChoice, stdout: NodeJS.WritableStream = process.stdout): void {
  if (choice.path === null) {
    stdout.write(text);
    return;
  }
  const target = path.resolve(choice.path);
  const dir = path.dirname(target);
  if (!fs.existsSync(dir)) throw new HeapqlError('ERR_IO', `cannot write the report to ${choice.path}: directory ${dir} does not exist`);
  if (fs.existsSync(target) && fs.statSync(target).isDirectory()) {
    throw new HeapqlError('ERR_IO', `cannot write the report to ${choice.path}: it is a directory; name a file ending in .${choice.format}`);
  }
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, target);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new HeapqlError('ERR_IO', `cannot write the report to ${choice.path}: ${(err as Error).message}`, { cause: err });
  }
}
