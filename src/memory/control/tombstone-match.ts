import type { SessionEvent } from '../../spec/index.js';
import { allLogs, type ControlTiers } from './control-tiers.js';

/** A kernel turn id (`<session>#<n>`). */
export const TURN_ID = /^[^\s#]+#\d+$/;

/** What a set of tombstones says was forgotten (this install's, or an archive's for a preview). */
export interface StoneMatcher {
  turn(id: string): boolean;
  /** A whole text (never under 12 characters, a CJK one counting twice). */
  content(text: string): boolean;
  /** A message with its reply (decision 0320); a reply alone only as "" — of a turn with no message. */
  pair(message: string, reply: string): boolean;
  fact(subject: string, predicate: string, object: string): boolean;
  doc(id: string): boolean;
}

const said = (x: unknown): x is string => typeof x === 'string' && x.trim() !== '';

/** A document archived from a window event (its input is a message, its response a reply), not a note. */
export function isArchivedEvent(d: { eventKind?: string }): boolean {
  return d.eventKind === 'user' || d.eventKind === 'agent';
}

/**
 * True when a turn with these texts was forgotten: its id; any whole text of it (a content
 * tombstone names what a person said — and, recorded before decision 0320, any text of a forgotten
 * turn, replies included, which keep that meaning); or one of its messages with one of its replies.
 */
export function turnForgotten(is: StoneMatcher, turnId: string | undefined, messages: readonly string[], replies: readonly string[], others: readonly string[] = []): boolean {
  if (turnId !== undefined && is.turn(turnId)) return true;
  if ([...messages, ...replies, ...others].some((x) => said(x) && is.content(x))) return true;
  // A turn with no message (proactive): its reply paired with "" (decision 0320, review fix 4).
  const ms = messages.filter(said);
  return (ms.length ? ms : ['']).some((m) => replies.some((r) => said(r) && is.pair(m, r)));
}

/** The events of a log, turn by turn: its messages (`user`), answers (`assistant`, `tool_result`) and other texts. */
export function logTurns(events: readonly SessionEvent[]): Map<string, { messages: string[]; replies: string[]; others: string[] }> {
  const out = new Map<string, { messages: string[]; replies: string[]; others: string[] }>();
  for (const e of events) {
    if (!e.turnId || e.data?.redacted || !said(e.text)) continue;
    let g = out.get(e.turnId);
    if (!g) out.set(e.turnId, (g = { messages: [], replies: [], others: [] }));
    (e.kind === 'user' ? g.messages : e.kind === 'assistant' || e.kind === 'tool_result' ? g.replies : g.others).push(e.text);
  }
  return out;
}

/** What {@link findTombstoned} found. */
export interface Tombstoned {
  turnIds: string[];
  relationIds: number[];
  documents: { tier: 'document' | 'archive' | 'context'; id: string }[];
}

/**
 * Turns, facts and notes (warm, archived, in the window) held here that `is` says were forgotten
 * (not yet forgotten here). A turn is judged whole — by its id, its texts, its message with its
 * reply — from its log, its window events and its warm documents; a note (no turn) by its id or
 * its text; an item of a turn that is kept, by its id alone.
 */
export async function findTombstoned(t: ControlTiers, is: StoneMatcher): Promise<Tombstoned> {
  const turnIds = new Set<string>();
  const documents: Tombstoned['documents'] = [];
  for (const events of (await allLogs(t)).values()) {
    for (const [id, g] of logTurns(events)) if (!turnIds.has(id) && turnForgotten(is, id, g.messages, g.replies, g.others)) turnIds.add(id);
  }
  // The window: a user event holds the message (input), an agent event the message, the reply and
  // what the tools gave.
  // The events of one turn are judged together (its user event holds the message an agent event
  // may not: a turn has no message only when none of its events has one).
  const ctxTurns = new Map<string, { refs: Set<string>; messages: string[]; answers: string[]; ids: string[] }>();
  for (const e of t.context()?.events() ?? []) {
    const refs = e.refs ?? [];
    const answers = [e.response, ...(e.toolOutputs ?? []).map((o) => o.text)];
    if (!refs.length) {
      if (is.doc(e.id) || turnForgotten(is, undefined, [e.input], answers)) documents.push({ tier: 'context', id: e.id });
      continue;
    }
    let g = ctxTurns.get(refs[0]);
    if (!g) ctxTurns.set(refs[0], (g = { refs: new Set(), messages: [], answers: [], ids: [] }));
    for (const r of refs) g.refs.add(r);
    g.messages.push(e.input);
    g.answers.push(...answers);
    g.ids.push(e.id);
  }
  for (const g of ctxTurns.values()) {
    if ([...g.refs].some((r) => is.turn(r)) || turnForgotten(is, undefined, g.messages, g.answers)) for (const r of g.refs) turnIds.add(r);
    else for (const id of g.ids) if (is.doc(id)) documents.push({ tier: 'context', id });
  }
  const relationIds: number[] = [];
  const graph = t.graph();
  for (let offset = 0; graph; offset += 500) {
    const page = graph.relations({ limit: 500, offset }).items;
    for (const r of page) if (is.fact(r.subject, r.predicate, r.object)) relationIds.push(r.id);
    if (page.length < 500) break;
  }
  // Warm documents: one archived from a window event of a turn holds its message (and reply) —
  // the turn is judged by them; its content is derived (`message reply`), matched only as a text
  // forgotten before 0320 was. A note (of a turn or not) goes by its id or its text.
  for (const d of t.docs()?.list() ?? []) {
    const turn = d.refs.find((r) => TURN_ID.test(r));
    if (turn !== undefined && (is.turn(turn) || (isArchivedEvent(d) && turnForgotten(is, undefined, [d.input], [d.response])))) turnIds.add(turn);
    else if (is.doc(d.id) || (said(d.content) && is.content(d.content))) documents.push({ tier: 'document', id: d.id });
  }
  // The archive's notes (rows of a turn go with their turn, found above).
  const archive = t.archive();
  for (let after = 0; archive; ) {
    const page = archive.pageWithoutTurn(after, 500);
    for (const r of page) if (is.doc(r.doc.id) || turnForgotten(is, undefined, [r.doc.content, r.doc.input], [r.doc.response])) documents.push({ tier: 'archive', id: r.doc.id });
    if (page.length < 500) break;
    after = page[page.length - 1].n;
  }
  // Items already gone with a forgotten turn are counted once, with their turn.
  const ofTurns = new Set([...turnIds].flatMap((id) => t.docs()?.idsOfTurn(id) ?? []));
  const ctxOfTurns = new Set((t.context()?.events() ?? []).filter((e) => (e.refs ?? []).some((r) => turnIds.has(r))).map((e) => e.id));
  return {
    turnIds: [...turnIds].filter((id) => TURN_ID.test(id)),
    relationIds,
    documents: documents.filter((d) => !(d.tier === 'document' ? ofTurns.has(d.id) : d.tier === 'context' ? ctxOfTurns.has(d.id) : false)),
  };
}
