/**
 * The diff model: ONE JSON Schema definition (TypeBox) from which the TypeScript types derive,
 * the JSON renderer validates, and `heapql schema diff` prints. `compute.ts` fills it from two
 * dump snapshots; the renderers read only this model.
 *
 * Conventions: sizes are integers in bytes; a delta is current − baseline (negative = shrank);
 * `growthPercent` is delta / baseline × 100, null when the baseline is 0 or absent; every list
 * is sorted by growth, biggest first (renderers never re-sort). Matching rules: docs/diff.md.
 */
import { Type, type Static } from '@sinclair/typebox';

import { Bytes, Count, Nullable, Obj } from '../report/schema-builders.js';

/**
 * Bumped on any incompatible change (2: a class loader row's `retained` is what the loader's
 * classes retain taken together, as the report's schema 4 has it; it was the loader object's.
 * 3: `reachableOnly`; a class row's `classes`, and hidden classes matched without their address.
 * 4: a suspect row's `currentSource` and `matchedBy`; a group suspect of one dump only is sized
 * in the other by its class's top-level instances, `instances`, no longer the class histogram's
 * retained size, `class`; a name standing for several threads has their tids in keys,
 * `thread "pool" #21`; in the code, `pathKey`'s second argument, `ThreadSteps`, maps a thread's
 * object id to its step's text, no longer to its name: docs/diff.md).
 * 5: `heaps`, the Android heaps' objects and shallow bytes in both dumps.
 * 6: Android dumps (both with heaps): class rows and dominator rows are per heap, each with
 * its `heap` (a class in two heaps has two rows, where it had one); an offending gate row has
 * its `heap`; a rule may name a heap (`com.acme.*@app=5MB`)).
 */
export const DIFF_SCHEMA_VERSION = 6;

const Delta = (description?: string) => Type.Integer({ description: description ?? 'current − baseline' });
const GrowthPercent = () =>
  Nullable(Type.Number({ description: 'delta / baseline × 100; null when the baseline is 0 or has no such row' }));

/** A measure in both dumps and the change. */
const Change = (description: string) =>
  Obj({ baseline: Type.Integer({ minimum: 0 }), current: Type.Integer({ minimum: 0 }), delta: Delta(), growthPercent: GrowthPercent() }, description);
export const ChangeSchema = Change('one measure in both dumps');
export type Change = Static<typeof ChangeSchema>;

export const DumpFactsSchema = Obj({
  path: Type.String(),
  fileSize: Bytes(),
  dumpTime: Nullable(Type.String({ description: 'ISO 8601 UTC, from the header' })),
  jvmVersion: Nullable(Type.String()),
  mainClass: Nullable(Type.String({ description: 'first word of the sun.java.command system property (a jar\'s file name for -jar)' })),
  usedHeap: Bytes('total shallow size of the objects the analysis covers'),
  objects: Count(),
  classes: Count('classes with instances'),
});
export type DumpFacts = Static<typeof DumpFactsSchema>;

export const SameProgramSchema = Obj(
  {
    verdict: Type.Union([Type.Literal('same'), Type.Literal('different'), Type.Literal('unknown')], {
      description: 'different: the main classes differ, or fewer than half of the application classes are shared',
    }),
    baselineMainClass: Nullable(Type.String()),
    currentMainClass: Nullable(Type.String()),
    applicationClasses: Obj({
      baseline: Count('class names outside the JDK\'s own packages'),
      current: Count(),
      shared: Count('names in both'),
      overlapPercent: Nullable(Type.Number({ description: 'shared / the smaller of the two × 100; null when either has none' })),
    }),
    note: Nullable(Type.String({ description: 'the warning shown at the top of the report when verdict is `different`' })),
  },
  'whether the two dumps come from the same program',
);
export type SameProgram = Static<typeof SameProgramSchema>;

export const HeapDiffRowSchema = Obj(
  {
    name: Type.String({ description: '`app`, `zygote`, `image` or `default`, as the report\'s `overview.heaps` names it; matched by name' }),
    objects: Change('objects of this heap the analysis covers (0 in a dump without the heap)'),
    shallow: Change('their shallow size'),
  },
  "one Android heap in both dumps: the app's own growth is in `app`; zygote and image memory is shared with the system's other processes",
);
export type HeapDiffRow = Static<typeof HeapDiffRowSchema>;

const RowHeap = (description: string) => Type.Optional(Type.String({ description }));

