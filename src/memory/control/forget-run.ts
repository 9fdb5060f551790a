import { open, readdir, readFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import type { ChangeMeta, ForgetParticipant, ForgetRequest, ForgetResult, SessionEvent } from '../../spec/index.js';
import { HomeAgentError, keptFactSource, NotFoundError, ValidationError } from '../../spec/index.js';
import { titleFromMessage } from '../../spec/session-title.js';
import { factText } from '../recall/index.js';
import type { GraphDB } from '../graph/index.js';
import { ALL, allLogs, type ControlTiers } from './control-tiers.js';
import { writeFileAtomic } from '../../fs/index.js';
import { forgottenFiles } from './forget-files.js';
import { knowledgeForgetId } from './knowledge-participant.js';
import { turnRefs } from './forget-plan.js';
import { ForgetTexts } from './forget-texts.js';
import { isArchivedEvent } from './tombstone-match.js';
import { distinctiveContent, docHash, factHash, textWeight, turnHash } from './tombstone-hash.js';

/** History entries are redacted when they hold a forgotten text of at least this length. */
const HISTORY_MIN = 4;

/** `x` as JSON writes it inside a string (without the quotes). */
const jsonInner = (x: string) => JSON.stringify(x).slice(1, -1);

const limits = { turns: 5000, relations: 5000, documents: 5000, memories: 1000 };

/** Checks the shape of a forget request (it comes from HTTP, the socket, a tool). */
export function checkForgetRequest(req: Omit<ForgetRequest, 'query'>): void {
  const list = (v: unknown, max: number, what: string) => {
    if (v === undefined) return;
    if (!Array.isArray(v) || v.length > max) throw new ValidationError(`${what} must be a list of at most ${max}`, { key: what });
  };
  list(req.turnIds, limits.turns, 'turnIds');
  list(req.relationIds, limits.relations, 'relationIds');
  list(req.documents, limits.documents, 'documents');
  list(req.memoryIds, limits.memories, 'memoryIds');
  list(req.keepTurnIds, limits.turns, 'keepTurnIds');
  list(req.keepRelationIds, limits.relations, 'keepRelationIds');
  for (const id of req.turnIds ?? []) if (typeof id !== 'string' || !id || id.length > 400) throw new ValidationError('turnIds must be turn ids', { key: 'turnIds' });
  for (const id of req.relationIds ?? []) if (!Number.isSafeInteger(id)) throw new ValidationError('relationIds must be integers', { key: 'relationIds' });
  for (const d of req.documents ?? []) if (!d || typeof d.id !== 'string' || !['document', 'archive', 'context'].includes(d.tier)) throw new ValidationError('documents must be {tier: document|archive|context, id}', { key: 'documents' });
  for (const id of req.memoryIds ?? []) if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{3,64}$/.test(id)) throw new ValidationError('memoryIds must be memory ids', { key: 'memoryIds' });
  for (const id of req.keepTurnIds ?? []) if (typeof id !== 'string' || !id || id.length > 400) throw new ValidationError('keepTurnIds must be turn ids', { key: 'keepTurnIds' });
  const both = (req.keepTurnIds ?? []).find((id) => req.turnIds?.includes(id));
  if (both) throw new ValidationError(`turn ${both} is both to forget and to keep`, { key: 'keepTurnIds' });
  for (const id of req.keepRelationIds ?? []) if (!Number.isSafeInteger(id)) throw new ValidationError('keepRelationIds must be integers (fact ids)', { key: 'keepRelationIds' });
  const fact = (req.keepRelationIds ?? []).find((id) => req.relationIds?.includes(id));
  if (fact !== undefined) throw new ValidationError(`fact ${fact} is both to forget and to keep`, { key: 'keepRelationIds', id: fact });
  if (req.keepRelationIds?.length && !req.turnIds?.length) throw new ValidationError('keepRelationIds keeps facts made from the turns being forgotten: name those turns (turnIds)', { key: 'keepRelationIds' });
}

/**
 * The facts a forget is asked to keep (decision 0520), checked before anything goes: each must be a
 * fact of the graph (`NotFoundError`) made from the turns being forgotten — citing one of `refs`,
 * the ids of those turns and their items (`ValidationError`): a fact that does not come from them
 * is not theirs to keep, and naming it is a mistake the person should hear about.
 */
export function checkKeptFacts(graph: Pick<GraphDB, 'relation' | 'sourcesOf'> | undefined, ids: readonly number[], refs: ReadonlySet<string>): void {
  if (!ids.length) return;
  if (!graph) throw new HomeAgentError('MEMORY_UNAVAILABLE', 'the memory graph is not available: no fact can be kept now, and nothing was forgotten', { retryable: true });
  for (const id of ids) {
    if (!graph.relation(id)) throw new NotFoundError('fact', String(id));
    if (!graph.sourcesOf(id).some((s) => refs.has(s.ref))) {
      throw new ValidationError(`fact ${id} was not learned from the turns being forgotten: only a fact made from them can be kept (nothing was forgotten)`, { key: 'keepRelationIds', id });
    }
  }
}

