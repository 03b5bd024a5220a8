/**
 * The full analysis and the report: start it (with MCP progress notifications and cancellation),
 * read its state, cancel it, and read one report section at a time.
 */

import { HeapqlError } from '../../errors.js';
import type { ReportSections } from '../../session/index.js';
import { howFar } from '../../session/cancelled.js';
import { flag, oneOf, toolArgs, wholeNumber } from '../args.js';
import type { McpContext } from '../context.js';
import type { ToolRegistrar } from '../registrar.js';
import { SECTION_LIST_DEFAULT, SECTION_LIST_MAX, TEXT_CAP_SENTENCE } from '../limits.js';
import { analysisProgress, callProgress } from '../progress.js';
import { errorResult, guarded, jsonResult, type ResultFit } from '../result.js';
import { analysisState, needsAnalysis, nextStep } from '../state.js';

/** Tool section names → the report's keys. */
const SECTIONS = {
  overview: 'overview',
  leak_suspects: 'leakSuspects',
  top_consumers: 'topConsumers',
  threads: 'threads',
  waste: 'waste',
} as const satisfies Record<string, keyof ReportSections>;
/** Sections inside another: duplicate strings are part of the waste section. */
const NESTED = { duplicate_strings: (s: ReportSections) => s.waste.duplicateStrings } as const;
type SectionName = keyof typeof SECTIONS | keyof typeof NESTED;

/** A report section cut to RESULT_MAX (a thread's stack, the system properties, many long class names). */
const SECTION_FIT: ResultFit = {
  rest:
    'For the rest: a smaller limit makes the lists shorter, so more of them fit whole; run_oql, inspect_object and ' +
    'describe_class read any object or class named here.',
};

export function registerAnalysisTools(server: ToolRegistrar, ctx: McpContext): void {
  server.registerTool(
    'analyze_heap',
    {
      title: 'Run the full analysis',
      description:
        'Builds the object graph, the dominator tree and retained sizes (seconds for small dumps, minutes for many GB). ' +
        'Afterwards: @retainedHeapSize and dominators() in OQL, referrers/paths/dominators in inspect_object, and ' +
        'get_report_section. By default waits until done, sending progress notifications when the request carries a ' +
        'progressToken; cancelling the request stops waiting, and cancels the analysis when no other analyze_heap call ' +
        'waits on it. wait=false starts it and returns at once (poll analysis_status); it then runs until done or ' +
        'cancel_analysis. Joins an analysis already running; returns at once when it is done.',
      inputSchema: toolArgs('analyze_heap', {
        wait: flag('wait').default(true).describe('wait for the end (default) or start it and return'),
        reachableOnly: flag('reachableOnly')
          .optional()
          .describe('leave objects no GC root reaches out of the dominator tree (default: the server\'s mode)'),
      }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ wait, reachableOnly }, extra) =>
      guarded(async () => {
        const heap = await ctx.heap();
        const mode = reachableOnly ?? ctx.options.reachableOnly;
        if (!wait) {
          const start = heap.startAnalysis({ reachableOnly: mode });
          // Done already: nothing to follow, what it made available is the next step.
          const next = start === 'already_done' ? nextStep(heap) : 'call analysis_status to follow it, or analyze_heap to wait for it';
          return jsonResult({ start, ...analysisState(heap), next });
        }
        const started = Date.now();
        const progress = analysisProgress(callProgress(extra));
        try {
          // Other calls may wait on the same analysis: cancelling this request only stops this one
          // waiting, unless it is the last (ts/session, `analyze`).
          await heap.analyze({ reachableOnly: mode, onProgress: progress.onProgress, signal: extra.signal });
        } catch (err) {
          // Not this request's cancellation: cancel_analysis stopped the analysis it waited for.
          if (err instanceof HeapqlError && err.code === 'ERR_CANCELLED' && !extra.signal.aborted) {
            return errorResult(
              `the full analysis was cancelled by cancel_analysis ${howFar(err.progress)} while this call waited for it; the dump ` +
                'stays usable on the query-only path. Call analyze_heap again to start it anew.',
            );
          }
          throw err;
        }
        await progress.finish();
        return jsonResult({ ...analysisState(heap), waitedMs: Date.now() - started, next: nextStep(heap) });
      }),
  );

  server.registerTool(
    'analysis_status',
    {
      title: 'Analysis status',
      description:
        'Where the full analysis stands: state (query-only, analyzing, full, failed), the running phase and its progress ' +
        '(done of total), the error of a failed analysis, and what is available now.',
      inputSchema: toolArgs('analysis_status', {}),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded(async () => {
        const heap = await ctx.heap();
        return jsonResult({ ...analysisState(heap), next: nextStep(heap) });
      }),
  );

  server.registerTool(
    'cancel_analysis',
    {
      title: 'Cancel the analysis',
      description:
        'Stops a running full analysis (also for analyze_heap calls waiting on it) and answers once it has stopped; queries ' +
        'keep working on the query-only path. analyze_heap starts a new one.',
      inputSchema: toolArgs('cancel_analysis', {}),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded(async () => {
        const heap = await ctx.heap();
        const cancelled = heap.cancelAnalysis();
        // The state then says where it stopped (query-only, or full when it ended first), not `analyzing`.
        await heap.analysisSettled();
        return jsonResult({ cancelled, ...analysisState(heap) });
      }),
  );

  server.registerTool(
    'get_report_section',
    {
      title: 'Get a report section',
      description:
        'One section of the heap report (needs analyze_heap first): overview (heap size, GC roots, class histogram, ' +
        'class loaders, duplicate classes, system properties), leak_suspects (objects or classes retaining a large share ' +
        'of the heap, with the accumulation point and the path from a GC root), top_consumers (biggest objects, classes, ' +
        'class loaders, packages by retained size), threads (each thread with its stack and the objects its frames ' +
        'hold), waste (memory wasted by empty, small and sparse collections, sparse arrays, boxes, duplicate strings and arrays, ' +
        'zero tails, UTF-16 strings that fit Latin-1, pending finalization, by holding field), duplicate_strings (string values ' +
        'stored more than once and the bytes they waste).' + TEXT_CAP_SENTENCE,
      inputSchema: toolArgs('get_report_section', {
        section: oneOf('section', [...Object.keys(SECTIONS), ...Object.keys(NESTED)] as [SectionName, ...SectionName[]]).describe('which section'),
        limit: wholeNumber('limit', 1, SECTION_LIST_MAX, SECTION_LIST_DEFAULT).describe(
          `longest list in the section (histogram rows, consumers, threads, strings…), at most ${SECTION_LIST_MAX}`,
        ),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ section, limit }, extra) =>
      guarded(async () => {
        const heap = await ctx.heap();
        if (!heap.analyzed) return errorResult(needsAnalysis(heap, 'the report'));
        const sections = await ctx.reportSections(limit, extra.signal);
        // Capped at `limit` like every front's report (ts/report/limit.ts); the threads section's threadCount counts them all.
        const data = section === 'duplicate_strings' ? NESTED[section](sections) : sections[SECTIONS[section]];
        return jsonResult({ section, ...data }, SECTION_FIT);
      }),
  );
}
