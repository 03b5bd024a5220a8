/**
 * HTML escaping for text and attribute values: everything from the dump passes through here.
 * Control characters become visible escapes too (a NUL or a newline in a class name must not
 * change the page).
 */
import { printable } from './format.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return printable(s).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
