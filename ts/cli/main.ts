/**
 * The `heapql` command: dispatches to one subcommand per file. `heapql <dump> [report]` (no
 * subcommand) analyzes a dump. Errors a user can act on print one line (no stack trace unless
 * HEAPQL_DEBUG=1) and set the exit code: 2 for usage and unreadable input, 1 otherwise.
 */
import { existsSync } from 'node:fs';
import { renderUsage, runCommand, type ArgsDef, type CommandDef } from 'citty';

import { HeapqlError, usageError } from '../errors.js';
import { subCommands, mainCommand } from './commands.js';
import { errorText, globalArgs, setQuiet } from './stderr.js';

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  try {
    await dispatch(withoutGlobalOptions(argv));
  } catch (err) {
    reportError(err);
  }
}

/** Takes `--quiet` out of the arguments (before `--`), so that every subcommand accepts it. */
function withoutGlobalOptions(argv: string[]): string[] {
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
  const kept = argv.filter((a, i) => i >= end || a !== '--quiet');
  setQuiet(kept.length !== argv.length);
  return kept;
}

async function dispatch(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v' || first === 'version') {
    if (rest.length > 0) throw usageError(`unexpected argument ${rest[0]} for ${first}; see heapql --help`);
    (await import('./version.js')).printVersion();
    return;
  }
  if (first === 'help' && rest.length > 0) {
    // `heapql help query`, `heapql help cache list`: that command's help, as `<command> --help`.
    const [name, ...more] = rest as [string, ...string[]];
    if (!Object.hasOwn(subCommands, name)) throw usageError(`${await unknownCommandMessage(name, false)}; heapql help <command> shows a command's help`);
    return run(await subCommands[name]!(), [...more, '--help'], rootForHelp);
  }
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write((await renderUsage(await rootForHelp())) + '\n');
    if (first === undefined) process.exitCode = 2;
    return;
  }
  const sub = Object.hasOwn(subCommands, first) ? subCommands[first] : undefined;
  // The root (every subcommand loaded for its description) only when help is asked for: a
  // query must not pay for loading the server, the report renderers and the clients.
  if (sub) return run(await sub(), rest, rootForHelp);
  if (first.startsWith('-')) {
    // `heapql --no-cache <dump>`: the report's options may come first, as its usage shows; a
    // subcommand's may not (`heapql --no-cache query <dump>` would read `query` as the dump).
    const command = argv.find((a) => Object.hasOwn(subCommands, a));
    if (command) throw usageError(`options go after the command: heapql ${command} … ${first}; see heapql ${command} --help`);
    return run(await mainCommand(), argv, async () => undefined);
  }
  if (looksLikeCommand(first)) throw usageError(await unknownCommandMessage(first));
  return run(await mainCommand(), argv, async () => undefined);
}

/** A bare word (no dot, no slash) that is not a file is a mistyped or missing subcommand, not a dump. */
function looksLikeCommand(word: string): boolean {
  return /^[A-Za-z][\w-]*$/.test(word) && !existsSync(word);
}

async function unknownCommandMessage(word: string, maybeFile = true): Promise<string> {
  const { didYouMean } = await import('../plan/index.js');
  const names = Object.keys(subCommands);
  const lower = word.toLowerCase();
  const near = new Set(names.filter((n) => word.length >= 2 && n.startsWith(lower)));
  const guess = didYouMean(word, names);
  if (guess) near.add(guess);
  const hint = near.size ? `did you mean ${[...near].join(' or ')}? ` : '';
  if (!maybeFile) return `unknown command '${word}'; ${hint}commands: ${names.join(', ')}`;
  return `unknown command '${word}' (and no file of that name); ${hint}commands: ${names.join(', ')}. To read a dump named ${word}, write ./${word}`;
}

/** Runs a citty command, printing its own --help. */
async function run(cmd: CommandDef<any>, rawArgs: string[], parent: () => Promise<CommandDef<any> | undefined>): Promise<void> {
  if (rawArgs.includes('--help') || rawArgs.includes('-h')) {
    // `heapql sched stop --help`: the help of the named verb, not of its parent.
    const verbs = cmd.subCommands as Record<string, CommandDef<any>> | undefined;
    const word = rawArgs.find((a) => !a.startsWith('-')) ?? '';
    const verb = verbs && Object.hasOwn(verbs, word) ? verbs[word] : undefined;
    const verbParent = { meta: { name: `heapql ${(cmd.meta as { name?: string } | undefined)?.name ?? ''}` } };
    process.stdout.write((verb ? await renderUsage(await forHelp(verb), verbParent) : await renderUsage(await forHelp(cmd), await parent())) + '\n');
    return;
  }
  // citty looks a verb up as any property: `heapql cache constructor` ran Object's and exited 0.
  const verbs = cmd.subCommands as Record<string, unknown> | undefined;
  const word = rawArgs.find((a) => !a.startsWith('-'));
  if (verbs && word !== undefined && !Object.hasOwn(verbs, word)) {
    throw usageError(await citeError(Object.assign(new Error(`Unknown command ${word}`), { code: 'E_UNKNOWN_COMMAND' }), cmd, rawArgs));
  }
  try {
    await runCommand(cmd, { rawArgs });
  } catch (err) {
    // citty's own argument errors are usage errors, worded as heapql's others are.
    if (err instanceof Error && err.name === 'CLIError') throw usageError(await citeError(err as Error & { code?: string }, cmd, rawArgs));
    throw err;
  }
}

