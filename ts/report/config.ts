/**
 * The collection config: stored `[[query]]` entries folded into every report. Found as
 * `.heapql.toml` in the working directory, else `~/.config/heapql/collections.toml`, or named
 * by `--collection-config` / `--config`. Parsed with smol-toml; every error names file:line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, TomlError } from 'smol-toml';

import { HeapqlError, usageError } from '../errors.js';
import type { LinePlace, TextPlace } from '../oql/errors.js';
import { isVizLine } from '../query/viz.js';

export const LOCAL_CONFIG_NAME = '.heapql.toml';
export const USER_CONFIG_PATH = ['.config', 'heapql', 'collections.toml'] as const;

export interface ConfigQuery extends TextPlace {
  /** Query text as written; may span lines and may start with a `-- @viz` line. */
  oql: string;
  /** Display name; absent means the automatic `q<N>`. */
  name?: string;
  /** `file:line` of the entry, for messages about this query. */
  source: string;
  /** The config file (an OQL error names its line and column: `lines`). */
  file: string;
  /** `file:line` of its `-- @viz` line (when it has one), for warnings about the directive. */
  vizSource?: string;
}

/** A named entry: the REPLs' `!run <name>` runs it (the terminal's and the browser's, through the server). */
export type StoredQuery = ConfigQuery & { name: string };

export interface CollectionConfig {
  path: string;
  queries: ConfigQuery[];
}

export interface ConfigLocation {
  /** An explicitly named file (`--collection-config` / `--config`); it must exist. */
  explicit?: string | null;
  /** Defaults to process.cwd(). */
  cwd?: string;
  /** Defaults to os.homedir() (which honours $HOME). */
  home?: string;
}

function configError(message: string): HeapqlError {
  return new HeapqlError('ERR_CONFIG', message, { exitCode: 2 });
}

/** `--collection-config` and its alias `--config`: one file, or a usage error if they disagree. */
export function configOption(collectionConfig?: string | null, config?: string | null): string | null {
  if (collectionConfig && config && path.resolve(collectionConfig) !== path.resolve(config)) {
    throw usageError(`--collection-config ${collectionConfig} and --config ${config} name different files; give one`);
  }
  return collectionConfig || config || null;
}

/** The config file that applies, or null when there is none. */
export function findConfigPath(location: ConfigLocation = {}): string | null {
  if (location.explicit) {
    const p = path.resolve(location.cwd ?? process.cwd(), location.explicit);
    if (!fs.existsSync(p)) throw configError(`config file ${location.explicit} does not exist`);
    if (fs.statSync(p).isDirectory()) throw configError(`config file ${location.explicit} is a directory; name a .toml file`);
    return p;
  }
  const local = path.join(location.cwd ?? process.cwd(), LOCAL_CONFIG_NAME);
  if (fs.existsSync(local) && fs.statSync(local).isFile()) return local;
  const user = path.join(location.home ?? os.homedir(), ...USER_CONFIG_PATH);
  if (fs.existsSync(user) && fs.statSync(user).isFile()) return user;
  return null;
}

/** Finds and reads the config; null when no file applies. */
export function loadCollectionConfig(location: ConfigLocation = {}): CollectionConfig | null {
  const p = findConfigPath(location);
  if (p === null) return null;
  let text: string;
  try {
    text = fs.readFileSync(p, 'utf8');
  } catch (err) {
    throw configError(`cannot read config file ${p}: ${(err as Error).message}`);
  }
  return parseCollectionConfig(text, p);
}

/** Lines (1-based) of the `[[query]]` headers, in order: entry i was written at headers[i]. */
function queryHeaderLines(text: string): number[] {
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (/^\s*\[\[\s*query\s*\]\]\s*(#.*)?$/.test(line)) lines.push(i + 1);
  });
  return lines;
}

/** Code points in a string (a column counts them, as OQL's do). */
function codePoints(text: string): number {
  return Array.from(text).length;
}

