/** Caps on what one tool result may hold, so an answer fits an assistant's context. */
export const ROWS_DEFAULT = 50;
export const ROWS_MAX = 500;
export const FIELDS_DEFAULT = 50;
export const FIELDS_MAX = 500;
export const REFERENCES_DEFAULT = 20;
export const REFERENCES_MAX = 200;
export const SECTION_LIST_DEFAULT = 10;
export const SECTION_LIST_MAX = 100;
