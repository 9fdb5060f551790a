import type { ForgetParticipant, ForgetPlan, ForgetRequest, ForgetTurn, SessionEvent, TurnSource } from '../../spec/index.js';
import { factText } from '../recall/index.js';
import { ALL, allLogs, type ControlTiers } from './control-tiers.js';
import { attachedFiles, forgottenFiles } from './forget-files.js';
import { heldTexts } from './held-turn.js';
import { quotingTurns } from './forget-quoting.js';
import { containsAll, preview, queryWords, sessionOfTurn } from './text-match.js';

/** Hits read from the recall per forget preview; exact scans of every tier and log follow it. */
const RECALL_K = 100;

/** The refs a turn's facts may cite: the turn id, and the ids of its events and documents in every tier. */
export function turnRefs(t: ControlTiers, turnId: string): string[] {
  const refs = new Set<string>([turnId]);
  for (const e of t.context()?.events() ?? []) if (e.refs?.[0] === turnId) refs.add(e.id);
  for (const id of t.docs()?.idsOfTurn(turnId) ?? []) refs.add(id);
  for (const r of t.archive()?.rowsOfTurn(turnId) ?? []) refs.add(r.doc.id);
  if (t.db.isExcluded(turnId)) {
    const h = t.db.held(turnId);
    for (const e of h.events) refs.add(e.id);
    for (const d of [...h.docs, ...h.archived]) refs.add(d.doc.id);
  }
  return [...refs];
}

/** The seqs of the turns' events in each session log: what a library memory's `source` names (decision 0430). */
export function turnSources(logs: ReadonlyMap<string, readonly SessionEvent[]>, turnIds: ReadonlySet<string>): TurnSource[] {
  const out: TurnSource[] = [];
  if (!turnIds.size) return out;
  for (const [sessionId, evs] of logs) {
    const seqs = evs.filter((e) => turnIds.has(e.turnId)).map((e) => e.seq);
    if (seqs.length) out.push({ sessionId, seqs });
  }
  return out;
}

/**
 * What participants made from the turns (a session summary, decision 0430), by participant; a
 * participant that fails to say is reported by `failed` and left out.
 */
export async function madeFromTurns(participants: ReadonlyMap<string, ForgetParticipant>, sources: TurnSource[], failed: (name: string, e: Error) => void): Promise<Map<string, { id: string; title: string; preview: string }[]>> {
  const out = new Map<string, { id: string; title: string; preview: string }[]>();
  if (!sources.length) return out;
  for (const [name, p] of participants) {
    if (!p.madeFrom) continue;
    try {
      const items = await p.madeFrom(sources);
      if (items.length) out.set(name, items);
    } catch (e) {
      failed(name, e as Error);
    }
  }
  return out;
}

/** A fact of the plan: its line, why it goes, and the triple. */
function factEntry(r: { id: number; subject: string; predicate: string; object: string }, reason: ForgetPlan['facts'][number]['reason']): ForgetPlan['facts'][number] {
  return { id: r.id, text: factText(r), reason, fact: { subject: r.subject, predicate: r.predicate, object: r.object } };
}

/**
 * What a forget would remove (K-2), shown before anything goes. By words: every turn whose message,
 * reply or tool output holds every word — found by the recall over every tier, then by exact scans
 * of the context window, the warm documents, the archive's postings, the turns held aside by an
 * exclusion and every session log, so nothing the recall ranks low escapes — the facts that
 * mention the words, the facts whose only sources are those turns, notes without a turn, and the
 * library memories that mention them (listed for the person to choose). By ids: those things and
 * the facts only they support. A fact whose only sources are the turns is marked `withTurns`: the
 * person may keep it without them (decision 0520). The library memories made from the turns go with them (decision 0430). With the turns, how many files their messages brought go too.
 */
