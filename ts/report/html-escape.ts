/**
 * HTML escaping for text and attribute values: everything from the dump passes through here.
 * Control characters become visible escapes too (a NUL or a newline in a class name must not
 * change the page), and so do the bidirectional controls (`printable`).
 */
import { printable } from './format.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text escaped for an attribute value, `<title>` or element content. */
export function escapeHtml(s: string): string {
  return printable(s).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/**
 * Text of several lines that a person wrote (a query's OQL), escaped for a `<pre>` as
 * `escapeHtml` escapes each line: its line breaks (`\n`, `\r\n`) and tabs stay as they are,
 * so a query spread over lines reads as written rather than as one line with `\n` in it.
 */
export function escapeHtmlLines(s: string): string {
  return s
    .split(/\r?\n/)
    .map((line) => line.split('\t').map(escapeHtml).join('\t'))
    .join('\n');
}

/**
 * Text escaped for element content and isolated in a `<bdi>`: right-to-left text from the dump
 * (a Hebrew or Arabic name) is laid out on its own and cannot reorder the page's own text
 * around it (`name: 8 frames, 13 locals` must not read `8 :name frames`). Not for attributes.
 */
export function isolateHtml(s: string): string {
  return `<bdi>${escapeHtml(s)}</bdi>`;
}
