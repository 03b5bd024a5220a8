/**
 * `heapql diff <baseline> <current> [<report>]`: what grew between two dumps of one application.
 * The format follows the report path's extension; --format overrides; no path prints Markdown.
 * `--fail-if-grown <class-or-pattern>[@<heap>]=<bytes|%>` (repeatable) exits 1 listing the offending
 * rows (per heap on Android dumps: gate.ts).
 */
import { defineCommand } from 'citty';

import { diffDumps, renderDiff } from '../diff/index.js';
import { fillerNoteOf } from '../diff/compute.js';
import { gateLines, rowsText } from '../diff/format.js';
import { parseGateRule } from '../diff/gate.js';
import { checkOutputWritable, chooseOutput, writeOutput, type OutputName } from '../report/index.js';
import { checkOptions, dumpArgs, fullAnalysisArgs, scratchDir } from './args.js';
import { cacheOptions } from './cache.js';
import { analyzeForCli, openForCli } from './open.js';
import { withProgress } from './progress.js';
import { terminalText } from '../terminal-text.js';
import { notice, warn } from './stderr.js';

/** The comparison as its output path's errors name it ("cannot write the comparison to …"). */
const DIFF_OUTPUT: OutputName = { the: 'the comparison', stem: 'diff' };

const args = {
  baseline: { type: 'positional', required: true, description: 'the earlier dump' },
  current: { type: 'positional', required: true, description: 'the later dump' },
  report: { type: 'positional', required: false, description: 'where to write the comparison (.md, .html or .json); none = Markdown on stdout' },
  format: { type: 'string', description: 'output format (default: from the report path)', valueHint: 'md|html|json' },
  'fail-if-grown': {
    type: 'string',
    description:
      'exit 1 when a matching class grew by more (repeatable): a class name, a glob (* ?) or /regex/, then = bytes (50000, 2MB, 64KiB) or a percentage (20%). Android dumps: checked per heap; @heap after the pattern (com.acme.*@app=5MB) checks that heap only',
    valueHint: 'class=limit',
  },
  'reachable-only': { type: 'boolean', description: 'count only objects reachable from GC roots in both dumps (as query --reachable-only); leaves out e.g. the JVM\'s filler arrays, which JDK 21+ writes as int[]' },
  cache: dumpArgs.cache,
  'cache-dir': dumpArgs['cache-dir'],
  'cache-max': dumpArgs['cache-max'],
  ...fullAnalysisArgs,
} as const;

/** Every value of a repeatable option (citty keeps only the last). */
function repeated(rawArgs: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!;
    if (a === `--${name}` && i + 1 < rawArgs.length) out.push(rawArgs[++i]!);
    else if (a.startsWith(`--${name}=`)) out.push(a.slice(name.length + 3));
  }
  return out;
}

export const diffCommand = defineCommand({
  meta: { name: 'diff', description: 'Compare two dumps of one application: what grew (classes, loaders, packages, dominators, leak suspects, duplicate strings)' },
  args,
  async run({ args: a, rawArgs }) {
    checkOptions(rawArgs, 'diff', args, 3);
    const choice = chooseOutput(a.report ?? null, a.format ?? null, DIFF_OUTPUT);
    const gate = repeated(rawArgs, 'fail-if-grown').map(parseGateRule);
    const scratch = scratchDir(a['scratch-dir']);
    checkOutputWritable(choice, DIFF_OUTPUT); // now, not after both analyses
    const model = await withProgress(({ onProgress, signal }) =>
      diffDumps(a.baseline, a.current, {
        gate,
        reachableOnly: a['reachable-only'] ?? false,
        open: (path) => openForCli(path, { scratchDir: scratch, ...cacheOptions(a) }),
        analyze: (session, reachableOnly) => analyzeForCli(session, reachableOnly),
        onProgress: (_which, e) => onProgress(e),
        signal,
      }),
    );
    if (model.sameProgram.note) warn(model.sameProgram.note);
    // The note on unreachable int[]s (JDK 21+ filler arrays) is the comparison's own: on stderr too.
    for (const w of fillerNoteOf(model)) warn(w);
    writeOutput(renderDiff(model, choice.format), choice, process.stdout, DIFF_OUTPUT);
    if (choice.path) notice(`comparison written to ${choice.path}`);
    if (model.gate.failed) {
      // The reason for exit 1: printed even with --quiet, as errors are.
      process.stderr.write(`error: ${rowsText(model.gate.offending.length)} grew past --fail-if-grown:\n`);
      for (const line of gateLines(model)) process.stderr.write(`  ${terminalText(line, { keepBackslashes: true })}\n`);
      process.exitCode = 1;
    }
  },
});