/**
 * What a committed forget records until it is done (decision 0410): its request, and the texts it
 * is removing that the tiers it empties first would no longer give a second run — so a forget cut
 * off after its commit point is finished at the next open, logs and history included.
 */
export interface PendingForget {
  request: Omit<ForgetRequest, 'query'>;
  meta: ChangeMeta;
  /** What the person said (content tombstones, quotes). */
  said: string[];
  /** Every other text of what goes. */
  other: string[];
  /** The lines of the facts that go. */
  factTexts: string[];
  /** Names of the entities of the facts that go. */
  names: string[];
  /** Sentences of facts forgotten by themselves: not searched for in the history or copies. */
  factSentences?: string[];
  /**
   * The participants registered when it was committed (decision 0420): one not registered yet
   * when it is finished at open (a plugin's) is owed its part, and takes it when it registers.
   */
  participants?: string[];
}

/** What a forget finished at open owes a participant that had not registered yet (decision 0420). */
export interface OwedForget {
  memoryIds: string[];
  /**
   * The texts of the memories already removed by an earlier try of this debt: a retry's `remove`
   * finds them gone and returns none, so they are kept here until their copies are redacted.
   */
  memoryTexts?: string[];
  /** The ids of the memories those texts were of (their history entries are found by id). */
  memoryTextsOf?: string[];
  /** What it drops items holding (`ForgetParticipant.scrub`). */
  quotes: string[];
  turnIds: string[];
  meta: ChangeMeta;
}

/**
 * Removes every trace of what is named (K-2). Tombstones first (hashes only), so a reindex or an
 * import running meanwhile already skips it; then, with SQLite's secure delete, the context events,
 * warm documents, archived rows and postings, the graph's sources (facts only these turns support
 * go, with entities left bare; a surviving fact loses the sentence said in them), what an exclusion
 * held, the facts asked for, the distiller's marks; then the library memories the person chose;
 * then the session logs (the turn's events stay as redaction markers, and any event quoting a
 * forgotten text is redacted too), the text log, and every history entry that holds the text; last,
 * a `forget` entry without any text. The files the turns' messages brought are listed with the
 * tombstones; the caller deletes them (`deleteForgottenFiles`) and sets `files`.
 */
