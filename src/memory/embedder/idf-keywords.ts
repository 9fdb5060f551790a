import fs from 'node:fs';

/**
 * jieba's TF-IDF keyword ranking over a compact IDF table. `@node-rs/jieba`'s `TfIdf` holds its
 * 270,000-word dictionary as a Rust hash map of owned strings (≈ 24 MiB resident for a 6 MiB file);
 * this keeps the file's bytes as they are plus an open-addressing table of line offsets (2 MiB),
 * ≈ 8 MiB, and ranks exactly as jieba-rs does (`keywords/tfidf.rs`): words of the segmentation
 * without the HMM, at least two characters, not an English stop-word, term frequency × IDF
 * (unknown words: the median IDF) / total, the top `k` by weight, ties by word.
 */
export class IdfKeywords {
  private readonly buf: Buffer;
  /** Open addressing: line start + 1 per slot (0 = empty). */
  private readonly slots: Uint32Array;
  private readonly mask: number;
  /** IDF of a word the table does not hold (jieba-rs: the median of the table). */
  readonly medianIdf: number;

  constructor(file: Buffer) {
    this.buf = file;
    let lines = 0;
    for (let i = file.indexOf(10); i >= 0; i = file.indexOf(10, i + 1)) lines++;
    let size = 1;
    while (size < (lines + 1) * 2) size <<= 1;
    this.slots = new Uint32Array(size);
    this.mask = size - 1;
    const idfs = new Float64Array(lines + 1);
    let count = 0;
    // One byte per character: offsets in this string are byte offsets, and numbers are parsed from
    // cheap slices of it (a call into the buffer per line costs ~4× more). Dropped after the build.
    const text = file.toString('latin1');
    for (let start = 0; start < text.length; ) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      let ws = start;
      while (ws < end && isSpace(text.charCodeAt(ws))) ws++;
      let w = ws;
      while (w < end && !isSpace(text.charCodeAt(w))) w++;
      let v = w;
      while (v < end && isSpace(text.charCodeAt(v))) v++;
      let ve = v;
      while (ve < end && !isSpace(text.charCodeAt(ve))) ve++;
      // Like jieba-rs: a line whose second field does not parse as a number is skipped.
      const idf = ve > v ? Number(text.slice(v, ve)) : NaN;
      if (w > ws && Number.isFinite(idf)) {
        this.insert(ws, w);
        idfs[count++] = idf;
      }
      start = end + 1;
    }
    const sorted = idfs.subarray(0, count).sort();
    // jieba-rs pops half of a max-heap of every value, then takes the next: the ⌊n/2⌋-th largest.
    this.medianIdf = count ? sorted[count - 1 - Math.floor(count / 2)] : 0;
  }

  /** Puts a word's line in the table; a later line for the same word replaces the earlier (a map insert). */
  private insert(start: number, end: number): void {
    const len = end - start;
    for (let s = hash(this.buf, start, end) & this.mask; ; s = (s + 1) & this.mask) {
      const at = this.slots[s];
      if (at !== 0) {
        const o = at - 1;
        if (wordEnd(this.buf, o, this.buf.length) - o !== len || this.buf.compare(this.buf, start, end, o, o + len) !== 0) continue;
      }
      this.slots[s] = start + 1;
      return;
    }
  }

  /** Reads jieba's IDF file. */
  static fromFile(file: string): IdfKeywords {
    return new IdfKeywords(fs.readFileSync(file));
  }

  /** The IDF of a word, or undefined when the table does not hold it. */
  idf(word: string): number | undefined {
    const key = Buffer.from(word, 'utf8');
    for (let s = hash(key, 0, key.length) & this.mask; ; s = (s + 1) & this.mask) {
      const at = this.slots[s];
      if (at === 0) return undefined;
      const start = at - 1;
      const end = wordEnd(this.buf, start, this.buf.length);
      if (end - start === key.length && this.buf.compare(key, 0, key.length, start, end) === 0) {
        const v = skipSpace(this.buf, end, this.buf.length);
        return Number(this.buf.toString('latin1', v, valueEnd(this.buf, v, this.buf.length)));
      }
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

/** End of the whitespace-delimited field that starts at `start`. */
function wordEnd(buf: Buffer, start: number, end: number): number {
  let i = start;
  while (i < end && buf[i] !== 10 && !isSpace(buf[i])) i++;
  return i;
}

function skipSpace(buf: Buffer, i: number, end: number): number {
  while (i < end && isSpace(buf[i])) i++;
  return i;
}

function valueEnd(buf: Buffer, i: number, end: number): number {
  while (i < end && buf[i] !== 10 && !isSpace(buf[i])) i++;
  return i;
}

/** FNV-1a over bytes. */
function hash(buf: Buffer, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return h >>> 0;
}
