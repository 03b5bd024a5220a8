/** compare_with_baseline: what grew between a baseline dump and this one, by class. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { HeapqlError } from '../../errors.js';
import type { HeapSession } from '../../session/index.js';
import { flag, oneOf, optionalText, text, toolArgs, wholeNumber } from '../args.js';
import { warningLines, type McpContext } from '../context.js';
import { compareSessions } from '../histogram-compare.js';
import { PATH_MAX, ROWS_DEFAULT, ROWS_MAX, TEXT_CAP_SENTENCE } from '../limits.js';
import { callProgress, compareProgress } from '../progress.js';
import type { ToolRegistrar } from '../registrar.js';
import { guarded, jsonResult, type ResultFit } from '../result.js';

/** compare_with_baseline cut to RESULT_MAX: whole rows dropped from the end, `truncated` saying so. */
const COMPARE_FIT: ResultFit = {
  rest: 'For the rest: a pattern picks the classes wanted (the rows are sorted by growth); a smaller limit gives rows that fit whole.',
  adjust: (value, cut) => {
    if (cut.some((c) => c.path === 'rows')) value.truncated = true;
  },
};

export function registerCompareTools(server: ToolRegistrar, ctx: McpContext): void {
  server.registerTool(
    'compare_with_baseline',
    {
      title: 'Compare with a baseline dump',
      description:
        'The leak question "what grew?": compares this dump\'s class histogram with a baseline dump of the same program ' +
        '(taken earlier): per class name the instances and shallow bytes in both and the change, biggest growth first, ' +
        'plus totals and how many classes appeared or disappeared. Classes are matched by name (addresses differ between ' +
        'dumps; hidden classes such as lambdas without their per-process address suffix, so one row may sum several). ' +
        'With the server started with --reachable-only both dumps count reachable objects only; otherwise a note says ' +
        'when unreachable int[] arrays (the JVM\'s filler arrays on JDK 21+) differ. Retained sizes are not compared. The baseline is the --baseline given at startup unless `baseline` names ' +
        'another file; it is indexed on first use.' + TEXT_CAP_SENTENCE,
      inputSchema: toolArgs('compare_with_baseline', {
        baseline: text('baseline', 'the path of a heap dump file', PATH_MAX)
          .optional()
          .describe('path of the baseline .hprof on the server\'s machine (default: --baseline)'),
        pattern: optionalText('pattern', 'a part of a class name').describe('only class names containing this text, case-insensitive'),
        sortBy: oneOf('sortBy', ['bytes', 'count']).default('bytes').describe('order by growth in shallow bytes or in instances'),
        changedOnly: flag('changedOnly').default(true).describe('leave out classes that did not change'),
        limit: wholeNumber('limit', 1, ROWS_MAX, ROWS_DEFAULT).describe(`rows to return, at most ${ROWS_MAX}`),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ baseline, pattern, sortBy, changedOnly, limit }, extra) => {
      // The progress of the wait for the dump's index (the registrar follows it), then of the
      // baseline's index and of the queries the comparison runs on both dumps: one sequence of
      // numbers, each message naming the dump (flushed before the answer by the registrar).
      const call = callProgress(extra);
      const compared = async (heap: HeapSession, base: HeapSession): Promise<CallToolResult> => {
        // A baseline cut short lacks every object past where its data ends: all of them "grew".
        const warned = warningLines(base);
        // A file of several heap dumps (snapshots): the baseline is its first, said, never merged.
        const { dump: baseIndex, dumpCount: baseCount } = base.info();
        return jsonResult({
          baseline: base.path,
          current: heap.path,
          ...(baseCount > 1
            ? {
                baselineDump: { index: baseIndex, count: baseCount },
                baselineDumpNote: `the baseline file holds ${baseCount} heap dumps (snapshots): the comparison reads heap dump ${baseIndex + 1}, the first; no tool picks another`,
              }
            : {}),
          method: 'class histograms (instances and shallow bytes per class name)',
          ...(warned.length > 0
            ? {
                baselineWarnings: warned,
                baselineWarningsNote:
                  'reading the baseline dump gave these warnings: the comparison rests on what could be read of it (a dump cut short lacks the objects after where its data ends, which then count as growth)',
              }
            : {}),
          ...(await compareSessions(base, heap, { pattern, sortBy, changedOnly, limit, reachableOnly: ctx.options.reachableOnly, signal: extra.signal, progress: compareProgress(call) })),
        }, COMPARE_FIT);
      };
      return guarded(async () => {
        const heap = await ctx.heap();
        const base = await ctx.baseline(baseline, call);
        try {
          return await compared(heap, base);
        } catch (err) {
          // The baseline file changed on disk since it was opened (rewritten, cut short): this tool
          // opens baselines, so it opens that file anew, once, rather than telling to restart the
          // server (a change of this dump, or of a baseline that is this dump's file, still does).
          const changed = err instanceof HeapqlError && err.code === 'ERR_DUMP_CHANGED' && err.dumpPath === base.path && base.path !== heap.path;
          if (!changed) throw err;
          if (ctx.dropBaseline(base)) ctx.options.log.warn(`${base.path}: the baseline dump file changed on disk since it was opened; opening it again`);
          return compared(heap, await ctx.baseline(baseline, call));
        }
      });
    },
  );
}

