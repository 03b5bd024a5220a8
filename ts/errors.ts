/**
 * The one error type every layer throws for problems a user can act on. `code` is stable
 * (scripts and the server key on it); `exitCode` is what the CLI exits with.
 */
export class HeapqlError extends Error {
  readonly code: string;
  readonly exitCode: number;

  constructor(code: string, message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HeapqlError';
    this.code = code;
    this.exitCode = options.exitCode ?? defaultExitCode(code);
  }
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
