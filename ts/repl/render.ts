/**
 * Plain-text views of look-ups and session facts for the REPL (pure: data in, text out). Every
 * text from the dump (class, field and thread names, String contents in labels, values) goes
 * through `terminalText` (`t`), and columns are aligned in terminal cells.
 */
import { formatValue, labelText } from '../query/format.js';
import { rootNote } from '../report/format.js';
import type { ClassView, DominatorView, FieldView, ObjectView, PathStep, ReferenceList, SessionStatus, TopOfTree } from '../session/types.js';
import { displayWidth, padEndWidth, terminalText as t } from '../terminal-text.js';

const int = (n: number) => n.toLocaleString('en-US');

/** What a retained size of null means once the analysis ran (`ObjectView.retainedSize`). */
const NOT_IN_TREE = '— (not in the dominator tree: unreachable, analysis run with --reachable-only)';

/** `key  value` lines, keys padded (the keys are heapql's words; values are escaped by the caller). */
function aligned(pairs: [string, string][]): string {
  const width = Math.max(0, ...pairs.map(([k]) => displayWidth(k)));
  return pairs.map(([k, v]) => `${padEndWidth(k, width)}  ${v}`).join('\n');
}

function fieldLines(fields: FieldView[], withValue: boolean, indent = '  '): string[] {
  const names = fields.map((f) => t(f.name));
  const types = fields.map((f) => t(f.type));
  const nameW = Math.max(0, ...names.map(displayWidth));
  const typeW = Math.max(0, ...types.map(displayWidth));
  return fields.map((f, i) => {
    const head = `${indent}${padEndWidth(types[i]!, typeW)}  ${padEndWidth(names[i]!, nameW)}`;
    if (withValue) return `${head}  = ${t(formatValue(f.value))}`;
    return f.declaredBy ? `${head}  (${t(f.declaredBy)})` : head.trimEnd();
  });
}

export function renderObject(o: ObjectView): string {
  const pairs: [string, string][] = [
    ['object', labelText(o.object)],
    ['index', `#${o.object.objectId}`],
    ['class', o.describedClass ? `java.lang.Class (describes ${t(o.describedClass)})` : t(o.object.className)],
    ['shallow size', `${int(o.shallowSize)} B`],
    ['retained size', o.retainedSize !== null ? `${int(o.retainedSize)} B` : o.reachable === null ? 'needs !analyze' : NOT_IN_TREE],
  ];
  if (o.heap !== null) pairs.push(['heap', t(o.heap)]);
  if (o.reachable !== null) pairs.push(['reachable', o.reachable ? 'yes' : 'no (no GC root the dump records reaches it)']);
  if (o.arrayLength !== null) pairs.push(['length', int(o.arrayLength)]);
  if (o.gcRoots.length > 0) pairs.push(['GC root', t(o.gcRoots.join(', '))]);
  // Its elements are unknown, not null: say so rather than list them.
  if (o.contentsMissing) return [aligned(pairs), 'contents not in the dump (NODATA)'].join('\n');
  const what = o.kind === 'class' ? 'statics' : o.kind.endsWith('array') ? 'elements' : 'fields';
  const lines = [aligned(pairs), `${what} (${int(o.fieldCount)}):`, ...fieldLines(o.fields, true)];
  if (o.fields.length < o.fieldCount) lines.push(`  … ${int(o.fieldCount - o.fields.length)} more`);
  return lines.join('\n');
}

export function renderClass(c: ClassView): string {
  const pairs: [string, string][] = [
    ['class', `${t(c.name)}  (${t(c.classObject.label.replace(/^class /, ''))}, #${c.classObject.objectId})`],
    ['superclasses', c.superChain.length ? c.superChain.map((n) => t(n)).join(' → ') : '(none)'],
    ['instances', `${int(c.instances)} (${int(c.instanceBytes)} B shallow); with subclasses ${int(c.instancesWithSubclasses)}`],
    ['instance size', `${int(c.instanceSize)} B`],
    ['subclasses', int(c.subclasses)],
    ['class loader', c.loader === '0x0' ? 'bootstrap' : t(c.loader)],
  ];
  const lines = [aligned(pairs), `fields (${c.fields.length}):`, ...fieldLines(c.fields, false)];
  if (c.statics.length > 0) lines.push(`statics (${c.statics.length}):`, ...fieldLines(c.statics, true));
  return lines.join('\n');
}

