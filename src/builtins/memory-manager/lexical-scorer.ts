import { createRequire } from 'node:module';
import type { Jieba } from '@node-rs/jieba';

const requireLazy = createRequire(import.meta.url);
let jieba: Jieba | undefined;

/** Runs of scripts written without spaces (Chinese, Japanese kana): jieba's job. */
const JIEBA_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
/** Words of space-separated scripts and numbers (3.14 stays one token, as jieba keeps it). */
const LATIN_TOKEN = /\p{N}+(?:\.\p{N}+)+|[\p{L}\p{M}\p{N}]+/gu;

function spacedTokens(text: string, out: string[]): void {
  for (const m of text.matchAll(LATIN_TOKEN)) out.push(m[0].toLowerCase());
}

/**
 * jieba with its dictionary, loaded on the first Chinese or Japanese text: the dictionary is ~11 MB read
 * into memory and ~0.2 s to build, which a library without Chinese never needs.
 */
function cutter(): Jieba {
  if (!jieba) {
    const { Jieba: J } = requireLazy('@node-rs/jieba') as typeof import('@node-rs/jieba');
    const { dict } = requireLazy('@node-rs/jieba/dict.js') as { dict: Uint8Array };
    jieba = J.withDict(dict);
  }
  return jieba;
}

/**
 * Tokens for search: Words of space-separated scripts and numbers lower-cased by a regex; runs of other
 * scripts through jieba cut-for-search; punctuation and whitespace dropped. Every text goes
 * through the same split, so a query and a memory meet on the same tokens. The lexical half of
 * library search; the dense half comes from sdk.memory().embed (memory-library.ts).
 */
export function tokenize(text: string): string[] {
  if (!text) return [];
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(JIEBA_RUN)) {
    const i = m.index ?? 0;
    if (i > last) spacedTokens(text.slice(last, i), out);
    for (const t of cutter().cutForSearch(m[0], true)) {
      const s = t.trim().toLowerCase();
      if (s && /[\p{L}\p{N}]/u.test(s)) out.push(s);
    }
    last = i + m[0].length;
  }
  if (last < text.length) spacedTokens(text.slice(last), out);
  return out;
}

/** One document of the scorer: fields with their weights. */
export interface ScoredFields {
  impressions: string;
  title: string;
  body: string;
}

/** Field weights: impressions are the retrieval keys (M-2), then the title, then the body. */
export const FIELD_WEIGHTS: Record<keyof ScoredFields, number> = { impressions: 3, title: 2, body: 1 };

interface DocStats {
  /** Term frequency per field, in FIELDS order. */
  tf: Map<string, number[]>;
  len: number[];
}

const FIELDS = Object.keys(FIELD_WEIGHTS) as (keyof ScoredFields)[];

/**
 * A small BM25F-style scorer (k1 = 1.2, b = 0.75): BM25 per field (impressions, title, body),
 * summed with the field weights, so a hit in the impressions outranks one in a short title.
 */
export class LexicalScorer {
  private docs = new Map<string, DocStats>();
  private df = new Map<string, number>();
  private totalLen = FIELDS.map(() => 0);

  /** Adds or replaces a document. */
  set(id: string, fields: ScoredFields): void {
    this.delete(id);
    const tf = new Map<string, number[]>();
    const len = FIELDS.map(() => 0);
    FIELDS.forEach((key, fi) => {
      for (const tok of tokenize(fields[key])) {
        let row = tf.get(tok);
        if (!row) tf.set(tok, (row = FIELDS.map(() => 0)));
        row[fi]++;
        len[fi]++;
      }
    });
    for (const tok of tf.keys()) this.df.set(tok, (this.df.get(tok) ?? 0) + 1);
    this.docs.set(id, { tf, len });
    len.forEach((l, i) => (this.totalLen[i] += l));
  }

  delete(id: string): void {
    const d = this.docs.get(id);
    if (!d) return;
    for (const tok of d.tf.keys()) {
      const n = (this.df.get(tok) ?? 1) - 1;
      if (n <= 0) this.df.delete(tok);
      else this.df.set(tok, n);
    }
    d.len.forEach((l, i) => (this.totalLen[i] -= l));
    this.docs.delete(id);
  }

  clear(): void {
    this.docs.clear();
    this.df.clear();
    this.totalLen = FIELDS.map(() => 0);
  }

  /** Scores every document that shares a token with `query`, best first. */
  search(query: string, limit = 20): { id: string; score: number }[] {
    const q = [...new Set(tokenize(query))];
    if (q.length === 0 || this.docs.size === 0) return [];
    const n = this.docs.size;
    const avg = this.totalLen.map((t) => t / n || 1);
    const k1 = 1.2;
    const b = 0.75;
    const out: { id: string; score: number }[] = [];
    for (const [id, d] of this.docs) {
      let score = 0;
      for (const tok of q) {
        const row = d.tf.get(tok);
        if (!row) continue;
        const df = this.df.get(tok) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        FIELDS.forEach((key, fi) => {
          const tf = row[fi];
          if (tf) score += FIELD_WEIGHTS[key] * idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.len[fi]) / avg[fi])));
        });
      }
      if (score > 0) out.push({ id, score });
    }
    out.sort((a, b2) => b2.score - a.score || a.id.localeCompare(b2.id));
    return out.slice(0, limit);
  }
}
