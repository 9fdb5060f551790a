import type { Triple } from '../../spec/index.js';
import { looksLikeChineseName } from '../embedder/index.js';
import type { FactPredicate, FactRule, RuleContext } from './fact-rule.js';
import { EN_RULES } from './rules-en.js';
import { ZH_RULES, zhClauses } from './rules-zh.js';

export type { FactPredicate } from './fact-rule.js';
export { parseSmallNumber } from './fact-rule.js';

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
  no_longer_lives_in: 'place',
  from: 'place',
  age: 'age',
  works_as: 'occupation',
  works_at: 'organization',
  no_longer_works_at: 'organization',
  no_longer_works_as: 'occupation',
};

/** Predicates a clause states at most once (the first rule that matches wins). */
const SINGLE = new Set<FactPredicate>(['age', 'name', 'works_as']);

const CTX: RuleContext = { looksLikeName: looksLikeChineseName };

/** A sentence that asks rather than states (我住在哪里？ / where do I live?). */
const QUESTION_END = /[?？]["'”’)）]*\s*$|(?:吗|呢|么|来着|没有)[。.!！~～]*$/;
const EN_QUESTION_START = /^(?:(?:so|and|but|hey|ok|okay|well|also|then)[,\s]+)*(?:do|does|did|am|is|are|was|were|can|could|would|will|should|shall|have|has|where|what|what's|who|whom|whose|how|why|when|which)\b/i;
/** Markers of what is not (yet) so: conditions, wishes, plans, imagined states. */
const ZH_UNREAL = /如果|假如|要是|假设|倘若|若是|万一|想象|希望|打算|计划|梦想|准备|等我|将来|以后|想要|要不要|是不是/;
const EN_UNREAL = /\b(?:if|suppose|supposing|imagine|wish|would|could|might|maybe|perhaps|someday|planning|plan to|thinking (?:about|of)|going to|gonna|want to|hope to|will)\b|'d\b|'ll\b/i;
/** A stay, not a home: 这几天我住在酒店里, I'm living in Leeds for a few weeks (read in the fact's own clause). */
const ZH_TEMPORARY = /这几天|这两天|这些天|这段时间|这阵子|这周|这星期|这个星期|今晚|暂时|临时|出差|旅游|旅行|度假/;
const EN_TEMPORARY = /\b(?:for now|temporarily|for (?:a|the|two|three|a few|a couple of) (?:days?|nights?|weeks?)|this week|tonight|on (?:a )?(?:business )?trip|on holiday|on vacation|while travell?ing)\b/i;
/**
 * Reported speech: someone else's words or belief (My colleague told me: I live in Tokyo, She thinks I
 * live in Paris, 他说：我住在东京, 我妈以为我住在北京). Only a third party saying or believing it shortly
 * before the clause counts; the speaker's own words and discourse markers (as I said, to tell the
 * truth, let me tell you, I told my boss …, 说实话, 不瞒你说, 我跟你说，…, 我告诉你，…) never do.
 */
const EN_SAYS = String.raw`(?:also\s+|always\s+|once\s+|just\s+|apparently\s+|probably\s+|still\s+|even\s+|keeps?\s+)?(?:said|says|say|saying|told\s+(?:me|us|everyone|people)|tells?\s+(?:me|us|everyone|people)|think|thinks|thought|believe|believes|believed|claim|claims|claimed|wrote|writes|texted|asked|asks|mentioned|replied|answered|insists|insisted|assumes|assumed|swears|swore|quoted|(?:is|was|seems|seemed)\s+(?:convinced|sure|to think))\b`;
const EN_THIRD_PRONOUN = new RegExp(String.raw`(?<!\b(?:as|like)\s+)\b(?:you|he|she|they|someone|somebody|everyone|everybody|people|(?:my|his|her|their|our|the)\s+(?!own\b)[a-z]+(?:\s+[a-z]+)?)\s+${EN_SAYS}`, 'i');
/** A capitalised name as the one who says it (Anna told me: …), not a sentence opener (As I said, …). */
const EN_THIRD_NAME = new RegExp(String.raw`(?<![\p{L}'])(?!(?:As|Like|To|Let|Needless|Honestly|Frankly|Truly|Seriously|So|Well|And|But|Yes|Yeah|Oh|Ok|Okay|Hey|Hi|Hello|Now|Then|Also|Just|Trust|Believe|Mind|Again|Anyway|Actually|Basically|Sure|Obviously)\b)\p{Lu}[\p{Ll}'-]+(?:\s+\p{Lu}[\p{Ll}'-]+)?\s+${EN_SAYS}`, 'u');
const ZH_SAYS = '(?:都|也|还|总|总是|一直|竟然|居然|却|就|曾|又|坚持|非)?(?:说|讲|告诉我|跟我说|对我说|和我说|跟我讲|觉得|以为|认为|相信|写道|提到|表示|问我)(?:过|了|道)?';
const ZH_THIRD = new RegExp(`(?:他们?|她们?|别人|有人|人家|大家|对方|(?:我的?)?(?:朋友|同事|老板|领导|上司|妈妈?|爸爸?|父亲|母亲|老婆|老公|哥哥?|姐姐?|弟弟?|妹妹?|家人|室友|邻居|同学|男朋友|女朋友|男友|女友|孩子|儿子|女儿|医生|老师)们?)${ZH_SAYS}`);
/**
 * The one spoken to, reporting what they said or think (你说我住在北京, 你以为我…): not the speaker's word.
 * Never 我跟你说 / 不瞒你说 / 告诉你 (the speaker's markers) or 你说得对 (agreeing).
 */
const ZH_YOU = /(?<![跟和对给同向瞒])你(?:说|讲|以为|觉得|认为)(?:过|了)?(?![得的对])/;
/** 李明说：… (a name before the verb), never 不瞒你说 / 我跟你说. */
const ZH_THIRD_NAME = new RegExp(`([\\u4e00-\\u9fff]{2,3})${ZH_SAYS}$`);
/** What may stand between the speech verb and the clause: punctuation, an opening quote, that/那. */
/** …and not past a turn that starts the speaker's own clause (You said I live in Paris, but I live in Rome). */
const EN_AFTER_SAYS = /^(?![^.!?;]*\b(?:but|although|though|however|whereas|yet|actually)\b)[^.!?;]{0,30}$/i;
const ZH_AFTER_SAYS = /^[^。！？；;]{0,4}$/;
/** A quotation attributed after it: "I live in Tokyo," she said / “我住在东京，”他说. */
const CLOSE_QUOTE = /["”」』]/;
/** Markers of what no longer is (except where one is from). */
const ZH_PAST = /以前|曾经|过去|之前|原来|小时候|那时/;
const EN_PAST = /\bused to\b|\bformerly\b|\bback then\b|\bwhen i was\b/i;

/** Splits text into sentences (Chinese and English terminators, line breaks). */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[。！？!?；;\n])|(?<=\.)(?=\s|$)/)
    .map((s) => s.trim())
    .filter((s) => s.length > 1 && s.length <= 1000);
}

