// OQL front end: parse(text) → AST; errors with positions and hints; printing back to OQL.
export { parse, parseAll, MAX_QUERY_LENGTH } from './parser.js';
export { OqlSyntaxError, OqlSecondStatementError, OqlPlanError, OqlNameError, isOqlError, formatOqlError, type OqlError } from './errors.js';
export { printExpr, printQuery } from './print.js';
export { KEYWORDS, stripBom } from './lexer.js';
export type * from './ast.js';
