/**
 * The option names each library call takes. The library's callers are plain JavaScript as often
 * as TypeScript: an option it does not know (a misspelt `scratchdir`, `reachableonly`) did
 * nothing at all, silently. It is refused with ERR_ARGUMENT naming the option, the call, the
 * nearest name the call takes and all of them.
 */
import { HeapqlError } from '../errors.js';
import { closest } from './no-class.js';

/** Every option name of each call, in the order its documentation lists them. */
export const OPTION_NAMES = {
  openHeap: ['dump', 'onProgress', 'signal', 'cache', 'cacheDir', 'cacheMax', 'noCache', 'scratch', 'scratchDir', 'reachableOnly'],
  analyze: ['reachableOnly', 'forReport', 'onProgress', 'signal'],
  startAnalysis: ['reachableOnly', 'forReport'],
  query: ['name', 'limit', 'reachableOnly', 'signal', 'onProgress', 'viz'],
  queryCount: ['limit', 'reachableOnly', 'signal', 'onProgress'],
  explain: ['limit', 'reachableOnly'],
  prepare: ['limit', 'reachableOnly', 'viz'],
  queryStream: ['name', 'limit', 'reachableOnly', 'signal', 'onProgress', 'viz', 'batchRows'],
  queryBatches: ['name', 'limit', 'reachableOnly', 'signal', 'onProgress', 'viz', 'batchRows', 'skip'],
  prepareQuery: ['fullPath', 'reachableOnly', 'limit', 'viz', 'planned'],
  report: ['limit', 'topStrings', 'reachableOnly', 'queries', 'warnings', 'signal', 'onProgress'],
  reportData: ['limit', 'topStrings', 'signal', 'onProgress'],
  waste: ['limit', 'topStrings', 'reachableOnly', 'signal', 'onProgress'],
  wasteData: ['limit', 'topStrings', 'signal', 'onProgress'],
  object: ['fieldOffset', 'fieldLimit'],
  diffDumps: ['gate', 'open', 'reachableOnly', 'analyze', 'onProgress', 'signal'],
} as const satisfies Record<string, readonly string[]>;

export type OptionsOf = keyof typeof OPTION_NAMES;

/**
 * Refuses an option `call` does not take: `openHeap() has no option 'scratchdir'; did you mean
 * scratchDir? (it takes dump, onProgress, …)`. Own enumerable keys are checked,
 * whatever their value (`{scratchdir: undefined}` is as misspelt). `options` is an object here.
 */
export function checkOptionNames(call: OptionsOf, options: object): void {
  const known: readonly string[] = OPTION_NAMES[call];
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    // Case first: `reachableonly` is `reachableOnly` whatever the edit distance says of others;
    // then the nearest by edits; then the longest shared start of four letters or more (`query`:
    // `queries`).
    const sameLetters = known.find((k) => k.toLowerCase() === name.toLowerCase());
    const near = sameLetters ?? closest(name, known, 1)[0] ?? sharedStart(name, known);
    const hint = near === undefined ? '' : `; did you mean ${near}?`;
    throw new HeapqlError('ERR_ARGUMENT', `${call}() has no option '${name}'${hint} (it takes ${known.join(', ')})`);
  }
}

/** The known name sharing the longest start (at least 4 letters, case ignored) with `name`. */
function sharedStart(name: string, known: readonly string[]): string | undefined {
  const n = name.toLowerCase();
  let best: string | undefined;
  let bestLength = 3;
  for (const k of known) {
    const l = k.toLowerCase();
    let i = 0;
    while (i < n.length && i < l.length && n[i] === l[i]) i++;
    if (i > bestLength) {
      best = k;
      bestLength = i;
    }
  }
  return best;
}
