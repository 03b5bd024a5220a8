/**
 * The REPL in a real pseudo-terminal (node-pty), for the tests that type keys and read the
 * screen: `raw` is every byte it wrote, `screen` the same without readline's cursor movements
 * and line erasing (CSI sequences) and CRs. `closeTerminals` kills those a test left open.
 * `shellTerminal` is an interactive shell in one instead (job control: Ctrl-Z and `fg`). Every
 * pseudo-terminal test runs the program it tests here, whatever the program (the CLI's through
 * `runInTerminal` in test/cli/pty-harness.ts), so each says the same way how it ended: an exit
 * code, or the signal that ended it.
 *
 * The program's end is read from the terminal, not from node-pty's exit event: node-pty reports
 * the exit of the process it started up to 200 ms late and then takes the terminal down,
 * dropping what the test had not read yet (on a loaded machine, the REPL's last rows). So the
 * process in the terminal is a small wrapper (WRAPPER) that runs the program as its child, says
 * the child's pid before the program starts and how it ended after everything it wrote, and
 * stays until the test has read that.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { spawn, type IPty } from '@lydell/node-pty';

const root = path.resolve(__dirname, '../..');
const BIN = path.join(root, 'bin/heapql.js');

export interface TerminalOptions {
  cwd?: string;
  env?: Record<string, string>;
  cols?: number;
  /** The terminal's rows (50 unless told). */
  rows?: number;
  /** Run this program with `args` instead of heapql (`shellTerminal`). */
  program?: string;
}

/** The command line that starts heapql, for typing into a shell. */
export const HEAPQL = `${process.execPath} ${BIN}`;

/**
 * The terminal's first process (perl: a shell's `$?` cannot tell an exit 143 from a SIGTERM).
 * The program, its child, is in the terminal's foreground process group as it would be on its
 * own: a Ctrl-C or Ctrl-\ typed reaches it (the wrapper ignores those). Before the program
 * starts, the child writes `\x01pty-terminal pid <pid>\x01` (exec keeps the pid); after it
 * ended, the wrapper writes `\x01pty-terminal end <exit code> <signal>\x01` and waits to be
 * killed. A hang-up (the terminal closed), which the kernel sends the session's leader, the
 * wrapper passes on to the program, the leader in its place; where the end can no longer be
 * written (the terminal is gone) the wrapper ends as the program did, for node-pty's exit event.
 */
const WRAPPER = String.raw`
use POSIX ();
my @typed = qw(INT QUIT TSTP TTIN TTOU);
$SIG{$_} = 'IGNORE' for @typed;
my $child = 0;
$SIG{HUP} = sub { kill 'HUP', $child if $child };
my $pid = fork // die "pty-terminal: fork failed: $!\n";
if ($pid == 0) {
  $SIG{$_} = 'DEFAULT' for @typed, 'HUP';
  syswrite STDOUT, "\x01pty-terminal pid $$\x01";
  exec { $ARGV[0] } @ARGV;
  syswrite STDERR, "pty-terminal: cannot run $ARGV[0]: $!\r\n";
  POSIX::_exit(127);
}
$child = $pid;
my $got;
do { $got = waitpid($pid, 0) } until $got == $pid || ($got == -1 && !$!{EINTR});
my ($code, $signal) = ($? >> 8, $? & 127);
$child = 0;
if (syswrite STDOUT, "\x01pty-terminal end $code $signal\x01") {
  $SIG{HUP} = 'DEFAULT';
  sleep 3600 while 1;
}
if ($signal) {
  $SIG{$_} = 'DEFAULT' for @typed, 'HUP';
  kill $signal, $$;
}
POSIX::_exit($code);
`;

/** What the child says before the program starts: its pid. */
const PID = /\x01pty-terminal pid (\d+)\x01/;
/** Why the wrapper cannot run (perl with POSIX is not on PATH), or '' when it can; asked once. */
let perlChecked: string | undefined;
function perlError(): string {
  const probe = spawnSync('perl', ['-MPOSIX', '-e', '1'], { encoding: 'utf8' });
  if (probe.status === 0) return '';
  return `the pseudo-terminal tests run their program under a perl wrapper, and perl with its POSIX module cannot run here (${probe.error?.message ?? probe.stderr.trim()}): install perl`;
}

/** What the wrapper says after the program ended: its exit code and the signal that ended it (0: none). */
const END = /\x01pty-terminal end (\d+) (\d+)\x01/;

const open: Terminal[] = [];

