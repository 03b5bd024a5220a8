/**
 * What the diff needs from one dump, collected through the session core (never the addon): the
 * report's sections with every class, loader and duplicated string listed (computed in Rust),
 * every class name, and the big dominators with their matching keys (point look-ups of a few
 * hundred objects at most).
 */
import type { HeapBytes, HeapSession, ProgressEvent, ReportSections } from '../session/index.js';
import { unreachableIntArraysOf, type IntArrays } from './filler.js';
import { hiddenClassKey } from './hidden.js';
import type { DumpFacts } from './model.js';
import { countCopies, stringKey, type ListedValue } from './strings.js';
import { threadIdentities, threadStep, type ThreadIdentity } from './threads.js';

/** Lists of the report sections are cut at this length: in practice, never. */
export const SECTION_LIMIT = 1_000_000;
/** Duplicated string values listed per dump; beyond it the diff says it is incomplete. */
export const STRING_LIMIT = 100_000;
/** Dominator-tree levels below the GC roots that are walked for big dominators. */
export const DOMINATOR_DEPTH = 8;
/** Big dominators kept per dump (biggest first, level by level). */
export const DOMINATOR_LIMIT = 200;
/** Dominated children read per object. */
const CHILDREN_PER_OBJECT = 50;

/**
 * The top-level dominators of one class taken together, single leak suspects left out: what a
 * group leak suspect of the class retains (the report's rule), measured in a dump where the
 * class is no suspect, so that a suspect of one dump is compared with the same figure of the other.
 */
export interface TopLevelClass {
  className: string;
  classLoader: string | null;
  instances: number;
  retained: number;
}

/** One object of the dominator tree that retains at least the threshold. */
export interface DominatorEntry {
  objectId: number;
  key: string;
  className: string;
  retained: number;
  /**
   * Android (a dump with heaps): `retained` split by the heaps of the objects it retains
   * (`HeapSession.retainedByHeap`), the heaps with bytes; absent for a dump without heaps.
   */
  heaps?: HeapBytes[];
}

export interface DumpSnapshot {
  facts: DumpFacts;
  sections: ReportSections;
  classNames: string[];
  dominators: DominatorEntry[];
  /**
   * Matching key of each big dominator and each single leak suspect, by object id. Keys hold a
   * placeholder per thread (`threadStep`) until the comparison labels the threads of both dumps.
   */
  keyOf: Map<number, string>;
  /** The named threads, to pair with the other dump's (threads.ts). */
  threads: ThreadIdentity[];
  /** Top-level dominators by class (group suspects' measure); empty when the comparison needs none (see `snapshot`). */
  topLevel: TopLevelClass[];
  /**
   * Copies in this dump of the values the other dump lists as duplicated and this one does not
   * (by `stringKey`): counted here, as this dump's own list has only values with 2 copies or more.
   */
  stringCopies: Map<string, number>;
  /** Whether the analysis left unreachable objects out (--reachable-only). */
  reachableOnly: boolean;
  /**
   * The unreachable `int[]` arrays the class histogram counts (0 with --reachable-only). On JDK
   * 21+ the heap's filler objects (`jdk.internal.vm.FillerElement[]`, a type array of int) are
   * written to the dump as plain `int[]`s, unreachable: the diff says so when there are any.
   */
  unreachableIntArrays: IntArrays;
  warnings: string[];
}

/** The dump's facts: file, time, JVM, main class and sizes. */
export function dumpFacts(session: HeapSession, sections: ReportSections): DumpFacts {
  const info = session.info();
  const command = sections.overview.systemProperties.find((p) => p.key === 'sun.java.command')?.value ?? null;
  return {
    path: info.path,
    fileSize: info.fileSize,
    dumpTime: info.timestampMs > 0 ? new Date(info.timestampMs).toISOString() : null,
    jvmVersion: info.jvmVersion ?? null,
    mainClass: mainClassOf(command),
    usedHeap: sections.overview.heap.usedHeap,
    objects: sections.overview.heap.objects,
    classes: sections.overview.classHistogram.classes,
  };
}

/** `com.acme.Main --port 80` → `com.acme.Main`; `/opt/app.jar -v` (java -jar) → `app.jar`. */
export function mainClassOf(command: string | null): string | null {
  const first = command?.trim().split(/\s+/)[0];
  if (!first) return null;
  return first.toLowerCase().endsWith('.jar') ? (first.split(/[\\/]/).pop() ?? first) : first;
}

/**
 * The text a path key writes for each thread object's step, by object id, used as it is: a
 * placeholder (`threadStep`) in a snapshot, which the comparison replaces by the thread's label
 * (`thread "<name>"`, `thread "pool" #21`: threads.ts). Before diff schema 4 the map gave a
 * thread's name, which `pathKey` wrote as `thread "<name>"`; a caller passing names now gets the
 * bare name as the step.
 */
export type ThreadSteps = Map<number, string>;

