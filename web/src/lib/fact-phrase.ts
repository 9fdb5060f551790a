import { secondPerson } from './second-person';

/**
 * A fact of the graph as the page says it: `subject`, the words around it, `object`. The rule
 * distiller writes its facts with a few fixed predicates (`name`, `lives_in`, `works_at` …) whatever
 * the language said ("我住在杭州" → user lives_in 杭州); those read as sentences in the page's
 * language ("you live in 杭州", "你住在杭州", "your name is Alice"). Any other predicate is a word the
 * model chose: shown as it is (underscores as spaces), after "you" in the verb form that fits.
 */
export interface FactPhrase {
  /** The subject as shown (the person's name, "you", or the graph's entity). */
  subject: string;
  /** What joins the subject to the object ("lives in", "的名字是"). */
  verb: string;
  object: string;
  /** Words after the object ("在 X 工作"): usually empty. */
  after: string;
}

type Lang = 'en' | 'zh';
/** How a known predicate reads: for "you", for anyone else (a name), and in Chinese. */
interface Known {
  you: [verb: string, after?: string];
  other: [verb: string, after?: string];
  zh: [verb: string, after?: string];
  /** "your name is" rather than "you … name": the subject takes the possessive. */
  possessive?: boolean;
}

const KNOWN: Record<string, Known> = {
  name: { you: ['name is'], other: ['name is'], zh: ['的名字是'], possessive: true },
  age: { you: ['are'], other: ['is'], zh: ['的年龄是'] },
  lives_in: { you: ['live in'], other: ['lives in'], zh: ['住在'] },
  no_longer_lives_in: { you: ['no longer live in'], other: ['no longer lives in'], zh: ['不再住在'] },
  from: { you: ['are from'], other: ['is from'], zh: ['来自'] },
  works_as: { you: ['work as'], other: ['works as'], zh: ['的职业是'] },
  no_longer_works_as: { you: ['no longer work as'], other: ['no longer works as'], zh: ['不再从事'] },
  works_at: { you: ['work at'], other: ['works at'], zh: ['在', '工作'] },
  no_longer_works_at: { you: ['no longer work at'], other: ['no longer works at'], zh: ['不再在', '工作'] },
  likes: { you: ['like'], other: ['likes'], zh: ['喜欢'] },
  dislikes: { you: ['dislike'], other: ['dislikes'], zh: ['不喜欢'] },
};

/**
 * `subject` is the graph's subject as shown (already "you" or a name for the owner); `you` says it
 * is the owner shown as "you" (not by a name they gave).
 */
/** Family, partner and friend words a predicate may be made of (`has_sister`, `sister_of`), in Chinese. */
const ROLE_ZH: Record<string, string> = {
  sister: '姐妹', brother: '兄弟', wife: '妻子', husband: '丈夫', spouse: '配偶', partner: '伴侣', mother: '母亲', mom: '妈妈', mum: '妈妈',
  father: '父亲', dad: '爸爸', son: '儿子', daughter: '女儿', child: '孩子', parent: '父母', friend: '朋友', boyfriend: '男朋友',
  girlfriend: '女朋友', cousin: '表亲', aunt: '阿姨', uncle: '叔叔', grandmother: '祖母', grandfather: '祖父', pet: '宠物', colleague: '同事', boss: '上司',
};

/** `has_sister` → "的姐妹是"; `sister_of` → "是 … 的姐妹"; `married_to` → "和 … 结婚了" (Chinese only). */
function roleZh(predicate: string): [verb: string, after?: string] | undefined {
  if (predicate === 'married_to') return ['和', '结婚了'];
  const has = /^has_([a-z]+)$/.exec(predicate);
  if (has && ROLE_ZH[has[1]]) return [`的${ROLE_ZH[has[1]]}是`];
  const of = /^([a-z]+)_of$/.exec(predicate);
  if (of && ROLE_ZH[of[1]]) return ['是', `的${ROLE_ZH[of[1]]}`];
  return undefined;
}

export function factPhrase(lang: Lang, subject: string, predicate: string, object: string, you: boolean): FactPhrase {
  const role = lang === 'zh' ? roleZh(predicate) : undefined;
  if (role) return { subject, verb: role[0], object, after: role[1] ?? '' };
  const known = KNOWN[predicate];
  if (known) {
    if (lang === 'zh') return { subject, verb: known.zh[0], object, after: known.zh[1] ?? '' };
    const [verb, after] = you ? known.you : known.other;
    const who = known.possessive ? (you ? 'your' : `${subject}’s`) : subject;
    return { subject: who, verb, object, after: after ?? '' };
  }
  const words = predicate.replace(/_/g, ' ');
  return { subject, verb: lang === 'en' && you ? secondPerson(words) : words, object, after: '' };
}

/** A predicate as a short edge label of the knowledge graph: the seed's words in Chinese, spaced words in English. */
const EDGE_ZH: Record<string, string> = { name: '名字', age: '年龄', lives_in: '住在', no_longer_lives_in: '不再住在', from: '来自', works_as: '职业', works_at: '工作于', no_longer_works_at: '不再工作于', no_longer_works_as: '不再从事', likes: '喜欢', dislikes: '不喜欢' };
export function predicateLabel(lang: Lang, predicate: string): string {
  if (lang !== 'zh') return predicate.replace(/_/g, ' ');
  if (EDGE_ZH[predicate]) return EDGE_ZH[predicate];
  if (predicate === 'married_to') return '配偶';
  const role = /^has_([a-z]+)$/.exec(predicate)?.[1] ?? /^([a-z]+)_of$/.exec(predicate)?.[1];
  return (role && ROLE_ZH[role]) || predicate.replace(/_/g, ' ');
}

const cjk = (c: string | undefined): boolean => !!c && /[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/u.test(c);

/** A phrase as one line: Chinese runs on without spaces, a Latin word keeps one on each side (你住在杭州, 你 plays chess). */
export function phraseLine(p: FactPhrase): string {
  return [p.subject, p.verb, p.object, p.after].filter(Boolean).reduce((out, part) => (!out ? part : cjk(out.at(-1)) && cjk(part[0]) ? `${out}${part}` : `${out} ${part}`), '');
}