export class Terminal {
  /** Every byte the program wrote (the wrapper's two notes taken out). */
  raw = '';
  /** What came so far, the notes in it. */
  private stream = '';
  /** The program has ended: nothing more will come. */
  private gone = false;
  private waiters: (() => void)[] = [];
  /** Told of each piece of the program's output as it comes (`onOutput`). */
  private readonly listeners: (() => void)[] = [];
  /** The program's exit code, once it has ended (0 when a signal ended it). */
  readonly exited: Promise<number>;
  /** The signal that ended the program, if one did. */
  signal: number | undefined;
  /** The program's pid, once its child said it. */
  private programPid: number | undefined;
  /** The terminal, its first process the wrapper. */
  private readonly wrapper: IPty;
  /**
   * The terminal, as the program's: `pid` is the program's (signals sent to it reach the program,
   * SIGSTOP included), `kill` signals the program; the rest (write, pause, destroy, …) is node-pty's.
   */
  readonly pty: IPty;

  /** `heapql <args>` with its history in `stateDir` (XDG_STATE_HOME). */
  constructor(args: string[], stateDir: string, options: TerminalOptions = {}) {
    const argv = options.program ? [options.program, ...args] : [process.execPath, BIN, ...args];
    perlChecked ??= perlError();
    if (perlChecked) throw new Error(perlChecked);
    this.wrapper = spawn('perl', ['-e', WRAPPER, '--', ...argv], {
      cols: options.cols ?? 160,
      rows: options.rows ?? 50,
      cwd: options.cwd ?? root,
      env: { ...process.env, XDG_STATE_HOME: stateDir, HEAPQL_DEBUG: '', NO_COLOR: '1', CI: '', ...options.env } as Record<string, string>,
    });
    this.pty = new Proxy(this.wrapper, {
      get: (target, key) => {
        if (key === 'pid') return this.pid;
        if (key === 'kill') return (signal?: string) => this.kill(signal);
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    let settle: (code: number) => void = () => {};
    this.exited = new Promise((resolve) => (settle = resolve));
    const ended = (code: number, signal: number) => {
      if (this.gone) return;
      this.gone = true;
      // The wrapper's own complaint, if the program never started.
      if (this.programPid === undefined) this.raw = this.stream;
      this.signal = signal || undefined;
      for (const w of this.waiters.splice(0)) w();
      settle(code);
    };
    this.wrapper.onData((d) => {
      if (this.gone) return;
      this.stream += d;
      if (this.programPid === undefined) {
        const said = PID.exec(this.stream);
        // Nothing of the program's comes before its pid.
        if (!said) return;
        this.programPid = Number(said[1]);
        // (Anything before it is the wrapper's: perl's warnings, say.)
        this.stream = this.stream.slice(0, said.index) + this.stream.slice(said.index + said[0].length);
      }
      const end = END.exec(this.stream);
      this.raw = end ? this.stream.slice(0, end.index) : this.stream;
      for (const w of this.waiters.splice(0)) w();
      if (end) {
        ended(Number(end[1]), Number(end[2]));
        // Everything is read: the wrapper can go.
        this.wrapper.kill('SIGKILL');
      } else {
        for (const l of this.listeners) l();
      }
    });
    // The terminal gone before the end was read (closed by the test, or the wrapper killed): the
    // wrapper ended as the program did, and node-pty says how.
    this.wrapper.onExit((e) => ended(e.exitCode, e.signal ?? 0));
    open.push(this);
  }

  /**
   * Calls `listener` after each piece of the program's output while it runs (`raw` holds it
   * then), for input that answers what it showed; not after its end.
   */
  onOutput(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The program's pid (known once it has started: before anything of its shows). */
  get pid(): number {
    if (this.programPid === undefined) throw new Error(`the program in the terminal has not started yet (it showed: ${JSON.stringify(this.stream.slice(-400))})`);
    return this.programPid;
  }

  /** Sends `signal` (SIGHUP by default) to the program, as node-pty's kill does to its process. */
  kill(signal = 'SIGHUP'): void {
    if (this.programPid === undefined || this.gone) return;
    try {
      process.kill(this.programPid, signal);
    } catch {
      // already gone
    }
  }

  /** Ends the program (SIGHUP, as a closed terminal does) and the terminal. */
  close(): void {
    this.kill();
    try {
      this.wrapper.kill('SIGKILL');
    } catch {
      // already gone
    }
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
  for (const t of open.splice(0)) t.close();
}
