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
  from: 'place',
  age: 'age',
  works_as: 'occupation',
  works_at: 'organization',
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
/** A stay, not a home: 这几天我住在酒店里, I'm living in Leeds for a few weeks. */
const ZH_TEMPORARY = /这几天|这两天|这些天|这段时间|这阵子|这周|这星期|这个星期|今晚|暂时|临时|出差|旅游|旅行|度假/;
const EN_TEMPORARY = /\b(?:for now|temporarily|for (?:a|the|two|three|a few|a couple of) (?:days?|nights?|weeks?)|this week|tonight|on (?:a )?(?:business )?trip|on holiday|on vacation|while travell?ing)\b/i;
/**
 * Reported or quoted speech: the words are someone else's (My colleague told me: "I live in Tokyo",
 * 他说：我住在东京). The speaker's own report ("I told my boss I live in Berlin", 我跟你说，…) stays.
 */
const EN_REPORTED = /\b(?:told|tells|tell|said|says|say|asked|asks|wrote|writes|texted|replied|answered|claimed|claims|mentioned|quoted)\b|["“”«「『]/i;
const EN_OWN_REPORT = /^\s*(?:(?:and|so|well|yes|oh|ok|okay)[,\s]+)?i\s+(?:\w+\s+)?(?:told|tell|said|say|wrote|mentioned)\b[^"“”«「『:]*$/i;
const ZH_REPORTED = /说|告诉|讲|问|写道|提到|表示|[“"「『]/;
const ZH_OWN_REPORT = /^我(?:跟|对|和|给)?[^，。：:“"「『]{0,6}(?:说|讲)[，,]?$/;
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
 * colleague told me: I live in Tokyo), states of mind (I live in fear of …) or stays (这几天我住在
 * 酒店里). A change of taste (我不再喜欢X, I no longer like X) is a dislike. Each triple keeps its
 * source sentence.
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
    for (const unit of units) {
      const claimed: FactPredicate[] = [];
      for (const rule of unit.rules) {
        // "I don't like X" must not also yield "likes X"; one age/name/job per clause.
        if (rule.predicate === 'likes' && claimed.includes('dislikes')) continue;
        if (SINGLE.has(rule.predicate) && claimed.includes(rule.predicate)) continue;
        const m = rule.re.exec(unit.text);
        if (!m) continue;
        if (!stated(rule, before + unit.text.slice(0, m.index + m[0].length - (m[1]?.length ?? 0)))) continue;
        if (reported(before + unit.text.slice(0, m.index))) continue;
        if (rule.predicate === 'lives_in' && (ZH_TEMPORARY.test(sentence) || EN_TEMPORARY.test(sentence))) continue;
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

/** True when the words before the speaker's clause make it someone else's words. */
function reported(lead: string): boolean {
  const l = lead.trim();
  if (!l) return false;
  if (/\p{Script=Han}/u.test(l)) return ZH_REPORTED.test(l) && !ZH_OWN_REPORT.test(l);
  return EN_REPORTED.test(l) && !EN_OWN_REPORT.test(l);
}

/** True when the words before a fact (in its sentence) leave it a plain statement. */
function stated(rule: FactRule, head: string): boolean {
  if (ZH_UNREAL.test(head) || EN_UNREAL.test(head)) return false;
  return rule.predicate === 'from' || !(ZH_PAST.test(head) || EN_PAST.test(head));
}
