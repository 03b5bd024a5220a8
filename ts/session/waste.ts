/**
 * The waste model of `heapql waste <dump>`: the `waste` section the native door computes (every
 * per-object check runs in Rust), with the report's envelope, validated before anyone renders it.
 */
import type { NativeHeap } from '../native/index.js';
import { validateWasteModel } from '../report/json.js';
import type { Waste, WasteModel } from '../report/model.js';
import { analysisWarnings, analyzeForReport, checkModel, dumpWarnings, modelHeader, sectionJson, sectionOptions } from './report.js';
import type { BuildWasteOptions, ReportableHeap, SectionOptions } from './types.js';

/** The waste section of an analyzed heap (ERR_NEEDS_ANALYSIS before the analysis). */
export function wasteSection(handle: NativeHeap, options: SectionOptions): Promise<Waste> {
  return sectionJson<Waste>(options, (limits, onProgress, token) => handle.wasteData(limits, onProgress, token));
}

/** The waste checks of an opened dump; analyzes it first when needed. */
export async function buildWaste(heap: ReportableHeap, options: BuildWasteOptions = {}): Promise<WasteModel> {
  await analyzeForReport(heap, options);
  const waste = await heap.wasteData(sectionOptions(options));
  const info = heap.info();
  const model: WasteModel = {
    ...modelHeader(),
    file: { path: info.path, size: info.fileSize },
    waste,
    warnings: [...dumpWarnings(heap), ...analysisWarnings(heap)],
  };
  checkModel('waste', validateWasteModel(model));
  return model;
}
