/** Tools about the dump as a whole: describe it, list its classes, describe one class. */

import { buildSummary } from '../../report/summary.js';
import type { FieldView } from '../../session/index.js';
import { oneOf, optionalText, text, toolArgs, wholeNumber } from '../args.js';
import { noClassMessage } from '../../session/no-class.js';
import type { McpContext } from '../context.js';
import type { ToolRegistrar } from '../registrar.js';
import { OFFSET_MAX, ROWS_DEFAULT, ROWS_MAX, TEXT_CAP_SENTENCE } from '../limits.js';
import { errorResult, guarded, jsonResult, type ResultFit } from '../result.js';
import { analysisState, nextStep } from '../state.js';
import { compareText } from '../../text-order.js';

const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

/** One row of list_classes. */
interface ClassRow {
  className: string;
  instances: number;
  shallowBytes: number;
}

/** describe_dump cut to RESULT_MAX (thousands of warnings about damaged classes). */
const SUMMARY_FIT: ResultFit = {
  rest: 'For the rest: list_classes lists every class (with paging); `heapql summary <dump> --format json` on the command line lists every warning.',
};

/** list_classes cut to RESULT_MAX: whole rows dropped from the end, nextOffset where the next page starts. */
const CLASSES_FIT: ResultFit = {
  rest: 'For the rest: call again with offset = nextOffset (a smaller limit gives pages that fit whole).',
  adjust: (value, cut) => {
    const classes = cut.find((c) => c.path === 'classes');
    if (classes) value.nextOffset = (value.offset as number) + classes.returned;
  },
};

/** describe_class cut to RESULT_MAX (a class with thousands of fields, or under many loaders). */
const CLASS_FIT: ResultFit = {
  rest:
    'For the rest: inspect_object pages through the statics of one class (its classObject.objectId) and through the ' +
    'fields of an instance, with fieldOffset and fieldLimit.',
};

export function registerDumpTools(server: ToolRegistrar, ctx: McpContext): void {
  server.registerTool(
    'describe_dump',
    {
      title: 'Describe the heap dump',
      description:
        'Start here. Facts about the open Java/Android heap dump: file, JVM version, identifier size and object layout, ' +
        'object counts by kind (instances, object arrays, primitive arrays, classes), total shallow bytes, GC roots by kind, ' +
        'on an Android dump its heaps (app, zygote, image) with their objects and shallow bytes, the 10 classes with the most shallow bytes, warnings found while reading it, whether the full analysis (retained ' +
        'sizes, dominators) has run, and the baseline dump if one was given.' + TEXT_CAP_SENTENCE,
      inputSchema: toolArgs('describe_dump', {}),
      annotations: readOnly,
    },
    () =>
      guarded(async () => {
        const heap = await ctx.heap();
        return jsonResult({
          ...buildSummary(heap, 10),
          analysis: analysisState(heap),
          baseline: ctx.options.baselinePath ?? null,
          next: nextStep(heap),
        }, SUMMARY_FIT);
      }),
  );

  server.registerTool(
    'list_classes',
    {
      title: 'List classes',
      description:
        'Class names of the dump with their instance count and shallow bytes (instances of exactly that class; classes of ' +
        'one name under several class loaders count together). Filter by a case-insensitive substring, sort, and page ' +
        'with offset/limit. Use describe_class for one class\'s fields and hierarchy.' + TEXT_CAP_SENTENCE,
      inputSchema: toolArgs('list_classes', {
        pattern: optionalText('pattern', 'a part of a class name').describe(
          'only class names containing this text, case-insensitive (e.g. "HashMap", "com.acme.")',
        ),
        sortBy: oneOf('sortBy', ['shallow', 'count', 'name']).default('shallow').describe('order: shallow bytes or instances (largest first), or name'),
        offset: wholeNumber('offset', 0, OFFSET_MAX, 0).describe('rows to skip (paging)'),
        limit: wholeNumber('limit', 1, ROWS_MAX, ROWS_DEFAULT).describe(`rows to return (at most ${ROWS_MAX})`),
      }),
      annotations: readOnly,
    },
    ({ pattern, sortBy, offset, limit }) =>
      guarded(async () => {
        const heap = await ctx.heap();
        const totals = new Map<string, { instances: number; shallowBytes: number }>();
        for (const name of heap.classes(pattern)) totals.set(name, { instances: 0, shallowBytes: 0 });
        for (const r of heap.classHistogram()) {
          const t = totals.get(r.className);
          if (!t) continue;
          t.instances += r.count;
          t.shallowBytes += r.shallow;
        }
        const rows = [...totals].map(([className, t]) => ({ className, ...t }));
        // Names in Java's order (compareText), as every front sorts texts; `shallow` is the class
        // histogram's order (the session's histogramOrder: describe_dump's topClasses, the
        // report's histogram), `count` the same with instances first.
        const byName = (a: ClassRow, b: ClassRow) => compareText(a.className, b.className);
        if (sortBy === 'name') rows.sort(byName);
        else if (sortBy === 'count') rows.sort((a, b) => b.instances - a.instances || b.shallowBytes - a.shallowBytes || byName(a, b));
        else rows.sort((a, b) => b.shallowBytes - a.shallowBytes || b.instances - a.instances || byName(a, b));
        const page = rows.slice(offset, offset + limit);
        return jsonResult({
          matching: rows.length,
          offset,
          classes: page,
          ...(offset + page.length < rows.length ? { nextOffset: offset + page.length } : {}),
          // An empty page past the end says why, rather than looking like no class matched.
          ...(page.length === 0 && offset > 0 && rows.length > 0
            ? { note: `offset ${offset} is past the end: ${rows.length} classes match, at offsets 0 to ${rows.length - 1}` }
            : {}),
        }, CLASSES_FIT);
      }),
  );

  server.registerTool(
    'describe_class',
    {
      title: 'Describe a class',
      description:
        'One class by its Java name (e.g. "java.util.HashMap", "com.acme.Cache$Entry", "byte[]"): superclass chain, ' +
        'instance fields with types (own first, then inherited), static fields with their values, instance size, ' +
        'instances (exact class and with subclasses), the class object and its class loader. A class loaded by several ' +
        'class loaders is listed once per loader.' + TEXT_CAP_SENTENCE,
      inputSchema: toolArgs('describe_class', {
        name: text('name', 'a fully qualified class name').describe('the fully qualified class name, as list_classes shows it'),
      }),
      annotations: readOnly,
    },
    ({ name }) =>
      guarded(async () => {
        const heap = await ctx.heap();
        const views = await heap.describeClass(name);
        if (views.length === 0) {
          // The dump's names JSON-quoted, as data (a class may be named with any text).
          return errorResult(`${noClassMessage(name, heap.classNames(), (t) => JSON.stringify(t))} (list_classes searches by pattern)`);
        }
        const field = (f: FieldView, withValue: boolean) => ({
          name: f.name,
          type: f.type,
          ...(f.declaredBy ? { declaredBy: f.declaredBy } : {}),
          ...(withValue ? { value: f.value } : {}),
        });
        return jsonResult({
          classes: views.map((v) => ({
            ...v,
            fields: v.fields.map((f) => field(f, false)),
            statics: v.statics.map((f) => field(f, true)),
          })),
        }, CLASS_FIT);
      }),
  );
}
