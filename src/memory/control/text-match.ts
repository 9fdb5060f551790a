// The rule of a forget by words is in spec (one for every participant, the library's too).
export { containsAll, queryWords } from '../../spec/forget-words.js';

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
