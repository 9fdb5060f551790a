import path from 'node:path';
import fs from 'node:fs';
import type { ConfigReader, ContextEvent, PeopleDirectory, KnowledgeAPI, MemoryAPI, PluginLogger, PromptSlot, PromptSlotProvider, SetAsideStore, SocialAPI, SocialReadAPI, ToolDef, ToolInvocation } from '../spec/index.js';
import { HomeAgentError, resolveTimeZone, TIME_ZONE_KEY, turnAudience } from '../spec/index.js';
import { KnowledgeBase, knowledgeTools } from '../knowledge/index.js';
import { EmbedderService } from './embedder/index.js';
import { RelevanceContext, type CleanerLookup } from './context/index.js';
import { DocStore, eventDocument, type MemoryDocument } from './documents/index.js';
import { ColdArchive } from './archive/index.js';
import { GraphDB } from './graph/index.js';
import { Indexer } from './indexer/index.js';
import { RuleDistillPipeline, docToTriples, speakerEntity, type DistillableDoc, type LlmLike } from './distill/index.js';
import { SocialService } from './social/index.js';
import { docTools, graphTools, socialTools } from './tools/index.js';
import { HeartbeatLoops, type ConsolidationTicket, type LoopName, type LoopStatus, type MergeOutcome, type Scheduler } from './heartbeat/index.js';
import { factSpeakers, speakerIdOf, MemoryRecall, ownerIds, recallScope, relatedDocumentsSlot, saidDays } from './recall/index.js';
import { recoverContext, reindexArchive, type RecoveryResult, type ReindexProgress, type SessionSource } from './recovery/index.js';
import { ControlDB, MemoryChangeFeed, MemoryControl, knowledgeForgetParticipant, withChangeActor, type ControlSessions, type ControlTextLog } from './control/index.js';

export interface MemorySystemOptions {
  /** The HomeAgent data folder. */
  homeDir: string;
  config: ConfigReader;
  /** Who is who across channels (decision 0090): scopes recall for people linked across platforms. */
  people?: PeopleDirectory;
  log?: PluginLogger;
  now?: () => number;
  /** The kernel's LLM (provider manager with fallback), for docToTriples, merge and review. */
  llm?: LlmLike;
  /**
   * Kernel hook to queue an internal consolidation input (merge loop). Returning the kernel's
   * ticket (`injectSelfInput`'s `{ done }`) lets the round's answer be applied automatically.
   */
  injectConsolidation?: (text: string, meta?: Record<string, unknown>) => ConsolidationTicket | unknown;
  /** Heartbeat scheduler (tests inject a ManualScheduler). */
  scheduler?: Scheduler;
  /** Tool cleaners for the context's vector text (C-3 `cleaner`). */
  cleaners?: CleanerLookup;
  /** Entity name of the user in distilled facts (default `user`). */
  speaker?: string;
  /** fetch used by the embedder for model downloads / the embeddings API. */
  fetch?: typeof fetch;
  /**
   * The session logs (SessionStore): at open, turns acknowledged before a crash but missing from
   * the tiers are replayed from them; `reindex` rebuilds the cold archive from them.
   */
  sessions?: SessionSource & Partial<Pick<ControlSessions, 'redact' | 'redactAll'>>;
  /** The raw conversation text log, redacted by forget (K-2). */
  textLog?: ControlTextLog;
}

/** At most one warning this often while pruned events cannot go to the documents. */
const PRUNE_WARN_MS = 10 * 60_000;
/** How long after a message the rule distiller reads it (messages said meanwhile are read in the same run). */
export const RULES_AFTER_MESSAGE_MS = 3_000;

const silent: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The memory subsystem assembled (T-1…T-10): embedder, context window, documents, graph,
 * indexer, social layer, knowledge base, rule distiller and the heartbeat loops. A tier that
 * fails to open is logged and left out (its tools and prompt slots disappear); the rest works.
 */
