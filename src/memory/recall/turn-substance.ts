/**
 * A prior for turns that tell something (decision 0170). A question about a person's activities or
 * events across sessions often shares no content word with the turns that answer it; those turns
 * then match the query only through the person's name (every turn carries its speaker's name), and
 * BM25's length normalisation ranks the person's short phatic turns ("Thanks!", "好的") above the
 * statements of substance for that one word. In a dialogue a turn's length is mostly content, not
 * verbosity: with `RankOptions.substanceWeight` > 0, each candidate's score is multiplied by
 * `substanceFactor` of its token count. Query-independent, the same in every tier (the count is
 * BM25's own document length), and off by default unless its held-out gain says otherwise.
 */

/**
 * The multiplier of a turn of `len` tokens when turns average `avgLen` tokens: `1 + weight ·
 * min(1, len / avgLen)` — a turn of average length or longer gets the whole bonus, an empty one none.
 * 1 when the weight is 0 or the statistics are missing.
 */
export function substanceFactor(len: number, avgLen: number, weight: number): number {
  if (!(weight > 0) || !(avgLen > 0) || !(len > 0)) return 1;
  return 1 + weight * Math.min(1, len / avgLen);
}

/**
 * Multiplies every score in `scores` (in place) by its document's substance factor. `lengthOf`
 * gives a document's token count (undefined: unknown, left as it is).
 */
export function applySubstance(scores: Map<string, number>, lengthOf: (id: string) => number | undefined, avgLen: number, weight: number): void {
  if (!(weight > 0)) return;
  for (const [id, s] of scores) {
    const len = lengthOf(id);
    if (len === undefined) continue;
    const m = substanceFactor(len, avgLen, weight);
    if (m !== 1) scores.set(id, s * m);
  }
}
