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

/** Messages looked for at most (the longest): a broad word query lists turns enough by its words. */
const MAX_QUOTES = 100;

/** The quote looked up in the archive's postings: its inner words (a CJK segmenter splits a phrase's edges by what is around it). */
function innerTokens(tokens: string[]): string[] {
  return tokens.length > 2 ? tokens.slice(1, -1) : tokens;
}

/**
 * Other turns that quote what the person said in `turnIds` ("As I said: my locker code is …"),
 * in every tier, the turns held by an exclusion and every session log (decision 0450), matched
 * without regard to case. A forget lists them for the person to include; they are not part of it
 * otherwise — the same words said again are not always what was forgotten (0320), and nothing goes
 * that the preview did not show (0400). Only what someone said counts — messages and replies: a
 * tool's result (a recall, a library read) and an injection are copies of memory, which go with
 * what they name, not turns to forget whole. Yields between session logs (a preview must not hold
 * the daemon's loop for long).
 */
export async function quotingTurns(t: ControlTiers, turnIds: ReadonlySet<string>, logs: ReadonlyMap<string, readonly SessionEvent[]>): Promise<ForgetTurn[]> {
  const said = saidInTurns(t, turnIds, logs).slice(0, MAX_QUOTES);
  if (!said.length) return [];
  const quotes = said.map((q) => q.toLowerCase());
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
  const quotesAny = (text: string | undefined) => {
    if (!text) return false;
    const low = text.toLowerCase();
    return quotes.some((q) => low.includes(q));
  };
  const breathe = () => new Promise((r) => setImmediate(r));
  for (const evs of logs.values()) {
    for (let i = 0; i < evs.length; i++) {
      const e = evs[i];
      // A long log lets the daemon's loop run now and then, not only between logs.
      if (i % 5000 === 4999) await breathe();
      if (e.data?.redacted || (e.kind !== 'user' && e.kind !== 'assistant' && e.kind !== 'interrupt')) continue;
      if (quotesAny(e.text)) add(e.turnId, e.at, e.text, 'session-log');
    }
    await breathe();
  }
  for (const e of t.context()?.events() ?? []) if (quotesAny(e.input) || quotesAny(e.response)) add(e.refs?.[0], e.timestamp, e.input || e.response, 'context');
  for (const d of t.docs()?.list() ?? []) if (quotesAny(d.content)) add(d.refs[0], d.createdAt, d.content, 'document');
  const archive = t.archive();
  if (archive) {
    const seen = new Set<string>();
    for (const [qi, q] of said.entries()) {
      // Each row against the quote that found it (its words), once.
      const low = quotes[qi];
      const has = (x: string | undefined) => !!x && x.toLowerCase().includes(low);
      for (const r of archive.rowsWithAll(innerTokens(t.embedder.tokenize(q)))) {
        if (seen.has(r.doc.id)) continue;
        // An archived exchange by what was said in it; a row without one (an imported text) by its text.
        const hit = r.doc.input || r.doc.response ? has(r.doc.input) || has(r.doc.response) : has(r.doc.content);
        if (!hit) continue;
        seen.add(r.doc.id);
        add(r.doc.refs[0], r.doc.createdAt, r.doc.content, 'archive');
      }
      await breathe();
    }
  }
  for (const h of t.db.allHeld()) {
    const texts = heldTexts(h.held);
    if (texts.some((x) => quotesAny(x))) add(h.turnId, h.at, texts[0] ?? '', 'held');
  }
  return [...found.values()].sort((a, b) => a.at - b.at || a.turnId.localeCompare(b.turnId));
}