export class MemorySystem {
  readonly embedder: EmbedderService;
  readonly context: RelevanceContext;
  readonly docs: DocStore;
  /** The cold archive: documents that went cold, on disk, searchable, never deleted by ageing. */
  readonly archive: ColdArchive;
  /** One recall over every tier (K-1). */
  readonly recall: MemoryRecall;
  readonly graph: GraphDB;
  readonly indexer: Indexer;
  readonly knowledge: KnowledgeBase;
  readonly social: SocialService;
  readonly rules: RuleDistillPipeline;
  readonly heartbeats: HeartbeatLoops;
  /** Exclusion, forget and history (M-9, K-2, K-3): `host.memory-control`. */
  readonly control: MemoryControl;
  /**
   * The feed of `memory_changed` (decision 0260): every change recorded in the history, and the
   * writes that are not recorded (documents moved by the loops; graph and knowledge while the
   * history is down), coalesced per kind. The daemon puts its events on the bus.
   */
  readonly changes: MemoryChangeFeed;
  private readonly controlDb: ControlDB;
  private readonly log: PluginLogger;
  private offKnowledgeForget: (() => void) | undefined;
  private readonly up = { context: false, docs: false, archive: false, graph: false, knowledge: false, control: false };
  private opened = false;
  /** What the crash recovery at open replayed. */
  recovered: RecoveryResult | undefined;
  private prunedWarnAt = -Infinity;

