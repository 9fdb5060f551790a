import type { ForgetTurn, SessionEvent } from '../../spec/index.js';
import type { ControlTiers } from './control-tiers.js';
import { heldTexts } from './held-turn.js';
import { preview, sessionOfTurn } from './text-match.js';
import { distinctiveContent } from './tombstone-hash.js';

/** Turns listed at most (a message quoted in hundreds of turns is shown by its first ones). */
const MAX_QUOTING = 200;

/**
 * What the person said in `turnIds` that is distinctive (decision 0320's rule, the quotes a forget
 * looks for): their messages and interrupts in the logs, the messages the tiers hold of the turns.
 */
export function saidInTurns(t: ControlTiers, turnIds: ReadonlySet<string>, logs: ReadonlyMap<string, readonly SessionEvent[]>): string[] {
  const said = new Set<string>();
  for (const evs of logs.values()) for (const e of evs) if (turnIds.has(e.turnId) && !e.data?.redacted && (e.kind === 'user' || e.kind === 'interrupt')) said.add(e.text);
  for (const e of t.context()?.events() ?? []) if (e.refs?.[0] && turnIds.has(e.refs[0]) && e.input) said.add(e.input);
  for (const id of turnIds) {
    for (const r of t.archive()?.rowsOfTurn(id) ?? []) if (r.doc.input) said.add(r.doc.input);
    if (t.db.isExcluded(id)) for (const e of t.db.held(id).events) if (e.input) said.add(e.input);
  }
  return [...said].filter((x) => distinctiveContent(x)).sort((a, b) => b.length - a.length);
}

/**
 * Other turns that quote what the person said in `turnIds` ("As I said: my locker code is …"),
 * in every tier, the turns held by an exclusion and every session log (decision 0450). A forget
 * lists them for the person to include; they are not part of it otherwise — the same words said
 * again are not always what was forgotten (0320), and nothing goes that the preview did not show
 * (0400). Injections are copies of memory, not what was said: they go with what they name.
 */
export function quotingTurns(t: ControlTiers, turnIds: ReadonlySet<string>, logs: ReadonlyMap<string, readonly SessionEvent[]>): ForgetTurn[] {
  const quotes = saidInTurns(t, turnIds, logs);
  if (!quotes.length) return [];
  const found = new Map<string, ForgetTurn>();
  const add = (turnId: string | undefined, at: number, text: string, place: string) => {
    if (!turnId || turnIds.has(turnId) || turnId.startsWith('library:')) return;
    const cur = found.get(turnId);
    if (cur) {
      if (!cur.places.includes(place)) cur.places.push(place);
      if (at && (!cur.at || at < cur.at)) cur.at = at;
      return;
    }
    if (found.size < MAX_QUOTING) found.set(turnId, { turnId, sessionId: sessionOfTurn(turnId), at, text: preview(text), places: [place] });
  };
  const quotes_ = (text: string | undefined) => !!text && quotes.some((q) => text.includes(q));
  for (const evs of logs.values()) {
    for (const e of evs) {
      if (e.data?.redacted || e.kind === 'injection') continue;
      if (quotes_(e.text)) add(e.turnId, e.at, e.text, 'session-log');
    }
  }
  for (const e of t.context()?.events() ?? []) {
    const text = [e.input, e.response, ...(e.toolOutputs ?? []).map((x) => x.text)].join('\n');
    if (quotes_(text)) add(e.refs?.[0], e.timestamp, e.input || e.response, 'context');
  }
  for (const d of t.docs()?.list() ?? []) if (quotes_(d.content)) add(d.refs[0], d.createdAt, d.content, 'document');
  const archive = t.archive();
  if (archive) {
    for (const q of quotes) {
      for (const r of archive.rowsWithAll(t.embedder.tokenize(q))) if (quotes_(r.doc.content) || quotes_(r.doc.input) || quotes_(r.doc.response)) add(r.doc.refs[0], r.doc.createdAt, r.doc.content, 'archive');
    }
  }
  for (const h of t.db.allHeld()) {
    const texts = heldTexts(h.held);
    if (texts.some((x) => quotes_(x))) add(h.turnId, h.at, texts[0] ?? '', 'held');
  }
  return [...found.values()].sort((a, b) => a.at - b.at || a.turnId.localeCompare(b.turnId));
}
