/**
 * The REPL's shared part (the terminal and the browser run it): the command table and
 * dispatcher, statement completeness, completion, result shaping, text views. Node-only
 * pieces (terminal.ts, history.ts, line-editor.ts) are imported by the CLI directly, never
 * from here.
 */
export type { ReplBackend, ReplIO } from './backend.js';
export { COMMANDS, COMMAND_NAMES, closest, findCommand, initialState, show, type Command, type ReplContext, type ReplState, type StatementSource } from './commands.js';
export type { StoredQuery } from '../report/config.js';
export { Repl } from './dispatch.js';
export { ReplError } from './errors.js';
export { complete, classInScope, type Completion, type CompletionSource } from './complete.js';
export { isCommand, statementComplete, stripTerminator } from './statement.js';
export * from './table.js';
export * from './render.js';