/**
 * citty's argument errors (`Unknown command foo`, `No command specified.`, `Missing required
 * positional argument: FILE`) in the words of heapql's own usage errors: lower case, the
 * command named, what it takes and where its help is. Colour codes citty may add are dropped.
 */
async function citeError(err: Error & { code?: string }, cmd: CommandDef<any>, rawArgs: string[]): Promise<string> {
  // eslint-disable-next-line no-control-regex
  const message = err.message.replace(/\u001b\[[0-9;]*m/g, '');
  const name = (cmd.meta as { name?: string } | undefined)?.name ?? '';
  const verbs = Object.keys((cmd.subCommands as Record<string, unknown> | undefined) ?? {});
  // An error of a verb (`heapql device text` without its prompt) names the verb.
  const verb = verbs.find((v) => v === rawArgs.find((a) => !a.startsWith('-')));
  const command = ['heapql', ...(name === 'heapql' || name === '' ? [] : [name]), ...(verb ? [verb] : [])].join(' ');
  const help = `see ${command} --help`;
  switch (err.code) {
    case 'E_UNKNOWN_COMMAND': {
      const word = rawArgs.find((a) => !a.startsWith('-')) ?? '';
      const { didYouMean } = await import('../plan/index.js');
      const guess = didYouMean(word, verbs);
      return `unknown command '${word}' for ${command}; ${guess ? `did you mean ${guess}? ` : ''}commands: ${verbs.join(', ')}; ${help}`;
    }
    case 'E_NO_COMMAND':
      return `${command} needs a command: ${verbs.join(', ')}; ${help}`;
  }
  const missing = /^Missing required positional argument: (\S+)$/.exec(message);
  // Named as the command's help names it (`USAGE heapql summary [OPTIONS] <FILE>`).
  if (missing) return `${command} needs <${missing[1]}>; ${help}`;
  return `${message.charAt(0).toLowerCase()}${message.slice(1).replace(/\.$/, '')}; ${help}`;
}

/**
 * A command as its help shows it: with the options every command takes (`--quiet`), and a switch
 * that is on by default (`cache`, `auto-analyze`) by its `--no-` form alone, which says what
 * the default is — citty would list `--cache (Default: true)` beside `--no-cache`, an option
 * nobody needs to write (it still works).
 */
async function forHelp(cmd: CommandDef<any>): Promise<CommandDef<any>> {
  const args = (await (typeof cmd.args === 'function' ? cmd.args() : cmd.args)) as ArgsDef | undefined;
  const shown: ArgsDef = {};
  for (const [name, def] of Object.entries(args ?? {})) {
    if (def.type === 'boolean' && def.default === true && def.negativeDescription) {
      shown[`no-${name}`] = { type: 'boolean', description: `${def.negativeDescription}; by default ${def.description}` };
    } else shown[name] = def;
  }
  return { ...cmd, args: { ...shown, ...globalArgs } };
}

/** The root command with every subcommand listed by the first line of its description. */
async function rootForHelp(): Promise<CommandDef<any>> {
  const listed: Record<string, CommandDef<any>> = {};
  for (const [name, load] of Object.entries(subCommands)) {
    const meta = (await load()).meta as { description?: string } | undefined;
    const line = (meta?.description ?? '').split('\n')[0]!.replace(/:$/, '');
    listed[name] = { meta: { name, description: line } };
  }
  const root = await mainCommand();
  return { ...(await forHelp(root)), subCommands: listed };
}

function reportError(err: unknown): void {
  if (process.env.HEAPQL_DEBUG === '1' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  if (err instanceof HeapqlError) {
    process.stderr.write(err.code === 'ERR_CANCELLED' ? 'error: interrupted; nothing was written\n' : errorText(err.message));
    process.exitCode = err.exitCode;
    return;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(errorText(message));
  if (process.env.HEAPQL_DEBUG !== '1') process.stderr.write('(set HEAPQL_DEBUG=1 for details)\n');
  process.exitCode = 1;
}
