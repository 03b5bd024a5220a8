/**
 * How the heapql command behaves around its work: a closed pipe, a mistyped or missing
 * subcommand, --quiet, NO_COLOR, --version, and the shell completion scripts.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { subCommands } from '../../ts/cli/commands.js';
import { hasProgram, heapql, root, run } from '../tools/run.js';
import { shellWord } from './pty-harness.js';

const demo = path.join(root, 'fixtures/demo/demo.hprof');
const known = path.join(root, 'fixtures/dumps/KnownHeap-jdk25-coops.hprof');
const bin = path.join(root, 'bin/heapql.js');
const sh = shellWord;

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'heapql-behaviour-'));
});

describe('a closed pipe', () => {
  it('heapql … | head ends quietly, with exit status 0', async () => {
    const query = ['query', demo, '--query', 'SELECT o FROM INSTANCEOF java.lang.Object o'];
    // The whole output is far bigger than a pipe's buffer, so head closes it while heapql writes.
    const full = await heapql(query);
    expect(full.stdout.length).toBeGreaterThan(8 * 65536);
    const line = `NO_COLOR=1 ${sh(process.execPath)} ${sh(bin)} ${query.map(sh).join(' ')} | head -n 1; echo "status=\${PIPESTATUS[0]}" >&2`;
    const r = await run('bash', ['-c', line]);
    expect(r.stdout).toBe(full.stdout.split('\n')[0] + '\n');
    expect(r.stderr).toBe('status=0\n');
  });
});

describe('a failed write to stdout', () => {
  // /dev/full refuses every write with ENOSPC: stdout redirected to a full disk.
  it.each([
    ['--version'],
    ['summary', known, '--no-cache'],
    ['query', demo, '--no-cache', '--query', 'SELECT s FROM java.lang.String s'],
  ])('heapql %s > /dev/full says why on stderr, exit 1, no stack trace', async (...args) => {
    const r = await run('bash', ['-c', `NO_COLOR=1 ${sh(process.execPath)} ${sh(bin)} ${args.map(sh).join(' ')} > /dev/full`]);
    expect(r.stderr).toBe('error: cannot write to standard output: no space left on the device (ENOSPC): free some space, or choose a path on another device\n');
    expect(r.code).toBe(1);
  });
});

describe('an option given twice', () => {
  it('a value option is refused with both values (citty would keep the last, silently)', async () => {
    const r = await heapql(['query', demo, '--format', 'json', '--format=csv', '--query', 'SELECT COUNT(*) FROM java.lang.String']);
    expect(r.stderr).toBe('error: --format given more than once (json, csv): give one\n');
    expect(r.code).toBe(2);
  });

  it('a switch given both ways is refused; the same way twice is harmless', async () => {
    const both = await heapql(['query', demo, '--reachable-only', '--no-reachable-only', '--query', 'SELECT COUNT(*) FROM java.lang.String']);
    expect(both.stderr).toBe('error: --reachable-only and --no-reachable-only both given: give one\n');
    expect(both.code).toBe(2);
    const twice = await heapql(['query', demo, '--quiet', '--quiet', '--no-cache', '--query', 'SELECT COUNT(*) FROM java.lang.String']);
    expect(twice.code, twice.stderr).toBe(0);
  });

  it('the list options still take several values', async () => {
    const r = await heapql(['query', demo, '--no-cache', '--format', 'csv', '--query', 'SELECT COUNT(*) AS a FROM java.lang.String', '--query', 'SELECT COUNT(*) AS b FROM java.lang.Thread']);
    expect(r.code, r.stderr).toBe(0);
    // Each result a CSV table, an empty line (CRLF, as every CSV line ends) after each of several.
    expect(r.stdout).toMatch(/^a\r\n\d+\r\n\r\nb\r\n\d+\r\n\r\n$/);
  });
});

describe('a word in the dump position', () => {
  it('a near subcommand gets did-you-mean (exit 2)', async () => {
    const r = await heapql(['qury', 'x.hprof']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown command 'qury' .*did you mean query\?/);
    const prefix = await heapql(['anal', 'x.hprof']);
    expect(prefix.stderr).toContain('did you mean analyze?');
  });

  it('an unknown word lists the commands instead of reading a dump named so', async () => {
    const r = await heapql(['nosuchcommand', 'x.hprof']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'nosuchcommand'");
    for (const name of Object.keys(subCommands)) expect(r.stderr).toContain(name);
    expect(r.stderr).not.toContain('report format');
  });

  it('a file of that name is still read as a dump', async () => {
    const dir = mkdtempSync(path.join(tmp, 'word-'));
    symlinkSync(known, path.join(dir, 'qury'));
    const r = await heapql(['qury', 'out.json', '--quiet'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'out.json'), 'utf8')).leakSuspects).toBeDefined();
  });
});

describe('--quiet', () => {
  it('leaves only errors on stderr and stdout unchanged', async () => {
    const bytes = readFileSync(known);
    const cut = path.join(tmp, 'cut.hprof');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const query = ['query', cut, '--query', 'SELECT COUNT(*) FROM java.lang.String'];
    const loud = await heapql(query);
    const quiet = await heapql([...query, '--quiet']);
    expect(loud.stderr).toMatch(/^warning: /m);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(loud.stdout);
    expect(quiet.code).toBe(0);
    const report = await heapql(['--quiet', known, path.join(tmp, 'r.md')]);
    expect(report.stderr).toBe('');
    const loudReport = await heapql([known, path.join(tmp, 'r.md')]);
    expect(loudReport.stderr).toContain('report written to');
    const waste = await heapql(['--quiet', 'waste', known, path.join(tmp, 'w.md')]);
    expect(waste.code, waste.stderr).toBe(0);
    expect(waste.stderr).toBe('');
    const loudWaste = await heapql(['waste', known, path.join(tmp, 'w.md')]);
    expect(loudWaste.stderr).toContain('waste report written to');
    const failing = await heapql(['--quiet', 'query', path.join(tmp, 'missing.hprof')]);
    expect(failing.code).toBe(2);
    expect(failing.stderr).toMatch(/^error: /);
  });

  it('is refused after --', async () => {
    const r = await heapql(['query', demo, '--', '--quiet']);
    expect(r.code).toBe(2);
  });

  it("is listed in every command's help, a verb's too", async () => {
    const helps = [[], ...Object.keys(subCommands).map((c) => [c]), ['cache', 'list'], ['sched', 'stop'], ['device', 'status']];
    for (const words of helps) {
      const r = await heapql([...words, '--help'], { env: { ...process.env, NO_COLOR: '1' } });
      expect(r.code, words.join(' ')).toBe(0);
      expect(r.stdout, words.join(' ')).toMatch(/^ +--quiet +print only errors on stderr/m);
    }
  });
});

describe('help', () => {
  it('shows a switch that is on by default by its --no- form only (no "--cache (Default: true)")', async () => {
    for (const command of Object.keys(subCommands)) {
      const r = await heapql([command, '--help'], { env: { ...process.env, NO_COLOR: '1' } });
      expect(r.stdout, command).not.toMatch(/^ +--(cache|auto-analyze) /m);
      expect(r.stdout, command).not.toContain('(Default: true)');
    }
    const query = await heapql(['query', '--help'], { env: { ...process.env, NO_COLOR: '1' } });
    expect(query.stdout).toMatch(/^ +--no-cache +do not read or write the index cache; by default it is used *$/m);
    const server = await heapql(['server', '--help'], { env: { ...process.env, NO_COLOR: '1' } });
    expect(server.stdout).toMatch(/^ +--no-auto-analyze +report requests answer 503 not_ready until POST \/analyze; by default the first report request starts the analysis \(202 until ready\) *$/m);
    // The switches still work as written.
    expect((await heapql(['query', demo, '--cache', '--query', 'SELECT COUNT(*) FROM java.lang.Thread'])).code).toBe(0);
  });
});

describe('colour', async () => {
  // `script` gives heapql a terminal, where citty colours its help unless NO_COLOR is set.
  const canScript = await hasProgram('script');
  it.skipIf(!canScript)('help is coloured on a terminal, and not with NO_COLOR of any value', async () => {
    const onTerminal = (env: NodeJS.ProcessEnv) =>
      run('script', ['-qec', `${sh(process.execPath)} ${sh(bin)} --help`, '/dev/null'], { env: { ...process.env, ...env } });
    const coloured = await onTerminal({ NO_COLOR: '', CI: '', TEST: '', TERM: 'xterm' });
    expect(coloured.stdout).toContain('\x1b[');
    const plain = await onTerminal({ NO_COLOR: 'yes', CI: '', TEST: '', TERM: 'xterm' });
    expect(plain.stdout).toContain('USAGE');
    expect(plain.stdout).not.toContain('\x1b[');
  });
});

describe('an unbuilt checkout', () => {
  it('says to build instead of naming a missing module', async () => {
    // bin/heapql.js alone, beside an empty dist/: as after a clone, before npm run build.
    const dir = mkdtempSync(path.join(tmpdir(), 'heapql-unbuilt-'));
    mkdirSync(path.join(dir, 'bin'));
    mkdirSync(path.join(dir, 'dist'));
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(path.join(dir, 'bin/heapql.js'), readFileSync(bin));
    const r = await run(process.execPath, [path.join(dir, 'bin/heapql.js'), demo]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: heapql is not built (dist/heapql-cli.js is missing): run npm run build\n');
  });
});

describe('--version', () => {
  it("names heapql's version, the addon's version, target and origin, and node's", async () => {
    const r = await heapql(['--version']);
    expect(r.code).toBe(0);
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    const cargo = /\[workspace\.package\]\nversion = "([^"]+)"/.exec(readFileSync(path.join(root, 'Cargo.toml'), 'utf8'))![1];
    const [first, addon, node] = r.stdout.split('\n');
    expect(first).toBe(`heapql ${pkg.version}`);
    expect(addon).toMatch(new RegExp(`^addon ${cargo} for \\w+-\\w+-${process.platform}-?\\w* \\(release build, native API \\d+\\), from .*heapql\\.[\\w-]+\\.node`));
    expect(node).toBe(`node ${process.version} ${process.platform}-${process.arch}`);
  });
});

describe('stray arguments and missing commands: usage errors in heapql\'s words (exit 2)', () => {
  it.each([
    [['--version', 'extra'], 'error: unexpected argument extra for --version; see heapql --help\n'],
    [['-v', 'x'], 'error: unexpected argument x for -v; see heapql --help\n'],
    [['version', 'x'], 'error: unexpected argument x for version; see heapql --help\n'],
    // citty's own "Unknown command foo", "No command specified." and "Missing required positional
    // argument: FILE" (the argument named as the command's help names it: USAGE … <FILE>).
    [['cache', 'foo'], "error: unknown command 'foo' for heapql cache; commands: list, clear; see heapql cache --help\n"],
    [['cache', 'lst'], "error: unknown command 'lst' for heapql cache; did you mean list? commands: list, clear; see heapql cache --help\n"],
    [['cache'], 'error: heapql cache needs a command: list, clear; see heapql cache --help\n'],
    [['summary'], 'error: heapql summary needs <FILE>; see heapql summary --help\n'],
    [['diff', 'a.hprof'], 'error: heapql diff needs <CURRENT>; see heapql diff --help\n'],
    [['completion'], 'error: heapql completion needs <SHELL>; see heapql completion --help\n'],
    // A stray argument or an unknown option points at the help that lists the options: the
    // report's is heapql --help (not "heapql heapql --help"), a verb's its own (cache --help
    // does not list cache list's --json).
    [[demo, 'a.md', 'b.md'], 'error: unexpected argument b.md for heapql; see heapql --help\n'],
    [['cache', 'list', '--jsn'], 'error: unknown option --jsn for cache list; did you mean --json? see heapql cache list --help\n'],
    [['sched', 'stop', '--task', '1', 'extra'], 'error: unexpected argument extra for sched stop; see heapql sched stop --help\n'],
    [['device', 'text', 'hi', '--modle', 'x'], 'error: unknown option --modle for device text; did you mean --model? see heapql device text --help\n'],
    [['query', demo, '--querry', 'x'], 'error: unknown option --querry for query; did you mean --query? see heapql query --help\n'],
    // Said in the options' words (the client's own error names its fields image and
    // captureConfig), before the image file is read: x.jpg does not exist.
    [['device', 'text', 'hi', '--model', 'GEMMA_3_1B_IT', '--image', 'x.jpg', '--capture', 'rear'],
      'error: --image and --capture do not go together: ask about an image file (--image <file>) or a photo the phone takes now (--capture rear|front)\n'],
  ])('heapql %s', async (args, stderr) => {
    const r = await heapql(args);
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
  });

  // A new user's first try (psql and sqlite3 start a session when given no query): the error
  // points to --repl as well as to the one-shot options.
  it.each([
    ['query', 'error: no query given: use --query "<oql>", --query-file <path> or --run <name>, or --repl for an interactive session\n'],
    ['analyze', 'error: no query given: use --query "<oql>", --query-file <path> or --run <name>, or --repl for an interactive session (or heapql <dump> for the report)\n'],
  ])('heapql %s <dump> with no query names --repl too', async (command, stderr) => {
    const r = await heapql([command, demo, '--no-cache']);
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
  });

  it('a verb without its argument names the verb', async () => {
    const r = await heapql(['device', 'text']);
    expect(r.stderr).toBe('error: heapql device text needs <PROMPT>; see heapql device text --help\n');
    expect(r.code).toBe(2);
  });
});

describe('completion scripts', async () => {
  const [hasZsh, hasFish] = [await hasProgram('zsh'), await hasProgram('fish')];
  const commands = Object.keys(subCommands);
  const script = async (shell: string) => {
    const r = await heapql(['completion', shell]);
    expect(r.code).toBe(0);
    const file = path.join(tmp, `heapql.${shell}`);
    writeFileSync(file, r.stdout);
    return file;
  };

  it('bash: registers _heapql and completes commands, verbs, options and their values', async () => {
    const file = await script('bash');
    const complete = async (...words: string[]) => {
      const line = `source ${sh(file)}; complete -p heapql; COMP_WORDS=(${words.map(sh).join(' ')}); COMP_CWORD=${words.length - 1}; _heapql; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = await run('bash', ['-c', line], { cwd: tmp });
      expect(r.stderr).toBe('');
      const [registration, ...replies] = r.stdout.trim().split('\n');
      expect(registration).toBe('complete -o filenames -F _heapql heapql');
      return replies;
    };
    expect(await complete('heapql', '')).toEqual(expect.arrayContaining(commands));
    expect(await complete('heapql', 'qu')).toEqual(['query']);
    expect(await complete('heapql', 'query', '--rea')).toEqual(['--reachable-only']);
    expect(await complete('heapql', 'query', '--no')).toEqual(['--no-cache']);
    expect(await complete('heapql', 'query', 'x', '--format', '')).toEqual(['table', 'json', 'csv']);
    expect(await complete('heapql', '--quiet', 'sched', 's')).toEqual(['status', 'stop']);
    expect(await complete('heapql', 'sched', 'stop', '--t')).toEqual(['--task', '--timeout']);
    expect(await complete('heapql', 'completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(await complete('heapql', 'query', 'cu')).toEqual(['cut.hprof']); // files for the dump
  });

  it.skipIf(!hasZsh)('zsh: parses, and completes through stand-ins for compadd and _files', async () => {
    const file = await script('zsh');
    expect((await run('zsh', ['-n', file])).code).toBe(0);
    const complete = async (...words: string[]) => {
      const line =
        `compdef(){}; compadd(){ print -r -- "\${@:2}" }; _files(){ print FILES }; source ${sh(file)}; ` +
        `words=(${words.map(sh).join(' ')}); CURRENT=${words.length}; PREFIX=${sh(words.at(-1)!)}; _heapql`;
      const r = await run('zsh', ['-fc', line]);
      expect(r.stderr).toBe('');
      return r.stdout.trim().split(/\s+/);
    };
    expect(await complete('heapql', '')).toEqual([...commands, 'FILES']);
    expect(await complete('heapql', 'query', 'x', '--format', '')).toEqual(['table', 'json', 'csv']);
    expect(await complete('heapql', 'sched', 'stop', '--')).toEqual(expect.arrayContaining(['--task', '--group', '--quiet']));
  });

  it.skipIf(!hasFish)('fish: parses, and `complete -C` completes commands, verbs and option values', async () => {
    const file = await script('fish');
    expect((await run('fish', ['--no-execute', file])).code).toBe(0);
    const complete = async (line: string) => {
      const r = await run('fish', ['--no-config', '-c', `source ${sh(file)}; complete -C ${sh(line)}`], { cwd: tmp });
      expect(r.stderr).toBe('');
      return r.stdout.trim().split('\n').map((l) => l.split('\t')[0]);
    };
    expect(await complete('heapql ')).toEqual(expect.arrayContaining(commands));
    expect(await complete('heapql qu')).toEqual(['query']);
    expect(await complete('heapql query x --format ')).toEqual(['csv', 'json', 'table']);
    expect(await complete('heapql sched st')).toEqual(['status', 'stop']);
  });

  it('refuses a shell it has no script for', async () => {
    const r = await heapql(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('shells: bash, zsh, fish');
  });
});
