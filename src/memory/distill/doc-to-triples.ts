import type { ChatMessage, PluginLogger, Triple } from '../../spec/index.js';
import { TripleSchema, firstPersonAs } from '../graph/index.js';
import { extractFacts } from './rule-distiller.js';

/** The part of the SDK's LlmAPI the memory subsystem uses. */
export interface LlmLike {
  available(): boolean;
  chat(request: { messages: ChatMessage[]; temperature?: number; maxTokens?: number; tools?: { name: string; description: string; parameters: Record<string, unknown> }[] }): Promise<{
    text: string;
    toolCalls?: { id: string; name: string; arguments: string }[];
  }>;
}

/** A document as the archive loop sees it. */
export interface DistillableDoc {
  id: string;
  text: string;
  refs?: string[];
  /** Who said it: the subject of rule-derived facts (default: the options' speaker, `user`). */
  speaker?: string;
  /** Who said it as an id (`Speaker.id`; `user` for the owner): recorded with every fact's sources (issue 15). */
  speakerId?: string;
  /** Kind of the context event it came from; the rules skip `agent` (the assistant's "I" is not the user). */
  eventKind?: string;
  /** When it was said (epoch ms): its facts hold from then, not from when the distiller ran. */
  at?: number;
}

export const DOC_TRIPLES_PROMPT = `You extract durable facts from a memory document for a personal knowledge graph.
Answer with JSON only: {"triples":[{"subject":"...","predicate":"...","object":"...","subjectType":"person|place|organization|thing|event|...","objectType":"...","confidence":0.0-1.0,"sentence":"the source sentence"}]}.
Use short canonical entity names, snake_case English predicates (lives_in, likes, works_at, knows, ...; no_longer_lives_in / no_longer_works_at / no_longer_works_as for a home, a workplace or a kind of work that ended). The user is "user". Return {"triples":[]} when there is nothing durable.`;

/**
 * Finds the JSON value in an LLM answer: plain JSON, a fenced block, or the outermost
 * `{…}` / `[…]` inside prose. Returns undefined when nothing parses.
 */
export function extractJson(text: string): unknown {
  const candidates: string[] = [text.trim()];
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fence) candidates.push(fence[1].trim());
  for (const [open, close] of [['{', '}'], ['[', ']']] as const) {
    const i = text.indexOf(open);
    const j = text.lastIndexOf(close);
    if (i >= 0 && j > i) candidates.push(text.slice(i, j + 1));
  }
  for (const c of candidates) {
    try {
      return JSON.parse(c);
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

/**
 * Parses triples out of an LLM answer. Returns undefined when the answer is not JSON of the
 * expected shape (the caller falls back to the rules); invalid items are dropped one by one and at
 * most 200 are read.
 */
export function parseLlmTriples(text: string, doc?: DistillableDoc): Triple[] | undefined {
  const json = extractJson(text);
  const list = Array.isArray(json) ? json : (json as { triples?: unknown } | undefined)?.triples;
  if (!Array.isArray(list)) return undefined;
  const out: Triple[] = [];
  for (const item of list.slice(0, 200)) {
    const r = TripleSchema.safeParse(item);
    if (!r.success || r.data.subject.toLowerCase() === r.data.object.toLowerCase()) continue;
    const t: Triple = { ...r.data };
    if (!t.sentence && doc) t.sentence = doc.text.slice(0, 500);
    if (doc) t.refs = [...new Set([doc.id, ...(doc.refs ?? []), ...(t.refs ?? [])])].slice(0, 20);
    out.push(t);
  }
  // The model may write the speaker as "me" / "我": that is who said the document (the owner, `user`,
  // when no one else did) — not the assistant, whose own turns are left as they are.
  return doc && doc.eventKind !== 'agent' ? firstPersonAs(out, doc.speaker ?? 'user').filter((t) => t.subject.toLowerCase() !== t.object.toLowerCase()) : out;
}

/**
 * Distills a (cold) document into triples (seed `docToTriples`): with an available LLM the model
 * is asked for JSON triples; an unavailable LLM, a failing call or malformed JSON falls back to the
 * regex rules.
 */
export async function docToTriples(doc: DistillableDoc, opts: { llm?: LlmLike; speaker?: string; log?: PluginLogger } = {}): Promise<Triple[]> {
  const rules = () => (doc.eventKind === 'agent' ? [] : extractFacts(doc.text, { speaker: doc.speaker ?? opts.speaker, refs: [doc.id, ...(doc.refs ?? [])].slice(0, 20) }));
  // Who said it, and when, come from the document, never from the model's answer (text it read may lie).
  const said = (ts: Triple[]): Triple[] =>
    ts.map((t) => {
      const { speaker: _ignored, validFrom: _when, ...rest } = t;
      return { ...rest, ...(doc.speakerId ? { speaker: doc.speakerId } : {}), ...(doc.at !== undefined ? { validFrom: doc.at } : t.validFrom !== undefined ? { validFrom: t.validFrom } : {}) };
    });
  if (!opts.llm?.available()) return said(rules());
  try {
    const res = await opts.llm.chat({
      messages: [
        { role: 'system', content: DOC_TRIPLES_PROMPT },
        { role: 'user', content: doc.text.slice(0, 8000) },
      ],
      temperature: 0,
    });
    const parsed = parseLlmTriples(res.text, doc);
    if (parsed) return said(parsed);
    opts.log?.warn('docToTriples: the LLM answer was not JSON triples; using the rules', { doc: doc.id });
  } catch (e) {
    opts.log?.warn('docToTriples: LLM call failed; using the rules', { doc: doc.id, error: (e as Error).message });
  }
  return said(rules());
}
