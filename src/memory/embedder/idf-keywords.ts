import fs from 'node:fs';

/**
 * jieba's TF-IDF keyword ranking over a compact IDF table. `@node-rs/jieba`'s `TfIdf` holds its
 * 270,000-word dictionary as a Rust hash map of owned strings (≈ 24 MiB resident for a 6 MiB file).
 * This table keeps neither the words nor the file: each word is a 64-bit fingerprint (two
 * independent 32-bit hashes of its UTF-8 bytes) in an open-addressing table, and its IDF an index
 * into the file's distinct values (3,328 in jieba's file), ≈ 5 MiB for jieba's file (decision 0150;
 * the previous table kept the file's 6 MiB plus 4 MiB of offsets, and its build a 6 MiB string).
 * Two different words of the file sharing a fingerprint would be merged: the build counts such
 * collisions (`collisions`; 0 for jieba's file, checked by a test over every line), and a word
 * outside the file matches a fingerprint with probability ≈ 270,000 / 2^64 per lookup.
 * Ranking is exactly jieba-rs's (`keywords/tfidf.rs`): words of the segmentation without the HMM,
 * at least two characters, not an English stop-word, term frequency × IDF (unknown words: the
 * median IDF) / total, the top `k` by weight, ties by word.
 */
export class IdfKeywords {
  /** First and second hash of the word per slot. */
  private readonly h1: Uint32Array;
  private readonly h2: Uint32Array;
  /** Index into `values` + 1 per slot (0 = empty). */
  private readonly slot: Uint16Array | Uint32Array;
  private readonly values: Float64Array;
  private readonly mask: number;
  /** IDF of a word the table does not hold (jieba-rs: the median of the table). */
  readonly medianIdf: number;
  /** Number of words held. */
  readonly size: number;
  /** Lines whose word's fingerprint another, different word of the file already had (merged). */
  readonly collisions: number;

  constructor(file: Buffer) {
    let lines = 1;
    for (let i = file.indexOf(10); i >= 0; i = file.indexOf(10, i + 1)) lines++;
    // Parsed per line first (fingerprints, value indices, where the word starts): a word's slot
    // type depends on how many distinct values there are.
    const a1 = new Uint32Array(lines);
    const a2 = new Uint32Array(lines);
    const av = new Uint32Array(lines);
    const at = new Uint32Array(lines);
    const distinct = new Map<string, number>();
    const vals: number[] = [];
    /** How many lines carry each distinct value (for the median). */
    const counts: number[] = [];
    let n = 0;
    const len = file.length;
    for (let start = 0; start < len; ) {
      let end = file.indexOf(10, start);
      if (end < 0) end = len;
      let ws = start;
      while (ws < end && isSpace(file[ws])) ws++;
      let w = ws;
      while (w < end && !isSpace(file[w])) w++;
      let v = w;
      while (v < end && isSpace(file[v])) v++;
      let ve = v;
      while (ve < end && !isSpace(file[ve])) ve++;
      // Like jieba-rs: a line whose second field does not parse as a number is skipped.
      const text = ve > v ? file.toString('latin1', v, ve) : '';
      const idf = text ? Number(text) : NaN;
      if (w > ws && Number.isFinite(idf)) {
        let k = distinct.get(text);
        if (k === undefined) {
          k = vals.length;
          distinct.set(text, k);
          vals.push(idf);
          counts.push(0);
        }
        counts[k]++;
        a1[n] = hash1(file, ws, w);
        a2[n] = hash2(file, ws, w);
        av[n] = k;
        at[n] = ws;
        n++;
      }
      start = end + 1;
    }
    let size = 1;
    while (size < n * 1.5) size <<= 1;
    this.mask = size - 1;
    this.h1 = new Uint32Array(size);
    this.h2 = new Uint32Array(size);
    this.slot = vals.length < 0xffff ? new Uint16Array(size) : new Uint32Array(size);
    this.values = Float64Array.from(vals);
    // Where the word of each slot starts in the file: only while building, to tell a repeated word from a collision.
    const slotAt = new Uint32Array(size);
    let held = 0;
    let collisions = 0;
    for (let i = 0; i < n; i++) {
      for (let s = a1[i] & this.mask; ; s = (s + 1) & this.mask) {
        if (this.slot[s] === 0) {
          this.h1[s] = a1[i];
          this.h2[s] = a2[i];
          slotAt[s] = at[i];
          held++;
        } else if (this.h1[s] !== a1[i] || this.h2[s] !== a2[i]) continue;
        // The same fingerprint again: a later line for the same word replaces the earlier (a map
        // insert), unless it is a different word (a collision; counted).
        else if (!sameWord(file, at[i], slotAt[s])) collisions++;
        this.slot[s] = av[i] + 1;
        break;
      }
    }
    this.size = held;
    this.collisions = collisions;
    // jieba-rs pops half of a max-heap of every value, then takes the next: the ⌊n/2⌋-th largest
    // (counting repeats), found by walking the distinct values from the largest.
    const order = vals.map((_, i) => i).sort((x, y) => vals[y] - vals[x]);
    let median = 0;
    for (let i = 0, seen = 0; i < order.length; i++) {
      seen += counts[order[i]];
      if (seen > Math.floor(n / 2)) {
        median = vals[order[i]];
        break;
      }
    }
    this.medianIdf = median;
  }

