/**
 * The words every front (library, terminal and browser REPL, server, MCP tools) gives for a
 * class name the dump does not have, and the nearest-name search behind them. Pure and free of
 * Node built-ins: the browser REPL bundles it.
 */
import { editDistance } from '../plan/index.js';

/** Up to `n` candidates nearest to `word` (edit distance, then shared prefix). */
export function closest(word: string, candidates: readonly string[], n: number): string[] {
  const w = word.toLowerCase();
  const farthest = Math.max(2, Math.floor(w.length / 2));
  return candidates
    // Two texts are at least their difference in length apart: a candidate that cannot be near
    // is not measured (a 1 MB name against every class took minutes, the event loop held).
    .filter((c) => Math.abs(c.toLowerCase().length - w.length) - 0.5 <= farthest)
    .map((c) => ({ c, d: editDistance(w, c.toLowerCase()) - (c.toLowerCase().startsWith(w.slice(0, 2)) ? 0.5 : 0) }))
    .filter((x) => x.d <= farthest)
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, n)
    .map((x) => x.c);
}

/**
 * `no class named '<name>' in this dump; classes containing '<simple name>': …` (ten at most,
 * case ignored), or, when no class contains the simple name (a typo), `; did you mean …?` with
 * the three nearest names; nothing more when none is near. The front adds how to search its
 * own way.
 */
export function noClassMessage(name: string, classNames: readonly string[]): string {
  const simple = name.split(/[.$]/).pop() || name;
  const s = simple.toLowerCase();
  const containing = classNames.filter((n) => n.toLowerCase().includes(s)).slice(0, 10);
  if (containing.length) return `no class named '${name}' in this dump; classes containing '${simple}': ${containing.join(', ')}`;
  const near = closest(name, classNames, 3);
  return `no class named '${name}' in this dump${near.length ? `; did you mean ${near.join(', ')}?` : ''}`;
}
