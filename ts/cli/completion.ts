/**
 * `heapql completion bash|zsh|fish`: shell completion scripts generated from the command table,
 * so a new subcommand, verb or option is completed without touching this file. The table is
 * read into paths (`heapql`, `heapql/query`, `heapql/sched/stop`), each with its words (the
 * subcommands or verbs), its options, and whether its positionals are files; options that take
 * a value complete it from their value hint (`table|json|csv` → those words, path/dir → files).
 * Each script holds that data and a small walker that finds the path of the words typed so far.
 */
import { defineCommand, type ArgsDef, type CommandDef } from 'citty';

import { usageError } from '../errors.js';
import { checkOptions } from './args.js';
import { globalArgs } from './stderr.js';

type Lazy<T> = T | Promise<T> | (() => T | Promise<T>);

interface Option {
  flag: string;
  description: string;
  /** undefined: a switch; 'files'; 'any' (free text); otherwise the words it takes. */
  value?: 'files' | 'any' | string[];
}

interface CommandPath {
  path: string;
  words: { name: string; description: string }[];
  options: Option[];
  files: boolean;
}

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

const completionArgs = {
  shell: { type: 'positional', required: true, valueHint: SHELLS.join('|'), description: 'the shell to complete in' },
} as const;

/** The `completion` command over the table it is listed in (passed in: no import circle). */
export function completionCommand(table: () => Record<string, Lazy<CommandDef<any>>>, root: Lazy<CommandDef<any>>): CommandDef<any> {
  return defineCommand({
    meta: {
      name: 'completion',
      description:
        'Print a shell completion script for bash, zsh or fish\n' +
        'bash: eval "$(heapql completion bash)" in ~/.bashrc; zsh: source <(heapql completion zsh) in ~/.zshrc; ' +
        'fish: heapql completion fish > ~/.config/fish/completions/heapql.fish',
    },
    args: completionArgs,
    async run({ args, rawArgs }) {
      checkOptions(rawArgs, 'completion', completionArgs, 1);
      const shell = args.shell as Shell;
      if (!SHELLS.includes(shell)) throw usageError(`completion: no script for '${args.shell}'; shells: ${SHELLS.join(', ')}`);
      const paths = await commandPaths(await resolve(root), table());
      process.stdout.write(SCRIPT[shell](paths));
    },
  });
}

async function resolve<T>(value: Lazy<T>): Promise<T> {
  return typeof value === 'function' ? await (value as () => T | Promise<T>)() : await value;
}

/** Every command path of the table, depth first, root first. */
export async function commandPaths(root: CommandDef<any>, table: Record<string, Lazy<CommandDef<any>>>): Promise<CommandPath[]> {
  const out: CommandPath[] = [];
  const visit = async (path: string, cmd: CommandDef<any>, children: Record<string, Lazy<CommandDef<any>>>, extra: Option[]) => {
    const entry: CommandPath = { path, words: [], options: [...optionsOf(await resolve(cmd.args ?? {})), ...extra], files: false };
    const positionals = Object.values((await resolve(cmd.args ?? {})) as ArgsDef).filter((d) => d.type === 'positional');
    entry.files = positionals.some((d) => isPathHint(d.valueHint));
    // A positional with a closed set of values (`bash|zsh|fish`) completes like subcommand words.
    for (const d of positionals) {
      if (d.valueHint?.includes('|')) entry.words.push(...d.valueHint.split('|').map((name) => ({ name, description: d.description ?? '' })));
    }
    out.push(entry);
    for (const [name, lazy] of Object.entries(children)) {
      const child = await resolve(lazy);
      const meta = await resolve(child.meta ?? {});
      entry.words.push({ name, description: (meta.description ?? '').split('\n')[0]! });
      await visit(`${path}/${name}`, child, await resolve(child.subCommands ?? {}), common);
    }
  };
  const common = [...optionsOf(globalArgs), { flag: '--help', description: 'show help' }];
  await visit('heapql', root, table, [...common, { flag: '--version', description: 'print the versions' }]);
  return out;
}

function optionsOf(args: ArgsDef): Option[] {
  const options: Option[] = [];
  for (const [name, d] of Object.entries(args)) {
    if (d.type === 'positional') continue;
    const description = (d.description ?? '').split('\n')[0]!;
    if (d.type === 'boolean') {
      // A switch that is on by default is only ever written as --no-<name>, which says what it does.
      const off = d.default === true;
      options.push({ flag: off ? `--no-${name}` : `--${name}`, description: off && d.negativeDescription ? d.negativeDescription : description });
      continue;
    }
    const hint = 'valueHint' in d ? d.valueHint : undefined;
    const value = hint?.includes('|') ? hint.split('|') : isPathHint(hint) && hint ? 'files' : 'any';
    options.push({ flag: `--${name}`, description, value });
  }
  return options;
}

