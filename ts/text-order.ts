/**
 * The order of texts everywhere heapql sorts them: Java's `String.compareTo`, by UTF-16 unit, as
 * the OQL executor orders strings (ORDER BY, MIN/MAX, `<`). JavaScript's `<` on strings compares
 * UTF-16 units too. It differs from code point order (and from `localeCompare`) for a character
 * beyond U+FFFF, a surrogate pair, which comes before the characters U+E000 to U+FFFF.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
