/** inspect_object: one object with its fields, references both ways, GC root path and dominator. */

import type { HeapSession, ReferenceList } from '../../session/index.js';
import { objectSpec, someOf, toolArgs, wholeNumber } from '../args.js';
import type { McpContext } from '../context.js';
import type { ToolRegistrar } from '../registrar.js';
import { FIELDS_DEFAULT, FIELDS_MAX, OFFSET_MAX, REFERENCES_DEFAULT, REFERENCES_MAX, TEXT_CAP_SENTENCE } from '../limits.js';
import { errorResult, guarded, jsonResult, type ResultFit } from '../result.js';

const PARTS = ['fields', 'referents', 'referrers', 'pathToRoot', 'dominator'] as const;
type Part = (typeof PARTS)[number];

const NEEDS_ANALYSIS = 'needs the full analysis: call analyze_heap, then ask again';

/** inspect_object cut to RESULT_MAX: nextFieldOffset where the fields go on. */
const OBJECT_FIT: ResultFit = {
  rest:
    'For the rest: fieldOffset = nextFieldOffset pages through the fields (a smaller fieldLimit gives pages that fit whole); ' +
    'a smaller referenceLimit, or `include` with fewer parts, leaves room for more of each list.',
  adjust: (value, cut) => {
    const fields = cut.find((c) => c.path === 'fields');
    if (fields) value.nextFieldOffset = (value.fieldOffset as number) + fields.returned;
  },
};

function references(list: ReferenceList) {
  return {
    total: list.total,
    items: list.items.map((r) => (r.object ? { field: r.field, object: r.object } : { field: r.field, address: r.address, missing: true })),
  };
}

/**
 * An object id as a number, or a string `123`, `#123`, `0x…` (address), `java.lang.String#123`;
 * `className` the class a `<class>#<index>` names, checked once the object is read.
 */
