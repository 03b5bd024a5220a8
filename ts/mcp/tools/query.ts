/** OQL tools: run a query with a row cap, explain its plan, list and run the named queries. */

import { findNamedQuery, NAMED_QUERIES, suggestNamedQueries } from '../../query/named.js';
import { extractViz, noteWithVizWarning, vizWarning } from '../../query/viz.js';
import type { HeapSession } from '../../session/index.js';
import { flag, text, toolArgs, wholeNumber } from '../args.js';
import type { McpContext } from '../context.js';
import type { ToolRegistrar } from '../registrar.js';
import { FULL_PATH_OQL, QUERY_MAX, QUERY_NAME_MAX, RESULT_MAX, ROWS_DEFAULT, ROWS_MAX, TEXT_CAP_SENTENCE } from '../limits.js';
import { errorResult, guarded, jsonResult, type ResultFit } from '../result.js';
import { callProgress, scanProgress } from '../progress.js';
import { needsAnalysis } from '../state.js';

const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

const maxRows = wholeNumber('maxRows', 1, ROWS_MAX, ROWS_DEFAULT).describe(`at most this many rows come back (default ${ROWS_DEFAULT}, at most ${ROWS_MAX}); "truncated": true says more existed, and totalRows how many rows the query gives in all`);

const reachableOnly = flag('reachableOnly')
  .optional()
  .describe('only objects reachable from GC roots (default: the server\'s mode, see describe_dump)');

/**
 * Runs OQL with a row cap. The query's own LIMIT is kept when it is within the cap; otherwise
 * one row more than the cap is asked for, so "truncated" is exact, and a result cut at the cap
 * states how many rows the query gives in all (`totalRows`, up to its own LIMIT): a second run
 * that only counts (`queryCount`: no row is described or kept), so that an assistant knows
 * whether 50 rows are most of the answer or a sliver of it. `elapsedMs` is the whole time taken
 * (parsing, the query and the counting run), `countMs` the counting run's part of it. A `-- @viz` directive the result
 * cannot draw is said in the note, as the REPL and the HTTP server say it.
 */
async function runCapped(
  heap: HeapSession,
  oql: string,
  cap: number,
  options: { reachableOnly?: boolean; name?: string; signal: AbortSignal; progress: ReturnType<typeof scanProgress> },
) {
  const started = performance.now();
  const prepared = heap.prepare(oql, { ...(options.reachableOnly !== undefined ? { reachableOnly: options.reachableOnly } : {}) });
  const own = prepared.planned.plan.query.limit;
  const withinCap = own !== null && own <= cap;
  const scanning = options.progress.stage('scanning objects');
  const result = await heap.query(prepared, { name: options.name ?? 'q1', signal: options.signal, onProgress: scanning, ...(withinCap ? {} : { limit: cap + 1 }) });
  const truncated = !withinCap && result.rows.length > cap;
  const counting = performance.now();
  const totalRows = truncated ? (await heap.queryCount(prepared, { signal: options.signal, onProgress: options.progress.stage('counting rows') })).rowCount : undefined;
  const countMs = totalRows === undefined ? undefined : tenths(performance.now() - counting);
  const note = noteWithVizWarning(result.note, vizWarning(prepared.viz, result.columns, extractViz(oql).warning));
  return {
    columns: result.columns,
    rows: result.rows.slice(0, cap),
    rowCount: Math.min(result.rows.length, cap),
    truncated,
    ...(totalRows !== undefined
      ? {
          totalRows,
          truncatedNote: `only the first ${cap} of ${totalRows} rows are shown: raise maxRows (at most ${ROWS_MAX}) or narrow the query (WHERE, ORDER BY … LIMIT, GROUP BY, COUNT(*))`,
        }
      : {}),
    ...(note ? { note } : {}),
    // The whole run: the query, and the counting run behind totalRows (countMs of it).
    elapsedMs: tenths(performance.now() - started),
    ...(countMs !== undefined ? { countMs } : {}),
  };
}

/** Milliseconds to a tenth, as the session's elapsedMs. */
const tenths = (ms: number) => Math.round(ms * 10) / 10;

/** How to read the rows a result cut to RESULT_MAX left out (OQL has no OFFSET). */
const QUERY_REST =
  'select fewer or shorter columns (an OQL slice keeps the start of a long text: toString(s)[0:200]), or page: ' +
  'order by the object id and go on after the last row returned (ORDER BY x.@objectId, then WHERE x.@objectId > <its objectId>), ' +
  'with a maxRows that fits.';

/**
 * A query result cut to RESULT_MAX: whole rows dropped from the end (a row, a list in one of its
 * cells and the columns are never cut), `rowCount` and `truncated` saying so.
 */