export async function planForget(t: ControlTiers, req: ForgetRequest, participants: ReadonlyMap<string, ForgetParticipant>): Promise<ForgetPlan> {
  const turns = new Map<string, ForgetTurn>();
  const facts = new Map<number, ForgetPlan['facts'][number]>();
  const documents = new Map<string, ForgetPlan['documents'][number]>();
  const memories = new Map<string, ForgetPlan['memories'][number]>();
  const addTurn = (turnId: string, at: number, text: string, place: string) => {
    const cur = turns.get(turnId);
    if (cur) {
      if (!cur.places.includes(place)) cur.places.push(place);
      if (!cur.text && text) cur.text = preview(text);
      if (at && (!cur.at || at < cur.at)) cur.at = at;
    } else turns.set(turnId, { turnId, sessionId: sessionOfTurn(turnId), at, text: preview(text), places: [place] });
  };
  const graph = t.graph();
  const query = req.query?.trim();
  if (query) {
    const words = queryWords(query);
    for (const h of await t.recall.search(query, { k: RECALL_K })) {
      if (!containsAll(h.text, words)) continue;
      if (h.tier === 'graph') {
        const id = Number(h.id.replace(/^relation:/, ''));
        const r = graph?.relation(id);
        facts.set(id, r ? factEntry({ ...r, id }, 'matches') : { id, text: h.text, reason: 'matches' });
      }
      else if (h.turnId) addTurn(h.turnId, h.createdAt, h.text, h.tier);
      else documents.set(`${h.tier}:${h.id}`, { tier: h.tier, id: h.id, text: preview(h.text) });
    }
    for (const e of t.context()?.events() ?? []) {
      const text = [e.input, e.response, ...(e.toolOutputs ?? []).map((x) => x.text)].join('\n');
      if (!containsAll(text, words)) continue;
      if (e.refs?.[0]) addTurn(e.refs[0], e.timestamp, `${e.input} ${e.response}`, 'context');
      else documents.set(`context:${e.id}`, { tier: 'context', id: e.id, text: preview(text) });
    }
    for (const d of t.docs()?.list() ?? []) {
      if (!containsAll(`${d.title ?? ''}\n${d.content}`, words)) continue;
      if (d.refs[0]) addTurn(d.refs[0], d.createdAt, d.content, 'document');
      else documents.set(`document:${d.id}`, { tier: 'document', id: d.id, text: preview(d.content) });
    }
    for (const r of t.archive()?.rowsWithAll(t.embedder.tokenize(query)) ?? []) {
      if (!containsAll(r.doc.content, words)) continue;
      if (r.doc.refs[0]) addTurn(r.doc.refs[0], r.doc.createdAt, r.doc.content, 'archive');
      else documents.set(`archive:${r.doc.id}`, { tier: 'archive', id: r.doc.id, text: preview(r.doc.content) });
    }
    for (const h of t.db.allHeld()) if (containsAll(heldTexts(h.held).join('\n'), words)) addTurn(h.turnId, h.at, heldTexts(h.held)[0] ?? '', 'held');
    for (const evs of (await allLogs(t)).values()) {
      // What the person said in each turn: a turn found by what a tool answered in it is shown by
      // its message (a blank line in the preview named nothing the person could recognise).
      const said = new Map<string, string>();
      for (const e of evs) {
        if (e.kind === 'user' && !said.has(e.turnId)) said.set(e.turnId, e.text);
        // A block recall or the library gave a turn is a copy of memory, not what was said in it:
        // it goes with the things it names (forget-run), not by listing that turn. What a tool
        // answered is still read: a recall's answer can hold a fact whose own turn is gone, which
        // only listing its turn takes (a review of 0480).
        if (e.data?.redacted || e.kind === 'injection') continue;
        if (containsAll(searchedText(e), words)) addTurn(e.turnId, e.at, e.kind === 'user' || e.kind === 'assistant' ? e.text : (said.get(e.turnId) ?? ''), 'session-log');
      }
    }
    for (const r of graph?.matchingFacts(words) ?? []) if (!facts.has(r.id)) facts.set(r.id, factEntry(r, 'matches'));
    for (const p of participants.values()) for (const m of await p.find(query, 50).catch(() => [])) memories.set(m.id, m);
  }
  for (const id of req.turnIds ?? []) {
    const places = await placesOf(t, id);
    for (const p of places.places) addTurn(id, places.at, places.text, p);
    if (!places.places.length) addTurn(id, 0, '', 'nowhere');
  }
  for (const id of req.relationIds ?? []) {
    const r = graph?.relation(id);
    if (r) facts.set(id, factEntry({ ...r, id }, 'asked'));
  }
  for (const d of req.documents ?? []) {
    const text = d.tier === 'document' ? t.docs()?.get(d.id)?.content : d.tier === 'archive' ? t.archive()?.get(d.id)?.doc.content : t.context()?.events().find((e) => e.id === d.id)?.input;
    if (text !== undefined) documents.set(`${d.tier}:${d.id}`, { tier: d.tier, id: d.id, text: preview(text) });
  }
  if (req.memoryIds?.length) for (const p of participants.values()) for (const m of await p.describe(req.memoryIds).catch(() => [])) memories.set(m.id, m);
  // Facts that go with the turns: every source they cite is one of them. Each is marked, found so
  // or by the words: the person may keep it without them (decision 0520).
  if (graph && turns.size) {
    const refs = [...turns.keys()].flatMap((id) => turnRefs(t, id));
    for (const id of graph.onlySourcedBy(refs)) {
      const had = facts.get(id);
      if (had) {
        had.withTurns = true;
        continue;
      }
      const r = graph.relation(id);
      if (r) facts.set(id, { ...factEntry({ ...r, id }, 'only-source'), withTurns: true });
    }
  }
  // Every log, read once for what was made from the turns and what quotes them.
  const logs = turns.size && t.sessions ? await allLogs(t) : new Map<string, SessionEvent[]>();
  // Library memories made from the turns (a summary of them) go with them (decision 0430).
  if (turns.size && t.sessions) {
    const made = await madeFromTurns(participants, turnSources(logs, new Set(turns.keys())), () => undefined);
    for (const items of made.values()) for (const m of items) memories.set(m.id, { ...m, madeFrom: true });
  }
  // Memories composed of one that goes — asked for, or made from the turns — hold its text: they
  // go with it, unless the person keeps them (and those composed of them, and so on).
  const asked = new Set(req.memoryIds ?? []);
  const going = [...memories.values()].filter((m) => m.madeFrom || asked.has(m.id)).map((m) => m.id);
  for (const p of going.length ? participants.values() : []) {
    const made = p.madeOf ? await p.madeOf(going).catch(() => []) : [];
    for (const m of made) if (!asked.has(m.id)) memories.set(m.id, { ...m, madeFrom: true });
  }
  // Other turns that quote what was said in them, for the person to include (decision 0450).
  const quoting = turns.size ? await quotingTurns(t, new Set(turns.keys()), logs) : [];
  // The files the turns' messages brought, less those a turn that stays names (decision 0370).
  const files = await filesOfTurns(t, new Set(turns.keys()));
  return {
    ...(query ? { query } : {}),
    ...(files ? { files } : {}),
    ...(quoting.length ? { quoting } : {}),
    turns: [...turns.values()].sort((a, b) => a.at - b.at || a.turnId.localeCompare(b.turnId)),
    facts: [...facts.values()].sort((a, b) => a.id - b.id),
    documents: [...documents.values()],
    memories: [...memories.values()],
  };
}