  /** Reads jieba's IDF file. */
  static fromFile(file: string): IdfKeywords {
    return new IdfKeywords(fs.readFileSync(file));
  }

  /** The IDF of a word, or undefined when the table does not hold it. */
  idf(word: string): number | undefined {
    const key = Buffer.from(word, 'utf8');
    const x1 = hash1(key, 0, key.length);
    const x2 = hash2(key, 0, key.length);
    for (let s = x1 & this.mask; ; s = (s + 1) & this.mask) {
      const v = this.slot[s];
      if (v === 0) return undefined;
      if (this.h1[s] === x1 && this.h2[s] === x2) return this.values[v - 1];
    }
  }

  /** The `k` best keywords of `words` (a segmentation without the HMM), best first. */
  top(words: readonly string[], k: number): { keyword: string; weight: number }[] {
    const tf = new Map<string, number>();
    for (const w of words) {
      // Unicode scalar values, as jieba-rs counts (`chars()`), not UTF-16 units.
      if (countChars(w) < 2 || STOP_WORDS.has(w.toLowerCase())) continue;
      tf.set(w, (tf.get(w) ?? 0) + 1);
    }
    let total = 0;
    for (const n of tf.values()) total += n;
    const scored = [...tf].map(([w, n]) => ({ keyword: w, weight: (n * (this.idf(w) ?? this.medianIdf)) / total }));
    // Ties by word in byte order (Rust's str order): UTF-16 order agrees for the BMP text jieba sees here.
    scored.sort((a, b) => b.weight - a.weight || (a.keyword < b.keyword ? -1 : a.keyword > b.keyword ? 1 : 0));
    return scored.slice(0, Math.max(0, k));
  }
}

/** jieba-rs's default keyword stop-words (English only: Chinese is filtered by length and weight). */
const STOP_WORDS = new Set(['the', 'of', 'is', 'and', 'to', 'in', 'that', 'we', 'for', 'an', 'are', 'by', 'be', 'as', 'on', 'with', 'can', 'if', 'from', 'which', 'you', 'it', 'this', 'then', 'at', 'have', 'all', 'not', 'one', 'has', 'or']);

function countChars(w: string): number {
  let n = 0;
  for (const _ of w) n++;
  return n;
}

const isSpace = (b: number) => b === 32 || b === 9 || b === 13 || b === 11 || b === 12;

/** True when the whitespace-delimited fields starting at `a` and `b` of `buf` are the same bytes. */
function sameWord(buf: Buffer, a: number, b: number): boolean {
  for (;;) {
    const x = a < buf.length && buf[a] !== 10 && !isSpace(buf[a]) ? buf[a] : -1;
    const y = b < buf.length && buf[b] !== 10 && !isSpace(buf[b]) ? buf[b] : -1;
    if (x !== y) return false;
    if (x === -1) return true;
    a++;
    b++;
  }
}

/** FNV-1a over bytes. */
function hash1(buf: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h >>> 0;
}

/** A second, independent 32-bit hash (murmur-style mixing), so a word is a 64-bit fingerprint. */
function hash2(buf: Uint8Array, start: number, end: number): number {
  let h = 0x9747b28c ^ (end - start);
  for (let i = start; i < end; i++) {
    h = Math.imul(h ^ buf[i], 0x5bd1e995);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
