/**
 * Tab completion, shared by the terminal and the browser: what can follow the text before the
 * cursor. Keywords, class names (after FROM / INSTANCEOF and for !describe, !classes), `@`
 * attributes, functions and aggregates, fields of the class in scope (after `alias.` or bare)
 * and columns of the latest result, `!` commands, named queries, `-- @viz` kinds and keys,
 * settings, and file names after `!save`.
 */
import { KEYWORDS, tokenize } from '../oql/lexer.js';
import { AGGREGATE_NAMES, ATTRIBUTE_NAMES, FUNCTION_NAMES } from '../plan/index.js';
import { NAMED_QUERIES } from '../query/named.js';
import { isVizLine } from '../query/viz.js';
import { controlIndex } from '../terminal-text.js';
import { COMMAND_NAMES, findCommand } from './commands.js';

/**
 * Under a list of completions with names that had to be shown escaped (control or bidi
 * characters), in the terminal and the browser alike.
 */
export const ESCAPED_COMPLETION_NOTE = '(names with control characters are shown escaped; Tab does not insert them)';

/** Under a completion list that `complete()` cut short, in the terminal and the browser alike. */
export function moreCompletionsNote(more: number): string {
  return `… and ${more} more: type more letters`;
}

/**
 * What Tab may insert for these candidates: their common prefix, up to its first control or
 * bidi character (the OQL lexer reads no escapes, so such a name cannot be typed back).
 */
export function insertablePrefix(items: readonly string[]): string {
  let prefix = items[0] ?? '';
  for (const item of items) {
    let i = 0;
    while (i < prefix.length && i < item.length && prefix[i] === item[i]) i++;
    prefix = prefix.slice(0, i);
  }
  const stop = controlIndex(prefix);
  return stop >= 0 ? prefix.slice(0, stop) : prefix;
}

export interface CompletionSource {
  classNames(): string[];
  /** Instance field names of a class (own and inherited); [] for an unknown class. */
  fieldsOf(className: string): Promise<string[]>;
  /** Column names of the latest result. */
  columns(): string[];
  /** File names for `!save` starting with `prefix` (directories end in `/`); [] in a browser. */
  files(prefix: string): string[] | Promise<string[]>;
  /** Names of the config file's `[[query]]` entries, for `!run` (none in a browser). */
  storedQueries?(): string[];
}

export interface Completion {
  /** Candidates that start with `word` (the first MAX_ITEMS of them). */
  items: string[];
  /** The text being completed (the end of the line before the cursor). */
  word: string;
  /** How many more candidates match than `items` holds (the list should say so). */
  more?: number;
}

const VIZ_KINDS = ['table', 'histogram', 'piechart', 'treemap'];
const VIZ_KEYS = ['label=', 'value=', 'cap=', 'title=', 'name='];
const MAX_ITEMS = 200;

function pick(word: string, candidates: Iterable<string>, caseInsensitive = true): string[] {
  const w = caseInsensitive ? word.toLowerCase() : word;
  const out = new Set<string>();
  for (const c of candidates) if ((caseInsensitive ? c.toLowerCase() : c).startsWith(w)) out.add(c);
  return [...out].sort();
}

/**
 * At most MAX_ITEMS candidates, and how many more match. Tab inserts what every match shares,
 * not only the ones listed: when that is more than the word, it is the one candidate (the
 * list comes at the next Tab).
 */
function capped(completion: Completion): Completion {
  const { items, word } = completion;
  if (items.length <= MAX_ITEMS) return completion;
  const prefix = insertablePrefix(items);
  if (prefix.length > word.length) return { items: [prefix], word };
  return { items: items.slice(0, MAX_ITEMS), word, more: items.length - MAX_ITEMS };
}

/**
 * Whether OQL reads `name` as a class name as it stands: names joined by dots, then `[]`s
 * (`java.util.HashMap$Node[]`). A hidden class's name (`Demo$$Lambda$1+0x00007f519d001868`,
 * JDK 21+ `…$$Lambda/0x…`, `java.lang.invoke.LambdaForm$MH/0x…`) is not: `+` and `/` are
 * operators there.
 */