/**
 * How many files go with these turns (decision 0370). Their own sessions' logs are read first;
 * every log (for the files a turn that stays names) only when one of their messages brought a file.
 */
export async function filesOfTurns(t: ControlTiers, turnIds: ReadonlySet<string>): Promise<number> {
  const home = t.homeDir;
  if (!turnIds.size || !home || !t.sessions) return 0;
  const gone = (e: SessionEvent) => turnIds.has(e.turnId);
  let any = false;
  for (const sid of new Set([...turnIds].map(sessionOfTurn))) {
    const evs = await t.sessions.events(sid, ALL).catch(() => [] as SessionEvent[]);
    if (evs.some((e) => gone(e) && attachedFiles(e, home).length > 0)) any = true;
  }
  return any ? forgottenFiles(await allLogs(t), gone, home).length : 0;
}

/** Where a turn lives now, with its text (user message and reply) for the preview. */
async function placesOf(t: ControlTiers, turnId: string): Promise<{ places: string[]; at: number; text: string }> {
  const places: string[] = [];
  let at = 0;
  let text = '';
  const ctx = t.context()?.events().filter((e) => e.refs?.[0] === turnId) ?? [];
  if (ctx.length) {
    places.push('context');
    at = ctx[0].timestamp;
    text = ctx.map((e) => (e.kind === 'agent' ? e.response : e.input)).join(' ');
  }
  const docs = t.docs()?.idsOfTurn(turnId) ?? [];
  if (docs.length) {
    places.push('document');
    const d = t.docs()!.get(docs[0]);
    if (d && !text) {
      text = d.content;
      at = d.createdAt;
    }
  }
  const rows = t.archive()?.rowsOfTurn(turnId) ?? [];
  if (rows.length) {
    places.push('archive');
    if (!text) {
      text = rows[0].doc.content;
      at = rows[0].doc.createdAt;
    }
  }
  if (t.db.isExcluded(turnId)) {
    places.push('held');
    if (!text) text = heldTexts(t.db.held(turnId))[0] ?? '';
  }
  const sid = sessionOfTurn(turnId);
  if (t.sessions && sid) {
    const evs = (await t.sessions.events(sid, ALL).catch(() => [])).filter((e) => e.turnId === turnId && !e.data?.redacted);
    if (evs.length) {
      places.push('session-log');
      if (!at) at = evs[0].at;
      const said = evs.filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => e.text).join(' ');
      if (said) text = said;
    }
  }
  return { places, at, text };
}

/**
 * What a forget by words reads of a logged event. A message is what was said and the names of the
 * files sent with it — not who sent it or from which chat: ids in its data ("telegram:123456789",
 * a chat id) are not words the person said, and matched a forget of a PIN (found by a new-user
 * walk). A tool call or result is all of it (its arguments and output are in its data).
 */
function searchedText(e: SessionEvent): string {
  if (e.kind === 'user' || e.kind === 'assistant' || e.kind === 'interrupt') {
    const files = Array.isArray(e.data?.attachments) ? (e.data.attachments as { name?: unknown }[]).map((a) => (typeof a?.name === 'string' ? a.name : '')) : [];
    return [e.text, ...files].join('\n');
  }
  return `${e.text}\n${e.data ? JSON.stringify(e.data) : ''}`;
}