function resolve(heap: HeapSession, spec: number | string): { id: number; className: string | null } {
  if (typeof spec === 'number') return { id: heap.resolveObject(String(spec)), className: null };
  // The class checked here, not by the session: its refusal quotes the dump's class name bare.
  const m = /^\s*([^#\s]+)#(\d+)\s*$/.exec(spec);
  if (m) return { id: heap.resolveObject(`#${m[2]}`), className: m[1]! };
  return { id: heap.resolveObject(spec), className: null };
}

export function registerObjectTools(server: ToolRegistrar, ctx: McpContext): void {
  server.registerTool(
    'inspect_object',
    {
      title: 'Inspect one object',
      description:
        'Everything about one object: class, address, shallow and retained size, GC root kinds, its heap on an Android dump (app, zygote or image), its fields with names, ' +
        'types and values (references as {objectId, address, className}); the objects it refers to (referents) and that ' +
        'refer to it (referrers), each with the holding field; a shortest path from a GC root to it; its immediate ' +
        'dominator and the biggest objects it dominates (what it keeps alive; with no dominator, noDominatorBecause says root, ' +
        'shared — held through several GC roots — or unreachable). Referrers, the path and the dominator ' +
        'need analyze_heap first (until then they say so). Use `include` to ask for fewer parts.' + TEXT_CAP_SENTENCE,
      inputSchema: toolArgs('inspect_object', {
        object: objectSpec('object').describe(
          'the objectId from another result (e.g. 1234), or "#1234", an address "0x7f3a…", or "java.util.HashMap#1234"',
        ),
        include: someOf('include', PARTS).optional().describe(`parts to return (default all): ${PARTS.join(', ')}`),
        fieldOffset: wholeNumber('fieldOffset', 0, OFFSET_MAX, 0).describe('first field (array element) to show, for paging through big arrays'),
        fieldLimit: wholeNumber('fieldLimit', 1, FIELDS_MAX, FIELDS_DEFAULT).describe(`fields (array elements) to show, at most ${FIELDS_MAX}`),
        referenceLimit: wholeNumber('referenceLimit', 1, REFERENCES_MAX, REFERENCES_DEFAULT).describe(
          `referents, referrers and dominated children to list each, at most ${REFERENCES_MAX}`,
        ),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ object, include, fieldOffset, fieldLimit, referenceLimit }) =>
      guarded(async () => {
        const heap = await ctx.heap();
        const { id, className } = resolve(heap, object);
        const want = new Set<Part>(include ?? PARTS);
        const view = await heap.object(id, { fieldOffset, fieldLimit });
        if (className !== null && view.object.className !== className) {
          // Both names JSON-quoted: the dump's is data (a class may be named with any text).
          return errorResult(
            `ERR_NO_SUCH_OBJECT: object ${id} is a ${JSON.stringify(view.object.className)}, not a ${JSON.stringify(className)} (pass its objectId, ${id}, to inspect it)`,
          );
        }
        const out: Record<string, unknown> = {
          object: view.object,
          kind: view.kind,
          shallowSize: view.shallowSize,
          retainedSize: view.retainedSize,
          ...(view.retainedSize === null && view.reachable !== null
            ? { retainedNote: 'no retained size: not in the dominator tree (unreachable, and the analysis ran with --reachable-only)' }
            : {}),
          reachable: view.reachable,
          ...(view.arrayLength !== null ? { arrayLength: view.arrayLength } : {}),
          ...(view.describedClass !== null ? { describedClass: view.describedClass } : {}),
          ...(view.heap !== null ? { heap: view.heap } : {}),
          gcRoots: view.gcRoots,
        };
        const unavailable: Record<string, string> = {};
        if (want.has('fields')) {
          out.fieldCount = view.fieldCount;
          out.fieldOffset = fieldOffset;
          out.fields = view.fields.map((f) => ({ name: f.name, type: f.type, ...(f.declaredBy ? { declaredBy: f.declaredBy } : {}), value: f.value }));
          if (fieldOffset + view.fields.length < view.fieldCount) out.nextFieldOffset = fieldOffset + view.fields.length;
          // No field past the last: said, rather than looking like an object without fields.
          else if (view.fields.length === 0 && fieldOffset > 0 && view.fieldCount > 0) {
            out.fieldsNote = `fieldOffset ${fieldOffset} is past the last field: the object has ${view.fieldCount}, at offsets 0 to ${view.fieldCount - 1}`;
          }
        }
        if (want.has('referents')) out.referents = references(await heap.referents(id, referenceLimit));
        const analyzed = heap.analyzed;
        if (want.has('referrers')) {
          if (analyzed) out.referrers = references(await heap.referrers(id, referenceLimit));
          else unavailable.referrers = NEEDS_ANALYSIS;
        }
        if (want.has('pathToRoot')) {
          if (analyzed) {
            const path = await heap.pathToRoot(id);
            out.pathToRoot = path ?? null;
            // Unreachable: no path (an analysis with --reachable-only), or, kept in the tree, a path
            // from the pseudo-root the analysis hangs it from, which is no GC root: said either way.
            if (!path || view.reachable === false) {
              const why = heap.info().cutShort
                ? 'no GC root this dump records reaches this object (the dump is cut short: its root records after the cut are missing, so it is not shown to be garbage)'
                : 'no GC root reaches this object (it is garbage the next collection would free)';
              out.pathNote = path
                ? `${why}: pathToRoot starts at "${path[0]!.via}", the pseudo-root the analysis hangs unreachable objects from, not a GC root`
                : `no path: ${why}`;
            }
          } else unavailable.pathToRoot = NEEDS_ANALYSIS;
        }
        if (want.has('dominator')) {
          if (analyzed) {
            const d = await heap.dominator(id, referenceLimit);
            out.dominator = { immediateDominator: d.dominator, ...(d.top ? { noDominatorBecause: d.top } : {}), inTree: d.inTree, dominatedCount: d.childCount, dominated: d.children };
          } else unavailable.dominator = NEEDS_ANALYSIS;
        }
        if (Object.keys(unavailable).length > 0) out.unavailable = unavailable;
        return jsonResult(out, OBJECT_FIT);
      }),
  );
}

