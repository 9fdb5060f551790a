import { keptFactAt, OWNER_SPEAKER_ID, type AboutFact, type AboutSource, type RecallHit } from '../spec/index.js';
import type { MemorySystem } from '../memory/index.js';

/** At most this many facts per name, and turns in all. */
const MAX_FACTS = 200;
const MAX_DOCS = 100;

function source(h: Pick<RecallHit, 'tier' | 'id' | 'text' | 'sessionId' | 'turnId' | 'createdAt' | 'channel' | 'speaker' | 'conversation'>): AboutSource {
  const s: AboutSource = { tier: h.tier, id: h.id, text: h.text.length > 600 ? `${h.text.slice(0, 600)}…` : h.text, sessionId: h.sessionId, createdAt: h.createdAt };
  if (h.turnId) s.turnId = h.turnId;
  if (h.channel) s.channel = h.channel;
  if (h.speaker) s.speaker = { id: h.speaker.id, ...(h.speaker.name ? { name: h.speaker.name } : {}) };
  if (h.conversation) s.conversation = { kind: h.conversation.kind, id: h.conversation.id, ...(h.conversation.title ? { title: h.conversation.title } : {}) };
  return s;
}

/**
 * What the memory tiers hold about a person (issue 12 part 7, decision 0090): the graph facts whose
 * subject or object is one of their names, each with the turns it cites and — when the graph keeps
 * them (facts that supersede) — since/until; and the newest turns (context window, documents, cold
 * archive) that mention a name or were said by one of their speaker ids. The library's memories
 * are gathered beside this by the caller (they belong to the memory-manager plugin).
 */
export async function aboutPerson(m: MemorySystem, q: { names: string[]; speakerIds: string[]; limit?: number }): Promise<{ facts: AboutFact[]; documents: AboutSource[] }> {
  const ids = new Set(q.speakerIds);
  // The rule distiller names a channel speaker's facts by their display name on that platform
  // (Alice on Telegram, Ali on QQ): the names their ids were seen with are searched too.
  const seen = m.context.events().flatMap((e) => (e.speaker && ids.has(e.speaker.id) && e.speaker.name ? [e.speaker.name] : []));
  const names = [...new Set([...q.names, ...seen].map((n) => n.trim()).filter((n) => n && n.length <= 200))].slice(0, 20);
  const limit = Math.min(Math.max(q.limit ?? MAX_DOCS, 1), MAX_DOCS);
  const facts = new Map<number, AboutFact>();
  for (const name of names) {
    let rels;
    try {
      rels = m.graph.relations({ entity: name, limit: MAX_FACTS }).items;
    } catch {
      continue; // not a valid entity name
    }
    for (const r of rels) {
      if (facts.has(r.id)) continue;
      const held = r as typeof r & { validFrom?: number; validTo?: number };
      const f: AboutFact = { id: r.id, subject: r.subject, predicate: r.predicate, object: r.object, confidence: r.confidence, sources: m.recall.sources(r.refs ?? [], 10).map(source) };
      if (typeof held.validFrom === 'number') f.validFrom = held.validFrom;
      if (typeof held.validTo === 'number') f.validTo = held.validTo;
      // Kept when its turn was forgotten (decision 0520): said so, in place of a source.
      const kept = keptFactAt(m.graph.sourcesOf(r.id).map((s) => s.ref));
      if (kept !== undefined) f.kept = kept;
      facts.set(r.id, f);
    }
  }
  const docs = new Map<string, AboutSource>();
  // Said by them, in every tier, without a search. A user turn without a speaker is the owner's
  // (the CLI, the WebUI and the API record none): "about me" lists what the owner said there.
  const owner = ids.has(OWNER_SPEAKER_ID);
  const saidByThem = (d: { speaker?: { id: string } }) => (d.speaker ? ids.has(d.speaker.id) : owner);
  for (const e of m.context.events()) {
    if (e.kind === 'user' && saidByThem(e)) {
      docs.set(e.id, source({ tier: 'context', id: e.id, text: e.input, sessionId: e.sessionId, turnId: e.refs?.[0], createdAt: e.timestamp, channel: e.channel, speaker: e.speaker, conversation: e.conversation }));
    }
  }
  const warm = m.docs.list().filter((d) => d.eventKind === 'user' && saidByThem(d));
  const cold = m.archive.isOpen ? m.archive.saidBy([...ids].filter((id) => id !== OWNER_SPEAKER_ID), owner, limit).map((r) => r.doc) : [];
  for (const [tier, list] of [['document', warm], ['archive', cold]] as const) {
    for (const d of list.sort((a, b) => b.createdAt - a.createdAt).slice(0, limit)) {
      if (docs.has(d.id)) continue;
      docs.set(d.id, source({ tier, id: d.id, text: d.input || d.content, sessionId: d.sessionId, turnId: d.refs?.[0], createdAt: d.createdAt, channel: d.channel, speaker: d.speaker, conversation: d.conversation }));
    }
  }
  // Mentioning them, in every tier; a name must occur in the text (recall also ranks neighbours).
  const words = names.filter((n) => n !== 'user');
  for (const name of words) {
    const low = name.toLowerCase();
    const hits = await m.recall.search(name, { k: 50, tiers: ['context', 'document', 'archive'] });
    for (const h of hits) if (!docs.has(h.id) && (h.text.toLowerCase().includes(low) || (h.speaker && ids.has(h.speaker.id)))) docs.set(h.id, source(h));
  }
  // One entry per turn: the window holds a turn's message and its reply as two events.
  const byTurn = new Map<string, AboutSource>();
  for (const s of docs.values()) {
    const key = s.turnId ?? `${s.tier}:${s.id}`;
    const had = byTurn.get(key);
    if (!had || (s.speaker && !had.speaker) || s.text.length < had.text.length) byTurn.set(key, s);
  }
  return {
    facts: [...facts.values()].sort((a, b) => (b.validTo ?? Infinity) - (a.validTo ?? Infinity) || b.confidence - a.confidence || a.id - b.id),
    documents: [...byTurn.values()].sort((a, b) => b.createdAt - a.createdAt).slice(0, limit),
  };
}
