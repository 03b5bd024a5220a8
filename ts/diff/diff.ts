/**
 * `diffDumps(baseline, current)`: opens both dumps through the session core, then for each in
 * turn runs the full analysis, collects its snapshot and closes it (one analysis in memory at a
 * time), then compares.
 */
import { HeapqlError } from '../errors.js';
import { NO_HEAP_DUMP_TEXT } from '../report/summary.js';
import { openHeap, type HeapSession, type ProgressEvent } from '../session/index.js';
import { checkOptionNames } from '../session/options.js';
import { describeArgument } from '../session/query.js';
import { computeDiff, dominatorThreshold } from './compute.js';
import { parseGateRule, type GateRule } from './gate.js';
import type { DiffModel } from './model.js';
import { fullSections, snapshot, type DumpSnapshot } from './snapshot.js';
import type { ListedValue } from './strings.js';

export interface DiffOptions {
  /** `--fail-if-grown` rules, as text or parsed. */
  gate?: (string | GateRule)[];
  /** How a dump is opened (the CLI adds its progress bar); default openHeap. */
  open?: (path: string) => Promise<HeapSession>;
  /**
   * Both dumps count only objects reachable from GC roots (`--reachable-only`): the analysis
   * leaves unreachable ones out of every section (histogram, retained sizes, dominators,
   * suspects, strings) and the diff's queries see only reachable objects. Default false: the
   * unreachable objects the dumps hold are counted, as the report counts them.
   */
  reachableOnly?: boolean;
  /** How an opened dump is analyzed; default `session.analyze({reachableOnly})`. It must honour `reachableOnly`. */
  analyze?: (session: HeapSession, reachableOnly: boolean) => Promise<void>;
  /** Progress of opening, analyzing (unless `open` / `analyze` are given) and reading each dump. */
  onProgress?: (which: 'baseline' | 'current', event: ProgressEvent) => void;
  /** Cancels the work (ERR_CANCELLED). */
  signal?: AbortSignal;
}

/**
 * Opens one dump (indexes it) and refuses a file with no heap dump record, as the report does:
 * there are no objects to compare, and a comparison against nothing would pass for one.
 */
async function openDump(path: string, which: 'baseline' | 'current', options: DiffOptions): Promise<HeapSession> {
  const session = options.open
    ? await options.open(path)
    : await openHeap(path, { ...(options.onProgress ? { onProgress: (e: ProgressEvent) => options.onProgress!(which, e) } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  if (session.info().dumpCount > 0) return session;
  session.close();
  throw new HeapqlError(
    'ERR_NO_SUCH_DUMP',
    `the ${which} dump ${path} holds no heap dump, so there are no objects to compare (heap dump: ${NO_HEAP_DUMP_TEXT}; see the warnings above). ` +
      '`heapql summary` shows what the file holds; if it was cut short, copy it again whole or take a new heap dump.',
  );
}

/**
 * Analyzes an opened dump, collects its snapshot and closes it. `otherStrings`: the other
 * dump's duplicated values, counted in this one where it does not list them.
 */
async function collect(session: HeapSession, which: 'baseline' | 'current', options: DiffOptions, otherStrings: ListedValue[] = [], topLevel = true): Promise<DumpSnapshot> {
  const reachableOnly = options.reachableOnly ?? false;
  try {
    // The diff's own queries (the copies of duplicated strings, the reachable int[]s) follow the mode.
    session.reachableOnly = reachableOnly;
    if (options.analyze) await options.analyze(session, reachableOnly);
    else {
      await session.analyze({
        reachableOnly,
        ...(options.onProgress ? { onProgress: (e: ProgressEvent) => options.onProgress!(which, e) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    }
    const sections = await fullSections(session, options.signal, options.onProgress ? (e) => options.onProgress!(which, e) : undefined);
    // Walked down to 1 % of this dump's heap; the comparison keeps 1 % of the larger one.
    if (sections.overview.reachableOnly !== reachableOnly) {
      throw new HeapqlError('ERR_ARGUMENT', `diff: the ${which} dump was analyzed ${sections.overview.reachableOnly ? 'with' : 'without'} reachableOnly, the comparison asked for the other mode (a custom \`analyze\` must pass reachableOnly on)`);
    }
    const own = dominatorThreshold(sections.overview.heap.usedHeap, sections.overview.heap.usedHeap);
    return await snapshot(session, sections, own, which, otherStrings, options.signal, topLevel, options.onProgress ? (e) => options.onProgress!(which, e) : undefined);
  } finally {
    session.close();
  }
}

/**
 * Refuses, before a dump is opened, option values that would fail only late or out of reach:
 * a `gate` that is one string or holds no rule failed as a TypeError after both analyses, and
 * an `onProgress` that is no function threw inside the addon's progress callback, which ended
 * the process.
 */
function checkDiffOptions(options: DiffOptions): void {
  const bad = (message: string) => new HeapqlError('ERR_ARGUMENT', `diffDumps(): ${message}`);
  const { gate } = options;
  if (gate !== undefined) {
    if (!Array.isArray(gate)) throw bad(`gate is an array of rules such as ['com.acme.*=5MB'], not ${describeArgument(gate)}`);
    gate.forEach((rule: unknown, i) => {
      const parsed = rule as Partial<GateRule> | null;
      const isRule = typeof parsed === 'object' && parsed !== null && typeof parsed.text === 'string' && typeof parsed.matches === 'function' && typeof parsed.limit === 'object' && parsed.limit !== null;
      if (typeof rule !== 'string' && !isRule) throw bad(`gate[${i}] is a rule such as 'com.acme.*=5MB' (or one parseGateRule() made), not ${describeArgument(rule)}`);
    });
  }
  for (const name of ['open', 'analyze', 'onProgress'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') throw bad(`${name} is a function, not ${describeArgument(options[name])}`);
  }
  if (options.reachableOnly !== undefined && typeof options.reachableOnly !== 'boolean') throw bad(`reachableOnly is true or false, not ${describeArgument(options.reachableOnly)}`);
  const signal = options.signal as { aborted?: unknown; addEventListener?: unknown } | null | undefined;
  if (signal !== undefined && !(typeof signal === 'object' && signal !== null && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function')) {
    throw bad(`signal is an AbortSignal, not ${describeArgument(signal)}`);
  }
}

/**
 * Compares two dumps of one application; rules are parsed before any dump is opened. Both dumps
 * are opened (indexed) before either is analyzed, so a file without a heap dump is refused
 * first. The current dump is analyzed first, then the baseline, which counts the copies of the
 * current's duplicated strings it does not list itself; one analysis in memory at a time.
 */
export async function diffDumps(baselinePath: string, currentPath: string, options: DiffOptions = {}): Promise<DiffModel> {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new HeapqlError('ERR_ARGUMENT', `diffDumps()'s options are an object, not ${describeArgument(options)}`);
  }
  checkOptionNames('diffDumps', options);
  checkDiffOptions(options);
  const gate = (options.gate ?? []).map((r) => (typeof r === 'string' ? parseGateRule(r) : r));
  const baselineSession = await openDump(baselinePath, 'baseline', options);
  let current: DumpSnapshot;
  try {
    current = await collect(await openDump(currentPath, 'current', options), 'current', options);
  } catch (e) {
    baselineSession.close();
    throw e;
  }
  // The baseline's top-level dominators by class size the current's group suspects only.
  const groups = current.sections.leakSuspects.suspects.some((s) => s.kind !== 'single' || s.object === null);
  const baseline = await collect(baselineSession, 'baseline', options, current.sections.waste.duplicateStrings.top, groups);
  return computeDiff(baseline, current, { gate });
}
