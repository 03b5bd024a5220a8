/** Caps on what one tool result may hold, so an answer fits an assistant's context. */
export const ROWS_DEFAULT = 50;
export const ROWS_MAX = 500;
export const FIELDS_DEFAULT = 50;
export const FIELDS_MAX = 500;
export const REFERENCES_DEFAULT = 20;
export const REFERENCES_MAX = 200;
export const SECTION_LIST_DEFAULT = 10;
export const SECTION_LIST_MAX = 100;
/**
 * Longest text, in UTF-16 units (Java's `String.length()`), that a tool result carries whole:
 * a longer string (a cell, a class or field name, a label, a property value) is cut to its
 * first TEXT_MAX units followed by `…`, and the result's `truncatedStrings` lists it with its
 * full length.
 */
export const TEXT_MAX = 2000;

/** The sentence every tool description whose result carries text from the dump ends with. */
export const TEXT_CAP_SENTENCE =
  ` Text from the dump longer than ${TEXT_MAX} characters (a huge String, class or thread name) comes back cut to its ` +
  `first ${TEXT_MAX} followed by "…" and is listed in truncatedStrings with its path and full length.`;
