/**
 * The browser REPL (served at GET /repl, bundled by esbuild into /repl.js). It runs the same
 * REPL command table as the terminal (ts/repl) over an HTTP backend, with browser I/O: output
 * in the page (results as tables, `-- @viz` charts), `!save` as a download, history in
 * localStorage (shared by the tabs: each appends to what is stored), completion, the analysis
 * state and progress live from GET /status, and a lost connection shown and retried.
 *
 * As at the terminal: text of several lines (a paste) runs statement by statement (block.ts);
 * Escape or Ctrl-C (or the Stop button) cancels what runs, and the rest of the text with it
 * (`cancelled`; the analysis a `!analyze` started is cancelled in the server too, backend.ts);
 * a statement running shows its elapsed time. A large result comes a page at a time (pages.ts:
 * its first page, its count once known, more rows on request); a command that needs more of its
 * rows than the page holds (`!sort`, `!save`…) has them fetched first, and `!tail` and `!row
 * last` only the last rows (whole.ts).
 * Tab completes; Tab on an empty
 * prompt, or Escape then Tab, moves the focus on (Shift+Tab back); PageUp/PageDown scroll the
 * output.
 */
import { complete, ESCAPED_COMPLETION_NOTE, insertablePrefix, moreCompletionsNote, type CompletionSource } from '../repl/complete.js';
import { findCommand, show } from '../repl/commands.js';
import { Repl } from '../repl/dispatch.js';
import { REST_DROPPED } from '../repl/statement.js';
import type { ReplIO } from '../repl/backend.js';
import type { ProgressEvent } from '../session/types.js';
import type { QueryResult } from '../query/schema.js';
import { printable } from '../report/format.js';
import { isolateHtml } from '../report/html-escape.js';
import { controlIndex } from '../terminal-text.js';
import { Api, type ServerStatusBody } from './api.js';
import { HttpBackend } from './backend.js';
import { splitBlock } from './block.js';
import { Pages } from './pages.js';
import { OutputView } from './view.js';
import { fetchWhatCommandNeeds, runOnFetched, type OnLastRows, type OnRow } from './whole.js';

const HISTORY_KEY = 'heapql.repl.history';
const HISTORY_MAX = 500;
const POLL_MS = 1000;
const POLL_ANALYZING_MS = 300;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const input = $<HTMLTextAreaElement>('input');
const outputPane = $('output');
const output = new OutputView(outputPane);
const stateBox = $('state');
const stateText = $('state-text');
const progressBar = $<HTMLProgressElement>('progress');
const banner = $('banner');
const popup = $('completions');
const runningBox = $('running');
const elapsedText = $('elapsed');
const stopButton = $<HTMLButtonElement>('stop');

const api = new Api();
// `/repl?pageRows=N`: the rows of a result's pages (a smaller result comes whole).
const backend = new HttpBackend(api, Pages.pageRowsFromUrl(location.search));
output.pages = backend.pages;

// ---- the status line: state, progress, connection ----

function percent(p: { done: number; total: number }): string {
  return p.total > 0 ? `${Math.floor((100 * p.done) / p.total)}%` : '';
}

/** The status last shown (a failure is said once, when it is first seen). */
let shownStatus: ServerStatusBody['status'] | null = null;

