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
 * own way. `quote`, when given, quotes every name (the given one and the dump's).
 */
export function noClassMessage(name: string, classNames: readonly string[], quote?: (text: string) => string): string {
  const simple = name.split(/[.$]/).pop() || name;
  const s = simple.toLowerCase();
  // `quote` (the MCP server's JSON.stringify) marks every name as data; by default the names
  // given are in single quotes and the dump's listed bare.
  const given = quote ?? ((t: string) => `'${t}'`);
  const listed = quote ?? ((t: string) => t);
  const containing = classNames.filter((n) => n.toLowerCase().includes(s)).slice(0, 10);
  if (containing.length) {
    return `no class named ${given(name)} in this dump; classes containing ${given(simple)}: ${containing.map((n) => listed(n)).join(', ')}`;
  }
  const near = closest(name, classNames, 3);
  return `no class named ${given(name)} in this dump${near.length ? `; did you mean ${near.map((n) => listed(n)).join(', ')}?` : ''}`;
}
