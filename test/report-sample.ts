/** The hand-made sample report model (a JVM dump with a static-map leak), fresh for each test. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { ReportModel } from '../ts/report/model.js';

export const SAMPLE_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'report-model.sample.json');

export function sampleModel(): ReportModel {
  return JSON.parse(fs.readFileSync(SAMPLE_PATH, 'utf8')) as ReportModel;
}

/** The sample with no path from a GC root: its single suspect's, and its group suspect's with no accumulation point either. */
export function modelWithoutPaths(): ReportModel {
  const m = sampleModel();
  const [single, group] = m.leakSuspects.suspects;
  group!.accumulationPoint = null;
  group!.pathToRoot = null;
  single!.pathToRoot = null;
  return m;
}

/** A text no renderer may emit raw: markup, a table pipe, a Markdown link and a newline. */
export const HOSTILE = '<img src=x onerror="alert(1)">|[x](javascript:alert(2))\n<script>alert(3)</script>';
