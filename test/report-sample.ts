/** The hand-made sample report model (a JVM dump with a static-map leak), fresh for each test. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { ReportModel, ThreadInfo } from '../ts/report/model.js';

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

/**
 * The sample with threads a reader could confuse: `http-worker-1` and `main` both renamed
 * `dup`, `cache-evictor` named "" (a virtual thread's default name), the Finalizer with no name;
 * main holds both `dup` threads as locals (labelled as threads, as the analysis does), and the
 * group suspect's biggest instances are the two `dup` threads.
 */
export function confusableThreads(): ReportModel {
  const m = sampleModel();
  const [worker, main, evictor, finalizer] = m.threads.threads as [ThreadInfo, ThreadInfo, ThreadInfo, ThreadInfo];
  for (const t of [worker, main]) {
    t.name = 'dup';
    t.object.label = 'dup';
  }
  evictor.name = '';
  evictor.object.label = '';
  finalizer.name = null;
  const local = (t: ThreadInfo) => ({ object: { ...t.object, label: 'thread "dup"' }, shallow: 120, retained: t.retained });
  main.frames[0]!.locals.push(local(worker), local(main));
  const group = m.leakSuspects.suspects[1]!;
  group.biggestInstances = [worker, main].map((t) => ({ object: { ...t.object }, shallow: t.shallow, retained: t.retained, retainedPercent: t.retainedPercent }));
  return m;
}

/**
 * The sample with two heaps (zygote 40 %, app 60 %) and `rows` histogram rows
 * `com.example.C<k>`, each with the per-heap figures `heapsOf(k)`: the Android case of the
 * classes-by-heap tables.
 */
export function twoHeapModel(rows: number, heapsOf: (k: number) => ClassHeaps): ReportModel {
  const m = sampleModel();
  m.overview.heaps = [
    { name: 'zygote', objects: 100, shallow: 4000, shallowPercent: 40 },
    { name: 'app', objects: 100, shallow: 6000, shallowPercent: 60 },
  ];
  const base = m.overview.classHistogram.rows[0]!;
  m.overview.classHistogram.rows = Array.from({ length: rows }, (_, k) => ({ ...base, className: `com.example.C${k}`, heaps: heapsOf(k) }));
  return m;
}

type ClassHeaps = NonNullable<ReportModel['overview']['classHistogram']['rows'][number]['heaps']>;
