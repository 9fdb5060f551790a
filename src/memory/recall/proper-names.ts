/**
 * Capitalised words that do not start a sentence, space-separated: likely names of people, places,
 * things ("What did Anna see in Lisbon?" → "Anna Lisbon"). The ranker's `entityBoost` weights them;
 * word-neighbour expansion (decision 0300) does not expand them — a name's vector neighbours are
 * other things of the same kind.
 */
export function properNames(q: string): string {
  const out: string[] = [];
  for (const m of q.matchAll(/(^|[.!?]\s+|\s)([A-Z][\p{L}'’-]*)/gu)) {
    if (m.index === 0 || /[.!?]\s+$/.test(m[1])) continue;
    out.push(m[2]);
  }
  return out.join(' ');
}
