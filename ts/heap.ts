/**
 * The library's heap: opening a dump (the query-only index) and what can be read from it.
 * Everything per object happens in the native addon; this class holds the handle and turns
 * options, progress and AbortSignals into what the door expects.
 */
import { call, callSync, native } from './native/index.js';
import type { Addon } from './native/index.js';

export interface ProgressEvent {
  phase: string;
  done: number;
  total: number;
}

export interface OpenOptions {
  /** Which heap dump of the file, 0-based (a JVMTI agent file can hold several). */
  dump?: number;
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
  /** Do not read or write the index cache (accepted now; the cache comes later). */
  noCache?: boolean;
}

type NativeHeap = InstanceType<Addon['HeapHandle']>;
export type DumpInfo = ReturnType<NativeHeap['info']>;
export type DumpWarning = ReturnType<NativeHeap['warnings']>[number];
export type HeapCounts = ReturnType<NativeHeap['counts']>;
export type HistogramRow = ReturnType<NativeHeap['classHistogram']>[number];

/** Bridges an AbortSignal to a native cancel token for the duration of one call. */
export function cancelTokenFor(signal: AbortSignal | undefined): {
  token: InstanceType<Addon['CancelToken']>;
  dispose: () => void;
} {
  const token = new (native().CancelToken)();
  if (!signal) return { token, dispose: () => {} };
  if (signal.aborted) token.cancel();
  const onAbort = () => token.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  return { token, dispose: () => signal.removeEventListener('abort', onAbort) };
}

export class Heap {
  readonly path: string;
  /** @internal the native handle; only the query and analysis layers use it. */
  readonly handle: NativeHeap;

  private constructor(path: string, handle: NativeHeap) {
    this.path = path;
    this.handle = handle;
  }

  /** @internal use openHeap(). */
  static async open(path: string, options: OpenOptions = {}): Promise<Heap> {
    const { token, dispose } = cancelTokenFor(options.signal);
    try {
      const handle = await call(() =>
        native().openHeap(path, { dump: options.dump }, options.onProgress ? (e) => options.onProgress!(e) : undefined, token),
      );
      return new Heap(path, handle);
    } finally {
      dispose();
    }
  }

  info(): DumpInfo {
    return callSync(() => this.handle.info());
  }

  /** Non-fatal findings: a truncated file, skipped unknown records, roots to missing objects. */
  warnings(): DumpWarning[] {
    return callSync(() => this.handle.warnings());
  }

  /** Instances and shallow bytes per class, largest shallow size first. */
  classHistogram(): HistogramRow[] {
    const rows = callSync(() => this.handle.classHistogram());
    return rows.sort((a, b) => b.shallow - a.shallow || b.count - a.count || a.className.localeCompare(b.className));
  }

  /** Object counts by kind, GC roots by kind and the total shallow heap. */
  counts(): HeapCounts {
    return callSync(() => this.handle.counts());
  }

  classNames(): string[] {
    return callSync(() => this.handle.classNames());
  }

  close(): void {
    this.handle.close();
  }
}

/** Opens a dump and builds its index (query-only path). */
export function openHeap(path: string, options: OpenOptions = {}): Promise<Heap> {
  return Heap.open(path, options);
}
