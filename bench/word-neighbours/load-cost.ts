/**
 * What reading the shipped word-neighbour table costs (decision 0300), in a fresh process:
 *   node --expose-gc --import tsx bench/word-neighbours/load-cost.ts [file]
 * Prints the file size, the read time (gunzip + decode) and the RSS and heap it adds, and the
 * neighbours of a few everyday words (from GloVe; no benchmark data).
 */
import fs from 'node:fs';
import { WordNeighbourFile, DEFAULT_WORD_NEIGHBOURS_FILE } from '../../src/memory/recall/word-neighbours.js';

const file = process.argv[2] ?? DEFAULT_WORD_NEIGHBOURS_FILE;
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
const m0 = process.memoryUsage();
const reader = new WordNeighbourFile(file);
const t0 = performance.now();
const table = reader.table();
const ms = performance.now() - t0;
gc?.();
const m1 = process.memoryUsage();
if (!table) {
  console.error(reader.error?.message);
  process.exit(1);
}
const mib = (x: number) => (x / 2 ** 20).toFixed(1);
console.log(`${file}: ${(fs.statSync(file).size / 2 ** 20).toFixed(2)} MiB on disk, ${table.size} words; read in ${ms.toFixed(0)} ms; RSS +${mib(m1.rss - m0.rss)} MiB, heap +${mib(m1.heapUsed - m0.heapUsed)} MiB, external +${mib(m1.external + m1.arrayBuffers - m0.external - m0.arrayBuffers)} MiB${gc ? '' : ' (run with --expose-gc for steadier figures)'}.`);
const t1 = performance.now();
let n = 0;
for (let r = 0; r < 1000; r++) for (const w of ['hobby', 'dog', 'painting', 'travel', 'kids']) n += table.of(w).length;
console.log(`lookup: ${(((performance.now() - t1) * 1000) / 5000).toFixed(2)} µs per word (${n / 1000} neighbours per 5 words)`);
for (const w of ['hobby', 'pets', 'painting', 'guitar', 'job', 'happy']) console.log(`${w}: ${table.of(w).map((x) => `${x.word} ${x.cosine.toFixed(2)}`).join(', ')}`);