function readsAsName(name: string): boolean {
  const tokens = tokenize(name);
  let i = 0;
  if (tokens[i]?.type !== 'ident') return false;
  i++;
  while (tokens[i]?.type === 'dot' && tokens[i + 1]?.type === 'ident') i += 2;
  while (tokens[i]?.type === 'lbracket' && tokens[i + 1]?.type === 'rbracket') i += 2;
  return i === tokens.length && tokens.map((t) => t.text).join('') === name;
}

/**
 * A class name as `FROM` takes it: as it stands when OQL reads it so, else as the pattern
 * `FROM "<regex>"` that matches that name alone (`"Demo\$\$Lambda\$1\+0x00007f519d001868"`); null
 * when no string can hold it (both quotes in it: OQL strings have no escapes).
 */
function fromClassText(name: string): string | null {
  // A name with a control or bidi character stays as it is: listed escaped, never inserted
  // (readlineCompletion), as no pattern typed at the prompt can hold it either.
  if (readsAsName(name) || controlIndex(name) >= 0) return name;
  const quote = ['"', "'"].find((q) => !name.includes(q));
  return quote ? fromPattern(name, quote) : null;
}

/** The class named in FROM / INSTANCEOF of the statement, with its alias, if any. */
export function classInScope(statement: string): { className: string; alias: string | null } | null {
  const tokens = tokenize(statement);
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i]!.type !== 'FROM') continue;
    let j = i + 1;
    while (tokens[j] && (tokens[j]!.type === 'OBJECTS' || tokens[j]!.type === 'INSTANCEOF')) j++;
    if (tokens[j]?.type !== 'ident') continue;
    // ident (. ident)* ([])*
    const parts = [tokens[j++]!.text];
    while (tokens[j]?.type === 'dot' && tokens[j + 1]?.type === 'ident') {
      parts.push('.', tokens[j + 1]!.text);
      j += 2;
    }
    while (tokens[j]?.type === 'lbracket' && tokens[j + 1]?.type === 'rbracket') {
      parts.push('[]');
      j += 2;
    }
    const alias = tokens[j]?.type === 'ident' ? tokens[j]!.text : tokens[j]?.type === 'AS' && tokens[j + 1]?.type === 'ident' ? tokens[j + 1]!.text : null;
    return { className: parts.join(''), alias };
  }
  return null;
}

/**
 * Completions at the end of `before` (the text before the cursor). `statement` is the whole
 * statement typed so far (earlier lines of a continued statement included), for the class in scope.
 */
export async function complete(before: string, source: CompletionSource, statement = before): Promise<Completion> {
  return capped(await candidates(before, source, statement));
}

/** The `FROM "<regex>"` pattern, in `quote`s, that matches `name` alone (its regex characters escaped). */
function fromPattern(name: string, quote: string): string {
  return `${quote}${name.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}${quote}`;
}