/** True when a sentence is a question. */
export function isQuestion(sentence: string): boolean {
  return QUESTION_END.test(sentence) || EN_QUESTION_START.test(sentence.trim());
}

/**
 * Extracts personal facts of the speaker from `text` with regex rules (T-9): name, home,
 * origin, likes/dislikes, age, job and workplace, in Chinese and English. Only statements count:
 * questions (我住在哪里？), conditions and wishes (如果我住在上海, I wish I worked at Google),
 * negations (我不住在北京, My name is not important) and what used to be (I used to live in Madrid)
 * yield nothing, and neither do other people's facts (我妈妈住在成都), other people's words (My
 * colleague told me: I live in Tokyo, She thinks I live in Paris), states of mind (I live in fear of …) or stays (这几天我住在
 * 酒店里). A change of taste (我不再喜欢X, I no longer like X) is a dislike; a home that ended (我不再住在X,
 * I don't live in X anymore, I moved out of X) is `no_longer_lives_in`, which ends that home, and a
 * job that ended (I no longer work at X, 我已经不在X工作了) is `no_longer_works_at`, and work one no longer
 * does (I'm not a nurse anymore, 我已经不当护士了) is `no_longer_works_as` (see supersede.ts). Each triple keeps its source sentence.
 */
export function extractFacts(text: string, opts: ExtractOptions = {}): Triple[] {
  const speaker = opts.speaker ?? 'user';
  const out: Triple[] = [];
  const seen = new Set<string>();
  for (const sentence of splitSentences(text.slice(0, 20_000))) {
    if (isQuestion(sentence)) continue;
    const zh = /\p{Script=Han}/u.test(sentence);
    const units = zh ? zhClauses(sentence).map((c) => ({ text: c, rules: [...ZH_RULES, ...EN_RULES] })) : [{ text: sentence, rules: EN_RULES }];
    let before = '';
    for (const [i, unit] of units.entries()) {
      const claimed: FactPredicate[] = [];
      for (const rule of unit.rules) {
        // "I don't like X" must not also yield "likes X"; one age/name/job per clause.
        if (rule.predicate === 'likes' && claimed.includes('dislikes')) continue;
        if (SINGLE.has(rule.predicate) && claimed.includes(rule.predicate)) continue;
        const m = statedMatch(rule, unit.text, before, units.slice(i + 1).map((u) => u.text), units[i - 1]?.text ?? '');
        if (!m) continue;
        const objects = rule.object(m, CTX);
        if (!objects) continue;
        claimed.push(rule.predicate);
        for (const object of objects) {
          if (object.toLowerCase() === speaker.toLowerCase()) continue;
          const key = `${rule.predicate}\u0000${object.toLowerCase()}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const t: Triple = { subject: speaker, predicate: rule.predicate, object, confidence: opts.confidence ?? 0.7, subjectType: 'person', sentence };
          const ot = OBJECT_TYPE[rule.predicate];
          if (ot) t.objectType = ot;
          if (opts.refs?.length) t.refs = opts.refs;
          out.push(t);
        }
      }
      before += `${unit.text}，`;
    }
  }
  return out;
}

const GLOBAL = new WeakMap<RegExp, RegExp>();
/** A rule's pattern that can be run from any position (its own flags and `g`). */
function globalOf(re: RegExp): RegExp {
  let g = GLOBAL.get(re);
  if (!g) GLOBAL.set(re, (g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`)));
  return g;
}

/**
 * The first match of `rule` in `text` that the speaker states as so: not a condition or a wish, not
 * what used to be, not someone else's words, not a stay. A match that fails is passed over for a
 * later one in the same clause ("You said I live in Paris, but I live in Rome" → Rome).
 * `before` is the sentence's text before `text`, `rest` the clauses after it, `prev` the one before.
 */
function statedMatch(rule: FactRule, text: string, before: string, rest: string[], prev: string): RegExpExecArray | undefined {
  const g = globalOf(rule.re);
  g.lastIndex = 0;
  for (let m = g.exec(text); m; m = g.exec(text)) {
    const start = m.index + m[0].length - (m[1]?.length ?? 0);
    const ok =
      stated(rule, before + text.slice(0, start)) &&
      !reported(before + text.slice(0, m.index), [text.slice(m.index), ...rest].join('，')) &&
      !(rule.predicate === 'lives_in' && !rule.move && temporary(factClause(text, start, prev)));
    if (ok) return m;
    g.lastIndex = m.index + 1;
  }
  return undefined;
}

function temporary(clause: string): boolean {
  return ZH_TEMPORARY.test(clause) || EN_TEMPORARY.test(clause);
}

/**
 * True when the clause is someone else's words or belief: a third party saying or believing it just
 * before the clause (`lead`), or a quotation ending in "…," she said (`after`).
 */
function reported(lead: string, after: string): boolean {
  if (saysJustBefore(lead)) return true;
  const close = after.search(CLOSE_QUOTE);
  if (close < 0) return false;
  const attribution = after.slice(close + 1).replace(/^[\s,，.。:：]+/, '');
  return EN_THIRD_PRONOUN.exec(attribution)?.index === 0 || EN_THIRD_NAME.exec(attribution)?.index === 0 || ZH_THIRD.exec(attribution)?.index === 0;
}

/** A third party's speech or belief verb that ends shortly before the end of `lead`. */
function saysJustBefore(lead: string): boolean {
  for (const [re, near] of [
    [EN_THIRD_PRONOUN, EN_AFTER_SAYS],
    [EN_THIRD_NAME, EN_AFTER_SAYS],
    [ZH_THIRD, ZH_AFTER_SAYS],
    [ZH_YOU, ZH_AFTER_SAYS],
  ] as const) {
    const g = new RegExp(re.source, `${re.flags}g`);
    for (let m = g.exec(lead); m; m = g.exec(lead)) if (near.test(lead.slice(m.index + m[0].length))) return true;
  }
  const name = ZH_THIRD_NAME.exec(lead.replace(/[：:，,“"「『\s]+$/, ''));
  return !!name && !/[我你]/.test(name[1]) && CTX.looksLikeName(name[1]);
}

/** Where a clause ends: punctuation, or a conjunction that starts another (I live in Paris, tonight …). */
const CLAUSE_END = /[,，;；:：。.!?！？]|\s(?:but|and|while|whereas|although|though|because|so)\s|\s[-–—]\s/i;
/** A word that makes a clause its own (a subject): such a clause before the fact is not read with it. */
const HAS_SUBJECT = /\b(?:i|i'm|we|he|she|they|you|it|my|our)\b|[我他她你它]/i;

/**
 * The clause a fact was found in, from the clause boundary before `start` (where its object begins)
 * to the one after it; an opener without a subject before it belongs to it (For now, I live in …;
 * 这几天，我住在…). `prev` is the previous Chinese clause.
 */
function factClause(text: string, start: number, prev: string): string {
  const head = text.slice(0, start);
  let from = 0;
  for (let m: RegExpExecArray | null, re = new RegExp(CLAUSE_END.source, 'gi'); (m = re.exec(head)); ) from = m.index + m[0].length;
  const rest = text.slice(start);
  const end = rest.search(CLAUSE_END);
  let clause = text.slice(from, end < 0 ? text.length : start + end);
  if (from > 0) {
    const opener = head.slice(0, from).split(new RegExp(CLAUSE_END.source, 'i')).filter((x) => x.trim()).pop() ?? '';
    if (!HAS_SUBJECT.test(opener)) clause = `${opener} ${clause}`;
  } else if (prev && !HAS_SUBJECT.test(prev)) clause = `${prev} ${clause}`;
  return clause;
}

/** A turn to the speaker's own clause: what came before it (a condition, what used to be) is not read with it. */
const CONTRAST = /\b(?:but|although|though|however|whereas|yet)\b|但是|可是|不过/gi;

/** True when the words before a fact (in its sentence, after its last turn) leave it a plain statement. */
function stated(rule: FactRule, whole: string): boolean {
  let head = whole;
  for (const m of whole.matchAll(CONTRAST)) head = whole.slice(m.index + m[0].length);
  if (ZH_UNREAL.test(head) || EN_UNREAL.test(head)) return false;
  return rule.predicate === 'from' || !(ZH_PAST.test(head) || EN_PAST.test(head));
}