  constructor(private readonly opts: MemorySystemOptions) {
    const home = opts.homeDir;
    const log = (this.log = opts.log ?? silent);
    const config = opts.config;
    this.embedder = new EmbedderService({ config, log, dataDir: home, fetch: opts.fetch });
    this.changes = new MemoryChangeFeed({ now: opts.now, log });
    this.controlDb = new ControlDB({ home, clock: opts.now, log });
    // Both turn tiers keep the days said inside each turn (decision 0160), read on the person's
    // calendar at the time the turn is stored (decision 0270).
    const zone = () => this.timeZone();
    const said = (text: string, time: number) => saidDays(text, time, zone());
    this.docs = new DocStore({ home, embedder: this.embedder, config, log, clock: opts.now, saidDays: said });
    this.archive = new ColdArchive({ home, tokenize: (t) => this.embedder.tokenize(t), log, clock: opts.now, saidDays: said });
    this.context = new RelevanceContext({
      home,
      embedder: this.embedder,
      config,
      log,
      clock: opts.now,
      cleaners: opts.cleaners,
      // M-9 / K-2: an event of an excluded turn is held aside with it, of a forgotten one dropped.
      admit: (e) => !this.up.control || this.control.admitEvent(e),
      onRefused: (e) => this.control.holdEvent(e),
      // A turn resumed after a kill (decision 0390) whose message recovery replayed and the window
      // already pruned: the copy in documents or the archive stays the only one.
      held: (turnId, kind) => (this.up.docs && this.docs.hasTurn(turnId, kind)) || (this.up.archive && this.archive.hasTurn(turnId, kind)),
      archive: (events) => this.takePruned(events),
      // A message is read by the rule distiller a few seconds after it is said (coalesced), besides
      // its interval tick: "About me" shows a fact just told without waiting ten minutes.
      onAppended: (e) => {
        if (e.kind === 'user') this.heartbeats.nudge('rules', RULES_AFTER_MESSAGE_MS);
      },
    });
    this.graph = new GraphDB({
      path: path.join(home, 'graph.db'),
      log,
      now: opts.now,
      onChange: (changes) => {
        if (this.up.control) this.control.onGraphChanges(changes);
        else for (const c of changes) this.changes.notify({ kind: c.kind });
      },
      admit: (triples) => (this.up.control ? this.control.admitTriples(triples) : triples),
    });
    this.indexer = new Indexer({
      graph: this.graph,
      keywords: this.embedder,
      embedder: this.embedder,
      depth: () => this.cfgNumber('core.memory.recall_depth', 2),
      rankedFacts: (input) => this.recall.search(input, { k: 20, tiers: ['graph'] }),
      scopeOf: (q) => recallScope(q, ownerIds(config), opts.people),
      factInScope: (r, scope) => this.recall.factInScope(r, scope),
      speakersOf: (relations) => factSpeakers(this.graph, relations, this.recall.participants(), ownerIds(config)),
      timeZone: zone,
      // "I" is the owner's entity for the owner, a participant's own for them (issue 15).
      selfEntity: (q) => (turnAudience(q.speaker, q.conversation, ownerIds(config), opts.people).owner ? (opts.speaker ?? 'user') : speakerEntity(q)),
      log,
    });
    this.social = new SocialService(this.graph);
    this.recall = new MemoryRecall({
      embedder: this.embedder,
      context: () => (this.up.context ? this.context : undefined),
      docs: () => (this.up.docs ? this.docs : undefined),
      archive: () => (this.up.archive ? this.archive : undefined),
      graph: () => (this.up.graph ? this.graph : undefined),
      now: opts.now,
      timeZone: zone,
      ownerIds: () => ownerIds(config),
      people: () => opts.people,
      log,
    });
    // Hand edits in the folder are indexed by its watcher; open views hear of them (0260), the
    // history does not record them (nothing knows who made them), as for the library's files.
    this.knowledge = new KnowledgeBase({ dir: path.join(home, 'knowledge'), log, onHandEdit: () => this.changes.notify({ kind: 'knowledge', actor: 'user' }) });

    this.rules = new RuleDistillPipeline({
      commit: (t) => (this.up.graph ? this.graph.commit(t) : 0),
      events: () => (this.up.context ? this.context.events() : []),
      statePath: path.join(home, 'distill-state.json'),
      retentionDays: () => this.cfgNumber('core.memory.rule_retention_days', 7),
      speaker: opts.speaker,
      now: opts.now,
      log,
    });
    this.control = new MemoryControl({
      db: this.controlDb,
      context: () => (this.up.context ? this.context : undefined),
      docs: () => (this.up.docs ? this.docs : undefined),
      archive: () => (this.up.archive ? this.archive : undefined),
      graph: () => (this.up.graph ? this.graph : undefined),
      knowledge: () => (this.up.knowledge ? this.knowledge : undefined),
      recall: this.recall,
      embedder: this.embedder,
      rules: this.rules,
      distill: (docs) => (this.up.graph ? this.distillRecovered(docs) : Promise.resolve(0)),
      sessions: opts.sessions,
      textLog: opts.textLog,
      asideCopies: () => asideCopies(home),
      homeDir: home,
      log,
      now: opts.now ?? Date.now,
    });
    // Every change of a knowledge entry is in the memory history (K-3), undoable like the library's.
    this.knowledge.onChange((c) => {
      if (this.up.control) this.control.recordKnowledge(c);
      else this.changes.notify({ kind: 'knowledge' });
    });
    // What the history records is what changed: one place every recorded change passes.
    this.control.onRecorded((changes) => this.changes.noteRecorded(changes));
    this.heartbeats = new HeartbeatLoops({
      config,
      scheduler: opts.scheduler,
      now: opts.now,
      log,
      llm: opts.llm,
      speaker: opts.speaker,
      injectConsolidation: opts.injectConsolidation,
      rules: { tick: () => (this.up.graph ? this.rules.tick() : Promise.resolve(undefined)) },
      context: { prune: (q) => this.context.prune(q), events: () => this.context.events() },
      graph: this.graph,
      docs: {
        findCold: (o) => (this.up.docs && this.up.archive ? this.coldDocuments(o.now, o.olderThanMs, o.maxAccess, o.limit) : []),
        archive: (ids) => this.moveToArchive(ids),
      },
    });
  }

