/**
 * The waste model of `heapql waste <dump>`: the `waste` section the native door computes (every
 * per-object check runs in Rust), with the report's envelope, validated before anyone renders it.
 */
import type { Heap, ProgressEvent } from '../heap.js';
import { HeapqlError } from '../errors.js';
import { call } from '../native/index.js';
import { cancelTokenFor } from '../native/cancel.js';
import { VERSION } from '../version.js';
import { describeSchemaErrors, validateWasteModel } from './json.js';
import { REPORT_SCHEMA_VERSION, type ReportWarning, type Waste, type WasteModel } from './model.js';

export interface BuildWasteOptions {
  /** Leave objects unreachable from GC roots out (when this call runs the analysis). */
  reachableOnly?: boolean;
  /** Holder rows shown per check; default 25. */
  limit?: number;
  /** Duplicate string values shown; default 20. */
  topStrings?: number;
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
}

async function wasteSection(heap: Heap, options: BuildWasteOptions): Promise<Waste> {
  const { token, dispose } = cancelTokenFor(options.signal);
  try {
    const json = await call(() =>
      heap.handle.wasteData({ limit: options.limit, topStrings: options.topStrings }, options.onProgress ? (e) => options.onProgress!(e) : undefined, token),
    );
    return JSON.parse(json) as Waste;
  } finally {
    dispose();
  }
}

/** The waste checks of an opened dump; runs the full analysis first unless it has run. */
export async function buildWaste(heap: Heap, options: BuildWasteOptions = {}): Promise<WasteModel> {
  if (!heap.analyzed) {
    await heap.analyze({ reachableOnly: options.reachableOnly ?? false, onProgress: options.onProgress, signal: options.signal });
  }
  const waste = await wasteSection(heap, options);
  const info = heap.info();
  const warnings: ReportWarning[] = heap.warnings().map((w) => ({
    source: 'dump' as const,
    message: w.offset > 0 ? `${w.message} (at byte ${w.offset})` : w.message,
  }));
  const model: WasteModel = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'heapql', version: VERSION },
    generatedAt: new Date().toISOString(),
    file: { path: info.path, size: info.fileSize },
    waste,
    warnings,
  };
  const { ok, errors } = validateWasteModel(model);
  if (!ok) {
    throw new HeapqlError(
      'ERR_INTERNAL',
      `internal error: the waste data does not match its schema (a bug in heapql; please report it with the dump's producer and version):\n${describeSchemaErrors(errors)}`,
    );
  }
  return model;
}
