import type { Triple } from '../../spec/index.js';

/** Predicates the rule distiller produces (T-9). */
export type FactPredicate = 'name' | 'lives_in' | 'from' | 'likes' | 'dislikes' | 'age' | 'works_as' | 'works_at';

export interface ExtractOptions {
  /** Entity name of the speaker (the subject of every fact). Default `user`. */
  speaker?: string;
  refs?: string[];
  /** Confidence of a rule-derived fact (default 0.7). */
  confidence?: number;
}

const OBJECT_TYPE: Partial<Record<FactPredicate, string>> = {
  name: 'name',
  lives_in: 'place',
  from: 'place',
  age: 'age',
  works_as: 'occupation',
  works_at: 'organization',
};

// ---------- Chinese ----------
const ZH_STOP = /[，。！？,.!?；;：:、\n（）()“”"]/;
const ZH_PARTICLE = /(?:了|啦|呢|哦|呀|啊|吧|哈|嘛|的)+$/;
/** Words that end a Chinese capture even without punctuation (我叫张三今年30岁). */
const ZH_CUT = /(今年|现在|目前|我|但是|但|而且|并且|因为|所以|住在|喜欢|是一名|在.{1,10}工作)/;

function zhObject(rest: string, max = 20): string | undefined {
  let s = rest.split(ZH_STOP)[0] ?? '';
  const cut = s.search(ZH_CUT);
  if (cut > 0) s = s.slice(0, cut);
  s = s.replace(ZH_PARTICLE, '').trim();
  if (!s || [...s].length > max) return undefined;
  return s;
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

interface Rule {
  predicate: FactPredicate;
  re: RegExp;
  object: (m: RegExpExecArray) => string[] | undefined;
}

function splitList(s: string | undefined, sep: RegExp): string[] | undefined {
  if (!s) return undefined;
  const parts = s.split(sep).map((p) => p.trim()).filter(Boolean);
  return parts.length ? parts : undefined;
}

const ZH_RULES: Rule[] = [
  { predicate: 'name', re: /(?:我叫|我的名字(?:是|叫)|我名叫|本人叫|我的姓名是)\s*(.+)/, object: (m) => wrap(zhObject(m[1], 12)) },
  { predicate: 'lives_in', re: /我(?:现在|目前|一直)?(?:住在|居住在|家住在?|生活在|定居在)\s*(.+)/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'from', re: /我(?:来自|是从)\s*(.+?)(?:来的)?$/, object: (m) => wrap(zhObject(m[1])) },
  {
    predicate: 'dislikes',
    re: /我(?:很|非常|特别|最|真的)?(?:不喜欢|讨厌|不爱)\s*(.+)/,
    object: (m) => splitList(zhObject(m[1], 30), /[和与跟及]|、/),
  },
  {
    predicate: 'likes',
    re: /我(?:也|还|很|非常|特别|最|超|真的|一直)*(?:喜欢|热爱|喜爱|爱(?!人))\s*(.+)/,
    object: (m) => splitList(zhObject(m[1], 30), /[和与跟及]|、/),
  },
  {
    predicate: 'age',
    re: /我(?:今年|现在|已经|已)*\s*([0-9]{1,3}|[零一二两三四五六七八九十百]{1,5})\s*(?:周)?岁/,
    object: (m) => age(parseSmallNumber(m[1])),
  },
  {
    // 我叫张三，今年25岁: the age clause continues a sentence introducing the speaker.
    predicate: 'age',
    re: /^我(?:叫|是|的名字|名叫)[^。]*?(?:今年|现在)\s*([0-9]{1,3}|[零一二两三四五六七八九十百]{1,5})\s*(?:周)?岁/,
    object: (m) => age(parseSmallNumber(m[1])),
  },
  { predicate: 'works_as', re: /我的(?:工作|职业)是\s*(?:一名|一个|一位)?\s*(.+)/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'works_as', re: /我是(?:一名|一位|名)\s*(.+)/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'works_as', re: /我是做(.+?)(?:工作)?的/, object: (m) => wrap(zhObject(m[1])) },
  { predicate: 'works_at', re: /我(?:现在|目前)?在\s*([^，。！？,.!?\s]{1,20}?)\s*(?:工作|上班|任职)/, object: (m) => wrap(zhObject(m[1])) },
];

// ---------- English ----------
const EN_STOP = /[,.!?;:\n()"]|\s(?:and|but|because|since|though|although|so|which|who|where|when|while|with|for|now|too)\s/i;
const PRONOUNS = new Set(['it', 'that', 'this', 'them', 'you', 'him', 'her', 'those', 'these', 'to', 'a', 'an', 'the', 'here', 'there']);

function enObject(rest: string, maxWords = 6): string | undefined {
  const s = (` ${rest} `.split(EN_STOP)[0] ?? '').trim();
  const words = s.split(/\s+/).filter(Boolean);
  if (!words.length || words.length > maxWords) return undefined;
  if (words.length === 1 && PRONOUNS.has(words[0].toLowerCase())) return undefined;
  return words.join(' ');
}

/** A person's name: consecutive capitalized words, or the first word if written in lower case. */
function enName(rest: string): string | undefined {
  const words = rest.trim().split(/\s+/);
  const first = words[0]?.replace(/[,.!?;:]+$/, '');
  if (!first || !/^[\p{L}][\p{L}'-]*$/u.test(first)) return undefined;
  const out = [first];
  if (/^\p{Lu}/u.test(first) && !/[,.!?;:]$/.test(words[0])) {
    for (const w of words.slice(1, 3)) {
      const clean = w.replace(/[,.!?;:]+$/, '');
      if (!/^\p{Lu}[\p{L}'-]*$/u.test(clean)) break;
      out.push(clean);
      if (clean !== w) break;
    }
  }
  return out.join(' ');
}

function wrap(s: string | undefined): string[] | undefined {
  return s ? [s] : undefined;
}

function age(n: number | undefined): string[] | undefined {
  return n !== undefined && n > 0 && n < 150 ? [String(n)] : undefined;
}

/** "nurse at the hospital" → "nurse": the workplace is a separate fact. */
function jobOnly(rest: string): string {
  return rest.split(/\s(?:at|in|for|on)\s/i)[0] ?? rest;
}

const EN_LIST = /\s*,\s*|\s+and\s+|\s+or\s+/i;

function enList(rest: string): string[] | undefined {
  const s = ` ${rest}`.split(/[.!?;:\n()"]|\s(?:but|because|since|though|although|so|which|who|where|when|while|now|too)\s/i)[0] ?? '';
  const items = s
    .split(EN_LIST)
    .map((x) => x.replace(/^\s*to\s+/i, '').trim())
    .map((x) => enObject(x, 5))
    .filter((x): x is string => x !== undefined);
  return items.length ? items : undefined;
}

const EN_RULES: Rule[] = [
  { predicate: 'name', re: /\b(?:my name is|my name's|i am called|i'm called|call me|everyone calls me)\s+(.+)/i, object: (m) => wrap(enName(m[1])) },
  { predicate: 'lives_in', re: /\bi(?:'m| am)?\s+(?:currently\s+|now\s+)?(?:live|living|reside|residing|based|settled)\s+(?:in|at)\s+(.+)/i, object: (m) => wrap(enObject(m[1])) },
  { predicate: 'lives_in', re: /\bmy home is in\s+(.+)/i, object: (m) => wrap(enObject(m[1])) },
  { predicate: 'from', re: /\bi(?:'m| am| come)\s+(?:originally\s+)?from\s+(.+)/i, object: (m) => wrap(enObject(m[1])) },
  { predicate: 'dislikes', re: /\bi\s+(?:really\s+)?(?:don't|do not)\s+(?:like|enjoy)\s+(.+)/i, object: (m) => enList(m[1]) },
  { predicate: 'dislikes', re: /\bi\s+(?:really\s+)?(?:hate|dislike)\s+(.+)/i, object: (m) => enList(m[1]) },
  { predicate: 'likes', re: /\bi\s+(?:really\s+|also\s+|just\s+|totally\s+|absolutely\s+)*(?:like|love|enjoy|adore)\s+(.+)/i, object: (m) => enList(m[1]) },
  { predicate: 'likes', re: /\bmy favou?rite\s+\w+\s+is\s+(.+)/i, object: (m) => wrap(enObject(m[1])) },
  { predicate: 'age', re: /\bi(?:'m| am)\s+(\d{1,3})\s*(?:years?|yrs?)(?:\s+old)?\b/i, object: (m) => age(Number(m[1])) },
  { predicate: 'age', re: /\bi(?:'m| am)\s+(\d{1,3})\s*(?:[,.!?;]|$)/i, object: (m) => age(Number(m[1])) },
  { predicate: 'age', re: /\bmy age is\s+(\d{1,3})\b/i, object: (m) => age(Number(m[1])) },
  { predicate: 'works_as', re: /\bi\s+work\s+as\s+(?:an?\s+)?(.+)/i, object: (m) => wrap(enObject(jobOnly(m[1]), 4)) },
  { predicate: 'works_as', re: /\bmy\s+(?:job|profession|occupation)\s+is\s+(?:an?\s+)?(.+)/i, object: (m) => wrap(enObject(jobOnly(m[1]), 4)) },
  { predicate: 'works_as', re: /\bi(?:'m| am)\s+an?\s+([\w\s-]{2,40}?)\s+by\s+(?:profession|trade)\b/i, object: (m) => wrap(enObject(m[1], 4)) },
  { predicate: 'works_at', re: /\bi\s+work\s+(?:at|for)\s+(.+)/i, object: (m) => wrap(enObject(m[1], 5)) },
];

/** Splits text into sentences (Chinese and English terminators, line breaks). */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[。！？!?；;\n])|(?<=\.)(?=\s|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 1 && s.length <= 1000);
}

/**
 * Extracts personal facts of the speaker from `text` with regex rules (T-9): name, home,
 * origin, likes/dislikes, age, job and workplace, in Chinese and English. Each triple keeps its
 * source sentence for later review.
 */
export function extractFacts(text: string, opts: ExtractOptions = {}): Triple[] {
  const speaker = opts.speaker ?? 'user';
  const out: Triple[] = [];
  const seen = new Set<string>();
  for (const sentence of splitSentences(text.slice(0, 20_000))) {
    const rules = /\p{Script=Han}/u.test(sentence) ? [...ZH_RULES, ...EN_RULES] : EN_RULES;
    const claimed: FactPredicate[] = [];
    for (const rule of rules) {
      // "I don't like X" must not also yield "likes X"; one age/name per sentence.
      if (rule.predicate === 'likes' && claimed.includes('dislikes')) continue;
      if ((rule.predicate === 'age' || rule.predicate === 'name') && claimed.includes(rule.predicate)) continue;
      const m = rule.re.exec(sentence);
      if (!m) continue;
      const objects = rule.object(m);
      if (!objects) continue;
      claimed.push(rule.predicate);
      for (const object of objects) {
        if (object.toLowerCase() === speaker.toLowerCase()) continue;
        const key = `${rule.predicate}\u0000${object.toLowerCase()}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const t: Triple = {
          subject: speaker,
          predicate: rule.predicate,
          object,
          confidence: opts.confidence ?? 0.7,
          subjectType: 'person',
          sentence,
        };
        const ot = OBJECT_TYPE[rule.predicate];
        if (ot) t.objectType = ot;
        if (opts.refs?.length) t.refs = opts.refs;
        out.push(t);
      }
    }
  }
  return out;
}
