/**
 * The one error type every layer throws for problems a user can act on. `code` is stable
 * (scripts and the server key on it); `exitCode` is what the CLI exits with.
 */
export class HeapqlError extends Error {
  readonly code: string;
  readonly exitCode: number;
  /**
   * ERR_UNKNOWN_CLASS and ERR_UNKNOWN_FIELD from the executor: the name the dump lacks and what
   * the message lists beside it, as data (absent on every other error).
   */
  declare readonly unknownName?: UnknownName;
  /**
   * ERR_CANCELLED of `openHeap()` and `analyze()`: the last progress report before the work
   * stopped (`{phase, done, total}`), as the message says it; absent when none had come (and on
   * every other error).
   */
  declare readonly progress?: CancelledProgress;
  /**
   * ERR_DUMP_CHANGED from the addon: the path of the dump file that changed on disk or could not
   * be read, as data (a library or MCP session may hold several dumps; absent on other errors).
   */
  declare readonly dumpPath?: string;

  constructor(
    code: string,
    message: string,
    options: { exitCode?: number; cause?: unknown; unknownName?: UnknownName; progress?: CancelledProgress; dumpPath?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HeapqlError';
    this.code = code;
    this.exitCode = options.exitCode ?? defaultExitCode(code);
    if (options.unknownName !== undefined) (this as { unknownName?: UnknownName }).unknownName = options.unknownName;
    if (options.progress !== undefined) (this as { progress?: CancelledProgress }).progress = options.progress;
    if (options.dumpPath !== undefined) (this as { dumpPath?: string }).dumpPath = options.dumpPath;
  }
}

/** How far cancelled work had got: its last progress report (a session's `ProgressEvent`). */
export interface CancelledProgress {
  phase: string;
  done: number;
  total: number;
}

/**
 * A name a query uses that the dump lacks, as the executor refused it (crates/exec, `UnknownName`):
 * ERR_UNKNOWN_CLASS for `kind: 'class'` and `'pattern'`, ERR_UNKNOWN_FIELD for the others. The error's message
 * says the same in words (and `quotedMessage` with the names JSON-quoted); the fronts place the
 * error by `name`.
 */
export interface UnknownName {
  /** `class`: a class name (FROM, INSTANCEOF); `pattern`: a class pattern no class matches (`FROM INSTANCEOF "<regex>"`); `field`: an instance field; `static`: a static field read on class objects. */
  kind: 'class' | 'pattern' | 'field' | 'static';
  /** The name as the query writes it. */
  name: string;
  /** A field: the class whose fields are listed (the source's first when it has several); absent for a static no class of the dump has. */
  className?: string;
  /** A field: how many classes the source has. */
  classCount?: number;
  /** A field: the fields of `className` with its superclasses' (its statics for `static`); absent for an array class. */
  fields?: string[];
  /** A class: up to three of the dump's classes by closeness; a static no class has: up to three statics' names. */
  suggestions?: string[];
  /** What the message adds in fixed words (no name of the dump in them). */
  note?: string;
  /**
   * The error's message in the executor's words with every name (the refused one, the classes,
   * the fields, the suggestions) a JSON string, as the MCP server says it: a class or field may
   * be named with any text, and each still reads as one name. Worded once, by the executor.
   */
  quotedMessage: string;
}

/** Usage errors and unreadable input exit 2; everything else 1; Ctrl-C 130. */
function defaultExitCode(code: string): number {
  switch (code) {
    case 'ERR_USAGE':
    case 'ERR_NOT_HPROF':
    case 'ERR_IO':
    case 'ERR_CORRUPT':
    case 'ERR_NO_SUCH_DUMP':
    case 'ERR_DUMP_CHANGED':
      return 2;
    case 'ERR_CANCELLED':
      return 130;
    default:
      return 1;
  }
}

export function usageError(message: string): HeapqlError {
  return new HeapqlError('ERR_USAGE', message, { exitCode: 2 });
}
