import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { ValidationError } from '../../spec/errors/index.js';
import { surfaceWords } from './tokenizer.js';

/** Rows are packed into shared blocks so 200k words are not 200k separate buffers. */
const BLOCK_ROWS = 4096;

/**
 * Static pretrained word vectors loaded from text files (T-1): fastText `.vec` (header line
 * `count dim`), word2vec text (with or without header), GloVe text, ConceptNet Numberbatch
 * (`/c/en/word` keys: the language prefix is dropped, `_` joins multi-word terms).
 *
 * A sentence vector is the SIF-weighted mean of its words' vectors, L2-normalised. Files are
 * usually sorted by frequency, so a word's rank stands in for its unigram probability
 * (Zipf: p ≈ 1 / (rank · ln N)).
 */
export class StaticVectors {
  readonly dim: number;
  readonly name: string;
  private readonly words: Map<string, { v: Float32Array; w: number }>;

  private constructor(name: string, dim: number, words: Map<string, { v: Float32Array; w: number }>) {
    this.name = name;
    this.dim = dim;
    this.words = words;
  }

  /** Number of words loaded. */
  get size(): number {
    return this.words.size;
  }

  /**
   * Loads one or more files into one vocabulary. Every file must have the same dimension; a file
   * of another dimension is rejected with a ValidationError (dimensions are never mixed).
   */
  static async load(paths: string[], opts: { maxWords?: number; onWarn?: (m: string) => void } = {}): Promise<StaticVectors> {
    const maxWords = opts.maxWords ?? 200_000;
    const rows = new Map<string, { v: Float32Array; rank: number }>();
    let dim = 0;
    let rank = 0;
    for (const path of paths) {
      let fileDim = 0;
      let lineNo = 0;
      let taken = 0;
      let block = new Float32Array(0);
      let blockUsed = BLOCK_ROWS;
      const input = path.endsWith('.gz') ? createReadStream(path).pipe(createGunzip()) : createReadStream(path);
      const rl = createInterface({ input, crlfDelay: Infinity });
      try {
        for await (const line of rl) {
          lineNo++;
          if (line.length === 0) continue;
          const parts = line.trimEnd().split(' ');
          if (lineNo === 1 && parts.length === 2 && /^\d+$/.test(parts[0]) && /^\d+$/.test(parts[1])) {
            fileDim = Number(parts[1]);
            continue;
          }
          if (parts.length < 3) continue;
          const d = parts.length - 1;
          if (fileDim === 0) fileDim = d;
          if (d !== fileDim) continue; // malformed row (e.g. a word containing a space)
          if (dim === 0) dim = fileDim;
          if (fileDim !== dim) {
            throw new ValidationError(`static vectors: ${basename(path)} has dimension ${fileDim}, expected ${dim} (dimensions are never mixed)`, { path, dim: fileDim, expected: dim });
          }
          const key = normaliseKey(parts[0]);
          if (key === undefined || rows.has(key)) continue;
          if (blockUsed === BLOCK_ROWS) {
            block = new Float32Array(BLOCK_ROWS * dim);
            blockUsed = 0;
          }
          const v = block.subarray(blockUsed * dim, (blockUsed + 1) * dim);
          blockUsed++;
          for (let i = 0; i < dim; i++) v[i] = Number(parts[i + 1]);
          rows.set(key, { v, rank: rank++ });
          if (++taken >= maxWords) break;
        }
      } finally {
        rl.close();
        input.destroy();
      }
      if (taken === 0) opts.onWarn?.(`static vectors: no vectors read from ${basename(path)}`);
    }
    if (rows.size === 0 || dim === 0) throw new ValidationError('static vectors: the files hold no word vectors', { paths });
    const lnN = Math.log(Math.max(rows.size, 2));
    const a = 1e-3;
    const words = new Map<string, { v: Float32Array; w: number }>();
    for (const [k, r] of rows) {
      const p = 1 / ((r.rank + 10) * lnN);
      words.set(k, { v: r.v, w: a / (a + p) });
    }
    return new StaticVectors(paths.map((p) => basename(p)).join('+'), dim, words);
  }

  /** True when the word has a vector. */
  has(word: string): boolean {
    return this.words.has(word);
  }

  /** SIF-weighted, normalised sentence vector; null when no word of the text is known. */
  embed(text: string): Float32Array | null {
    const out = new Float32Array(this.dim);
    let n = 0;
    const ws = surfaceWords(text);
    for (let i = 0; i < ws.length; i++) {
      let e = this.words.get(ws[i]);
      // Numberbatch/fastText know some two-word terms: prefer the phrase when present.
      if (i + 1 < ws.length) {
        const ph = this.words.get(`${ws[i]}_${ws[i + 1]}`);
        if (ph) e = ph;
      }
      if (!e) continue;
      for (let j = 0; j < this.dim; j++) out[j] += e.v[j] * e.w;
      n++;
    }
    if (n === 0) return null;
    let norm = 0;
    for (let j = 0; j < this.dim; j++) norm += out[j] * out[j];
    norm = Math.sqrt(norm);
    if (norm === 0) return null;
    for (let j = 0; j < this.dim; j++) out[j] /= norm;
    return out;
  }
}

/** `/c/en/ice_cream/n` → `ice_cream`; plain words are lower-cased. */
function normaliseKey(raw: string): string | undefined {
  let k = raw;
  if (k.startsWith('/c/')) {
    const seg = k.split('/');
    k = seg[3] ?? '';
  }
  k = k.toLowerCase();
  return k.length === 0 ? undefined : k;
}
