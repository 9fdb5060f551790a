import type { Speaker } from '../../spec/speaker.js';
import { OWNER_SPEAKER_ID } from '../../spec/speaker.js';
import type { MemoryDocument } from '../documents/index.js';
import { hasCjk } from '../embedder/index.js';

/** The agent's own speaker id: its replies are never "someone's statement" a query names. */
const AGENT_ID = 'assistant';

/** Someone memory has heard: a speaker id and the display name recorded with it. */
export interface Participant {
  id: string;
  name: string;
}

/**
 * Who said a document, as one id: its speaker's id; a user event without one is the owner's
 * absent = the owner), an agent event the agent's; anything else (a note) nobody's.
 */
export function speakerIdOf(d: Pick<MemoryDocument, 'speaker' | 'eventKind'>): string | undefined {
  if (d.speaker?.id) return d.speaker.id;
  if (d.eventKind === 'user') return OWNER_SPEAKER_ID;
  if (d.eventKind === 'agent') return AGENT_ID;
  return undefined;
}

/** First-person words of a query: it is about the person asking. */
const FIRST_PERSON_EN = /(?<![\p{L}\p{N}'’])(?:i|me|my|mine|myself|i['’]m|i['’]ve|i['’]d|i['’]ll)(?![\p{L}\p{N}'’])/iu;
/** 我, 我的, 我自己 — not 我们 (we: the owner with others). */
const FIRST_PERSON_ZH = /我(?!们)/u;

/** True when the query speaks in the first person ("what did I …", "my sister", "我上周…"). */
export function speaksOfSelf(query: string): boolean {
  return FIRST_PERSON_EN.test(query) || FIRST_PERSON_ZH.test(query);
}

/** The words of a text (runs of letters and digits), in order. */
function wordsOf(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * A test of whether `query` names someone: a whole-word sequence (Latin script; a query typed all in
 * lower case matches names case-insensitively, otherwise the capitals must agree, so "Will" is not
 * "will"), or a substring for Chinese names. Names shorter than two characters never match. The
 * query's words are indexed once, so testing every participant of a large group costs one lookup
 * per name (a regex per name over a long query took seconds for a thousand people).
 */
export function nameMatcher(query: string): (name: string) => boolean {
  const lower = !/\p{Lu}/u.test(query);
  const norm = (w: string) => (lower ? w.toLowerCase() : w);
  const words = wordsOf(query).map(norm);
  const at = new Map<string, number[]>();
  words.forEach((w, i) => {
    const list = at.get(w);
    if (list) list.push(i);
    else at.set(w, [i]);
  });
  return (name) => {
    const n = name.trim();
    if (n.length < 2) return false;
    if (hasCjk(n)) return query.includes(n);
    const parts = wordsOf(n).map(norm);
    if (!parts.length) return false;
    return (at.get(parts[0]) ?? []).some((i) => parts.every((p, j) => words[i + j] === p));
  };
}

/** True when the query names `name` (see `nameMatcher`). */
export function namesPerson(query: string, name: string): boolean {
  return nameMatcher(query)(name);
}

/** The names a participant may be called by: the display name, and its first word when it has several. */
function namesOf(p: Participant): string[] {
  const first = p.name.trim().split(/\s+/)[0];
  return first && first !== p.name.trim() && first.length >= 3 ? [p.name, first] : [p.name];
}

/**
 * Whose statements a query is about (speaker ids), or undefined when it names nobody: every known
 * participant whose display name the query contains, and — when it speaks in the first person —
 * the person asking (the owner by default: `user` and the owner's channel ids). The agent is never
 * one of them.
 */
export function queryFocus(query: string, participants: readonly Participant[], asker: { speaker?: Speaker; ownerIds: readonly string[] }): Set<string> | undefined {
  const out = new Set<string>();
  const names = nameMatcher(query);
  for (const p of participants) {
    if (p.id === AGENT_ID || out.has(p.id)) continue;
    if (namesOf(p).some(names)) out.add(p.id);
  }
  if (speaksOfSelf(query)) {
    const s = asker.speaker;
    if (!s || s.id === OWNER_SPEAKER_ID || asker.ownerIds.includes(s.id)) for (const id of [OWNER_SPEAKER_ID, ...asker.ownerIds]) out.add(id);
    else out.add(s.id);
  }
  return out.size ? out : undefined;
}

/**
 * The lower-case words of every name of a known participant that the query contains ("What pets
 * does Nate have?" → nate): word-neighbour expansion (decision 0300) never expands them — a
 * person's name has neighbours that are other people's names.
 */
export function namedWords(query: string, participants: readonly Participant[]): Set<string> {
  const out = new Set<string>();
  const names = nameMatcher(query);
  for (const p of participants) {
    if (p.id === AGENT_ID) continue;
    for (const n of namesOf(p)) if (names(n)) for (const w of wordsOf(n)) out.add(w.toLowerCase());
  }
  return out;
}

/**
 * Who said each fact, for 【记忆索引】: relation id → the first non-owner, non-agent speaker
 * recorded with its sources (graph `relation_sources.speaker_id`), named by the
 * participants memory knows (the id when no name was recorded). The owner's own facts get none.
 */
export function factSpeakers(
  graph: { sourcesOf(relationId: number): { ref: string; speaker?: string }[] },
  relations: readonly { id: number }[],
  participants: readonly Participant[],
  ownerIds: readonly string[] = [],
): Map<number, Speaker & { name: string }> {
  const names = new Map(participants.map((p) => [p.id, p.name]));
  const out = new Map<number, Speaker & { name: string }>();
  for (const r of relations) {
    const who = graph.sourcesOf(r.id).find((s) => s.speaker && s.speaker !== OWNER_SPEAKER_ID && s.speaker !== AGENT_ID && !ownerIds.includes(s.speaker))?.speaker;
    if (who) out.set(r.id, { id: who, name: names.get(who) ?? who });
  }
  return out;
}