/**
 * The matching key of an object: the steps of its shortest path from a GC root, each written
 * as `<field> → <class>`. The root is `class <name>` for a class object, a thread's step text
 * from `threadSteps` (by object id, written as it is), else its class. Array indices become `[]`
 * and stack locals `<local>` (positions and frame numbers move between dumps); addresses never
 * appear (a hidden class's name has its address written `0x…`, hidden.ts).
 */
export function pathKey(steps: { object: { className: string; label: string; objectId: number }; via: string }[], threadSteps: ThreadSteps): string {
  const parts: string[] = [];
  steps.forEach((s, i) => {
    const what = stepName(s.object, threadSteps);
    if (i === 0) {
      parts.push(what);
      return;
    }
    const via = /^\[\d+\]$/.test(s.via) ? '[]' : /^<(Java Local|JNI Local|Native Stack)/.test(s.via) ? '<local>' : s.via;
    parts.push(`${via} → ${what}`);
  });
  return parts.join(' · ');
}

function stepName(o: { className: string; label: string; objectId: number }, threadSteps: ThreadSteps): string {
  const cls = /^class (\S+) @ 0x[0-9a-f]+$/i.exec(o.label);
  if (cls) return `class ${hiddenClassKey(cls[1]!)}`;
  return threadSteps.get(o.objectId) ?? hiddenClassKey(o.className);
}

/**
 * The objects of the dominator tree retaining at least `minBytes`, from the top-level
 * dominators down at most DOMINATOR_DEPTH levels, at most DOMINATOR_LIMIT of them, each with
 * its matching key.
 */
export async function bigDominators(session: HeapSession, sections: ReportSections, minBytes: number, threadSteps: ThreadSteps): Promise<DominatorEntry[]> {
  const found: { objectId: number; className: string; retained: number }[] = [];
  let level = sections.topConsumers.biggestObjects
    .filter((o) => o.retained >= minBytes)
    .map((o) => ({ objectId: o.object.objectId, className: o.object.className, retained: o.retained }));
  for (let depth = 0; depth <= DOMINATOR_DEPTH && level.length > 0 && found.length < DOMINATOR_LIMIT; depth++) {
    level.sort((a, b) => b.retained - a.retained || a.objectId - b.objectId);
    level = level.slice(0, DOMINATOR_LIMIT - found.length);
    found.push(...level);
    const next: typeof level = [];
    for (const o of level) {
      const view = await session.dominator(o.objectId, CHILDREN_PER_OBJECT);
      for (const c of view.children) {
        if (c.retainedSize >= minBytes) next.push({ objectId: c.object.objectId, className: c.object.className, retained: c.retainedSize });
      }
    }
    level = next;
  }
  const out: DominatorEntry[] = [];
  for (const o of found) out.push({ ...o, key: await objectKey(session, o.objectId, o.className, threadSteps) });
  // Android: what each retains in each heap, in one walk of their subtrees.
  if (sections.overview.heaps && out.length > 0) {
    const split = await session.retainedByHeap(out.map((d) => d.objectId));
    out.forEach((d, i) => (d.heaps = split[i]!));
  }
  return out;
}

/** Named thread's object id → its placeholder step (threads.ts), for pathKey. */
export function threadStepsOf(sections: ReportSections): ThreadSteps {
  const steps: ThreadSteps = new Map();
  for (const t of sections.threads.threads) if (t.name !== null) steps.set(t.object.objectId, threadStep(t.object.objectId));
  return steps;
}

/** The matching key of one object (its shortest path from a GC root; see pathKey). */
export async function objectKey(session: HeapSession, objectId: number, className: string, threadSteps: ThreadSteps): Promise<string> {
  const steps = await session.pathToRoot(objectId);
  return steps ? pathKey(steps, threadSteps) : `(no path from a GC root) ${className}`;
}

/**
 * The top-level dominators (no immediate dominator but the virtual root, as the report's group
 * suspects take them; unreachable ones too unless the analysis left them out) grouped by class,
 * single suspects left out: one query over every object. A class is told by its name and, when
 * the name has several classes, by the loader of its class object (describeClass), labelled as
 * the report labels loaders.
 */