function showStatus(s: ServerStatusBody): void {
  // A failure seen by the poll (an analysis started elsewhere: another tab, POST /analyze, a
  // report) is said in the output, where a keyboard or screen reader user finds its reason (the
  // status line has it only as a tooltip); a waiting `!analyze` says it itself.
  const failure = s.status === 'failed' || s.status === 'dump_unreadable';
  if (failure && s.status !== shownStatus && backend.waitingForAnalysis === 0 && !backend.failureSaid) {
    output.warning(s.status === 'failed' ? `The analysis failed: ${s.reason ?? 'no reason given'}` : `The server cannot read its dump any more: ${s.reason ?? 'no reason given'}`);
  }
  if (!failure) backend.failureSaid = false;
  shownStatus = s.status;
  stateBox.className = s.status === 'dump_unreadable' ? 'failed' : s.status;
  const words = { not_started: 'query-only (not analyzed)', analyzing: 'analyzing', ready: 'analyzed (full path)', failed: 'analysis failed', dump_unreadable: 'dump unreadable' };
  // After DELETE /analyze (Escape during !analyze, here or in another tab) the server notes the cancel.
  const cancelled = s.status === 'not_started' && s.note !== undefined ? 'query-only (analysis cancelled)' : null;
  stateText.textContent = s.status === 'analyzing' && s.progress ? `analyzing: ${s.progress.phase} ${percent(s.progress)}` : (cancelled ?? words[s.status]);
  stateText.title = printable(s.reason ?? s.note ?? '');
  progressBar.hidden = s.status !== 'analyzing';
  if (s.progress && s.progress.total > 0) {
    progressBar.max = s.progress.total;
    progressBar.value = s.progress.done;
  } else progressBar.removeAttribute('value');
  // The file name comes from whoever named the file: escaped (a line break, a bidi override
  // shown as \n, \u202e) and isolated, so that it cannot reorder the counts after it.
  const which = (s.dumpCount ?? 1) > 1 ? ` (heap dump ${s.dumpNumber} of ${s.dumpCount})` : '';
  const dump = $('dump');
  dump.innerHTML = `${isolateHtml(s.dump)}${which} · ${s.objects.toLocaleString('en-US')} objects · ${s.classes.toLocaleString('en-US')} classes`;
  dump.title = printable(s.dump);
}

api.onConnection = (online, opening) => {
  banner.classList.toggle('show', !online);
  banner.textContent = online
    ? ''
    : opening
      ? `The heapql server at ${location.host} is starting: it is opening its heap dump; waiting for it (asking every ${POLL_MS / 1000} s)…`
      : `Lost the connection to the heapql server at ${location.host}; retrying every ${POLL_MS / 1000} s…`;
  if (online) output.note('reconnected to the server');
  else {
    stateBox.className = 'offline';
    stateText.textContent = opening ? 'server starting' : 'disconnected';
  }
};

/**
 * The server answered from another dump than before (restarted on another file): the results
 * on the page keep their text, but their object ids name other objects there, so look-ups from
 * them refuse (backend.ts); the page says so, marks them, and reads the new class names.
 */
api.onDumpChanged = () => {
  for (const block of document.querySelectorAll('.result-block:not(.stale)')) {
    block.classList.add('stale');
    block.setAttribute('title', 'from the dump the server served before: run the query again to look its objects up');
  }
  output.warning(
    'The server now serves another dump than before (the header names it). The results above came from the dump it served before: ' +
      'their objects cannot be looked up any more (!obj, !refs, !path and !dom refuse them); run the queries again.',
  );
  void backend.connect().then(connected, () => {});
};

/** What the server said on connecting: its status, and its config's named queries for !run. */
function connected(s: ServerStatusBody): void {
  repl.state.stored = backend.storedQueries;
  showStatus(s);
}

async function poll(): Promise<void> {
  let next = POLL_MS;
  try {
    const s = await backend.refresh();
    showStatus(s);
    if (s.status === 'analyzing') next = POLL_ANALYZING_MS;
  } catch {
    // api marked the connection lost; keep trying.
  }
  setTimeout(() => void poll(), next);
}

// ---- I/O for the command table ----

/** The result last drawn as a table, at which limit, and the text `show()` prints for it (replaced by the table). */
let shownText: { result: QueryResult; limit: number; rows: number; text: string } | null = null;

function showText(result: QueryResult): string {
  let text = '';
  show({ backend, state: repl.state, io: { ...io, print: (t) => (text = t) } }, result);
  return text;
}

/** Text longer than this is told to be the current result's table by its shape (`looksLikeTable`). */
const EXACT_TABLE_CHECK_MAX = 1 << 20;