export const ClassDiffRowSchema = Obj({
  className: Type.String({
    description: 'the class name; a hidden class\'s per-process address suffix is written `0x…` (`Foo$$Lambda$2+0x…`), as such classes are matched without it',
  }),
  classLoader: Type.String({ description: 'loader key: `<bootstrap>`, the loader\'s name, or its class (addresses dropped)' }),
  classes: Obj(
    { baseline: Count(), current: Count() },
    'classes of each dump summed into this row: more than one for hidden classes equal up to their address (JDK 21+ names every lambda of a class `Foo$$Lambda+0x…`) or same-named classes of loaders with one key',
  ),
  heap: RowHeap(
    "Android dumps only (present when both dumps have HEAP DUMP INFO records): the heap these instances are in, as `heaps` names it; a class's instances in each heap are a row of their own, so growth in `app` is never netted against a shrink in `zygote`. `instances`, `shallow` and `retained` are then that heap's: `retained` is the retained size of the class's instances in that heap taken together",
  ),
  instances: ChangeSchema,
  shallow: ChangeSchema,
  retained: ChangeSchema,
});
export type ClassDiffRow = Static<typeof ClassDiffRowSchema>;

export const LoaderDiffRowSchema = Obj(
  {
    loader: Type.String({ description: 'loader key: `<bootstrap>`, the loader\'s name, or its class (addresses dropped)' }),
    loaders: Obj({ baseline: Count(), current: Count() }, 'loaders with this key in each dump (those that define no class included)'),
    definedClasses: ChangeSchema,
    instances: ChangeSchema,
    shallow: ChangeSchema,
    retained: ChangeSchema,
  },
  "the report's class loader rows with one key, summed per dump; `retained` is what their classes retain taken together (the report's `classLoaders[].retained`, the same measure for every loader), not the loader objects' retained size",
);
export type LoaderDiffRow = Static<typeof LoaderDiffRowSchema>;

export const PackageDiffRowSchema = Obj({
  package: Type.String({ description: 'the package of the classes (`(no package)` for primitive arrays and the default package)' }),
  classes: Obj({ baseline: Count(), current: Count() }, 'classes with instances'),
  instances: ChangeSchema,
  shallow: ChangeSchema,
});
export type PackageDiffRow = Static<typeof PackageDiffRowSchema>;

export const MatchStatusSchema = Type.Union(
  [Type.Literal('new'), Type.Literal('grown'), Type.Literal('unchanged'), Type.Literal('shrunk'), Type.Literal('gone')],
  {
    description:
      'new: only in the current dump; gone: only in the baseline; grown / shrunk: the retained size changed by more than 1 % of the baseline\'s; unchanged otherwise',
  },
);
export type MatchStatus = Static<typeof MatchStatusSchema>;

export const DominatorDiffRowSchema = Obj({
  key: Type.String({
    description: 'the matching key: the path from a GC root as (class, field) steps; a thread as `thread "<name>"`, `thread "<name>" #<tid>` when several threads of either dump have the name',
  }),
  className: Type.String(),
  heap: RowHeap(
    "Android dumps only (present when both dumps have HEAP DUMP INFO records): the heap of the retained bytes this row counts — a key's objects retain objects of several heaps, and each heap's part is a row of its own (`retained` is the shallow sizes of the retained objects in that heap); which heap the dominator object itself is in does not matter. A key is compared when its objects retain at least the threshold in all heaps together",
  ),
  objects: Obj({ baseline: Count(), current: Count() }, 'objects with this key among the big dominators of each dump'),
  status: MatchStatusSchema,
  retained: ChangeSchema,
});
export type DominatorDiffRow = Static<typeof DominatorDiffRowSchema>;

const SuspectSource = (description: string) =>
  Type.Union([Type.Literal('suspect'), Type.Literal('dominator'), Type.Literal('instances'), Type.Literal('none')], { description });

export const SuspectDiffRowSchema = Obj({
  status: MatchStatusSchema,
  title: Type.String({ description: 'the suspect\'s title in the current dump (the baseline\'s for a suspect of the baseline only)' }),
  kind: Type.Union([Type.Literal('single'), Type.Literal('group')]),
  key: Type.String({ description: 'single: the object\'s path key; group: `instances of <class>`' }),
  currentRank: Nullable(Type.Integer({ minimum: 1 })),
  baselineRank: Nullable(
    Type.Integer({
      minimum: 1,
      description: 'the paired baseline suspect\'s rank (suspects of one key are paired one to one, biggest with biggest); null when no baseline suspect is left for it',
    }),
  ),
  baselineSource: SuspectSource(
    'where the baseline size comes from: its own suspect; for a suspect the baseline does not have, what has its key there by the same measure: a big dominator that is no suspect (single), the top-level instances of its class taken together, as a group suspect counts them but below the threshold (group); or nowhere (new)',
  ),
  currentSource: SuspectSource('where the current size comes from, as `baselineSource`: `suspect` for every current suspect; for a baseline suspect the current dump does not have, `dominator`, `instances` or `none` (gone)'),
  matchedBy: Type.String({
    description:
      'what the row is matched by, as the Markdown and HTML say it: `baseline suspect (#4)` (a suspect in both), `suspect now (#2), below the threshold in the baseline` / `only a big dominator in the baseline`, `not in the baseline`, `baseline suspect (#4), below the threshold now` / `only a big dominator now` / `nothing with its key now`',
  }),
  retained: ChangeSchema,
  retainedPercent: Obj({ baseline: Nullable(Type.Number()), current: Nullable(Type.Number()) }, 'of each dump\'s used heap'),
});
export type SuspectDiffRow = Static<typeof SuspectDiffRowSchema>;

