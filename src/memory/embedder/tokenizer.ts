import fs from 'node:fs';
import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';
import type { Jieba as JiebaT } from '@node-rs/jieba';
import { IdfKeywords } from './idf-keywords.js';
import { withoutTags } from './jieba-dictionary.js';

const require = createRequire(import.meta.url);

/** Chinese (and other CJK ideograph) runs go through jieba; everything else through the word regex. */
const CJK_RUN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const HAS_CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;

/**
 * Stop-word sets, built on the first tokenisation: the stopword package holds the lists of 62
 * languages (~30 ms to load) and a daemon start tokenises nothing.
 */
let stopSets: { en: Set<string>; zh: Set<string> } | undefined;
function stops(): { en: Set<string>; zh: Set<string> } {
  if (!stopSets) {
    // stopword ships no type declarations; its lists are plain string arrays.
    const { eng, zho } = require('stopword') as { eng: string[]; zho: string[] };
    stopSets = { en: new Set<string>(eng), zh: new Set<string>([...zho, '是', '了', '在', '有', '也', '就', '都', '吗', '呢', '吧', '啊', '个', '一个', '我们', '你们', '他们', '这个', '那个', '什么', '怎么']) };
  }
  return stopSets;
}
const MAX_TOKENIZE_CHARS = 1_000_000;

/**
 * jieba's segmenter and its TF-IDF keyword ranking, each loaded on first use (pure-English
 * workloads never pay either; text that is only indexed never loads the IDF table). The segmenter's
 * dictionary file is read into a buffer that lives only while the Rust dictionary is built (≈ 32 MiB
 * held; without the part-of-speech column segmentation never reads, `jieba-dictionary.ts`, ≈ 4 MiB
 * less): `@node-rs/jieba/dict.js` would keep both files (11 MiB) for the life of the process
 * through the module cache. The IDF table is our compact one (≈ 5 MiB, `idf-keywords.ts`) instead
 * of jieba's `TfIdf` (≈ 24 MiB), with the same ranking.
 */
let jiebaSeg: JiebaT | undefined;
let jiebaTfIdf: IdfKeywords | undefined;
let jiebaMod: typeof import('@node-rs/jieba') | undefined;
function jiebaModule(): typeof import('@node-rs/jieba') {
  return (jiebaMod ??= require('@node-rs/jieba') as typeof import('@node-rs/jieba'));
}
function jiebaFile(name: 'dict.txt' | 'idf.txt'): Buffer {
  return fs.readFileSync(require.resolve(`@node-rs/jieba/${name}`));
}
function jieba(): JiebaT {
  return (jiebaSeg ??= jiebaModule().Jieba.withDict(withoutTags(jiebaFile('dict.txt'))));
}
function tfidf(): IdfKeywords {
  return (jiebaTfIdf ??= new IdfKeywords(jiebaFile('idf.txt')));
}

/** Which of jieba's two dictionaries are loaded (for tests and memory reports). */
export function jiebaLoaded(): { segmenter: boolean; keywords: boolean } {
  return { segmenter: jiebaSeg !== undefined, keywords: jiebaTfIdf !== undefined };
}

const stemCache = new Map<string, string>();
function stem(w: string): string {
  let s = stemCache.get(w);
  if (s === undefined) {
    s = stemmer(w);
    if (stemCache.size < 200_000) stemCache.set(w, s);
  }
  return s;
}

function normWord(raw: string): string {
  return raw.toLowerCase().replace(/['’]s$/, '').replace(/['’]/g, '');
}

/** True when the text contains Chinese characters. */
export function hasCjk(text: string): boolean {
  return HAS_CJK.test(text);
}

/** True for an English or Chinese stop-word (already lower-cased). */
export function isStopWord(w: string): boolean {
  return stops().en.has(w) || stops().zh.has(w);
}

/**
 * Splits text into (kind, segment) runs so each script gets its own tokenizer.
 * Capped at 1M characters (the largest document): a pasted log must not stall the event loop.
 */
function runs(text: string, fn: (kind: 'cjk' | 'other', s: string) => void): void {
  const t = text.length > MAX_TOKENIZE_CHARS ? text.slice(0, MAX_TOKENIZE_CHARS) : text;
  if (!HAS_CJK.test(t)) {
    fn('other', t);
    return;
  }
  let last = 0;
  for (const m of t.matchAll(CJK_RUN)) {
    const i = m.index ?? 0;
    if (i > last) fn('other', t.slice(last, i));
    fn('cjk', m[0]);
    last = i + m[0].length;
  }
  if (last < t.length) fn('other', t.slice(last));
}

/**
 * Lexical tokens for BM25/TF-IDF: jieba cut-for-search for Chinese, lower-case + stop-words +
 * Porter stem for English. Deterministic, synchronous.
 */
