/**
 * A result's column types over its parts: a streamed or paged result is typed batch by batch,
 * and the whole is typed as the executor types all its rows at once (docs/physical-plan.md).
 * Browser-safe (the terminal REPL's paging shares it with the session and the server).
 */
import type { Column } from './schema.js';

/**
 * A column's type over two parts of a result: NULLs only is `null`, one kind is that kind, two
 * kinds are a `list` of JSON cells (whose values are the same).
 */
export function mergeColumnType(a: Column['type'], b: Column['type']): Column['type'] {
  if (a === b || b === 'null') return a;
  if (a === 'null') return b;
  return 'list';
}

/** The columns typed over the parts seen so far (`seen`, null before the first) and `next`. */
export function mergeColumns(seen: Column[] | null, next: Column[]): Column[] {
  return seen ? seen.map((c, i) => ({ name: c.name, type: mergeColumnType(c.type, next[i]!.type) })) : next;
}
