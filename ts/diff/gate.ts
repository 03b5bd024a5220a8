/**
 * The CI gate: `--fail-if-grown <class-or-pattern>=<limit>` (repeatable). Each rule is checked
 * against every class row (class name + loader) whose name it matches; a row offends when its
 * shallow size grew by more than the limit:
 *   - pattern: an exact class name (`java.util.HashMap$Node`), a glob where `*` is any run of
 *     characters and `?` one character (`com.acme.*`, `*Cache*`), or `/regex/` that must match
 *     the whole class name (`/.*\$Entry/`);
 *   - limit: bytes (`50000`, with an optional unit `B`, `KB`/`MB`/`GB` = 1000ⁿ, `KiB`/`MiB`/`GiB`
 *     = 1024ⁿ) or a percentage of the class's baseline shallow size (`20%`; a class absent from
 *     the baseline that has any instances now exceeds every percentage).
 * The text is split at its last `=`. A rule whose pattern matches no class of either dump is a
 * usage error, so a typo cannot turn the gate off.
 *
 * Android dumps (both with heaps): the class rows are per heap, and a rule is checked against
 * each heap's row on its own — growth in `app` is never netted against a shrink in `zygote`,
 * and a percentage is of the class's baseline bytes in that heap. A pattern may end in
 * `@<heap>` (`com.acme.*@app=5MB`, `/.*Cache/@app=20%`) to check that heap's rows only; a heap
 * neither dump has, or a heap on dumps without heaps, is a usage error.
 */
import { usageError } from '../errors.js';
import { hiddenClassKey } from './hidden.js';
import type { ClassDiffRow, GateRow } from './model.js';

export interface GateRule {
  text: string;
  matches: (className: string) => boolean;
  /** The heap the rule checks (`…@app=…`); absent: every heap's rows. */
  heap?: string;
  limit: { kind: 'bytes'; bytes: number } | { kind: 'percent'; percent: number };
}

const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Parses one --fail-if-grown argument (usage error naming the syntax when it is wrong). */
export function parseGateRule(text: string): GateRule {
  const at = text.lastIndexOf('=');
  const syntax = 'write --fail-if-grown <class-or-pattern>[@<heap>]=<bytes|percent>, e.g. com.acme.Session=1MB or "com.acme.*=20%"';
  if (at <= 0 || at === text.length - 1) throw usageError(`--fail-if-grown ${text}: ${syntax}`);
  let pattern = text.slice(0, at).trim();
  const limitText = text.slice(at + 1).trim();
  // `<pattern>@<heap>`: no class name has an `@`, and a /regex/ ends in its `/` before it.
  const qualified = /^(.+)@([A-Za-z][\w-]*)$/.exec(pattern);
  const heap = qualified ? qualified[2] : undefined;
  if (qualified) pattern = qualified[1]!.trim();
  const withHeap = <R extends Omit<GateRule, 'heap'>>(r: R): R & { heap?: string } => (heap === undefined ? r : { ...r, heap });
  let matches: (n: string) => boolean;
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${pattern.slice(1, -1)})$`);
    } catch (err) {
      throw usageError(`--fail-if-grown ${text}: bad regular expression: ${(err as Error).message}`);
    }
    matches = (n) => re.test(n);
  } else if (/[*?]/.test(pattern)) {
    const re = new RegExp(`^${pattern.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : escapeRegex(c))).join('')}$`);
    matches = (n) => re.test(n);
  } else {
    matches = (n) => n === pattern;
  }
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(limitText);
  if (pct) return withHeap({ text, matches, limit: { kind: 'percent', percent: Number(pct[1]) } });
  const bytes = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(limitText);
  const unit = bytes ? UNITS[(bytes[2] || 'b').toLowerCase()] : undefined;
  if (!bytes || unit === undefined) {
    throw usageError(`--fail-if-grown ${text}: the limit "${limitText}" is neither bytes (50000, 64KiB, 2MB) nor a percentage (20%); ${syntax}`);
  }
  return withHeap({ text, matches, limit: { kind: 'bytes', bytes: Math.round(Number(bytes[1]) * unit) } });
}

export function limitText(rule: GateRule): string {
  return rule.limit.kind === 'percent' ? `${rule.limit.percent}%` : `${rule.limit.bytes} bytes`;
}

function offends(rule: GateRule, row: ClassDiffRow): boolean {
  const d = row.shallow.delta;
  if (d <= 0) return false;
  if (rule.limit.kind === 'bytes') return d > rule.limit.bytes;
  return row.shallow.baseline === 0 || (d * 100) / row.shallow.baseline > rule.limit.percent;
}

/**
 * The rows that break a rule, biggest growth first as the rows come. `allClassNames` is every
 * class of either dump: a rule that matches none of them is refused. A row of hidden classes
 * (`Foo$$Lambda+0x…`) is matched by its own name and by the real names of its classes, so a rule
 * naming one with its address still applies to the row. `heaps`: the heaps of either dump when
 * the rows are per heap (Android), else null; a rule's heap must be one of them.
 */
export function evaluateGate(rules: GateRule[], rows: ClassDiffRow[], allClassNames: Iterable<string>, heaps: string[] | null = null): GateRow[] {
  const names = [...allClassNames];
  for (const rule of rules) {
    if (!names.some((n) => rule.matches(n))) {
      throw usageError(`--fail-if-grown ${rule.text}: no class of either dump matches; check the name (inner classes are Outer$Inner, arrays byte[])`);
    }
    if (rule.heap !== undefined && heaps === null) {
      throw usageError(`--fail-if-grown ${rule.text}: the rule names the heap "${rule.heap}", but the dumps do not both record Android heaps; leave "@${rule.heap}" out`);
    }
    if (rule.heap !== undefined && !heaps!.includes(rule.heap)) {
      throw usageError(`--fail-if-grown ${rule.text}: neither dump has a heap "${rule.heap}"; their heaps are ${heaps!.join(', ')}`);
    }
  }
  const realNames = new Map<string, string[]>();
  for (const n of names) {
    const key = hiddenClassKey(n);
    if (key === n) continue;
    const real = realNames.get(key);
    if (real) real.push(n);
    else realNames.set(key, [n]);
  }
  const matches = (rule: GateRule, row: ClassDiffRow) => rule.matches(row.className) || (realNames.get(row.className) ?? []).some((n) => rule.matches(n));
  const out: GateRow[] = [];
  for (const rule of rules) {
    for (const row of rows) {
      if ((rule.heap === undefined || row.heap === rule.heap) && matches(rule, row) && offends(rule, row)) {
        out.push({ rule: rule.text, className: row.className, classLoader: row.classLoader, ...(row.heap !== undefined ? { heap: row.heap } : {}), shallow: row.shallow, limit: limitText(rule) });
      }
    }
  }
  return out;
}