export async function runForget(
  t: ControlTiers,
  req: Omit<ForgetRequest, 'query'>,
  meta: ChangeMeta,
  participants: ReadonlyMap<string, ForgetParticipant>,
  journal: { key: string; resume?: PendingForget } = { key: '' },
): Promise<ForgetResult> {
  checkForgetRequest(req);
  const res: ForgetResult = { turns: 0, contextEvents: 0, documents: 0, archived: 0, relations: 0, entities: 0, held: 0, memories: 0, sessionEvents: 0, textLogLines: 0, historyRedacted: 0, tombstones: 0, asideCopies: 0, files: 0 };
  const turnIds = [...new Set(req.turnIds ?? [])];
  const turnSet = new Set(turnIds);
  const context = t.context();
  const docs = t.docs();
  const archive = t.archive();
  const graph = t.graph();

  // What goes, and every text it carries — sorted by what each text is (decision 0320).
  const ft = new ForgetTexts();
  const askedDoc = (tier: string, id: string) => (req.documents ?? []).some((d) => d.tier === tier && d.id === id);
  /** The forgotten turn an item belongs to (its first ref), or undefined for a note asked for by its id. */
  const turnOfItem = (itemRefs: readonly string[] | undefined) => itemRefs?.find((r) => turnSet.has(r));
  const refs = new Set<string>();
  const eventIds: string[] = [];
  /** Ids of every context event, document and archived row that goes: tombstoned by id (exact, and kept across an import). */
  const itemIds = new Set<string>();
  for (const id of turnIds) for (const r of turnRefs(t, id)) refs.add(r);
  // Facts the person keeps (decision 0520), checked before anything goes. A second run of a forget
  // cut off (decision 0410) does not check again: the first may have kept them already.
  const keepIds = [...new Set(req.keepRelationIds ?? [])];
  if (!journal.resume) checkKeptFacts(graph, keepIds, refs);
  const keepSet = new Set(keepIds);
  const ctxEvents = (context?.events() ?? []).filter((e) => (e.refs ?? []).some((r) => turnSet.has(r)) || askedDoc('context', e.id));
  for (const e of ctxEvents) {
    const turn = turnOfItem(e.refs);
    ft.exchange(turn, e.input, e.response);
    // What a tool gave the turn answers its message as the reply does (a pair), never alone.
    for (const o of e.toolOutputs ?? []) if (turn !== undefined) ft.reply(turn, o.text);
    else ft.other(o.text);
    itemIds.add(e.id);
  }
  /**
   * A document or archived row: one archived from a window event holds a message and its reply
   * (of a forgotten turn, or asked for by its id); any other — a note, of a turn or asked for by
   * its id — goes by its id alone. A note is usually the agent's text (`doc_commit`), not what the
   * person said: remembered by its text, or searched for as a quote, it would take whatever else
   * says the same — a forget wider than the list the person confirmed (decision 0320).
   */
  const addDoc = (d: { id: string; content: string; input: string; response: string; title?: string; refs: string[]; kind?: string; eventKind?: string }) => {
    const turn = turnOfItem(d.refs);
    if (isArchivedEvent(d)) {
      ft.exchange(turn, d.input, d.response);
      ft.other(d.content);
    } else ft.other(d.content, d.input, d.response);
    ft.other(d.title);
    itemIds.add(d.id);
  };
  const warmIds = [...turnIds.flatMap((id) => docs?.idsOfTurn(id) ?? []), ...(req.documents ?? []).filter((d) => d.tier === 'document').map((d) => d.id)];
  for (const id of warmIds) {
    const d = docs?.get(id);
    if (d) addDoc(d);
  }
  const coldRows = [...turnIds.flatMap((id) => archive?.rowsOfTurn(id) ?? []), ...(req.documents ?? []).filter((d) => d.tier === 'archive').flatMap((d) => (archive?.get(d.id) ? [archive.get(d.id)!] : []))];
  for (const r of coldRows) addDoc(r.doc);
  const excluded = turnIds.filter((id) => t.db.isExcluded(id));
  for (const id of excluded) {
    const h = t.db.held(id);
    for (const e of h.events) {
      ft.exchange(id, e.input, e.response);
      for (const o of e.toolOutputs ?? []) ft.reply(id, o.text);
      itemIds.add(e.id);
    }
    for (const d of [...h.docs, ...h.archived]) {
      if (isArchivedEvent(d.doc)) ft.exchange(id, d.doc.input, d.doc.response);
      ft.other(d.doc.content, d.doc.input, d.doc.response, d.doc.title);
      itemIds.add(d.doc.id);
    }
    ft.other(...h.triples.flatMap((tr) => [tr.sentence, `${tr.subject} ${tr.predicate} ${tr.object}`]));
  }
  const logged = new Map<string, SessionEvent[]>();
  let files: string[] = [];
  if (t.sessions) {
    const sids = new Set(turnIds.map((id) => id.slice(0, Math.max(0, id.lastIndexOf('#')))));
    // Deleted sessions too: their logs still hold the text.
    const logs = sids.size ? await allLogs(t) : new Map<string, SessionEvent[]>();
    // The files the turns' messages brought, unless a turn that stays names them (decision 0370).
    if (t.homeDir) files = forgottenFiles(logs, (e) => turnSet.has(e.turnId), t.homeDir);
    for (const sid of sids) {
      const evs = (logs.get(sid) ?? []).filter((e) => turnSet.has(e.turnId));
      logged.set(sid, evs);
      for (const e of evs) {
        if (e.data?.redacted) continue;
        // An interrupt is the person's words too, joined to the running turn (decision 0430).
        if (e.kind === 'user') ft.message(e.turnId, e.text);
        else if (e.kind === 'interrupt') ft.written(e.text);
        else if (e.kind === 'assistant' || e.kind === 'tool_result') ft.reply(e.turnId, e.text);
        else ft.other(e.text);
        if (e.kind === 'user' || e.kind === 'assistant') eventIds.push(`log:${sid}:${e.seq}`);
      }
    }
  }
  for (const e of ctxEvents) eventIds.push(e.id);
  const relationIds = [...new Set(req.relationIds ?? [])];
  const factTexts: string[] = [];
  /**
   * Sentences of facts forgotten by themselves (not with their turn): the message they came from
   * stays, and so do the other facts and memories it gave — their history entries and copies hold
   * the sentence too, and are not what was forgotten (the fact's own entries go by its id).
   */
  const factSentences = new Set<string>();
  const goneFacts = graph ? [...new Set([...relationIds, ...graph.onlySourcedBy([...refs])])].filter((id) => !keepSet.has(id)) : [];
  for (const id of goneFacts) {
    const r = graph!.relation(id);
    if (!r) continue;
    factTexts.push(factText(r));
    // A fact's sentence is whatever the model wrote (`memory_commit` sets it freely): it goes with
    // the fact (its hash), never by its text — no content tombstone, no quote (decision 0320).
    if (relationIds.includes(id) && r.sentence && !ft.all.has(r.sentence)) {
      ft.other(r.sentence);
      factSentences.add(r.sentence);
    }
  }
  const entityNames = new Set<string>();
  if (graph) {
    for (const id of goneFacts) {
      const r = graph.relation(id);
      if (r) entityNames.add(r.subject).add(r.object);
    }
  }

  const memoryIds = [...new Set(req.memoryIds ?? [])];

  // A second run of a forget cut off (decision 0410): the texts the first run had taken from tiers
  // it already emptied.
  const resume = journal.resume;
  if (resume) {
    ft.written(...resume.said);
    ft.other(...resume.other);
    factTexts.push(...resume.factTexts.filter((x) => !factTexts.includes(x)));
    for (const n of resume.names) entityNames.add(n);
    for (const x of resume.factSentences ?? []) if (!ft.said.has(x)) factSentences.add(x);
  }

  // Tombstones: hashes only, before anything is removed. A turn by its id; what the person said
  // by its text (content), each message with its reply (pair) — never a reply or a derived text
  // alone (decision 0320: "Sorry, this turn failed: …" would take every turn that failed); each
  // item of the turn and each note by its id; each fact.
  const stones: { hash: string; kind: string }[] = [];
  for (const id of turnIds) stones.push({ hash: turnHash(id), kind: 'turn' });
  stones.push(...ft.stones());
  for (const id of new Set([...itemIds, ...(req.documents ?? []).map((d) => d.id)])) stones.push({ hash: docHash(id), kind: 'document' });
  // A library memory by its id (an import leaves out `library:<id>` when it is forgotten): as a
  // turn-id stone (what earlier versions matched) and as an item stone — an import records an
  // archive's item stones but not its turn-id stones (decision 0350: a turn id names another turn
  // on another install; a memory id, random, names the same memory).
  for (const id of memoryIds) stones.push({ hash: turnHash(`library:${id}`), kind: 'turn' }, { hash: docHash(`library:${id}`), kind: 'document' });
  for (const id of goneFacts) {
    const r = graph?.relation(id);
    if (r) stones.push({ hash: factHash(r.subject, r.predicate, r.object), kind: 'fact' });
  }
  // The commit point: the tombstones and the files to delete, in one transaction. The caller
  // deletes the files once this returns or throws (MemoryControl.forget); a kill before that
  // leaves them listed, and the next open deletes them (decision 0370).
  // The forget itself is recorded there too, until it is done (decision 0410).
  const pending: PendingForget = { request: req, meta, said: [...ft.said], other: [...ft.all].filter((x) => !ft.said.has(x)), factTexts, names: [...entityNames], factSentences: [...factSentences], participants: [...new Set([...[...participants].filter(([, p]) => !p.inMemoryOnly).map(([name]) => name), ...(resume?.participants ?? [])])] };
  res.tombstones = t.db.addTombstones(
    stones,
    files.map((f) => relative(t.homeDir!, f)),
    journal.key ? { key: journal.key, body: JSON.stringify(pending) } : undefined,
  );
  res.turns = turnIds.length;

  // The tiers, with secure delete.
  if (context && ctxEvents.length) {
    res.contextEvents = context.removeIds(ctxEvents.map((e) => e.id));
    await context.flush();
  }
  if (docs && warmIds.length) res.documents = docs.scrubbed(() => docs.removeMany(warmIds));
  if (archive && coldRows.length) res.archived = archive.scrubbed(() => archive.deleteIds(coldRows.map((r) => r.doc.id)));
  if (graph) {
    const allTexts = [...ft.all];
    graph.scrubbed(() => {
      // Kept first: each cites the kept source before its turns' sources are detached, so it is
      // not a fact left without sources (decision 0520).
      const kept = graph.keepFacts(keepIds, [...refs], keptFactSource(t.now()));
      if (kept.length) res.keptFacts = kept.length;
      const d = graph.detachRefs([...refs], allTexts);
      const f = graph.forgetRelations(relationIds);
      res.relations = d.relations + f.relations;
      res.entities = d.entities + f.entities;
      for (const e of d.before.entities) entityNames.add(e.name);
    });
  }
  if (excluded.length) t.db.scrubbed(() => excluded.forEach((id) => (res.held += t.db.removeExclusion(id) ? 1 : 0)));
  // The ids a sweep tied to a forgotten turn (decision 0700) go with it: nothing in plain of its items stays.
  if (turnIds.length) t.db.scrubbed(() => t.db.dropTurnRefs(turnIds));
  await t.rules?.forget(eventIds).catch((e: unknown) => t.log.warn('forget: the distiller marks could not be updated', { error: (e as Error).message }));

  // The library: what the person chose (the preview ticks what was made from the turns, 0430).
  const memoryTexts: string[] = [];
  for (const p of participants.values()) {
    if (!memoryIds.length) continue;
    const r = await p.remove(memoryIds, meta);
    res.memories += r.removed;
    // A memory's text is the agent's as often as the person's (`library_save`, a summary): it goes
    // with its id and is searched for only in the copies of memory — tool calls and results,
    // injections — never in what someone said, which the preview did not list (decision 0430).
    memoryTexts.push(...r.texts);
    // Searched for (history, damaged copies) only when distinctive: a memory titled "Work" must not
    // take every history entry that says "Work" (review of 0420).
    ft.other(...r.texts.filter((x) => distinctiveContent(x)));
  }
  // Quotes: what the person said or wrote, when distinctive — the very rule of content tombstones
  // (a CJK character counts twice: "门锁密码是4711" is searched for, "好的" is not). Never a reply:
  // the same generic reply in another turn is not what was forgotten (decision 0320).
  const quotes = ft.distinctive();
  // Finished at open, before the plugins registered theirs: what they hold is owed to them, taken
  // when they register (decision 0420) — written before this forget's record is dropped.
  const absent = (resume?.participants ?? []).filter((name) => !participants.has(name));
  if (absent.length) {
    const owed: OwedForget = { memoryIds, quotes, turnIds, meta };
    t.db.addOwed(journal.key, absent, JSON.stringify(owed));
  }
  for (const [name, p] of participants) {
    if (!p.scrub) continue;
    try {
      const n = await p.scrub(quotes, turnIds);
      // A buffer in memory (the event stream's, the API's kept answers) is not memory kept.
      if (!p.inMemoryOnly) res.elsewhere = (res.elsewhere ?? 0) + n;
    } catch (e) {
      // Reported, not swallowed: the person is told this part did not go (decision 0400).
      unfinished(res, name, `could not drop what holds the forgotten text: ${(e as Error).message}`);
      t.log.warn(`forget: the ${name} participant failed to scrub`, { error: (e as Error).message });
    }
  }

  // The logs.
  const quoted = (text: string) => quotes.some((q) => text.includes(q));
  // A turn that quotes what was said and that the person kept (decision 0450): not redacted for
  // the quote — still for what it copies of memory that went (an injection, a tool result).
  const kept = new Set(req.keepTurnIds ?? []);
  // A removed memory's text, in a copy of memory (a tool call or result, an injection): not in a
  // message or a reply (decision 0430).
  const copiesMemory = copiesOfMemory(memoryTexts);
  // What was said, in a copy of memory outside the turns the person kept: a recall's or a search's
  // answer quotes it, often only a piece of it (a kept turn is not redacted for the quote, 0450).
  const copiesSaid = copiesOfMemory(quotes);
  // A logged injection (decision 0100) goes when it names anything that went: a forgotten turn, a
  // tier row, a fact or a library memory — its text is a snippet or a fact line, which quoting
  // alone would miss.
  const goneIds = new Set<string>([...eventIds, ...warmIds, ...coldRows.map((r) => r.doc.id), ...goneFacts.map((id) => `relation:${id}`), ...memoryIds]);
  const namesGone = (e: SessionEvent) =>
    e.kind === 'injection' &&
    Array.isArray(e.data?.sources) &&
    (e.data.sources as { id?: unknown; turnId?: unknown; tier?: unknown }[]).some(
      (s) =>
        (typeof s?.turnId === 'string' && turnSet.has(s.turnId)) ||
        (typeof s?.id === 'string' && (goneIds.has(s.id) || (s.tier === 'knowledge' && goneIds.has(knowledgeForgetId(s.id))))),
    );
  const hit = (e: SessionEvent) => !e.data?.redacted && (turnSet.has(e.turnId) || (!kept.has(e.turnId) && (quoted(e.text) || (e.data !== undefined && quoted(JSON.stringify(e.data))) || copiesSaid(e))) || namesGone(e) || copiesMemory(e));
  if (t.sessions?.redactAll) res.sessionEvents = await t.sessions.redactAll(hit);
  else if (t.sessions?.redact) {
    for (const s of await t.sessions.list()) {
      const evs = logged.get(s.id) ?? (await t.sessions.events(s.id, ALL).catch(() => []));
      if (!evs.some(hit)) continue;
      res.sessionEvents += await t.sessions.redact(s.id, hit);
    }
  }
  if (t.textLog) res.textLogLines = await t.textLog.redact((r) => (r.turnId !== undefined && turnSet.has(r.turnId)) || (!(r.turnId !== undefined && kept.has(r.turnId)) && quoted(r.text)));
  // Damaged copies set aside (a log or context.json that could not be read): not parsed, so the
  // forgotten texts are blanked where they appear as written (JSON-escaped), byte for byte elsewhere.
  // Names whose entity went with the forget (a name still in the graph names something else too).
  const goneNames = [...entityNames].filter((n) => !graph?.getEntity(n));
  // A fact's sentence that is also what goes otherwise (said in a turn of this forget, the text of
  // a memory it removes) is searched for like the rest.
  const removedTexts = [...ft.all].filter((x) => !factSentences.has(x) || ft.said.has(x) || memoryTexts.includes(x));
  // The daemon's own logs (homed.log, a plugin's): they hold no message by design, but an error
  // can quote one (a provider's answer, a tool's failure). Blanked in place (decision 0430).
  if (t.homeDir) res.daemonLogs = await blankInDaemonLogs(join(t.homeDir, 'logs'), quotes, res, t.log);
  res.asideCopies = await blankInCopies(t.asideCopies?.() ?? [], removedTexts, [...factTexts, ...goneNames], t.log);

  // History: entries that hold the text, or are about what went.
  // A conversation is named after its first message, cut to a title (`titleFromMessage`): what was
  // recorded under that name (a session summary's "saved memory …") holds the cut message.
  const titles = [...ft.said].map((x) => titleFromMessage(x)).filter((x) => x && !ft.said.has(x) && distinctiveContent(x.replace(/…$/, '')));
  const needles = [...removedTexts, ...factTexts, ...titles].filter((x) => x.length >= HISTORY_MIN).map(jsonInner);
  // A removed memory is named in the entries of other targets (the plan's before/after) by its id
  // field — `"id":"<id>"`, not the bare id: a hand-named file's id is a plain word ("work") that a
  // tag of another memory may be; its title, short and not distinctive, is not looked for.
  const refNeedles = [...[...refs].map((r) => JSON.stringify(r)), ...memoryIds.map(idField)];
  const targets = new Set([...goneFacts.map((id) => `relation:${id}`), ...memoryIds, ...(req.documents ?? []).map((d) => d.id), ...turnIds]);
  res.historyRedacted = t.db.scrubbed(() => t.db.redactHistory({ turnIds, targets: [...targets], subjects: goneNames, needles: [...needles, ...refNeedles] }));
  t.embedder.forgetTexts([...ft.all]);
  return res;
}