export function lexicalTokens(text: string): string[] {
  const st = stops();
  const out: string[] = [];
  runs(text, (kind, s) => {
    if (kind === 'cjk') {
      for (const w of jieba().cutForSearch(s, true)) if (!st.zh.has(w)) out.push(w);
    } else {
      for (const m of s.matchAll(WORD)) {
        const w = normWord(m[0]);
        if (w.length === 0 || st.en.has(w)) continue;
        out.push(stem(w));
      }
    }
  });
  return out;
}

/** Surface words (lower-case, not stemmed, no stop-words) for static word-vector lookup. */
export function surfaceWords(text: string): string[] {
  const st = stops();
  const out: string[] = [];
  runs(text, (kind, s) => {
    if (kind === 'cjk') {
      for (const w of jieba().cut(s, true)) if (!st.zh.has(w)) out.push(w);
    } else {
      for (const m of s.matchAll(WORD)) {
        const w = normWord(m[0]);
        if (w.length > 0 && !st.en.has(w)) out.push(w);
      }
    }
  });
  return out;
}

/** Verbs and particles the HMM tends to glue onto a preceding two-character name. */
const GLUED_TAIL = new Set('住在说是和去来给对把被要会也都就还又很的了着过跟与让叫想看买吃'.split(''));

/** The most common Chinese surnames (single characters), to tell a name the HMM found from other new words. */
const SURNAMES = new Set(
  '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝'.split(''),
);

function looksLikeName(w: string): boolean {
  return SURNAMES.has(w[0]) || ('小老阿'.includes(w[0]) && SURNAMES.has(w[1]));
}

/** True when a 2–4 character Chinese word looks like a person's name (a common surname first, or 小/老/阿 + surname). */
export function looksLikeChineseName(w: string): boolean {
  return w.length >= 2 && w.length <= 4 && looksLikeName(w);
}

/**
 * Salient keywords: jieba TF-IDF extraction for Chinese, content words (by frequency, then length,
 * then first occurrence) for English. Returned un-stemmed, for LIKE queries and display.
 */
export function extractKeywords(text: string, k = 8): string[] {
  const zh: string[] = [];
  const en = new Map<string, { n: number; first: number }>();
  let pos = 0;
  runs(text, (kind, s) => {
    if (kind === 'cjk') {
      if (s.length >= 2) zh.push(s);
    } else {
      for (const m of s.matchAll(WORD)) {
        const w = normWord(m[0]);
        pos++;
        if (w.length < 3 || stops().en.has(w) || /^\d+$/.test(w)) continue;
        const e = en.get(w);
        if (e) e.n++;
        else en.set(w, { n: 1, first: pos });
      }
    }
  });
  const out: string[] = [];
  if (zh.length > 0) {
    const j = jieba();
    const joined = zh.join('，');
    // jieba's TF-IDF extractor cuts without the HMM, so names it does not know fall apart
    // (张三 → 张/三) and are lost. Words only the HMM finds — names, new terms — are the best keys
    // for recalling people and things: they come first (up to half of k, at least two), most frequent first.
    const plainCut = j.cut(joined, false);
    const plain = new Set(plainCut);
    // Where each dictionary token starts, and how long it is (to see what the HMM glued on).
    const plainAt = new Map<number, number>();
    let at = 0;
    for (const t of plainCut) {
      plainAt.set(at, t.length);
      at += t.length;
    }
    const found = new Map<string, number>();
    at = 0;
    // Two or three characters: Chinese names; longer HMM-only runs are mostly merges (今天天气).
    for (const tok of j.cut(joined, true)) {
      let w = tok;
      const start = at;
      at += tok.length;
      if (w.length < 2 || w.length > 3 || plain.has(w) || stops().zh.has(w)) continue;
      // The HMM glues a following verb or particle, or the first character of the next dictionary
      // word, onto a two-character name (王五住在 → 王五住): trimmed back to the name. (赵德来了 is
      // ambiguous; "Zhao De has come" is the likelier reading.)
      if (w.length === 3 && (GLUED_TAIL.has(w[2]) || (plainAt.get(start + 2) ?? 0) >= 2)) w = w.slice(0, 2);
      found.set(w, (found.get(w) ?? 0) + 1);
    }
    const ranked = [...found].sort((a, b) => b[1] - a[1]).map(([w]) => w);
    // Names (a common surname first, or 小/老/阿 + surname) lead; other HMM finds (老是, 掉毛…)
    // only fill what the TF-IDF keywords leave.
    const names = ranked.filter(looksLikeName);
    for (const w of names.slice(0, Math.max(2, Math.ceil(k / 2)))) out.push(w);
    for (const kw of tfidf().top(plainCut, k)) if (!out.includes(kw.keyword)) out.push(kw.keyword);
    for (const w of ranked) if (out.length < k && !out.includes(w)) out.push(w);
  }
  const enSorted = [...en.entries()].sort((a, b) => b[1].n - a[1].n || b[0].length - a[0].length || a[1].first - b[1].first);
  for (const [w] of enSorted) {
    if (out.length >= k) break;
    out.push(w);
  }
  return out.slice(0, k);
}