  /**
   * Where the window's pruned events go: the documents; while they are unavailable (failed to
   * open, e.g. a database of a newer version after a downgrade) the cold archive, which recall
   * searches too; with neither, `false`: the window keeps them (it grows until a tier is back)
   * and a warning is logged at most every `PRUNE_WARN_MS`. Nothing acknowledged is thrown away.
   */
  private takePruned(events: ContextEvent[]): unknown {
    // A prune scores before it moves: a turn excluded or replaced meanwhile (decision 0550) is not
    // moved into the documents — its events are held with it, or dropped, as the window's gate does.
    if (this.up.control) events = events.filter((e) => this.control.admitEvent(e) || (this.control.holdEvent(e), false));
    const taken = this.putPruned(events);
    // The documents view lists what the window pruned (not recorded in the history: nothing was
    // learned or lost, the events moved a tier down).
    if (taken !== false && events.length) this.changes.notify({ kind: 'document' });
    return taken;
  }

  private putPruned(events: ContextEvent[]): unknown {
    if (this.up.docs) return this.docs.archiveEvents(events);
    const now = this.now();
    const warn = now - this.prunedWarnAt >= PRUNE_WARN_MS;
    if (warn) this.prunedWarnAt = now;
    if (this.up.archive) {
      const n = this.archive.putMany(events.map((e) => eventDocument(e, now)));
      if (warn) this.log.warn(`memory: documents are unavailable; pruned context events go to the cold archive instead (${n} now)`);
      return n;
    }
    if (warn) this.log.warn(`memory: documents and the cold archive are unavailable; the context window keeps its ${this.context.events().length} events instead of pruning ${events.length}`);
    return false;
  }

  /** Cold documents, then those beyond the warm tier's bound, oldest first (the archive loop's input). */
  private coldDocuments(now: number, olderThanMs: number, maxAccess: number, limit: number): DistillableDoc[] {
    const cold = this.docs.findCold(now, olderThanMs / 3_600_000, maxAccess);
    const ids = new Set(cold.map((d) => d.id));
    const over = this.docs.beyondBound(this.cfgNumber('core.memory.warm_max_docs', 5_000)).filter((d) => !ids.has(d.id));
    return [...cold, ...over].slice(0, limit).map((d) => ({ id: d.id, text: d.content, refs: d.refs, speaker: speakerEntity(d), speakerId: speakerIdOf(d), eventKind: d.eventKind, at: d.createdAt }));
  }

  /**
   * Moves warm documents to the cold archive: written to the archive first, then removed from the
   * warm tier, so a kill in between leaves a copy in both (counted once by recall), never none.
   */
  private moveToArchive(ids: readonly string[]): number {
    const docs = ids.map((id) => this.docs.get(id)).filter((d): d is MemoryDocument => d !== undefined);
    if (!docs.length) return 0;
    this.archive.putMany(docs, { vectors: docs.map((d) => this.docs.vectorOf(d.id)) });
    const n = this.docs.removeMany(docs.map((d) => d.id));
    // Not a change of what is remembered (the history does not record it), but of where: the
    // documents view lists the warm tier.
    this.changes.notify({ kind: 'document', ids: docs.map((d) => d.id) });
    return n;
  }

  /**
   * The person's time zone: `core.agent.timezone` resolved (the system's when unset; decision 0270).
   * Days said inside turns are resolved in it when stored, the days a query names when asked.
   */
  timeZone(): string {
    try {
      return resolveTimeZone(this.opts.config.get(TIME_ZONE_KEY));
    } catch {
      return resolveTimeZone('');
    }
  }

  private cfgNumber(key: string, fallback: number): number {
    try {
      const v = this.opts.config.get(key);
      return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
    } catch {
      return fallback;
    }
  }

  private async tryOpen(name: keyof MemorySystem['up'], fn: () => unknown): Promise<void> {
    try {
      await fn();
      this.up[name] = true;
    } catch (e) {
      this.log.error(`memory: the ${name} tier could not be opened and is disabled: ${(e as Error).message}`, { stack: (e as Error).stack });
    }
  }

  /** Opens every tier (each failure is logged and isolates only that tier). Idempotent. */
  async open(): Promise<void> {
    if (this.opened) return;
    this.opened = true;
    const t0 = Date.now();
    await this.embedder.start();
    // First: every tier consults the exclusion gate and the tombstones as it opens and recovers.
    await this.tryOpen('control', () => this.controlDb.open());
    if (this.up.control) this.control.ageOwed();
    await this.openTiers();
    if (this.up.control) await this.applySalvagedTombstones();
    this.log.info('memory tiers open', { ms: Date.now() - t0, context: this.up.context ? this.context.events().length : -1, documents: this.up.docs ? this.docs.size : -1, archived: this.up.archive ? this.archive.size : -1 });
  }