export const StringDiffRowSchema = Obj({
  value: Type.String({ description: 'the text, cut to 200 characters' }),
  truncated: Type.Boolean(),
  inBaseline: Type.Boolean({
    description:
      'true: the baseline lists this value among its duplicated strings; false: it does not, and `count.baseline` is its copies counted in the baseline (0 or 1, more only when the baseline\'s list was cut)',
  }),
  count: Change('copies in each dump'),
  wastedBytes: Change('bytes the redundant copies take in each dump; for a value the baseline does not list, 0 with at most one copy there, else estimated at the current dump\'s bytes per copy'),
});
export type StringDiffRow = Static<typeof StringDiffRowSchema>;

export const GateRowSchema = Obj({
  rule: Type.String({ description: 'the --fail-if-grown argument as given' }),
  className: Type.String(),
  classLoader: Type.String(),
  heap: RowHeap('Android: the heap of the offending class row (rules are checked against each heap\'s row on its own)'),
  shallow: ChangeSchema,
  limit: Type.String({ description: 'what the rule allows, e.g. `10000 bytes` or `20%`' }),
});
export type GateRow = Static<typeof GateRowSchema>;

export const DiffModelSchema = Type.Object(
  {
    schemaVersion: Type.Literal(DIFF_SCHEMA_VERSION),
    generator: Obj({ name: Type.Literal('heapql'), version: Type.String() }),
    generatedAt: Type.String({ description: 'ISO 8601; the only field that differs between two runs on the same dumps' }),
    baseline: DumpFactsSchema,
    current: DumpFactsSchema,
    sameProgram: SameProgramSchema,
    reachableOnly: Type.Boolean({
      description: 'true: both dumps were analyzed with --reachable-only, so every figure counts only objects reachable from GC roots; false: unreachable objects the dumps still hold are counted too',
    }),
    usedHeap: ChangeSchema,
    objects: ChangeSchema,
    heaps: Type.Optional(
      Type.Array(HeapDiffRowSchema, {
        description:
          'Android dumps only (absent when neither dump has HEAP DUMP INFO records): every heap of either dump, changed or not, biggest shallow growth first; they add up to `usedHeap` and `objects`',
      }),
    ),
    classes: Type.Array(ClassDiffRowSchema, {
      description: 'every class (on Android dumps, every class in each heap) whose instances or shallow size changed, biggest shallow growth first',
    }),
    classLoaders: Type.Array(LoaderDiffRowSchema, { description: 'every loader key whose numbers changed, biggest retained growth first' }),
    packages: Type.Array(PackageDiffRowSchema, { description: 'every package whose instances or shallow size changed, biggest shallow growth first' }),
    dominators: Obj({
      thresholdBytes: Bytes('keys whose objects retain at least this much in either dump are compared (1 % of the larger used heap); the other dump\'s value counts its objects retaining 1 % of its own heap'),
      rows: Type.Array(DominatorDiffRowSchema, { description: 'every key (on Android dumps, every key and heap) whose retained size changed, biggest growth first' }),
    }),
    leakSuspects: Type.Array(SuspectDiffRowSchema, { description: 'the current dump\'s suspects by growth, then the baseline\'s gone ones' }),
    duplicateStrings: Obj({
      wastedBytes: ChangeSchema,
      complete: Type.Boolean({ description: 'false when the current dump has more duplicated values than were listed: values beyond its list are not compared' }),
      grown: Type.Array(StringDiffRowSchema, { description: 'values whose copies grew, most grown wasted bytes first' }),
    }),
    gate: Obj({
      rules: Type.Array(Type.String(), { description: '--fail-if-grown arguments, as given' }),
      failed: Type.Boolean(),
      offending: Type.Array(GateRowSchema, { description: 'class rows that grew past a rule (on Android dumps, per heap)' }),
    }),
    warnings: Type.Array(Type.String(), {
      description: 'non-fatal findings of either dump (prefixed with which), then notes on the comparison (e.g. that `int[]` counts unreachable arrays, which may be the JVM\'s filler arrays)',
    }),
  },
  { $id: 'urn:heapql:schema:diff', title: 'heapql diff', additionalProperties: false },
);
export type DiffModel = Static<typeof DiffModelSchema>;
