/**
 * How a forget by words decides what a text contains (K-2), the one rule every participant uses:
 * every word of the query, as written, anywhere in the text, ignoring case — predictable for a
 * person reading the preview ("4711" finds "the door code is 4711"; "door code" needs both words).
 * Words are split on white space; a Chinese query without spaces is one word. A number is a whole
 * number: "3456" is not found inside "123456789" (a PIN is not part of a phone number or an id).
 */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/\s+/).map((w) => w.trim()).filter(Boolean))].slice(0, 20);
}

const DIGIT = /[0-9]/;

/** True when `text` holds every word. */
export function containsAll(text: string, words: readonly string[]): boolean {
  if (!words.length) return false;
  const t = text.toLowerCase();
  return words.every((w) => holdsWord(t, w));
}

/** `w` in `t` (both lower case), where a word that starts or ends with a digit does not continue a longer number. */
function holdsWord(t: string, w: string): boolean {
  const digitStart = DIGIT.test(w[0]);
  const digitEnd = DIGIT.test(w[w.length - 1]);
  if (!digitStart && !digitEnd) return t.includes(w);
  for (let at = t.indexOf(w); at >= 0; at = t.indexOf(w, at + 1)) {
    if (digitStart && at > 0 && DIGIT.test(t[at - 1])) continue;
    if (digitEnd && at + w.length < t.length && DIGIT.test(t[at + w.length])) continue;
    return true;
  }
  return false;
}