/** Lines of `text` (counted without splitting a string of many megabytes). */
function lineCount(text: string): number {
  let n = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/**
 * Whether a long text printed is `show()`'s table of all the rows of `result` (`!set limit 0`),
 * told without making that text a second time (seconds for 500 000 rows): its first line
 * starts with the first column's name, the second is the `-+-` rule of as many columns, and it
 * ends with the result's footer (`(<n> rows)`, the note). (Its lines were counted already.)
 */
function looksLikeTable(text: string, result: QueryResult): boolean {
  // The table of no rows: the header, the rule and the footer of the whole result.
  const bare = showText({ ...result, rows: [] }).split('\n');
  const footer = bare.slice(2).join('\n');
  const first = text.indexOf('\n');
  const rule = text.slice(first + 1, text.indexOf('\n', first + 1));
  return (
    text.startsWith(bare[0]!.split(' | ')[0]!.trimEnd()) &&
    /^[-+]*$/.test(rule) &&
    rule.split('-+-').length === result.columns.length &&
    text.endsWith(`\n${footer}`)
  );
}

/**
 * Whether `text`, printed by the command table, is `show()`'s table of `result` at `limit`
 * (then the page draws the result instead). Its text has a line for the header, the rule, each
 * row shown, the footer and the note (a cell, a name or a note never holds a line break:
 * `terminalText` escapes them), so any other text is told at once; one with as many lines is
 * compared with `show()`'s text (made once per result and limit), or, when very long, by its
 * shape (`looksLikeTable`).
 */
function isShownTable(text: string, result: QueryResult, limit: number): boolean {
  const shown = limit === 0 ? result.rows.length : Math.min(limit, result.rows.length);
  if (lineCount(text) !== 3 + shown + (result.note ? 1 : 0)) return false;
  // (A paged result's rows grow as more are fetched: its text is made again then.)
  if (shownText?.result === result && shownText.limit === limit && shownText.rows === result.rows.length) return text === shownText.text;
  const same = text.length > EXACT_TABLE_CHECK_MAX && shown === result.rows.length ? looksLikeTable(text, result) : text === showText(result);
  if (same) shownText = { result, limit, rows: result.rows.length, text };
  return same;
}

let progressLine: HTMLElement | null = null;

const io: ReplIO = {
  print(text) {
    // A result the command table shows: drawn as a table (and chart) instead of its text.
    const current = repl.state.result;
    if (current && isShownTable(text, current, repl.state.limit)) {
      output.result(current, repl.state.limit);
      return;
    }
    output.text(text);
  },
  error(text) {
    // Ctrl-C also dropped the rest of a pasted text: say so, as the terminal does.
    if (text === 'cancelled' && restDropped) {
      restDropped = false;
      text = `cancelled ${REST_DROPPED}`;
    }
    output.error(text);
  },
  saveFile(path, content) {
    const name = path.split(/[\\/]/).pop() || 'result.txt';
    const type = name.endsWith('.json') ? 'application/json' : name.endsWith('.csv') ? 'text/csv' : 'text/tab-separated-values';
    // A Blob of the blocks' bytes, each block's text let go once it is in (a big result's text
    // is never one string: it may be longer than a string can be).
    const parts: Blob[] = [];
    for (const block of content) parts.push(new Blob([block]));
    const url = URL.createObjectURL(new Blob(parts, { type }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    // The browser puts it in its own download folder, whatever directory the path named.
    return `the download ${name}`;
  },
  progress(e: ProgressEvent) {
    progressLine ??= output.note('');
    progressLine.className = 'note progress';
    // A phase with no total (`writing cache`: bytes so far) has no percentage.
    const amount = e.total > 0 ? `${e.done.toLocaleString('en-US')} / ${e.total.toLocaleString('en-US')}` : e.done.toLocaleString('en-US');
    progressLine.textContent = `analyzing: ${e.phase} ${percent(e)} (${amount})`;
    showStatus({ ...(lastStatus() as ServerStatusBody), status: 'analyzing', progress: e });
  },
  progressDone() {
    // The analysis ended (ready, failed or stopped): what follows says which; a stale
    // "analyzing: … 0%" line must not stay above it.
    progressLine?.remove();
    progressLine = null;
  },
  quit() {
    output.note('This is the browser REPL: close the tab to leave (the server keeps running; Ctrl-C in its terminal stops it).');
  },
};

function lastStatus(): ServerStatusBody {
  const s = backend.status;
  const status = ({ 'query-only': 'not_started', analyzing: 'analyzing', full: 'ready', failed: 'failed' } as const)[s.state];
  return { status, reachableOnly: s.reachableOnly, dump: s.path, objects: s.objects, classes: s.classes, ...(s.error ? { reason: s.error } : {}) };
}

const repl = new Repl(backend, io);

// ---- history ----

function loadHistory(): string[] {
  try {
    const h = JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]') as unknown;
    return Array.isArray(h) ? h.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
/** This tab's history: what was stored when it opened, then its own statements (as a terminal session's). */
const history = loadHistory();
let historyAt = history.length;
let draft = '';

/**
 * Adds a statement to this tab's history and to the stored one, read again first: another tab
 * may have added its own since (the terminal REPL appends to its history file likewise).
 */
function remember(statement: string): void {
  if (history.at(-1) !== statement) history.push(statement);
  while (history.length > HISTORY_MAX) history.shift();
  historyAt = history.length;
  try {
    const stored = loadHistory();
    if (stored.at(-1) !== statement) stored.push(statement);
    localStorage.setItem(HISTORY_KEY, JSON.stringify(stored.slice(-HISTORY_MAX)));
  } catch {
    // Storage full or disabled: history stays for this page only.
  }
}

// ---- running statements ----


let running = false;
/** Cancels the statement running (Escape, Ctrl-C, Stop). */
let runningStop: AbortController | null = null;
/** Statements of a pasted text still to run after the one running. */
let ahead: string[] = [];
/** Set when a cancel dropped statements of a pasted text: `cancelled` says so. */
let restDropped = false;

/** `!obj`, `!refs`, `!path`, `!dom` with no argument: a look-up of the current row's object. */
function looksUpCurrentRow(statement: string): boolean {
  const m = /^\s*!(\S*)\s*([^]*)$/.exec(statement);
  if (!m) return false;
  const name = findCommand(m[1]!)?.name;
  return (name === 'obj' || name === 'refs' || name === 'path' || name === 'dom') && m[2]!.replace(/;\s*$/, '').trim() === '';
}

/** Cancels the statement running and drops the rest of its pasted text (Escape, Ctrl-C, Stop). */
function cancelRunning(): void {
  if (!runningStop || runningStop.signal.aborted) return;
  restDropped ||= ahead.length > 0;
  ahead = [];
  runningStop.abort();
}

/** When the statement running started (`performance.now()`). */
let runStarted = 0;

/** The running indicator: shown while statements run, with the elapsed time of the one running. */
function showRunning(on: boolean): () => void {
  runningBox.hidden = !on;
  if (!on) return () => {};
  const tick = () => {
    const s = Math.max(0, performance.now() - runStarted) / 1000;
    elapsedText.textContent = s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.floor(s % 60)} s`;
  };
  tick();
  const timer = setInterval(tick, 100);
  return () => clearInterval(timer);
}

/** Runs one statement in its own entry; `cancelRunning` aborts its requests. */
async function run(statement: string): Promise<void> {
  remember(statement);
  output.begin(statement);
  const before = repl.state.result;
  // The object ids of a look-up of the current row are those of the dump its result came from.
  backend.objectsFrom = looksUpCurrentRow(statement) ? backend.dumpOf(before) : null;
  runningStop = new AbortController();
  backend.signal = runningStop.signal;
  runStarted = performance.now();
  try {
    // A command that needs rows of a paged result the page does not hold (`!sort`, `!save`,
    // `!row N`…) has them fetched first, as the terminal loads them; `!tail` and `!row last` the
    // last rows only, `!row N` far past the rows held its row only, and they run on those (whole.ts).
    let progress: HTMLElement | null = null;
    let needed: string | OnLastRows | OnRow | null;
    try {
      needed = await fetchWhatCommandNeeds(backend.pages, backend, repl.state, statement, runningStop.signal, (text) => {
        progress ??= output.note('');
        progress.className = 'note progress';
        progress.textContent = text;
      });
    } finally {
      (progress as HTMLElement | null)?.remove();
    }
    if (typeof needed === 'string') {
      io.error(`error: ${needed}`);
      return;
    }
    if (needed) await runOnFetched(repl, io, statement, runningStop.signal, needed);
    else await repl.execute(statement, runningStop.signal);
  } finally {
    backend.objectsFrom = null;
    backend.signal = null;
    runningStop = null;
    // A result made in the page (!sort, !filter, !top…) holds the objects of the one it was made from.
    if (repl.state.result && repl.state.result !== before) backend.keepDump(repl.state.result, before);
    // Cancelled as it ended, too late to stop it: the rest of the paste is dropped all the same.
    if (restDropped) {
      restDropped = false;
      output.error(REST_DROPPED);
    }
    output.end();
  }
}

/**
 * Runs the statements entered (a pasted text: one after the other, as the terminal runs them);
 * `rest`, a statement left open, goes back to the prompt.
 */
async function runAll(statements: string[], rest: string): Promise<void> {
  running = true;
  input.disabled = true;
  input.value = '';
  runStarted = performance.now();
  const stopTimer = showRunning(true);
  ahead = statements.slice();
  try {
    for (let next = ahead.shift(); next !== undefined; next = ahead.shift()) await run(next);
  } finally {
    stopTimer();
    showRunning(false);
    ahead = [];
    running = false;
    input.disabled = false;
    input.value = rest;
    fit();
    input.focus();
  }
}

stopButton.addEventListener('click', cancelRunning);
// While a statement runs the prompt is disabled (it has no focus): the page hears the keys.
document.addEventListener('keydown', (e) => {
  if (!running) return;
  const selection = document.getSelection();
  // Ctrl-C with text selected copies it, as anywhere else.
  const copying = selection !== null && !selection.isCollapsed;
  if (e.key === 'Escape' || (e.ctrlKey && !e.altKey && !e.metaKey && (e.key === 'c' || e.key === 'C') && !copying)) {
    e.preventDefault();
    cancelRunning();
  }
});

// ---- completion ----

const source: CompletionSource = {
  classNames: () => backend.classNames(),
  fieldsOf: (c) => backend.fieldsOf(c),
  columns: () => repl.state.result?.columns.map((c) => c.name) ?? [],
  files: () => [],
  storedQueries: () => repl.state.stored.map((q) => q.name),
};
let choices: string[] = [];
let chosen = 0;
let completionWord = '';

function closePopup(): void {
  popup.style.display = 'none';
  choices = [];
}

/**
 * Inserts a completion. A name with a control or bidi character (a line break, U+202E) is
 * never inserted: the OQL lexer reads no escapes, so neither the raw name (which would break
 * or reorder the input) nor an escaped one could be run; the list shows it escaped.
 */
function apply(item: string): void {
  if (controlIndex(item) >= 0) {
    popup.querySelector('.escaped-note')?.classList.add('flash');
    return;
  }
  const at = input.selectionStart;
  const before = input.value.slice(0, at);
  input.value = before.slice(0, before.length - completionWord.length) + item + input.value.slice(at);
  const caret = at - completionWord.length + item.length;
  input.setSelectionRange(caret, caret);
  closePopup();
  fit();
}

async function completeAtCaret(): Promise<void> {
  const before = input.value.slice(0, input.selectionStart);
  const { items, word, more } = await complete(before, source, input.value);
  completionWord = word;
  if (items.length === 0) return closePopup();
  const escaped = items.some((item) => controlIndex(item) >= 0);
  if (items.length === 1 && !escaped) return apply(items[0]!);
  // The common prefix, up to the first control character: the part that can be typed.
  const prefix = insertablePrefix(items);
  if (prefix.length > word.length) {
    apply(prefix);
    completionWord = prefix;
  }
  choices = items;
  chosen = 0;
  popup.replaceChildren(
    ...items.map((item, i) => {
      const d = document.createElement('div');
      // Escaped and isolated as a table cell is: a line break or U+202E shows as \n, \u202e.
      d.innerHTML = isolateHtml(item);
      d.setAttribute('role', 'option');
      if (controlIndex(item) >= 0) d.setAttribute('aria-disabled', 'true');
      if (i === 0) d.className = 'sel';
      d.addEventListener('mousedown', (e) => {
        e.preventDefault();
        apply(item);
      });
      return d;
    }),
  );
  if (escaped) {
    const note = document.createElement('div');
    note.className = 'escaped-note';
    note.textContent = ESCAPED_COMPLETION_NOTE;
    popup.append(note);
  }
  if (more) {
    const note = document.createElement('div');
    note.className = 'more-note';
    note.textContent = moreCompletionsNote(more);
    popup.append(note);
  }
  popup.style.display = 'block';
}

function moveChoice(by: number): void {
  chosen = (chosen + by + choices.length) % choices.length;
  [...popup.querySelectorAll('[role=option]')].forEach((c, i) => c.classList.toggle('sel', i === chosen));
  popup.children[chosen]?.scrollIntoView({ block: 'nearest' });
}

// ---- the prompt ----

function fit(): void {
  input.rows = Math.min(12, Math.max(1, input.value.split('\n').length));
}

input.addEventListener('input', () => {
  fit();
  closePopup();
  // What is typed now is the draft ↓ comes back to, whatever entry ↑ showed before.
  historyAt = history.length;
});

/** Escape was the last key: a Tab now leaves the prompt rather than complete. */
let tabLeaves = false;

input.addEventListener('keydown', (e) => {
  const escaped = tabLeaves;
  tabLeaves = e.key === 'Escape';
  if (choices.length > 0) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      return moveChoice(e.key === 'ArrowDown' ? 1 : -1);
    }
    if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      return apply(choices[chosen]!);
    }
    if (e.key === 'Escape') return closePopup();
  }
  if (e.key === 'Tab') {
    // Shift+Tab, Tab on an empty prompt and Tab after Escape move the focus, as Tab does
    // elsewhere (a keyboard user is not held in the prompt); any other Tab completes.
    if (e.shiftKey || escaped || input.value.trim() === '') return;
    e.preventDefault();
    void completeAtCaret();
    return;
  }
  if (e.key === 'PageUp' || e.key === 'PageDown') {
    // The prompt keeps the focus; the output scrolls by a page.
    e.preventDefault();
    outputPane.scrollBy({ top: (e.key === 'PageUp' ? -1 : 1) * Math.max(40, outputPane.clientHeight - 40) });
    return;
  }
  if (e.key === 'Enter' && !e.shiftKey) {
    const text = input.value;
    if (text.trim() === '') {
      e.preventDefault();
      return;
    }
    // Statement by statement, as the terminal runs a pasted text; nothing complete yet: an open
    // statement continues on the next line, as in the terminal.
    const { statements, rest } = splitBlock(text);
    if (statements.length === 0) return;
    e.preventDefault();
    if (!running) void runAll(statements.map((st) => st.trim()), rest);
    return;
  }
  const caret = input.selectionStart;
  if (e.key === 'ArrowUp' && !input.value.slice(0, caret).includes('\n') && historyAt > 0) {
    e.preventDefault();
    if (historyAt === history.length) draft = input.value;
    input.value = history[--historyAt]!;
    fit();
  } else if (e.key === 'ArrowDown' && !input.value.slice(caret).includes('\n') && historyAt < history.length) {
    e.preventDefault();
    historyAt++;
    input.value = historyAt === history.length ? draft : history[historyAt]!;
    fit();
  }
});

// ---- start ----

async function start(): Promise<void> {
  for (;;) {
    try {
      connected(await backend.connect());
      break;
    } catch {
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  output.note(
    'Connected. Type OQL (Enter runs a complete statement) or !help; Tab completes; Escape or Ctrl-C cancels what runs; !analyze enables retained sizes and dominators.',
  );
  setTimeout(() => void poll(), POLL_MS);
  input.focus();
}

void start();