async function candidates(before: string, source: CompletionSource, statement: string): Promise<Completion> {
  // ! commands and their arguments.
  const cmd = /^\s*!(\S*)$/.exec(before);
  if (cmd) return { items: pick(cmd[1]!, COMMAND_NAMES).map((n) => `!${n} `), word: `!${cmd[1]}` };
  // `/run` is `!run` (the specification's spelling; statement.ts): the one command written so.
  const slash = /^\s*\/(\w*)$/.exec(before);
  if (slash) return { items: pick(slash[1]!, ['run']).map((n) => `/${n} `), word: `/${slash[1]}` };
  const arg = /^\s*!(\S+)\s+(.*)$/.exec(before) ?? /^\s*\/(run)\s+(.*)$/i.exec(before);
  if (arg) {
    const command = findCommand(arg[1]!);
    const rest = arg[2]!;
    const word = /(\S*)$/.exec(rest)![1]!;
    switch (command?.completes) {
      case 'class':
        return { items: pick(word, source.classNames(), false), word };
      case 'named':
        // A config entry's name may hold spaces ("Duplicated strings"): the whole argument is the word.
        return { items: pick(rest, [...NAMED_QUERIES.map((q) => q.name), ...(source.storedQueries?.() ?? [])]), word: rest };
      case 'column':
        return { items: pick(word.replace(/^-/, ''), source.columns()), word: word.replace(/^-/, '') };
      case 'file':
        return { items: await source.files(rest), word: rest };
      case 'set':
        return { items: rest.includes(' ') ? [] : pick(word, ['limit']), word };
      case 'help':
        return { items: pick(word, ['oql']), word };
      default:
        return { items: [], word };
    }
  }
  // A -- @viz directive: kinds, then keys.
  const line = before.slice(before.lastIndexOf('\n') + 1);
  if (isVizLine(line) || /^\s*--\s*@\w*$/.test(line)) {
    const m = /^\s*--\s*@viz\s+(\S*)$/i.exec(line);
    if (m) return { items: pick(m[1]!, VIZ_KINDS), word: m[1]! };
    const key = /\s(\S*)$/.exec(line);
    if (/^\s*--\s*@viz\s+\S+\s/i.test(line) && key) return { items: pick(key[1]!, VIZ_KEYS), word: key[1]! };
    const start = /(@\w*)$/.exec(line);
    return { items: start ? pick(start[1]!, ['@viz']) : [], word: start?.[1] ?? '' };
  }
  // OQL.
  // A class pattern begun after FROM or INSTANCEOF (`FROM "Demo\$\$La`, `x INSTANCEOF "Demo\$\$La`):
  // the classes whose pattern (or name) starts with what is typed, as patterns.
  const open = /\b(?:FROM(?:\s+OBJECTS)?|INSTANCEOF)\s+("[^"]*|'[^']*)$/i.exec(before);
  if (open) {
    const typed = open[1]!;
    const quote = typed[0]!;
    const items = source
      .classNames()
      .filter((name) => !name.includes(quote) && controlIndex(name) < 0 && (name.startsWith(typed.slice(1)) || fromPattern(name, quote).startsWith(typed)))
      .map((name) => fromPattern(name, quote));
    return { items: [...new Set(items)].sort(), word: typed };
  }
  const word = /([A-Za-z0-9_$.@\[\]]*)$/.exec(before)![1]!;
  const head = before.slice(0, before.length - word.length);
  const headTokens = tokenize(head);
  const prev = headTokens.at(-1);
  if (word.startsWith('@')) return { items: pick(word, ATTRIBUTE_NAMES), word };
  if (prev && (prev.type === 'FROM' || prev.type === 'INSTANCEOF' || prev.type === 'OBJECTS')) {
    const extra = prev.type === 'FROM' ? ['INSTANCEOF', 'OBJECTS'] : [];
    // A hidden class's name is inserted as the pattern that FROM, FROM INSTANCEOF and the
    // predicate `x INSTANCEOF` take for it.
    const classes = pick(word, source.classNames(), false).flatMap((name) => {
      const text = fromClassText(name);
      return text === null ? [] : [text];
    });
    return { items: [...pick(word, extra), ...classes], word };
  }
  const dot = word.lastIndexOf('.');
  // `x.@us`, `s.user.@len`: an attribute of whatever stands before the dot.
  if (dot >= 0 && word[dot + 1] === '@') {
    const prefix = word.slice(0, dot + 1);
    return { items: pick(word.slice(dot + 1), ATTRIBUTE_NAMES).map((a) => prefix + a), word };
  }
  const scope = classInScope(statement);
  if (dot >= 0 && scope?.alias && word.slice(0, dot) === scope.alias) {
    const fields = await source.fieldsOf(scope.className);
    const partial = word.slice(dot + 1);
    return { items: pick(partial, fields, false).map((f) => `${scope.alias}.${f}`), word };
  }
  const fields = scope ? await source.fieldsOf(scope.className) : [];
  const functions = [...FUNCTION_NAMES, ...AGGREGATE_NAMES].map((f) => `${f}(`);
  const items = [
    ...pick(word, KEYWORDS),
    ...pick(word, functions),
    ...pick(word, fields, false),
    ...pick(word, source.columns()),
    ...pick(word, ATTRIBUTE_NAMES.map((a) => a)),
  ];
  return { items: [...new Set(items)], word };
}
