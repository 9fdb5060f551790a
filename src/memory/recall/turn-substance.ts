/**
 * Substance for set questions (decision 0170). A question about what a person has done across
 * sessions ("What books has she read?", 她去过哪些地方) often shares no content word with the turns
 * that answer it; those turns then match the query only through the person's name (every turn
 * carries its speaker's name), and BM25's length normalisation ranks the person's short phatic turns
 * ("Thanks!", "好的") above the statements that tell something. In a dialogue a turn's length is mostly
 * content, not verbosity: with `RankOptions.setSubstanceEvidence` > 0, a question that `asksForSet`
 * adds a little evidence per token count up to the average (`addSubstance`). The same in every tier
 * (the count is BM25's own document length). Off by default: its held-out gain on LoCoMo is inside
 * noise (it raises multi-hop by ≈ 1 point).
 */

/** Words ending in -s after "what"/"which" that are no plural noun (verbs, pronouns, adverbs). */
const NOT_PLURAL = new Set(['does', 'has', 'was', 'is', 'this', 'his', 'hers', 'its', 'yes', 'always', 'perhaps', 'sometimes', 'whereas', 'plus', 'news', 'thus', 'less', 'unless', 'towards', 'afterwards', 'besides', 'ours', 'yours', 'theirs', 'means', 'goes', 'says', 'gets', 'makes', 'takes', 'likes', 'wants', 'needs', 'loves', 'thinks', 'knows', 'feels', 'seems', 'keeps', 'lives', 'works', 'plays', 'uses', 'happens']);
/** Chinese ways of asking which things (several): 哪些, 哪几, 几种, 几个, 多少, 都…什么. */
const SET_ZH = /哪些|哪几|几种|几个|几样|多少|都[^，。？！?]{0,6}什么/u;
/** Longest query head read (characters): a pasted text is not a question. */
const MAX_CHARS = 300;

/**
 * True when a question asks for a set of things rather than one fact — "What books has she read?",
 * "Which cities did they visit?", "How many times…", "她养过哪些宠物", "你们都做了什么" — without a
 * lexicon of categories: after "what"/"which", within three words, a word that looks plural (-s, -es,
 * -ies; not -ss/-us/-is, no apostrophe, not a verb or pronoun of a short list); or "how many".
 */
export function asksForSet(query: string): boolean {
  const q = query.length > MAX_CHARS ? query.slice(0, MAX_CHARS) : query;
  if (SET_ZH.test(q)) return true;
  const words = [...q.toLowerCase().matchAll(/[a-z]+(?:['’][a-z]+)?/g)].map((m) => m[0]);
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === 'how' && words[i + 1] === 'many') return true;
    if (w !== 'what' && w !== 'which') continue;
    for (const x of words.slice(i + 1, i + 4)) if (looksPlural(x)) return true;
  }
  return false;
}

/** A word that looks like a plural noun: -s, -es, -ies; not -ss/-us/-is, no apostrophe, not a verb or pronoun of a short list. */
export function looksPlural(w: string): boolean {
  if (w.length < 4 || /['’]/.test(w) || NOT_PLURAL.has(w)) return false;
  return w.endsWith('s') && !/(?:ss|us|is)$/.test(w);
}

/**
 * Adds `weight · min(1, len / avgLen)` to every score in `scores` (in place): substance as a small
 * additive piece of evidence, which reorders weak (name-only) matches and barely moves strong ones.
 */
export function addSubstance(scores: Map<string, number>, lengthOf: (id: string) => number | undefined, avgLen: number, weight: number): void {
  if (!(weight > 0) || !(avgLen > 0)) return;
  for (const [id, s] of scores) {
    const len = lengthOf(id);
    if (len !== undefined && len > 0) scores.set(id, s + weight * Math.min(1, len / avgLen));
  }
}