/**
 * Where each line of an entry's oql was written in the file; the entry runs from its header
 * (line `from`) to the next header (`to`, exclusive). A one-line string (`"..."`, `'...'`: its
 * lines are `\n` escapes) is all on its key's line; a `"""` or `'''` string starts on its key's
 * line, or on the next when the delimiter ends the line. A line of the text found as it is on
 * the file's line gets its column there; one that is not (escapes, a `\` at a line's end): the
 * key's line alone. No key found (a dotted or inline form): null.
 */
function oqlPlaces(fileLines: string[], from: number, to: number, oqlLines: string[]): LinePlace[] | null {
  for (let n = from; n < to && n <= fileLines.length; n++) {
    const keyLine = fileLines[n - 1]!;
    const m = /^\s*(?:oql|"oql"|'oql')\s*=\s*("""|'''|"|')?/.exec(keyLine);
    if (!m) continue;
    const key = { line: n };
    if (m[1] === '"' || m[1] === "'") {
      // One line: each line of the text in turn after the quote (between them a `\n` escape).
      let from = m[0].length;
      return oqlLines.map((l) => {
        const at = keyLine.indexOf(l.replace(/\r$/, ''), from);
        if (at < 0) return key;
        from = at + l.length;
        return { line: n, column: codePoints(keyLine.slice(0, at)), text: keyLine };
      });
    }
    if (m[1] === undefined) return oqlLines.map(() => key);
    const first = keyLine.slice(m[0].length) === '' ? n + 1 : n;
    return oqlLines.map((l, i) => {
      const line = fileLines[first + i - 1];
      const offset = first === n && i === 0 ? m[0].length : 0;
      if (line === undefined || !line.startsWith(l.replace(/\r$/, ''), offset)) return key;
      return { line: first + i, column: codePoints(line.slice(0, offset)), text: line };
    });
  }
  return null;
}

export function parseCollectionConfig(text: string, file: string): CollectionConfig {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split('\n')[0].replace(/^Invalid TOML document:\s*/i, '');
      throw configError(`${file}:${err.line}:${err.column}: invalid TOML: ${first}`);
    }
    throw err;
  }
  for (const key of Object.keys(doc)) {
    if (key !== 'query') {
      throw configError(`${file}: unknown key "${key}"; the config holds [[query]] entries (oql = "...", name = "...")`);
    }
  }
  const entries = doc.query;
  if (entries === undefined) return { path: file, queries: [] };
  if (!Array.isArray(entries)) throw configError(`${file}: "query" must be an array of tables, written as [[query]] entries`);
  const headers = queryHeaderLines(text);
  const fileLines = text.split(/\r?\n/);
  const where = (i: number) => (headers.length === entries.length ? `${file}:${headers[i]}` : `${file}: [[query]] entry ${i + 1}`);
  const queries = entries.map((entry, i): ConfigQuery => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw configError(`${where(i)}: a [[query]] entry must be a table`);
    const e = entry as Record<string, unknown>;
    for (const key of Object.keys(e)) {
      if (key !== 'oql' && key !== 'name') throw configError(`${where(i)}: unknown key "${key}" in [[query]] (keys: oql, name)`);
    }
    if (e.oql === undefined) throw configError(`${where(i)}: [[query]] has no oql; add oql = "SELECT ..."`);
    if (typeof e.oql !== 'string') throw configError(`${where(i)}: oql must be a string`);
    if (e.oql.trim() === '') throw configError(`${where(i)}: oql is empty`);
    if (e.name !== undefined && (typeof e.name !== 'string' || e.name.trim() === '')) throw configError(`${where(i)}: name must be a non-empty string`);
    const q: ConfigQuery = { oql: e.oql, source: where(i), file };
    if (typeof e.name === 'string') q.name = e.name;
    // Where each line of its text is, for errors, which name the file's line and column.
    const oqlLines = e.oql.split('\n');
    const lines = headers.length === entries.length ? oqlPlaces(fileLines, headers[i]!, headers[i + 1] ?? Infinity, oqlLines) : null;
    if (lines) q.lines = lines;
    // Where its `-- @viz` line is (the first: the one extractViz reads), for warnings about it.
    const viz = oqlLines.findIndex(isVizLine);
    if (viz >= 0) q.vizSource = lines ? `${file}:${lines[viz]!.line}` : q.source;
    return q;
  });
  return { path: file, queries };
}