/** A positional or option value that names a file (no hint on a positional means the dump). */
function isPathHint(hint: string | undefined): boolean {
  return hint === undefined || /^(path|file|dir)$/.test(hint);
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const valueKind = (o: Option) => (Array.isArray(o.value) ? `choices ${o.value.join(' ')}` : o.value!);
const valueOptions = (paths: CommandPath[]) => paths.flatMap((p) => p.options.filter((o) => o.value).map((o) => ({ key: `${p.path} ${o.flag}`, kind: valueKind(o) })));
const header = (shell: string, load: string) =>
  `# ${shell} completion for heapql, generated by \`heapql completion ${shell}\` from heapql's command table.\n# ${load}\n`;

function bash(paths: CommandPath[]): string {
  const cases = (f: (p: CommandPath) => string) => paths.map((p) => `    ${p.path}) echo ${quote(f(p))} ;;`).join('\n');
  return `${header('bash', 'Load it from ~/.bashrc: eval "$(heapql completion bash)"')}
_heapql_words() {
  case $1 in
${cases((p) => p.words.map((w) => w.name).join(' '))}
  esac
}
_heapql_options() {
  case $1 in
${cases((p) => p.options.map((o) => o.flag).join(' '))}
  esac
}
_heapql_value() {
  case "$1" in
${valueOptions(paths).map((v) => `    ${quote(v.key)}) echo ${quote(v.kind)} ;;`).join('\n')}
  esac
}
_heapql_files() {
  case $1 in
    ${paths.filter((p) => p.files).map((p) => p.path).join('|') || '__none__'}) return 0 ;;
  esac
  return 1
}
_heapql() {
  local cur=\${COMP_WORDS[COMP_CWORD]} path=heapql value= positional= i w kind
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if [[ -n $value ]]; then value=; continue; fi
    case $w in
      -*=*) ;;
      -*) [[ -n $(_heapql_value "$path $w") ]] && value=$w ;;
      *) if [[ -z $positional && " $(_heapql_words "$path") " == *" $w "* ]]; then path+=/$w; else positional=1; fi ;;
    esac
  done
  if [[ -n $value ]]; then
    kind=$(_heapql_value "$path $value")
    case $kind in
      files) COMPREPLY=($(compgen -f -- "$cur")) ;;
      choices\\ *) COMPREPLY=($(compgen -W "\${kind#choices }" -- "$cur")) ;;
    esac
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_heapql_options "$path")" -- "$cur"))
    return 0
  fi
  [[ -z $positional ]] && COMPREPLY=($(compgen -W "$(_heapql_words "$path")" -- "$cur"))
  if _heapql_files "$path"; then COMPREPLY+=($(compgen -f -- "$cur")); fi
  return 0
}
complete -o filenames -F _heapql heapql
`;
}

function zsh(paths: CommandPath[]): string {
  const assoc = (name: string, entries: [string, string][]) =>
    `typeset -gA ${name}\n${name}=(\n${entries.map(([k, v]) => `  ${quote(k)} ${quote(v)}`).join('\n')}\n)`;
  return `#compdef heapql
${header('zsh', 'Load it from ~/.zshrc: source <(heapql completion zsh), or save it as _heapql in a directory of $fpath')}
${assoc('_heapql_words', paths.map((p) => [p.path, p.words.map((w) => w.name).join(' ')]))}
${assoc('_heapql_options', paths.map((p) => [p.path, p.options.map((o) => o.flag).join(' ')]))}
${assoc('_heapql_values', valueOptions(paths).map((v) => [v.key, v.kind]))}
${assoc('_heapql_files', paths.filter((p) => p.files).map((p) => [p.path, '1']))}
_heapql() {
  local cmdpath=heapql value= positional= w kind
  local -i i
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    if [[ -n $value ]]; then value=; continue; fi
    case $w in
      -*=*) ;;
      -*) [[ -n \${_heapql_values[$cmdpath $w]} ]] && value=$w ;;
      *) if [[ -z $positional ]] && (( \${\${=_heapql_words[$cmdpath]}[(Ie)$w]} )); then cmdpath+=/$w; else positional=1; fi ;;
    esac
  done
  if [[ -n $value ]]; then
    kind=\${_heapql_values[$cmdpath $value]}
    case $kind in
      files) _files ;;
      choices\\ *) compadd -- \${=kind#choices } ;;
    esac
    return
  fi
  if [[ $PREFIX == -* ]]; then
    compadd -- \${=_heapql_options[$cmdpath]}
    return
  fi
  [[ -z $positional ]] && compadd -- \${=_heapql_words[$cmdpath]}
  (( \${+_heapql_files[$cmdpath]} )) && _files
  return 0
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _heapql "$@"
else
  compdef _heapql heapql
fi
`;
}

function fish(paths: CommandPath[]): string {
  const lines: string[] = [];
  for (const p of paths) {
    const at = `-n ${quote(`__heapql_at ${p.path}`)}`;
    for (const w of p.words) lines.push(`complete -c heapql ${at} -a ${quote(w.name)} -d ${quote(w.description)}`);
    for (const o of p.options) {
      const value = o.value === undefined ? '' : o.value === 'files' ? ' -r -F' : o.value === 'any' ? ' -x' : ` -x -a ${quote(o.value.join(' '))}`;
      lines.push(`complete -c heapql ${at} -l ${o.flag.slice(2)}${value} -d ${quote(o.description)}`);
    }
    if (p.files) lines.push(`complete -c heapql ${at} -F`);
  }
  return `${header('fish', 'Load it: heapql completion fish > ~/.config/fish/completions/heapql.fish')}
set -g __heapql_paths ${paths.map((p) => quote(p.path)).join(' ')}
set -g __heapql_value_options ${valueOptions(paths).map((v) => quote(v.key)).join(' ')}
# True when the words typed so far lead to the command path $argv[1].
function __heapql_at
    set -l path heapql
    set -l value 0
    set -l positional 0
    for w in (commandline -opc)[2..-1]
        if test $value = 1
            set value 0
            continue
        end
        switch $w
            case '-*=*'
            case '-*'
                contains -- "$path $w" $__heapql_value_options; and set value 1
            case '*'
                if test $positional = 0; and contains -- "$path/$w" $__heapql_paths
                    set path "$path/$w"
                else
                    set positional 1
                end
        end
    end
    test "$path" = "$argv[1]"
end
complete -c heapql -f
${lines.join('\n')}
`;
}

const SCRIPT: Record<Shell, (paths: CommandPath[]) => string> = { bash, zsh, fish };