/**
 * Whether a logged event is a copy of memory holding one of `texts` (a removed library memory's):
 * a tool call or result, an injection — never a message, a reply or an interrupt, which a memory's
 * words may match without being it (decision 0430).
 */
function copiesOfMemory(texts: readonly string[]): (e: SessionEvent) => boolean {
  const quotes = texts.filter((x) => distinctiveContent(x));
  const escaped = quotes.map(jsonInner);
  // A piece of a removed text: a search's snippet of a knowledge entry or a memory is cut from its
  // text with the white space flattened and "…" at a cut — as a piece, not the whole, it is found
  // by being inside the text, not by holding it. Only a piece long enough to be a quote counts: a
  // tool's name, a title or a marker that a removed text merely mentions is not a copy of it.
  const flatQuotes = quotes.map(flatSpace);
  const piece = (s: string) => {
    const p = flatSpace(s.replace(/^…|…$/g, ''));
    return textWeight(p) >= PIECE_MIN && flatQuotes.some((q) => q.includes(p));
  };
  return (e) =>
    quotes.length > 0 &&
    e.kind !== 'user' &&
    e.kind !== 'assistant' &&
    e.kind !== 'interrupt' &&
    (quotes.some((q) => e.text.includes(q)) || (e.data !== undefined && escaped.some((q) => JSON.stringify(e.data).includes(q))) || stringsOf(e).some(piece));
}

