/** Predicates the rule distiller produces (T-9). */
export type FactPredicate = 'name' | 'lives_in' | 'no_longer_lives_in' | 'from' | 'likes' | 'dislikes' | 'age' | 'works_as' | 'works_at' | 'no_longer_works_at' | 'no_longer_works_as';

/** What a rule's object function may consult besides the match. */
export interface RuleContext {
  /** True when a Chinese word looks like a person's name (a common surname first). */
  looksLikeName(word: string): boolean;
}

/** One regex rule: a match yields the objects of a fact about the speaker (none: not a fact). */
export interface FactRule {
  predicate: FactPredicate;
  re: RegExp;
  object: (m: RegExpExecArray, ctx: RuleContext) => string[] | undefined;
  /** A move (I moved to X, 我搬到X): a new home, never a stay, whatever else the sentence says. */
  move?: true;
}

export function wrap(s: string | undefined): string[] | undefined {
  return s ? [s] : undefined;
}

export function splitList(s: string | undefined, sep: RegExp): string[] | undefined {
  if (!s) return undefined;
  const parts = s.split(sep).map((p) => p.trim()).filter(Boolean);
  return parts.length ? parts : undefined;
}

const CN_DIGITS: Record<string, number> = { 零: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

/** Parses 0…199 written in digits or Chinese numerals (二十五, 十八, 一百零二). */
export function parseSmallNumber(s: string): number | undefined {
  if (/^\d+$/.test(s)) return Number(s);
  let total = 0;
  let cur = 0;
  let seen = false;
  for (const ch of s) {
    if (ch in CN_DIGITS) {
      cur = CN_DIGITS[ch];
      seen = true;
    } else if (ch === '十') {
      total += (seen ? cur : 1) * 10;
      cur = 0;
      seen = false;
    } else if (ch === '百') {
      total += (seen ? cur : 1) * 100;
      cur = 0;
      seen = false;
    } else return undefined;
  }
  return total + cur;
}

/** An age in years (1…149) from digits or Chinese numerals. */
export function age(raw: string): string[] | undefined {
  const n = parseSmallNumber(raw);
  return n !== undefined && n > 0 && n < 150 ? [String(n)] : undefined;
}
