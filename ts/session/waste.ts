/**
 * The waste model of `heapql waste <dump>`: the `waste` section the native door computes (every
 * per-object check runs in Rust), with the report's envelope, validated before anyone renders it.
 */
import { call, type NativeHeap } from '../native/index.js';
import { cancelTokenFor } from '../native/cancel.js';
import { VERSION } from '../version.js';
import { validateWasteModel } from '../report/json.js';
import { REPORT_SCHEMA_VERSION, type Waste, type WasteModel } from '../report/model.js';
import { checkModel, dumpWarnings } from './report.js';
import type { HeapSession } from './session.js';
import type { ProgressEvent } from './types.js';

export interface BuildWasteOptions {
  /** Leave objects unreachable from GC roots out (analyzes again when the heap was analyzed otherwise). */
  reachableOnly?: boolean;
  /** Holder rows shown per check; default 25. */
  limit?: number;
  /** Duplicate string values shown; default 20. */
  topStrings?: number;
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
}

/** The waste section of an analyzed heap (ERR_NEEDS_ANALYSIS before the analysis). */
export async function wasteSection(handle: NativeHeap, options: Pick<BuildWasteOptions, 'limit' | 'topStrings' | 'onProgress' | 'signal'>): Promise<Waste> {
  const { token, dispose } = cancelTokenFor(options.signal);
  try {
    const json = await call(() =>
      handle.wasteData({ limit: options.limit, topStrings: options.topStrings }, options.onProgress ? (e) => options.onProgress!(e) : undefined, token),
    );
    return JSON.parse(json) as Waste;
  } finally {
    dispose();
  }
}

/** The waste checks of an opened dump; analyzes it first when needed. */
export async function buildWaste(heap: HeapSession, options: BuildWasteOptions = {}): Promise<WasteModel> {
  // An analysis in the other mode is kept unless the caller names a mode.
  const mode = options.reachableOnly ?? heap.status.analysis?.reachableOnly ?? false;
  await heap.analyze({ reachableOnly: mode, onProgress: options.onProgress, signal: options.signal });
  const waste = await heap.wasteData(options);
  const info = heap.info();
  const model: WasteModel = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'heapql', version: VERSION },
    generatedAt: new Date().toISOString(),
    file: { path: info.path, size: info.fileSize },
    waste,
    warnings: dumpWarnings(heap),
  };
  checkModel('waste', validateWasteModel(model));
  return model;
}
