/** Comparing two dumps (`heapql diff`): see docs/diff.md for the matching rules. */
export { diffDumps, type DiffOptions } from './diff.js';
export { computeDiff, change, loaderKey, packageOf, statusOf, UNCHANGED_PERCENT, DOMINATOR_PERCENT } from './compute.js';
export { parseGateRule, evaluateGate, type GateRule } from './gate.js';
export { sameProgram, applicationClasses, MIN_OVERLAP_PERCENT } from './programs.js';
export { pathKey, mainClassOf, type DumpSnapshot, type DominatorEntry, type ThreadSteps } from './snapshot.js';
export { renderDiff } from './output.js';
export { renderDiffMarkdown } from './markdown.js';
export { renderDiffHtml } from './html.js';
export { renderDiffJson, diffJsonSchema, validateDiffModel } from './json.js';
export * from './model.js';
