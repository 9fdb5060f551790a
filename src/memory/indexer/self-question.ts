/**
 * What a message asks about the asker themselves ("where do I live?", 我现在住在哪里？, "what's my
 * name?", "my sister"): the predicates of the asker's own facts it is about. The Indexer finds facts
 * by the entities a message names; a question about oneself names none ("I" is no entity), so these
 * words say which of the asker's facts to bring. A small explicit map, English and Chinese, of
 * question forms — a statement ("I live in Paris", 我住在上海) asks nothing.
 */
export interface SelfQuestion {
  /** Predicates of the asker's facts (`lives_in`, `name` …). */
  predicates: string[];
  /** Family and partner words ("sister", "wife"): a fact whose predicate has one of them as a word (`has_sister`, `sister_of`, `married_to`). */
  roles: string[];
  /** "What do you know about me?", 你知道我什么: every fact of the asker that holds now. */
  all?: true;
}

/**
 * Questions about everything the agent knows of the asker — the commonest first question to a
 * memory, which names no predicate and no role.
 */
const ABOUT_ME =
  /\bwhat\s+(?:else\s+)?(?:do|did)\s+you\s+(?:know|remember|recall)\s+(?:about|of)\s+me\b|\bwhat\s+have\s+you\s+(?:learned|learnt|remembered|found\s+out)\s+about\s+me\b|\bwhat\s+do\s+you\s+have\s+(?:on|about)\s+me\b|\btell\s+me\s+(?:what\s+you\s+know\s+)?about\s+(?:me|myself)\b|\bhow\s+(?:much|well)\s+do\s+you\s+know\s+(?:about\s+)?me\b|\bdo\s+you\s+(?:know|remember)\s+(?:anything|something|much)\s+about\s+me\b|你(?:都|还)?(?:知道|记得|了解)(?:关于)?我(?:的)?(?:什么|哪些|多少|些什么|啥)|关于我(?:的事)?[，,]?\s*你(?:都|还)?(?:知道|记得|了解)|你对我(?:有)?(?:多少|什么|哪些)?了解|你对我了解(?:多少|什么|哪些)|^\s*说说(?:你(?:知道|记得)的)?(?:关于)?(?:我|我的事|我自己)\s*[?？。!！]?\s*$/i;

