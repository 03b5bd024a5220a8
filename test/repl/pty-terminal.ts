/**
 * The REPL in a real pseudo-terminal (node-pty), for the tests that type keys and read the
 * screen: `raw` is every byte it wrote, `screen` the same without readline's cursor movements
 * and line erasing (CSI sequences) and CRs. `closeTerminals` kills those a test left open.
 * `shellTerminal` is an interactive shell in one instead (job control: Ctrl-Z and `fg`).
 */
import path from 'node:path';
import { spawn, type IPty } from '@lydell/node-pty';

const root = path.resolve(__dirname, '../..');
const BIN = path.join(root, 'bin/heapql.js');

export interface TerminalOptions {
  cwd?: string;
  env?: Record<string, string>;
  cols?: number;
  /** Run this program with `args` instead of heapql (`shellTerminal`). */
  program?: string;
}

/** The command line that starts heapql, for typing into a shell. */
export const HEAPQL = `${process.execPath} ${BIN}`;

const open: Terminal[] = [];

export class Terminal {
  raw = '';
  /** The process has exited: nothing more will come. */
  private gone = false;
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number>;
  /** The signal that ended the process, if one did. */
  signal: number | undefined;
  readonly pty: IPty;

  /** `heapql <args>` with its history in `stateDir` (XDG_STATE_HOME). */
  constructor(args: string[], stateDir: string, options: TerminalOptions = {}) {
    this.pty = spawn(options.program ?? process.execPath, options.program ? args : [BIN, ...args], {
      cols: options.cols ?? 160,
      rows: 50,
      cwd: options.cwd ?? root,
      env: { ...process.env, XDG_STATE_HOME: stateDir, HEAPQL_DEBUG: '', NO_COLOR: '1', CI: '', ...options.env } as Record<string, string>,
    });
    this.pty.onData((d) => {
      this.raw += d;
      for (const w of this.waiters.splice(0)) w();
    });
    this.exited = new Promise((resolve) =>
      this.pty.onExit((e) => {
        this.gone = true;
        this.signal = e.signal || undefined;
        for (const w of this.waiters.splice(0)) w();
        resolve(e.exitCode);
      }),
    );
    open.push(this);
  }

  get screen(): string {
    // eslint-disable-next-line no-control-regex
    return this.raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
  }

  /**
   * Waits until the screen after `from` matches; returns the position after the match. Fails
   * at once when `unless` shows there first (what a wrong turn prints instead).
   */
  async waitFor(pattern: RegExp | string, from = 0, unless?: string): Promise<number> {
    for (;;) {
      const text = this.screen.slice(from);
      const m = typeof pattern === 'string' ? (text.includes(pattern) ? { index: text.indexOf(pattern), 0: pattern } : null) : pattern.exec(text);
      const wrong = unless === undefined ? -1 : text.indexOf(unless);
      if (wrong >= 0 && (!m || wrong < m.index!)) throw new Error(`${JSON.stringify(unless)} came before ${String(pattern)}: ${JSON.stringify(text.slice(0, wrong + 400))}`);
      if (m) return from + m.index! + m[0]!.length;
      // A REPL that has exited prints nothing more: say what was awaited and what came last.
      if (this.gone) throw new Error(`the REPL exited before printing ${String(pattern)}; its screen ended with: ${JSON.stringify(this.screen.slice(-400))}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  mark(): number {
    return this.screen.length;
  }

  type(text: string): void {
    this.pty.write(text);
  }
}

/** bash, interactive, without start-up files, its prompt `$ ` (history in `stateDir` for heapql). */
export function shellTerminal(stateDir: string): Terminal {
  return new Terminal(['--norc', '--noprofile', '-i'], stateDir, { program: 'bash', env: { PS1: '$ ', HISTFILE: '/dev/null' } });
}

/** Kills every terminal opened since the last call (for `afterEach`). */
export function closeTerminals(): void {
  for (const t of open.splice(0)) {
    try {
      t.pty.kill();
    } catch {
      // already gone
    }
  }
}