function queryFit(rest: string): ResultFit {
  return {
    rest,
    whole: (path) => path === 'columns' || /^rows\[\d+\]/.test(path),
    adjust: (value, cut) => {
      const rows = cut.find((c) => c.path === 'rows');
      if (!rows) return;
      value.rowCount = rows.returned;
      value.truncated = true;
      const of = typeof value.totalRows === 'number' ? value.totalRows : rows.total;
      value.totalRows = of;
      value.truncatedNote = `only the first ${rows.returned} of ${of} rows are shown: with more the result would be longer than ${RESULT_MAX} characters (see truncatedListsNote)`;
    },
  };
}
const OQL_FIT = queryFit(`For the rest: ${QUERY_REST}`);
const NAMED_FIT = queryFit(`For the rest: run its OQL (the oql field) with run_oql and ${QUERY_REST}`);

export function registerQueryTools(server: ToolRegistrar, ctx: McpContext): void {
  server.registerTool(
    'run_oql',
    {
      title: 'Run an OQL query',
      description:
        'Runs an OQL (Object Query Language, Eclipse MAT dialect) query on the dump and returns its columns and rows. ' +
        'Object cells are {objectId, address, className[, label]}; pass objectId to inspect_object. Examples: ' +
        '`SELECT s, toString(s) FROM java.lang.String s WHERE s.value.@length > 1000`, ' +
        '`SELECT classof(x) AS class, COUNT(*) AS n FROM INSTANCEOF java.util.AbstractMap x GROUP BY classof(x) ORDER BY n DESC`, ' +
        '`SELECT m, m.size FROM java.util.HashMap m WHERE m.size > 100`. Attributes: @objectId, @usedHeapSize (shallow), ' +
        `@length, @heap (Android dumps: app, zygote or image; NULL otherwise), @classLoader (the defining loader of a class object; NULL for the bootstrap loader). Only after analyze_heap: ${FULL_PATH_OQL}. ` +
        'Rows are capped (maxRows); an OQL error comes back with the position of the problem.' + TEXT_CAP_SENTENCE,
      inputSchema: toolArgs('run_oql', { query: text('query', 'the OQL text', QUERY_MAX).describe('the OQL text'), maxRows, reachableOnly }),
      annotations: readOnly,
    },
    ({ query, maxRows: cap, reachableOnly: reach }, extra) =>
      guarded(async () => {
        const progress = scanProgress(callProgress(extra));
        try {
          const heap = await ctx.heap();
          return jsonResult(await runCapped(heap, query, cap, { reachableOnly: reach, signal: extra.signal, progress }), OQL_FIT);
        } finally {
          await progress.finish();
        }
      }, query),
  );

  server.registerTool(
    'explain_oql',
    {
      title: 'Explain an OQL query',
      description:
        'Shows how a query would run (its execution plan: scans, filters, joins, sort, limit) without running it; also ' +
        'checks the query, so a syntax error or an unknown attribute comes back as an error with its position.',
      inputSchema: toolArgs('explain_oql', { query: text('query', 'the OQL text', QUERY_MAX).describe('the OQL text'), reachableOnly }),
      annotations: readOnly,
    },
    ({ query, reachableOnly: reach }) =>
      guarded(async () => {
        const heap = await ctx.heap();
        return jsonResult({ plan: heap.explain(query, { ...(reach !== undefined ? { reachableOnly: reach } : {}) }) });
      }, query),
  );

  server.registerTool(
    'list_named_queries',
    {
      title: 'List the named queries',
      description:
        'The built-in library of ready-made OQL queries (largest objects, duplicate strings, threads, big collections, ' +
        'class loaders, biggest retainers…) with their OQL. Run one with run_named_query; those marked needsFullAnalysis ' +
        'need analyze_heap first.',
      inputSchema: toolArgs('list_named_queries', {}),
      annotations: readOnly,
    },
    () =>
      guarded(async () =>
        jsonResult({
          queries: NAMED_QUERIES.map((q) => ({ name: q.name, group: q.group, description: q.description, needsFullAnalysis: q.fullPath, oql: q.oql })),
        }),
      ),
  );

  server.registerTool(
    'run_named_query',
    {
      title: 'Run a named query',
      description: 'Runs one query of the built-in library by name (see list_named_queries), with the same row cap as run_oql.' + TEXT_CAP_SENTENCE,
      inputSchema: toolArgs('run_named_query', {
        name: text('name', 'the name of a named query', QUERY_NAME_MAX).describe('e.g. "top-classes-by-size", "duplicate-strings", "all-threads"'),
        maxRows,
      }),
      annotations: readOnly,
    },
    ({ name, maxRows: cap }, extra) => {
      const named = findNamedQuery(name);
      return guarded(async () => {
        if (!named) {
          const near = suggestNamedQueries(name);
          return errorResult(`no named query '${name}'${near.length ? `; did you mean ${near.join(', ')}?` : ''} (list_named_queries lists them)`);
        }
        const progress = scanProgress(callProgress(extra));
        try {
          const heap = await ctx.heap();
          if (named.fullPath && !heap.analyzed) return errorResult(needsAnalysis(heap, `the named query '${named.name}'`));
          const run = await runCapped(heap, named.oql, cap, { name: named.name, signal: extra.signal, progress });
          return jsonResult({ name: named.name, oql: named.oql, ...run }, NAMED_FIT);
        } finally {
          await progress.finish();
        }
      }, named?.oql);
    },
  );
}