function referenceLines(list: ReferenceList, arrow: string): string[] {
  const fields = list.items.map((r) => t(r.field));
  const width = Math.max(0, ...fields.map(displayWidth));
  const lines = list.items.map((r, i) => `  ${arrow} ${padEndWidth(fields[i]!, width)}  ${r.object ? `${labelText(r.object)}  #${r.object.objectId}` : `${t(r.address)} (not in the dump)`}`);
  if (list.items.length < list.total) lines.push(`  … ${int(list.total - list.items.length)} more`);
  return lines;
}

/** Outbound references, then referrers (null: they need the full analysis). `label` is shown as given (escape it). */
export function renderRefs(label: string, out: ReferenceList, inbound: ReferenceList | null): string {
  const lines = [label, `refers to (${int(out.total)}):`, ...referenceLines(out, '→')];
  if (inbound === null) lines.push('referred to by: needs the full analysis (!analyze)');
  else lines.push(`referred to by (${int(inbound.total)}):`, ...referenceLines(inbound, '←'));
  return lines.join('\n');
}

/** A path's first step: its GC root kinds, or the pseudo-root of garbage, which is none. */
function rootText(via: string): string {
  return `[${rootNote([t(via)])}]`;
}

export function renderPath(steps: PathStep[] | null, label: string): string {
  if (steps === null) return `${label}: no path from a GC root (unreachable; the analysis left unreachable objects out)`;
  const lines: string[] = [];
  let depth = 0;
  for (const [i, s] of steps.entries()) {
    if (s.skipped > 0) {
      lines.push(`${'  '.repeat(Math.min(depth - 1, 12))}… ${int(s.skipped)} steps left out …`);
      depth += s.skipped;
    }
    // Indentation stops growing at 12 levels: the tree stays readable on a deep path.
    const pad = '  '.repeat(Math.max(0, Math.min(depth - 1, 12)));
    lines.push(i === 0 ? `${labelText(s.object)}  #${s.object.objectId}  ${rootText(s.via)}` : `${pad}└─ .${t(s.via)} → ${labelText(s.object)}  #${s.object.objectId}`);
    depth++;
  }
  return lines.join('\n');
}

/** `!dom`'s words for why an object of the tree has only the virtual root above it. */
const TOP_OF_TREE: Record<TopOfTree, string> = {
  root: '(none: a GC root)',
  shared: '(none: held through more than one GC root, so only the virtual root dominates it)',
  unreachable: '(none: unreachable, a pseudo-root of the analysis under the virtual root, not a GC root)',
};

/** `!dom`. */
export function renderDominator(d: DominatorView): string {
  const none = d.inTree ? (d.top ? TOP_OF_TREE[d.top] : '(none)') : '(none: not in the dominator tree)';
  const lines = [
    `${labelText(d.object)}  #${d.object.objectId}`,
    `retained size  ${d.retainedSize === null ? NOT_IN_TREE : `${int(d.retainedSize)} B`}`,
    `dominator      ${d.dominator ? `${labelText(d.dominator)}  #${d.dominator.objectId}` : none}`,
  ];
  // Outside the tree it dominates nothing: no list to announce.
  if (!d.inTree) return lines.join('\n');
  lines.push(`dominates (${int(d.childCount)}), biggest first:`);
  const width = Math.max(0, ...d.children.map((c) => int(c.retainedSize).length));
  for (const c of d.children) lines.push(`  ${int(c.retainedSize).padStart(width)} B  ${labelText(c.object)}  #${c.object.objectId}`);
  if (d.children.length < d.childCount) lines.push(`  … ${int(d.childCount - d.children.length)} more`);
  return lines.join('\n');
}

/** `dump`: which heap dump of the file is open (0-based) and how many it holds, named when more than one. */
export function renderBanner(s: SessionStatus, version: string, dump?: { index: number; count: number }): string {
  const which = dump && dump.count > 1 ? ` (heap dump ${dump.index + 1} of ${dump.count}; --dump N opens another)` : '';
  const path = s.state === 'full' ? `full analysis${s.analysis?.reachableOnly ? ' (reachable objects only)' : ''}` : s.state === 'analyzing' ? 'analyzing…' : 'query-only (!analyze for retained sizes and dominators)';
  return [
    `heapql ${version} — ${t(s.path, { keepBackslashes: true })}${which}`,
    `${int(s.objects)} objects, ${int(s.classes)} classes; path: ${path}; queries see ${s.reachableOnly ? 'reachable objects only (!all for all)' : 'all objects (!reachable for reachable only)'}`,
    'Type OQL (end with ; or a complete statement), !help for commands, !quit or Ctrl-D to leave.',
  ].join('\n');
}

/** Names (escaped for a terminal) in columns that fit `width` terminal cells. */
export function grid(names: string[], width = 80): string {
  if (names.length === 0) return '';
  const shown = names.map((n) => t(n));
  // A loop, not Math.max(...): a dump can have very many classes.
  let widest = 0;
  for (const n of shown) widest = Math.max(widest, displayWidth(n));
  const cell = Math.min(width, widest + 2);
  const perLine = Math.max(1, Math.floor(width / cell));
  const lines: string[] = [];
  for (let i = 0; i < shown.length; i += perLine) lines.push(shown.slice(i, i + perLine).map((n) => padEndWidth(n, cell)).join('').trimEnd());
  return lines.join('\n');
}
