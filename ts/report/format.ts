/**
 * Number and text formatting shared by the Markdown and HTML renderers. Locale-independent on
 * purpose: the same model must give byte-identical output on every machine.
 */
import { formatBytes } from './summary.js';
import type { ObjectRef, Value } from './query-result.js';
import type { Via } from './model.js';

export { formatBytes };

export const int = (n: number): string => (Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 3 }));

export const percent = (p: number): string => `${p.toFixed(1)}%`;

/** `4.8 MiB (40.0%)`. */
export const sizeWithPercent = (bytes: number, pct: number): string => `${formatBytes(bytes)} (${percent(pct)})`;

/** Replaces control characters (newlines in strings from the dump) with visible escapes. */
export function printable(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    switch (c) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

/** Cuts a text for a chart label or a narrow column, marking the cut with an ellipsis. */
export function shorten(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : chars.slice(0, Math.max(1, max - 1)).join('') + '…';
}

export function isObjectRef(v: Value): v is ObjectRef {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text of one query cell: an object by its label, a list as `[a, b]`. */
export function valueText(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(valueText).join(', ')}]`;
  if (isObjectRef(v)) return v.label;
  if (typeof v === 'number') return int(v);
  return String(v);
}

/** How a path step is reached from the previous one, as a person writes it. */
export function viaText(via: Via | null): string {
  if (!via) return '';
  switch (via.kind) {
    case 'field':
      return `.${via.name}`;
    case 'staticField':
      return `static ${via.name}`;
    case 'arrayElement':
      return via.name.startsWith('[') ? via.name : `[${via.name}]`;
    case 'local':
      return `local in ${via.name}`;
    case 'classLoader':
      return `<classloader> ${via.name}`.trim();
    case 'superclass':
      return `<super> ${via.name}`.trim();
    default:
      return via.name;
  }
}

/** A stack frame as a Java stack trace prints it: `pkg.Cls.m(Sig) (File.java:12)`. */
export function frameText(f: { method: string; signature: string | null; source: string | null }): string {
  return `${f.method}${f.signature ?? ''}${f.source ? ` (${f.source})` : ''}`;
}

/** The file's base name for titles (the path stays in the overview). */
export function baseName(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}