export async function topLevelByClass(session: HeapSession, sections: ReportSections, signal?: AbortSignal, onProgress?: (e: ProgressEvent) => void): Promise<TopLevelClass[]> {
  if (!session.classNames().includes('java.lang.Object')) return [];
  // Single suspects (each over 10 % of the heap: at most nine) are not part of any group.
  const singles = sections.leakSuspects.suspects.filter((s) => s.kind === 'single' && s.object).map((s) => s.object!.objectId);
  const r = await session.query(
    'SELECT classof(x) AS c, COUNT(*) AS n, SUM(x.@retainedHeapSize) AS r FROM INSTANCEOF java.lang.Object x WHERE dominatorof(x) IS NULL' +
      singles.map((id) => ` AND x.@objectId != ${id}`).join('') +
      ' GROUP BY classof(x)',
    { ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}) },
  );
  const loadersOf = new Map<string, (string | null)[]>();
  for (const row of sections.overview.classHistogram.rows) loadersOf.set(row.className, [...(loadersOf.get(row.className) ?? []), row.classLoader]);
  const loaderByAddress = new Map(sections.overview.classLoaders.flatMap((l) => (l.loader ? [[l.loader.address, l.name] as const] : [])));
  const out: TopLevelClass[] = [];
  for (const [c, n, retained] of r.rows) {
    const cls = c as { objectId: number; label: string };
    const className = /^class (.+) @ 0x[0-9a-f]+$/i.exec(cls.label)?.[1] ?? cls.label;
    const loaders = loadersOf.get(className) ?? [null];
    let classLoader = loaders[0] ?? null;
    if (loaders.length > 1) {
      const loader = (await session.describeClass(className)).find((v) => v.classObject.objectId === cls.objectId)?.loader;
      classLoader = loader === undefined || /^0x0+$/.test(loader) ? null : (loaderByAddress.get(loader) ?? `<class loader ${loader}>`);
    }
    out.push({ className, classLoader, instances: Number(n), retained: Number(retained ?? 0) });
  }
  return out;
}

/**
 * The unreachable `int[]`s the sections count: the histogram's `int[]` rows less the reachable
 * ones (filler.ts). Nothing to count with --reachable-only or when the dump holds no
 * unreachable object.
 */
export async function unreachableIntArrays(session: HeapSession, sections: ReportSections, signal?: AbortSignal, onProgress?: (e: ProgressEvent) => void): Promise<IntArrays> {
  if (sections.overview.reachableOnly || sections.overview.heap.unreachableObjects === 0) return { count: 0, bytes: 0 };
  const all = { count: 0, bytes: 0 };
  for (const r of sections.overview.classHistogram.rows) {
    if (r.className === 'int[]') {
      all.count += r.instances;
      all.bytes += r.shallow;
    }
  }
  return unreachableIntArraysOf(session, all, signal, onProgress);
}

/** The report sections with every list complete (the dump must be analyzed). */
export async function fullSections(session: HeapSession, signal?: AbortSignal, onProgress?: (e: ProgressEvent) => void): Promise<ReportSections> {
  return session.reportData({ limit: SECTION_LIMIT, topStrings: STRING_LIMIT, ...(signal ? { signal } : {}), ...(onProgress ? { onProgress } : {}) });
}

/**
 * Collects one dump's snapshot (the session must be analyzed). Big dominators are walked down
 * to `minDominatorBytes`; the comparison later keeps those at or above its common threshold.
 * `otherStrings`: the other dump's duplicated values, whose copies this dump does not list are
 * counted (one query; see strings.ts). `topLevel` false skips summing the top-level dominators
 * by class (a scan of every object, about 1 s per GB of dump): the comparison reads them only
 * for the other dump's group suspects, so the baseline, read second, needs them only when the
 * current dump has any. `onProgress` is told the scans of these queries, each under its own
 * phase (`query top-level`, `query strings`, `query int[]`).
 */
export async function snapshot(
  session: HeapSession,
  sections: ReportSections,
  minDominatorBytes: number,
  label: string,
  otherStrings: ListedValue[] = [],
  signal?: AbortSignal,
  topLevel = true,
  onProgress?: (e: ProgressEvent) => void,
): Promise<DumpSnapshot> {
  const phase = (name: string) => (onProgress ? (e: ProgressEvent) => onProgress({ ...e, phase: `${e.phase} ${name}` }) : undefined);
  const threadSteps = threadStepsOf(sections);
  const dominators = await bigDominators(session, sections, minDominatorBytes, threadSteps);
  const keyOf = new Map(dominators.map((d) => [d.objectId, d.key]));
  for (const s of sections.leakSuspects.suspects) {
    if (s.kind === 'single' && s.object && !keyOf.has(s.object.objectId)) {
      keyOf.set(s.object.objectId, await objectKey(session, s.object.objectId, s.className, threadSteps));
    }
  }
  const listed = new Set(sections.waste.duplicateStrings.top.map(stringKey));
  const stringCopies = await countCopies(
    session,
    otherStrings.filter((v) => !listed.has(stringKey(v))),
    { ...(signal ? { signal } : {}), ...(onProgress ? { onProgress: phase('strings')! } : {}) },
  );
  return {
    facts: dumpFacts(session, sections),
    sections,
    classNames: session.classNames(),
    dominators,
    keyOf,
    threads: await threadIdentities(session, sections, signal),
    topLevel: topLevel ? await topLevelByClass(session, sections, signal, phase('top-level')) : [],
    stringCopies,
    reachableOnly: sections.overview.reachableOnly,
    unreachableIntArrays: await unreachableIntArrays(session, sections, signal, phase('int[]')),
    warnings: session.warnings().map((w) => `${label}: ${w.offset > 0 ? `${w.message} (at byte ${w.offset})` : w.message}`),
  };
}
