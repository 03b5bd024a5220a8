/**
 * The browser REPL (served at GET /repl, bundled by esbuild into /repl.js). It runs the same
 * REPL command table as the terminal (ts/repl) over an HTTP backend, with browser I/O: output
 * in the page (results as tables, `-- @viz` charts), `!save` as a download, history in
 * localStorage, completion, the analysis state and progress live from GET /status, and a
 * lost connection shown and retried.
 */
import { complete, type CompletionSource } from '../repl/complete.js';
import { show } from '../repl/commands.js';
import { Repl } from '../repl/dispatch.js';
import { statementComplete } from '../repl/statement.js';
import type { ReplIO } from '../repl/backend.js';
import type { ProgressEvent } from '../session/types.js';
import type { QueryResult } from '../query/schema.js';
import { Api, type ServerStatusBody } from './api.js';
import { HttpBackend } from './backend.js';
import { OutputView } from './view.js';

const HISTORY_KEY = 'heapql.repl.history';
const HISTORY_MAX = 500;
const POLL_MS = 1000;
const POLL_ANALYZING_MS = 300;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const input = $<HTMLTextAreaElement>('input');
const output = new OutputView($('output'));
const stateBox = $('state');
const stateText = $('state-text');
const progressBar = $<HTMLProgressElement>('progress');
const banner = $('banner');
const popup = $('completions');

const api = new Api();
const backend = new HttpBackend(api);

// ---- the status line: state, progress, connection ----

function percent(p: { done: number; total: number }): string {
  return p.total > 0 ? `${Math.floor((100 * p.done) / p.total)}%` : '';
}

function showStatus(s: ServerStatusBody): void {
  stateBox.className = s.status;
  const words = { not_started: 'query-only (not analyzed)', analyzing: 'analyzing', ready: 'analyzed (full path)', failed: 'analysis failed' };
  stateText.textContent = s.status === 'analyzing' && s.progress ? `analyzing: ${s.progress.phase} ${percent(s.progress)}` : words[s.status];
  stateText.title = s.reason ?? '';
  progressBar.hidden = s.status !== 'analyzing';
  if (s.progress && s.progress.total > 0) {
    progressBar.max = s.progress.total;
    progressBar.value = s.progress.done;
  } else progressBar.removeAttribute('value');
  $('dump').textContent = `${s.dump} · ${s.objects.toLocaleString('en-US')} objects · ${s.classes.toLocaleString('en-US')} classes`;
}

api.onConnection = (online) => {
  banner.classList.toggle('show', !online);
  banner.textContent = online ? '' : `Lost the connection to the heapql server at ${location.host}; retrying every ${POLL_MS / 1000} s…`;
  if (online) output.note('reconnected to the server');
  else {
    stateBox.className = 'offline';
    stateText.textContent = 'disconnected';
  }
};

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

/** The result last drawn as a table, and the text `show()` prints for it (replaced by the table). */
let shownText: { result: QueryResult; text: string } | null = null;

function showText(result: QueryResult): string {
  let text = '';
  show({ backend, state: repl.state, io: { ...io, print: (t) => (text = t) } }, result);
  return text;
}

let progressLine: HTMLElement | null = null;

