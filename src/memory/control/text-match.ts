/**
 * How a forget by words decides what a text contains (K-2): every word of the query, as written,
 * anywhere in the text, ignoring case — predictable for a person reading the preview ("4711" finds
 * "the door code is 4711"; "door code" needs both words). Words are split on white space; a
 * Chinese query without spaces is one word.
 */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/\s+/).map((w) => w.trim()).filter(Boolean))].slice(0, 20);
}

/** True when `text` holds every word. */
export function containsAll(text: string, words: readonly string[]): boolean {
  if (!words.length) return false;
  const t = text.toLowerCase();
  return words.every((w) => t.includes(w));
}

/** A short, one-line preview of a text. */
export function preview(text: string, max = 200): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

/** The session a kernel turn id belongs to (`webui:1#7` → `webui:1`). */
export function sessionOfTurn(turnId: string): string {
  const i = turnId.lastIndexOf('#');
  return i > 0 ? turnId.slice(0, i) : '';
}