const ASKS: readonly { re: RegExp; predicates: readonly string[] }[] = [
  {
    // A home that ended (no_longer_lives_in) is the answer too when no home followed it.
    predicates: ['lives_in', 'no_longer_lives_in'],
    re: /\bwhere\s+(?:do|did)\s+i\s+(?:currently\s+|now\s+)?(?:live|stay|reside)\b|\bwhere\s+(?:am\s+i|i'm)\s+(?:now\s+)?(?:living|based|staying)\b|\bwhere(?:'s|\s+is)\s+my\s+(?:home|house|flat|apartment)\b|\bwhat(?:'s|\s+is)\s+my\s+(?:home\s+)?address\b|我(?:现在|目前|如今)?(?:住在?|居住在|生活在|家住在?|家在)(?:哪|什么地方|什么城市)|我(?:现在|目前)?在哪(?:里|儿|个城市)?(?:住|生活)/i,
  },
  {
    predicates: ['name'],
    re: /\bwhat(?:'s|\s+is)\s+my\s+(?:full\s+|first\s+|last\s+)?name\b|\b(?:do|did)\s+you\s+(?:know|remember)\s+my\s+name\b|^\s*who\s+am\s+i\s*[?？]?\s*$|我叫什么|我(?:的)?名字(?:是|叫)?(?:什么|啥)|你(?:知道|记得)我(?:的)?名字|^\s*我是谁\s*[?？]?\s*$/i,
  },
  {
    predicates: ['works_at', 'works_as', 'no_longer_works_at', 'no_longer_works_as'],
    re: /\bwhere\s+(?:do|did)\s+i\s+(?:currently\s+|now\s+)?work\b|\bwho\s+do\s+i\s+work\s+for\b|\bwhat\s+do\s+i\s+do\s+for\s+(?:a\s+)?(?:living|work)\b|\bmy\s+(?:job|occupation|profession|employer)\b|我(?:现在|目前)?在哪(?:里|儿|个公司|家公司)?(?:工作|上班)|我(?:现在|目前)?(?:是)?(?:做|干)什么(?:工作|职业|的)|我的(?:工作|职业|单位)/i,
  },
  {
    predicates: ['age'],
    re: /\bhow\s+old\s+am\s+i\b|\bwhat(?:'s|\s+is)\s+my\s+age\b|我(?:今年|现在)?(?:多大了?|几岁|多少岁)|我的年龄/i,
  },
  {
    predicates: ['from'],
    re: /\bwhere\s+(?:am\s+i|do\s+i\s+come)\s+from\b|\bwhat(?:'s|\s+is)\s+my\s+home\s*town\b|我是哪(?:里|儿)?人|我来自哪|我(?:的)?(?:老家|家乡)(?:在)?(?:是)?哪/i,
  },
];

/** Family and partner words → the words a predicate about that relation holds. */
const ROLES: Readonly<Record<string, readonly string[]>> = {
  sister: ['sister'],
  brother: ['brother'],
  wife: ['wife', 'spouse', 'married'],
  husband: ['husband', 'spouse', 'married'],
  partner: ['partner', 'spouse', 'married'],
  spouse: ['spouse', 'wife', 'husband', 'married'],
  mother: ['mother', 'mom', 'mum'],
  father: ['father', 'dad'],
  son: ['son', 'child'],
  daughter: ['daughter', 'child'],
  children: ['child', 'children', 'kid', 'kids', 'son', 'daughter'],
  parents: ['parent', 'parents', 'mother', 'father'],
  boyfriend: ['boyfriend', 'partner'],
  girlfriend: ['girlfriend', 'partner'],
};

const EN_ROLE: Readonly<Record<string, string>> = {
  sister: 'sister', brother: 'brother', wife: 'wife', husband: 'husband', partner: 'partner', spouse: 'spouse',
  mother: 'mother', mom: 'mother', mum: 'mother', father: 'father', dad: 'father', son: 'son', daughter: 'daughter',
  kids: 'children', children: 'children', parents: 'parents', boyfriend: 'boyfriend', girlfriend: 'girlfriend',
};

const ZH_ROLE: Readonly<Record<string, string>> = {
  姐姐: 'sister', 妹妹: 'sister', 哥哥: 'brother', 弟弟: 'brother', 老婆: 'wife', 妻子: 'wife', 太太: 'wife',
  老公: 'husband', 丈夫: 'husband', 妈妈: 'mother', 母亲: 'mother', 爸爸: 'father', 父亲: 'father',
  儿子: 'son', 女儿: 'daughter', 孩子: 'children', 父母: 'parents', 男朋友: 'boyfriend', 女朋友: 'girlfriend',
};

const EN_ROLE_RE = new RegExp(`\\bmy\\s+(${Object.keys(EN_ROLE).join('|')})\\b`, 'gi');
const ZH_ROLE_RE = new RegExp(`我的?(${Object.keys(ZH_ROLE).join('|')})`, 'g');

/** The asker's facts `text` asks about, or undefined when it asks about none. */
export function selfQuestion(text: string): SelfQuestion | undefined {
  const predicates = new Set<string>();
  for (const a of ASKS) if (a.re.test(text)) for (const p of a.predicates) predicates.add(p);
  const roles = new Set<string>();
  for (const m of text.matchAll(EN_ROLE_RE)) for (const w of ROLES[EN_ROLE[m[1].toLowerCase()]]) roles.add(w);
  for (const m of text.matchAll(ZH_ROLE_RE)) for (const w of ROLES[ZH_ROLE[m[1]]]) roles.add(w);
  if (ABOUT_ME.test(text)) return { predicates: [...predicates], roles: [...roles], all: true };
  return predicates.size || roles.size ? { predicates: [...predicates], roles: [...roles] } : undefined;
}

/** True when `predicate` is about one of `roles` (`has_sister`, `sister_of`, `married_to` …). */
export function predicateHasRole(predicate: string, roles: readonly string[]): boolean {
  const words = predicate.toLowerCase().split(/[_\s-]+/);
  return roles.some((r) => words.includes(r));
}