  /** True when a tier holds the event of this kind of this turn (recovery, reindex). */
  private holdsTurn(turnId: string, eventKind: 'user' | 'agent'): boolean {
    // An excluded or forgotten turn counts as held: recovery and reindex must not bring it back.
    if (this.up.control && this.control.blocks(turnId)) return true;
    if (this.up.context && this.context.events().some((e) => e.kind === eventKind && e.refs?.[0] === turnId)) return true;
    if (this.up.docs && this.docs.hasTurn(turnId, eventKind)) return true;
    return this.up.archive && this.archive.hasTurn(turnId, eventKind);
  }

  /**
   * Start-up repair (§9 durability): events of the saved window that were pruned into the
   * documents after the last save are dropped from the window (the documents hold them), then turns
   * the session logs acknowledged but no tier holds are replayed (see `recoverContext`).
   */
  private async recover(): Promise<void> {
    if (this.up.docs) {
      const stale = this.context.events().filter((e) => this.docs.has(e.id)).map((e) => e.id);
      if (stale.length) this.context.removeIds(stale);
    }
    if (!this.opts.sessions) return;
    try {
      this.recovered = await recoverContext({ sessions: this.opts.sessions, context: this.context, present: (t, k) => this.holdsTurn(t, k), now: this.now, log: this.log });
    } catch (e) {
      this.log.error(`memory: recovery from the session logs failed: ${(e as Error).message}`, { stack: (e as Error).stack });
    }
  }

  /**
   * `waiter memory reindex`: rebuilds the cold archive from the session logs — every user message
   * and reply no tier holds is archived (idempotent; progress after each session).
   */
  async reindex(onProgress?: (p: ReindexProgress) => void): Promise<ReindexProgress> {
    if (!this.opts.sessions) throw new HomeAgentError('MEMORY_UNAVAILABLE', 'reindex needs the session logs', { retryable: false });
    if (!this.up.archive) throw new HomeAgentError('MEMORY_UNAVAILABLE', 'the cold archive is not available', { retryable: true });
    const distill = this.up.graph ? (docs: MemoryDocument[]) => this.distillRecovered(docs) : undefined;
    return reindexArchive({ sessions: this.opts.sessions, archive: this.archive, present: (t, k) => this.holdsTurn(t, k), now: this.now, onProgress, log: this.log, distill });
  }

  /** Today's rules over turns a reindex brought back; a fact already citing that turn is left as it is. */
  private async distillRecovered(docs: MemoryDocument[]): Promise<number> {
    let n = 0;
    for (const d of docs) {
      const triples = await docToTriples({ id: d.id, text: d.content, refs: d.refs, speaker: speakerEntity(d), speakerId: speakerIdOf(d), eventKind: d.eventKind, at: d.createdAt }, { speaker: this.opts.speaker, log: this.log });
      const fresh = triples.filter((t) => {
        const cites = new Set(t.refs ?? []);
        return !this.graph.relationsOf(t.subject, t.predicate).some((r) => r.object.toLowerCase() === t.object.toLowerCase() && this.graph.sourcesOf(r.id).some((s) => cites.has(s.ref)));
      });
      if (fresh.length) n += this.graph.commit(fresh);
    }
    return n;
  }

  private get now(): () => number {
    return this.opts.now ?? Date.now;
  }

  /** Stops the loops, flushes the context, closes the databases. Idempotent. */
  async close(): Promise<void> {
    if (!this.opened) return;
    this.opened = false;
    this.stopHeartbeats();
    this.changes.cancel();
    this.offKnowledgeForget?.();
    this.offKnowledgeForget = undefined;
    await this.closeTiers();
    if (this.up.control) await this.closeStep('memory control', () => this.controlDb.close());
    await this.closeStep('embedder', () => this.embedder.stop());
    for (const k of Object.keys(this.up) as (keyof MemorySystem['up'])[]) this.up[k] = false;
  }