const io: ReplIO = {
  print(text) {
    // A result the command table shows: drawn as a table (and chart) instead of its text.
    const current = repl.state.result;
    if (current) {
      if (shownText?.result !== current) shownText = { result: current, text: showText(current) };
      if (text === shownText.text) {
        output.result(current, repl.state.limit);
        return;
      }
    }
    output.text(text);
  },
  error(text) {
    output.error(text);
  },
  saveFile(path, content) {
    const name = path.split(/[\\/]/).pop() || 'result.txt';
    const type = name.endsWith('.json') ? 'application/json' : name.endsWith('.csv') ? 'text/csv' : 'text/tab-separated-values';
    const url = URL.createObjectURL(new Blob([content], { type }));
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
    progressLine.textContent = `analyzing: ${e.phase} ${percent(e)} (${e.done.toLocaleString('en-US')} / ${e.total.toLocaleString('en-US')})`;
    showStatus({ ...(lastStatus() as ServerStatusBody), status: 'analyzing', progress: e });
  },
  progressDone() {
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
const history = loadHistory();
let historyAt = history.length;
let draft = '';

function remember(statement: string): void {
  if (history.at(-1) !== statement) history.push(statement);
  while (history.length > HISTORY_MAX) history.shift();
  historyAt = history.length;
  try {
    localStorage.setItem(HISTORY_KEY, JSON.stringify(history));
  } catch {
    // Storage full or disabled: history stays for this page only.
  }
}

// ---- running statements ----

let running = false;

async function run(statement: string): Promise<void> {
  running = true;
  input.disabled = true;
  remember(statement);
  output.begin(statement);
  try {
    await repl.execute(statement);
  } finally {
    output.end();
    running = false;
    input.disabled = false;
    input.value = '';
    fit();
    input.focus();
  }
}

// ---- completion ----

const source: CompletionSource = {
  classNames: () => backend.classNames(),
  fieldsOf: (c) => backend.fieldsOf(c),
  columns: () => repl.state.result?.columns.map((c) => c.name) ?? [],
  files: () => [],
};
let choices: string[] = [];
let chosen = 0;
let completionWord = '';

function closePopup(): void {
  popup.style.display = 'none';
  choices = [];
}

function apply(item: string): void {
  const at = input.selectionStart;
  const before = input.value.slice(0, at);
  input.value = before.slice(0, before.length - completionWord.length) + item + input.value.slice(at);
  const caret = at - completionWord.length + item.length;
  input.setSelectionRange(caret, caret);
  closePopup();
  fit();
}

function commonPrefix(items: string[]): string {
  let p = items[0] ?? '';
  for (const s of items) while (!s.startsWith(p)) p = p.slice(0, -1);
  return p;
}

async function completeAtCaret(): Promise<void> {
  const before = input.value.slice(0, input.selectionStart);
  const { items, word } = await complete(before, source, input.value);
  completionWord = word;
  if (items.length === 0) return closePopup();
  if (items.length === 1) return apply(items[0]!);
  const prefix = commonPrefix(items);
  if (prefix.length > word.length) {
    apply(prefix);
    completionWord = prefix;
  }
  choices = items;
  chosen = 0;
  popup.replaceChildren(
    ...items.map((item, i) => {
      const d = document.createElement('div');
      d.textContent = item;
      d.setAttribute('role', 'option');
      if (i === 0) d.className = 'sel';
      d.addEventListener('mousedown', (e) => {
        e.preventDefault();
        apply(item);
      });
      return d;
    }),
  );
  popup.style.display = 'block';
}

function moveChoice(by: number): void {
  chosen = (chosen + by + choices.length) % choices.length;
  [...popup.children].forEach((c, i) => c.classList.toggle('sel', i === chosen));
  popup.children[chosen]?.scrollIntoView({ block: 'nearest' });
}

// ---- the prompt ----

function fit(): void {
  input.rows = Math.min(12, Math.max(1, input.value.split('\n').length));
}

input.addEventListener('input', () => {
  fit();
  closePopup();
});

input.addEventListener('keydown', (e) => {
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
    e.preventDefault();
    void completeAtCaret();
    return;
  }
  if (e.key === 'Enter' && !e.shiftKey) {
    const text = input.value;
    // An open statement continues on the next line, as in the terminal.
    if (text.trim() !== '' && !statementComplete(text)) return;
    e.preventDefault();
    if (text.trim() !== '' && !running) void run(text.trim());
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
      const s = await backend.connect();
      showStatus(s);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  output.note('Connected. Type OQL (Enter runs a complete statement) or !help; Tab completes; !analyze enables retained sizes and dominators.');
  setTimeout(() => void poll(), POLL_MS);
  input.focus();
}

void start();