function flatSpace(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** What a piece of a removed text must weigh (`textWeight`: a Han, kana or hangul character counts two) to count as a copy of it. */
const PIECE_MIN = 40;

/** Fields of an event's data that name things (a tool, a source, a session) rather than hold what was copied. */
const NAMING_KEYS = new Set(['id', 'name', 'title', 'tier', 'slot', 'source', 'turnId', 'sessionId', 'kind', 'tool', 'channel', 'platform', 'op', 'status']);

/** The strings of each event, read once for both copy checks of a forget (the removed memories', what was said). */
const eventStrings = new WeakMap<SessionEvent, string[]>();
function stringsOf(e: SessionEvent): string[] {
  let out = eventStrings.get(e);
  if (!out) eventStrings.set(e, (out = stringsIn(e.text, e.data)));
  return out;
}

/** The strings an event holds: its text (and, when that is JSON, the strings in it) and the strings in its data — not the fields that only name things. */
function stringsIn(text: string, data: unknown): string[] {
  const out: string[] = [text];
  const walk = (v: unknown, depth: number): void => {
    if (out.length > 2000 || depth > 8) return;
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (!NAMING_KEYS.has(k)) walk(x, depth + 1);
  };
  if (/^\s*[[{]/.test(text)) {
    try {
      walk(JSON.parse(text), 0);
    } catch {
      // Not JSON: the text itself is the string.
    }
  }
  walk(data, 0);
  return out;
}

/**
 * The copies of the memories a participant removed when it took a debt (decision 0420): the
 * forget that owed them ran before the participant could say what the memories held, so their
 * texts were not searched for then. Redacts the copies of memory in the session logs (as a forget
 * run does) and the history entries holding the texts. Returns the redacted events and entries.
 */
export async function redactMemoryCopies(t: Pick<ControlTiers, 'db' | 'sessions'>, texts: readonly string[], memoryIds: readonly string[] = []): Promise<{ sessionEvents: number; historyRedacted: number }> {
  const copies = copiesOfMemory(texts);
  const hit = (e: SessionEvent) => !e.data?.redacted && copies(e);
  let sessionEvents = 0;
  if (texts.some((x) => distinctiveContent(x))) {
    if (t.sessions?.redactAll) sessionEvents = await t.sessions.redactAll(hit);
    else if (t.sessions?.redact) for (const s of await t.sessions.list()) sessionEvents += await t.sessions.redact(s.id, hit);
  }
  const needles = [...texts.filter((x) => distinctiveContent(x)).map(jsonInner), ...memoryIds.map(idField)];
  const historyRedacted = needles.length ? t.db.scrubbed(() => t.db.redactHistory({ turnIds: [], targets: [], subjects: [], needles })) : 0;
  return { sessionEvents, historyRedacted };
}

/** A memory named by its id field in a recorded JSON object (the plan's `{"id":"…","title":…}`). */
const idField = (id: string) => `"id":${JSON.stringify(id)}`;

/**
 * What a forget recorded at its commit point owes the plugins when no run of it will give them
 * their part (decision 0420): one given up at open after three failed runs. The memories the
 * person ticked, what they said (distinctive, as quotes are), the turns.
 */
export function owedOfPending(body: PendingForget): OwedForget {
  return {
    memoryIds: [...new Set(body.request.memoryIds ?? [])],
    quotes: (body.said ?? []).filter((x) => distinctiveContent(x)),
    turnIds: [...new Set(body.request.turnIds ?? [])],
    meta: body.meta ?? {},
  };
}

/** Adds the counts and the unfinished parts of `res` to `total` (an import's tombstones, forgotten in batches). */
export function addForgetResult(total: ForgetResult, res: ForgetResult): void {
  const sums = total as unknown as Record<string, number | undefined>;
  for (const [k, v] of Object.entries(res)) if (typeof v === 'number') sums[k] = (sums[k] ?? 0) + v;
  if (res.unfinished) (total.unfinished ??= []).push(...res.unfinished);
}

/** Notes a part of the forget that could not be finished (`ForgetResult.unfinished`). */
export function unfinished(res: ForgetResult, part: string, message: string): void {
  (res.unfinished ??= []).push({ part, message });
}

/** `x` with every character past ASCII as `\uXXXX` (Python's `json.dumps`, many providers' error bodies). */
const asciiEscaped = (x: string, upper: boolean) => x.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`);

/**
 * The forms a quote takes in a log line (decision 0430): as said; JSON-escaped once (our loggers)
 * and twice (a provider's JSON error body quoted in our JSON line); with its non-ASCII characters
 * `\u`-escaped (lower and upper hex), and that escaped again.
 */
export function escapedForms(q: string): string[] {
  const forms = [q, jsonInner(q), jsonInner(jsonInner(q))];
  if (/[\u0080-\uffff]/.test(q)) {
    for (const upper of [false, true]) {
      const u = asciiEscaped(jsonInner(q), upper);
      forms.push(u, jsonInner(u));
    }
  }
  return [...new Set(forms)];
}

/** Bytes read at a time from a log file (a file that never rotates can grow large). */
const LOG_CHUNK = 1 << 20;

/**
 * Overwrites, in place and byte for byte, each quote (as written and as JSON writes it) in the
 * daemon's log files (`*.log`, rotated `*.log.N`; not the text log, which is redacted by line):
 * the loggers append to them, so the file is never replaced — what they write meanwhile lands
 * after the bytes read. Each file is read in chunks through the handle that writes it; a file a
 * rotation renamed during the pass is scanned again under its new name. A file that could not be
 * done is reported in `unfinished`. Returns how many files changed.
 */
async function blankInDaemonLogs(dir: string, quotes: readonly string[], res: ForgetResult, log: ControlTiers['log']): Promise<number> {
  const needles = [...new Set(quotes.flatMap(escapedForms))]
    .map((x) => Buffer.from(x, 'utf8'))
    .filter((b) => b.length >= 4)
    .sort((a, b) => b.length - a.length);
  if (!needles.length) return 0;
  const longest = needles[0].length;
  const changed = new Set<string>();
  /** name → inode of what was scanned under it. */
  const done = new Map<string, number>();
  for (let pass = 0; pass < 3; pass++) {
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => /\.log(\.\d+)?$/.test(n));
    } catch {
      return changed.size;
    }
    let any = false;
    for (const name of names) {
      const file = join(dir, name);
      try {
        const fh = await open(file, 'r+');
        try {
          const ino = (await fh.stat()).ino;
          if (done.get(name) === ino) continue;
          any = true;
          done.set(name, ino);
          if (await blankHandle(fh, needles, longest)) changed.add(String(ino));
        } finally {
          await fh.close();
        }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        unfinished(res, 'logs', `a quote could not be blanked in logs/${name}: ${(e as Error).message}`);
        log.warn(`forget: could not blank a log file: ${(e as Error).message}`, { file: name });
      }
    }
    // Nothing new under any name (no rotation meanwhile): done.
    if (!any && pass > 0) break;
  }
  return changed.size;
}

/**
 * Bytes of a quote's form that, found in a log, start a clipped match: its first 32 bytes (ending
 * on a character). Providers clip their errors to 120–200 characters, so a clipped quote keeps them.
 */
function headLength(full: Buffer): number {
  if (full.length <= CLIP_HEAD) return full.length;
  let n = CLIP_HEAD;
  while (n > 4 && (full[n] & 0xc0) === 0x80) n--;
  return n;
}
const CLIP_HEAD = 32;

/** Bytes that may follow a clipped quote: `.`, a closing quote or bracket, an escape, the line's end (and `…`, below). */
const CLIP_MARKS = new Set([0x2e, 0x22, 0x27, 0x5c, 0x0a, 0x0d, 0x5d, 0x7d, 0x29, 0x5b, 0x3c]);
/** Whether what follows a clipped quote at `j` says it was clipped (or the file ends there). */
const clipMarkAt = (view: Buffer, j: number) => j >= view.length || CLIP_MARKS.has(view[j]) || (view[j] === 0xe2 && view[j + 1] === 0x80 && view[j + 2] === 0xa6);

/**
 * How much of `view[i, i + n)` can be blanked without breaking an escape the log wrote: not a
 * backslash without the character it escapes, not part of a `\uXXXX`.
 */
function escapeSafe(view: Buffer, i: number, n: number): number {
  let slashes = 0;
  while (slashes < n && view[i + n - 1 - slashes] === 0x5c) slashes++;
  if (slashes % 2) n--;
  for (let k = Math.max(i, i + n - 5); k < i + n - 1; k++) {
    if (view[k] === 0x5c && view[k + 1] === 0x75 && k + 6 > i + n) return k - i;
  }
  return n;
}

/**
 * Blanks every form of every quote in the file behind `fh`, chunk by chunk (overlapping by the
 * longest form). First each whole form, longest first. Then what is left of a quote an error
 * clipped: where a form's first 32 bytes still appear, as far as the bytes agree with the form that
 * agrees longest — only when a clip mark follows (`…`, a closing quote, the line's end), so another
 * message that merely starts the same way is left alone — ending on a character, and never leaving
 * half an escape.
 */
async function blankHandle(fh: Awaited<ReturnType<typeof open>>, needles: readonly Buffer[], longest: number): Promise<boolean> {
  let hit = false;
  const heads = new Map<string, { head: Buffer; forms: Buffer[] }>();
  for (const full of needles) {
    if (full.length <= CLIP_HEAD) continue;
    const head = full.subarray(0, headLength(full));
    const key = head.toString('latin1');
    const g = heads.get(key);
    if (g) g.forms.push(full);
    else heads.set(key, { head, forms: [full] });
  }
  const buf = Buffer.alloc(LOG_CHUNK + longest);
  const blank = async (view: Buffer, pos: number, i: number, n: number) => {
    await fh.write(Buffer.alloc(n, 0x2a), 0, n, pos + i);
    view.fill(0x2a, i, i + n);
    hit = true;
  };
  for (let pos = 0; ; ) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) break;
    const view = buf.subarray(0, bytesRead);
    const more = bytesRead === buf.length;
    for (const n of needles) for (let i = view.indexOf(n); i >= 0; i = view.indexOf(n, i + n.length)) await blank(view, pos, i, n.length);
    for (const { head, forms } of heads.values()) {
      for (let i = view.indexOf(head); i >= 0; i = view.indexOf(head, i + 1)) {
        let n = 0;
        let cut = false;
        for (const full of forms) {
          let m = head.length;
          while (m < full.length && i + m < view.length && view[i + m] === full[m]) m++;
          // Cut by the chunk's end, not by the quote's: the next chunk reads it again whole.
          if (m < full.length && i + m === view.length && more) cut = true;
          n = Math.max(n, m);
        }
        if (cut) continue;
        while (n > head.length && i + n < view.length && (view[i + n] & 0xc0) === 0x80) n--;
        if (!clipMarkAt(view, i + n)) continue;
        n = escapeSafe(view, i, n);
        if (n >= head.length) await blank(view, pos, i, n);
      }
    }
    if (!more) break;
    pos += bytesRead - (longest - 1);
  }
  if (hit) await fh.sync();
  return hit;
}

/**
 * Blanks each forgotten text in files set aside as damaged; returns how many files changed. A text
 * file (a log, JSON) is not parsed: the text as JSON writes it becomes `[forgotten]`. A database
 * copy (`*.db.corrupt-*`, its `-wal`) — where a forgotten fact's line and the names of the entities
 * that went with it (`graphTexts`) are looked for too — has each UTF-8 byte run overwritten by as many spaces in
 * place, so every record keeps its length and the file stays what the salvage can read (decision
 * 0400). A text split across two pages of a copy, or kept only as index terms, is not found there.
 */
async function blankInCopies(files: readonly string[], texts: readonly string[], graphTexts: readonly string[], log: ControlTiers['log']): Promise<number> {
  const jsonNeedles = texts.filter((x) => x.trim().length >= 4).map(jsonInner);
  // Longest first: a name inside a sentence must not leave the rest of the sentence unmatched.
  // In a database copy only runs of 8+ bytes, and never on its first page (the header and the
  // schema's SQL): a short reply or an entity called "name" must not blank what keeps it readable.
  const byteNeedles = [...new Set([...texts, ...graphTexts])]
    .map((x) => Buffer.from(x, 'utf8'))
    .filter((b) => b.length >= 8)
    .sort((a, b) => b.length - a.length);
  if (![...texts, ...graphTexts].some((x) => x.trim().length >= 4)) return 0;
  let changed = 0;
  for (const file of files) {
    try {
      if (/\.db\.corrupt-/.test(basename(file))) {
        const bytes = await readFile(file);
        // The page size from the header (1 means 65536); a WAL copy starts with its own header.
        const raw = bytes.length >= 18 && bytes.subarray(0, 16).toString('latin1') === 'SQLite format 3\0' ? bytes.readUInt16BE(16) : 0;
        const firstPage = raw === 1 ? 65536 : raw;
        let hit = false;
        for (const n of byteNeedles) {
          for (let i = bytes.indexOf(n, firstPage); i >= 0; i = bytes.indexOf(n, i + n.length)) {
            bytes.fill(0x20, i, i + n.length);
            hit = true;
          }
        }
        if (!hit) continue;
        await writeFileAtomic(file, bytes);
      } else {
        const before = await readFile(file, 'utf8');
        let after = before;
        for (const n of jsonNeedles) after = after.split(n).join('[forgotten]');
        if (after === before) continue;
        await writeFileAtomic(file, after);
      }
      changed++;
    } catch (e) {
      log.warn(`forget: could not blank a set-aside copy: ${(e as Error).message}`, { file: basename(file) });
    }
  }
  return changed;
}
