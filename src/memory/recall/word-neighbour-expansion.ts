import { hasCjk, surfaceWords } from '../embedder/index.js';
import { properNames } from './proper-names.js';
import type { WordNeighbours } from './word-neighbours.js';

/**
 * Word-vector neighbours as query expansion (decision 0300). A turn that says what a question asks
 * in other words ("kickboxing" for "martial arts", "dog" for "pets") shares no term with it, and a
 * lexical ranking reaches it only through the speaker's name. For an English query, each content
 * word's nearest words in a GloVe space (a precomputed table, `word-neighbours.ts`) become extra
 * query terms at `weight × cosine`, scored like 0130's category members. Which words are looked up
 * and why is fixed by the decision: not stop-words, not the names of the people the query names, not
 * words written as proper names, not date or calendar words. Chinese queries are unchanged (there
 * is no Chinese table).
 */

/** Longest query head read (characters): a pasted text is not a question. */
const MAX_CHARS = 300;

/** Calendar names and units: dates are the date evidence's job, and their neighbours are other dates. */
const CALENDAR = new Set(
  [
    'january february march april may june july august september october november december',
    'jan feb mar apr jun jul aug sep sept oct nov dec',
    'monday tuesday wednesday thursday friday saturday sunday',
    'day days week weeks weekend weekends month months year years decade decades today tomorrow yesterday tonight ago',
  ]
    .join(' ')
    .split(' '),
);

/** What a query's words are checked against besides the tokenizer's stop-words. */
export interface ExpansionExclusions {
  /** Lower-case words of the names of known participants the query names. */
  names?: ReadonlySet<string>;
  /** Text of the date expressions the query's time parser read as scopes (`ParsedTime.words`). */
  dateWords?: string;
}

/**
 * The query words whose neighbours are looked up, in order, each once: lower-case surface words of
 * the first 300 characters (the tokenizer's splitting: a trailing 's and apostrophes removed), not
 * stop-words, letters a–z only, and none of the excluded kinds. [] for a query with Chinese in it.
 */
export function expansionWords(query: string, ex: ExpansionExclusions = {}): string[] {
  const q = query.length > MAX_CHARS ? query.slice(0, MAX_CHARS) : query;
  if (hasCjk(q)) return [];
  const skip = new Set<string>([...surfaceWords(properNames(q)), ...(ex.dateWords ? surfaceWords(ex.dateWords) : [])]);
  const out = new Set<string>();
  for (const w of surfaceWords(q)) {
    if (!/^[a-z]+$/.test(w) || CALENDAR.has(w) || skip.has(w) || ex.names?.has(w)) continue;
    out.add(w);
  }
  return [...out];
}

/**
 * The extra query terms for `words`: each neighbour in `table`, tokenised with the product's
 * tokenizer (one stemmed token), that is not a query term already, at `weight × cosine`; a term
 * reached from several words keeps its largest weight. Empty when `weight` ≤ 0.
 */
export function neighbourTerms(words: readonly string[], table: WordNeighbours, tokenize: (text: string) => string[], queryTerms: ReadonlyMap<string, number>, weight: number): Map<string, number> {
  const out = new Map<string, number>();
  if (!(weight > 0)) return out;
  for (const w of words) {
    for (const nb of table.of(w)) {
      const toks = tokenize(nb.word);
      if (toks.length !== 1 || queryTerms.has(toks[0])) continue;
      const x = weight * nb.cosine;
      if (x > (out.get(toks[0]) ?? 0)) out.set(toks[0], x);
    }
  }
  return out;
}
