import { Jieba, TfIdf } from '@node-rs/jieba';
import { dict, idf } from '@node-rs/jieba/dict.js';

let jieba: Jieba | undefined;
let tfidf: TfIdf | undefined;

const EN_STOP = new Set(
  'a an the and or but if then of to in on at by for with from as is are was were be been am do does did have has had i you he she it we they me my your his her its our their this that these those what where when who whom which why how not no yes so too very can could will would should may might must just about into over under again there here'.split(' '),
);

/**
 * Keywords for graph recall when no embedder is wired: jieba TF-IDF extraction (Chinese) plus
 * English content words. The jieba dictionaries load on first use.
 */
export function jiebaKeywords(text: string, k = 8): string[] {
  if (!jieba) {
    jieba = Jieba.withDict(dict);
    tfidf = TfIdf.withDict(idf);
  }
  const out: string[] = [];
  for (const { keyword } of (tfidf as TfIdf).extractKeywords(jieba, text.slice(0, 5000), k * 2)) {
    const w = keyword.trim();
    if (!w || EN_STOP.has(w.toLowerCase()) || (/^[a-z0-9]+$/i.test(w) && w.length < 2)) continue;
    if (!out.some((x) => x.toLowerCase() === w.toLowerCase())) out.push(w);
    if (out.length >= k) break;
  }
  return out;
}