  /** Closes one part, logging (not throwing) a failure: the other parts still close. */
  private async closeStep(what: string, fn: () => unknown): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.log.error(`memory: closing ${what} failed: ${(e as Error).message}`);
    }
  }

  /**
   * Opens the five tiers that hold memory (after the memory-control database), loads the distiller's
   * marks, replays what the session logs hold past the window, and sweeps excluded turns aside again
   * (a kill just before, or an import, may have left one in a tier).
   */
  private async openTiers(): Promise<void> {
    await this.tryOpen('docs', () => this.docs.open());
    await this.tryOpen('archive', () => this.archive.open());
    await this.tryOpen('context', () => this.context.start());
    await this.tryOpen('graph', () => this.graph.open());
    await this.tryOpen('knowledge', () => this.knowledge.open());
    if (this.up.graph) await this.rules.load();
    if (this.up.context) await this.recover();
    // The knowledge base takes part in forget (K-2): entries the agent or the person wrote — before
    // `reconcile`, so a forget cut off and finished there reaches it too (decision 0410).
    if (this.up.control && this.up.knowledge && !this.offKnowledgeForget) this.offKnowledgeForget = this.control.registerForgetParticipant('knowledge', knowledgeForgetParticipant(this.knowledge));
    if (this.up.control) await this.control.reconcile();
  }

  /**
   * After memory-control.db was salvaged at this open (decision 0280): what the tiers and logs
   * still hold of the turns, facts and notes the tombstones read back name is forgotten again — as
   * an import's tombstones are applied — so a forget that was cut short, or a log or tier restored
   * from an older copy, does not keep it.
   */
  private async applySalvagedTombstones(): Promise<void> {
    const s = this.controlDb.setAside?.salvaged;
    if (!s?.tombstones) return;
    try {
      // By id only: a text tombstone also names every other turn that says the same words (a
      // forgotten turn's "Noted."), and no one asked for a forget at this start. An import, which
      // the person starts, applies them all.
      const r = await this.control.applyTombstones({ actor: 'user', tool: 'salvage' }, { byContent: false });
      if (r) this.log.warn(`memory control: the tombstones read back from the damaged memory-control.db were applied again: forgot ${r.turns} turns, ${r.relations} facts, ${r.documents + r.archived} documents that the tiers still held`);
    } catch (e) {
      this.log.error(`memory control: applying the salvaged tombstones failed: ${(e as Error).message}`);
    }
  }

  /** Closes the five tiers that hold memory (not the memory-control database nor the embedder). */
  private async closeTiers(): Promise<void> {
    if (this.up.context) await this.closeStep('context', () => this.context.stop());
    if (this.up.docs) await this.closeStep('documents', () => this.docs.close());
    if (this.up.archive) await this.closeStep('archive', () => this.archive.close());
    if (this.up.graph) await this.closeStep('graph', () => this.graph.close());
    if (this.up.knowledge) await this.closeStep('knowledge', () => this.knowledge.close());
    for (const k of ['context', 'docs', 'archive', 'graph', 'knowledge'] as const) this.up[k] = false;
  }

  /** Which tiers are up. */
  status(): { context: boolean; docs: boolean; archive: boolean; graph: boolean; knowledge: boolean; control: boolean; heartbeats: Partial<Record<LoopName, LoopStatus>> } {
    return { ...this.up, heartbeats: { ...this.heartbeats.lastRun } };
  }

  /**
   * The memory stores found corrupt and set aside when this process opened them (the old file is
   * kept as `*.corrupt-<time>`; an empty store took its place), for the daemon's status.
   */
  setAside(): SetAsideStore[] {
    const reindex = 'waiter memory reindex';
    const parts: [string, { file: string; at: number; salvaged?: SetAsideStore['salvaged'] } | undefined, string?][] = [
      ['memory-control', this.controlDb.setAside],
      ['context', this.context.setAside],
      ['documents', this.docs.setAside, reindex],
      ['archive', this.archive.setAside, reindex],
      ['graph', this.graph.setAside],
    ];
    return parts.flatMap(([store, a, recover]) => (a ? [{ store, file: a.file, at: a.at, ...(recover ? { recover } : {}), ...(a.salvaged ? { salvaged: { ...a.salvaged } } : {}) }] : []));
  }

  /** Memory, document, social and knowledge tools — each group only while its tier is up (C-5). */
  /**
   * The conversations a tool call may read memory from (R-5, decision 0360): the scope the kernel
   * put on the call, else the same rule computed from its speaker and place (a direct caller).
   */
  private toolScope(call: ToolInvocation): readonly string[] | undefined {
    return call.scope ?? recallScope(call, ownerIds(this.opts.config), this.opts.people);
  }

  tools(): ToolDef[] {
    const out: ToolDef[] = [];
    if (this.up.graph) {
      out.push(
        ...graphTools({
          graph: this.graph,
          indexer: this.indexer,
          docs: this.up.docs ? this.docs : undefined,
          context: this.up.context ? this.context : undefined,
          recall: this.recall,
          recallDepth: () => this.cfgNumber('core.memory.recall_depth', 2),
          introspect: () => ({ embedder: this.embedder.modelId(), archived: this.up.archive ? this.archive.size : undefined, heartbeats: this.heartbeats.lastRun }),
          timeZone: () => this.timeZone(),
          scopeOf: (call) => this.toolScope(call),
          factInScope: (r, scope) => this.recall.factInScope(r, scope),
        }),
        ...socialTools(this.social, () => this.timeZone()),
      );
    }
    if (this.up.docs && this.up.context) {
      // A note the agent saves is in the history as its change, with its turn (K-3), and undoable.
      const docs = {
        commit: (content: string, extra?: Parameters<DocStore['commit']>[1]) => {
          const doc = this.docs.commit(content, extra);
          if (this.up.control) this.control.recordDocument('create', doc, this.docs.vectorOf(doc.id));
          return doc;
        },
      };
      out.push(...docTools({ docs, context: this.context, recall: this.recall, timeZone: () => this.timeZone(), scopeOf: (call) => this.toolScope(call) }));
    }
    if (this.up.knowledge) out.push(...knowledgeTools(this.knowledge, () => this.timeZone()));
    // What a tool changes is recorded as the agent's by the kernel's tool scope (the daemon's).
    return out;
  }

  /** Prompt-slot providers: memory_index (T-5), related_documents (T-3), knowledge (T-10). */
  promptSlots(): Partial<Record<PromptSlot, PromptSlotProvider>> {
    const slots: Partial<Record<PromptSlot, PromptSlotProvider>> = {};
    if (this.up.graph) slots.memory_index = this.indexer.slot();
    if (this.up.docs || this.up.archive) slots.related_documents = relatedDocumentsSlot(this.recall, { config: this.opts.config, people: this.opts.people });
    if (this.up.knowledge) slots.knowledge = this.knowledge.slot();
    return slots;
  }

  private requireGraph(): GraphDB {
    if (!this.up.graph) throw new HomeAgentError('MEMORY_UNAVAILABLE', 'the memory graph is not available', { retryable: true });
    return this.graph;
  }

  /** sdk.memory() (P-1). */
  memoryAPI(): MemoryAPI {
    return {
      recall: async (keywords, depth) => this.requireGraph().recall(keywords, depth ?? this.cfgNumber('core.memory.recall_depth', 2)),
      commit: async (triples) => this.requireGraph().commit(triples),
      embed: async (texts) => (await this.embedder.embed(texts)).map((v) => (v ? Array.from(v) : null)),
      embeddingModel: async () => this.embedder.modelId(),
    };
  }

  /** sdk.knowledge() (P-1). */
  knowledgeAPI(): KnowledgeAPI {
    const ok = () => {
      if (!this.up.knowledge) throw new HomeAgentError('KNOWLEDGE_UNAVAILABLE', 'the knowledge base is not available', { retryable: true });
      return this.knowledge;
    };
    return {
      search: async (q, limit) => ok().search(q, limit),
      create: async (name, content) => ok().create(name, content),
      list: async () => ok().list(),
    };
  }

  /** sdk.social() (P-1, T-7). */
  socialAPI(): SocialAPI {
    const ok = () => {
      this.requireGraph();
      return this.social;
    };
    return {
      getPerson: async (n) => ok().getPerson(n),
      getTrait: async (n, t) => ok().getTrait(n, t),
      getRelations: async (n) => ok().getRelations(n),
      getNetwork: async (n, d) => ok().getNetwork(n, d),
      listPersons: async () => ok().listPersons(),
      setTrait: async (n, t, v) => ok().setTrait(n, t, v),
      relate: async (a, r, b) => ok().relate(a, r, b),
    };
  }

  /** The restricted SDK's social view (P-3): read methods only. */
  socialReadAPI(): SocialReadAPI {
    const full = this.socialAPI();
    return { getPerson: full.getPerson, getTrait: full.getTrait, getRelations: full.getRelations, getNetwork: full.getNetwork, listPersons: full.listPersons };
  }

  /** Starts the four heartbeat loops and the rule-distiller tick. */
  startHeartbeats(): void {
    this.heartbeats.start();
  }

  stopHeartbeats(): void {
    this.heartbeats.stop();
  }

  /**
   * Holds the heartbeat loops for work that changes the tiers underneath them (an import, K-5):
   * stops scheduling them, waits for runs in flight, and returns the release, which schedules
   * them again if they were running.
   */
  async holdLoops(): Promise<() => void> {
    const wasRunning = this.heartbeats.started;
    this.heartbeats.stop();
    await this.heartbeats.idle();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (wasRunning && this.opened) this.heartbeats.start();
    };
  }

  /**
   * Runs `fn` with the tiers closed (context flushed and stopped, documents, archive, graph and
   * knowledge closed; the embedder keeps running), then opens them again and runs start-up
   * recovery. An import swaps the tier files inside `fn` (K-5); while it runs, recall skips the
   * tiers and writes to them fail instead of being lost. Hold the loops and the agent first.
   */
  async withTiersClosed<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.opened) return fn();
    // The memory-control database stays open: the tiers consult it as they reopen.
    await this.closeTiers();
    try {
      return await fn();
    } finally {
      // Whatever `fn` put in their place was never swept of replaced turns (decision 0600).
      if (this.up.control) {
        try {
          this.control.tiersSwapped();
        } catch (e) {
          this.log.error(`memory control: marking replaced turns to be swept again failed: ${(e as Error).message}`);
        }
      }
      await this.openTiers();
    }
  }

  /** Keeps entities a tool returned in `turnId` out of that turn's 【记忆索引】. */
  markRecalled(entityNames: readonly string[], turnId: string): void {
    this.indexer.markRecalled(entityNames, turnId);
  }

  /** The kernel calls this with the final answer of a consolidation round (meta as injected). */
  onConsolidationAnswer(answer: { text: string; toolCalls?: { name: string; arguments: string }[] }, meta?: Record<string, unknown>): MergeOutcome {
    return withChangeActor({ actor: 'heartbeat', tool: 'merge' }, () => this.heartbeats.onConsolidationAnswer(answer, meta));
  }
}

/**
 * Copies set aside as damaged that may hold what was said: forget blanks in them too (K-2,
 * decision 0400) — session logs and `context.json`, the memory databases (with their `-wal`), and
 * the JSON files of plugins (the plan, timers) anywhere in the data folder but `media/`.
 */
function asideCopies(home: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < 4 && !(depth === 0 && e.name === 'media') && e.name !== 'node_modules') walk(p, depth + 1);
      } else if (e.isFile() && /\.corrupt-\d/.test(e.name) && !e.name.endsWith('-shm')) out.push(p);
    }
  };
  walk(home, 0);
  return out;
}
