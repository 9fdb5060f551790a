/** A text index with the HybridIndex shape (add/remove/search), so either can back the knowledge base. */
export interface TextIndex {
  add(id: string, text: string): void;
  remove(id: string): void;
  search(query: string, k: number): Promise<{ id: string; score: number }[]>;
}

const STOP = new Set('a an the and or of to in on at by for with is are was be it this that what how do does i you'.split(' '));

/**
 * Tokens: lower-cased words for alphabetic scripts; for CJK, character bigrams — and, in an indexed
 * text (not a query), each character too, so a one-character query (茶) finds 龙井茶. A query of
 * two or more characters is matched by its pairs only: single characters (的, 我, 是) are in almost
 * every Chinese text and would bring unrelated entries into the prompt.
 */
export function tokenize(text: string, opts: { query?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{N}_]+/gu)) {
    const w = m[0];
    if (/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(w)) {
      const chars = [...w];
      for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
      if (!opts.query || chars.length === 1) out.push(...chars);
    } else if (!STOP.has(w)) out.push(w);
  }
  return out;
}

/** Okapi BM25 over {@link tokenize} tokens (k1 1.2, b 0.75), in memory. */
export class Bm25Index implements TextIndex {
  private docs = new Map<string, Map<string, number>>();
  private lengths = new Map<string, number>();
  private df = new Map<string, number>();
  private totalLength = 0;

  add(id: string, text: string): void {
    this.remove(id);
    const tf = new Map<string, number>();
    const toks = tokenize(text);
    for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
    this.docs.set(id, tf);
    this.lengths.set(id, toks.length);
    this.totalLength += toks.length;
    for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  remove(id: string): void {
    const tf = this.docs.get(id);
    if (!tf) return;
    for (const t of tf.keys()) {
      const n = (this.df.get(t) ?? 1) - 1;
      if (n > 0) this.df.set(t, n);
      else this.df.delete(t);
    }
    this.totalLength -= this.lengths.get(id) ?? 0;
    this.docs.delete(id);
    this.lengths.delete(id);
  }

  get size(): number {
    return this.docs.size;
  }

  async search(query: string, k: number): Promise<{ id: string; score: number }[]> {
    const terms = [...new Set(tokenize(query.slice(0, 10_000), { query: true }))];
    const N = this.docs.size;
    if (!N || !terms.length) return [];
    const avg = this.totalLength / N || 1;
    const scores: { id: string; score: number }[] = [];
    for (const [id, tf] of this.docs) {
      let s = 0;
      const len = this.lengths.get(id) ?? 0;
      for (const t of terms) {
        const f = tf.get(t);
        if (!f) continue;
        const df = this.df.get(t) ?? 0;
        const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
        s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * len) / avg));
      }
      if (s > 0) scores.push({ id, score: s });
    }
    return scores.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, k);
  }
}
