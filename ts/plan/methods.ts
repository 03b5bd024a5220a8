// Method-style aliases (`x.size()`, `x.getKey()`, ...) and what each reads instead. The heap
// has no running JVM, so a "method" is always rewritten to an attribute, field or function of
// the receiver; mappings follow MAT's model interfaces (mat-semantics.md §4.8) and the
// reference tool's list (reference-system.md §2.5).
import type { AttrName, PExpr } from './physical.js';

export type MethodRewrite =
  | { kind: 'attr'; name: AttrName }
  | { kind: 'field'; name: string }
  | { kind: 'toString' }
  | { kind: 'classof' }
  | { kind: 'equals' }
  | { kind: 'like'; shape: 'contains' | 'startsWith' | 'endsWith' };

export interface MethodAlias {
  name: string;
  args: number;
  rewrite: MethodRewrite;
  /** One line for the OQL reference (README, `!help oql`, `GET /help`). */
  doc: string;
}

export const METHOD_ALIASES: readonly MethodAlias[] = [
  { name: 'length', args: 0, rewrite: { kind: 'attr', name: 'length' }, doc: 'array length (@length)' },
  { name: 'getLength', args: 0, rewrite: { kind: 'attr', name: 'length' }, doc: 'array length (@length)' },
  { name: 'size', args: 0, rewrite: { kind: 'field', name: 'size' }, doc: 'the collection\'s `size` field (NULL on the rows of a class without one in a wider source; naming such a class, e.g. HashSet, is an unknown-field error: read h.map.size)' },
  { name: 'getKey', args: 0, rewrite: { kind: 'field', name: 'key' }, doc: 'a map entry\'s `key` field' },
  { name: 'getValue', args: 0, rewrite: { kind: 'field', name: 'value' }, doc: 'a map entry\'s `value` field' },
  { name: 'equals', args: 1, rewrite: { kind: 'equals' }, doc: '`x = arg` (objects by identity, values by value)' },
  { name: 'contains', args: 1, rewrite: { kind: 'like', shape: 'contains' }, doc: 'the string text contains the literal argument' },
  { name: 'startsWith', args: 1, rewrite: { kind: 'like', shape: 'startsWith' }, doc: 'the string text starts with the literal argument' },
  { name: 'endsWith', args: 1, rewrite: { kind: 'like', shape: 'endsWith' }, doc: 'the string text ends with the literal argument' },
  ...['intValue', 'longValue', 'shortValue', 'byteValue', 'floatValue', 'doubleValue', 'booleanValue', 'charValue'].map(
    (name): MethodAlias => ({ name, args: 0, rewrite: { kind: 'field', name: 'value' }, doc: 'a boxed primitive\'s `value` field' }),
  ),
  { name: 'toString', args: 0, rewrite: { kind: 'toString' }, doc: 'toString(x): the text of a string object, NULL otherwise' },
  { name: 'getName', args: 0, rewrite: { kind: 'attr', name: 'displayName' }, doc: 'the name of a class object (@displayName; for an instance, its class name)' },
  { name: 'getDisplayName', args: 0, rewrite: { kind: 'attr', name: 'displayName' }, doc: '@displayName' },
  { name: 'getObjectAddress', args: 0, rewrite: { kind: 'attr', name: 'objectAddress' }, doc: '@objectAddress' },
  { name: 'getObjectId', args: 0, rewrite: { kind: 'attr', name: 'objectId' }, doc: '@objectId' },
  { name: 'getUsedHeapSize', args: 0, rewrite: { kind: 'attr', name: 'usedHeapSize' }, doc: '@usedHeapSize' },
  { name: 'getRetainedHeapSize', args: 0, rewrite: { kind: 'attr', name: 'retainedHeapSize' }, doc: '@retainedHeapSize (full path)' },
  { name: 'getClazz', args: 0, rewrite: { kind: 'classof' }, doc: 'classof(x)' },
];

const byName = new Map(METHOD_ALIASES.map((m) => [m.name, m]));

export function findMethod(name: string): MethodAlias | undefined {
  return byName.get(name);
}

/** Regex metacharacters escaped, so a literal argument matches itself. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/**
 * The LIKE pattern a string method stands for. `(?s)` lets its `.*` run over line breaks too,
 * as Java's `startsWith` / `contains` / `endsWith` look at every character: without it
 * `"a\nb".startsWith("a")` was false.
 */
export function likePattern(shape: 'contains' | 'startsWith' | 'endsWith', literal: string): string {
  const lit = escapeRegex(literal);
  return `(?s)${shape === 'contains' ? `.*${lit}.*` : shape === 'startsWith' ? `${lit}.*` : `.*${lit}`}`;
}

/** The receiver as text: a `toString(...)` call already is; anything else is wrapped. */
export function asText(e: PExpr): PExpr {
  return e.k === 'call' && e.fn === 'toString' ? e : { k: 'call', fn: 'toString', args: [e] };
}
