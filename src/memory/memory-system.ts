import path from 'node:path';
import type { ConfigReader, KnowledgeAPI, MemoryAPI, PluginLogger, PromptSlot, PromptSlotProvider, SocialAPI, SocialReadAPI, ToolDef } from '../spec/index.js';
import { HomeAgentError } from '../spec/index.js';
import { KnowledgeBase, knowledgeTools } from '../knowledge/index.js';
import { EmbedderService } from './embedder/index.js';
import { RelevanceContext, type CleanerLookup } from './context/index.js';
import { DocStore, reappendAsColdStorage, relatedDocumentsSlot } from './documents/index.js';
import { GraphDB } from './graph/index.js';
import { Indexer } from './indexer/index.js';
import { RuleDistillPipeline, type LlmLike } from './distill/index.js';
import { SocialService } from './social/index.js';
import { docTools, graphTools, socialTools } from './tools/index.js';
import { HeartbeatLoops, type ConsolidationTicket, type LoopName, type LoopStatus, type MergeOutcome, type Scheduler } from './heartbeat/index.js';

export interface MemorySystemOptions {
  /** The HomeAgent data folder. */
  homeDir: string;
  config: ConfigReader;
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
}

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
  readonly graph: GraphDB;
  readonly indexer: Indexer;
  readonly knowledge: KnowledgeBase;
  readonly social: SocialService;
  readonly rules: RuleDistillPipeline;
  readonly heartbeats: HeartbeatLoops;
  private readonly log: PluginLogger;
  private readonly up = { context: false, docs: false, graph: false, knowledge: false };
  private opened = false;

  constructor(private readonly opts: MemorySystemOptions) {
    const home = opts.homeDir;
    const log = (this.log = opts.log ?? silent);
    const config = opts.config;
    this.embedder = new EmbedderService({ config, log, dataDir: home, fetch: opts.fetch });
    this.docs = new DocStore({ home, embedder: this.embedder, config, log, clock: opts.now });
    this.context = new RelevanceContext({
      home,
      embedder: this.embedder,
      config,
      log,
      clock: opts.now,
      cleaners: opts.cleaners,
      archive: (events) => {
        if (this.up.docs) return this.docs.archiveEvents(events);
        log.warn(`memory: documents are unavailable; ${events.length} pruned context events were not archived`);
        return undefined;
      },
    });
    this.graph = new GraphDB({ path: path.join(home, 'graph.db'), log, now: opts.now });
    this.indexer = new Indexer({ graph: this.graph, keywords: this.embedder, embedder: this.embedder, depth: () => this.cfgNumber('core.memory.recall_depth', 2), log });
    this.social = new SocialService(this.graph);
    this.knowledge = new KnowledgeBase({ dir: path.join(home, 'knowledge'), log });
    this.rules = new RuleDistillPipeline({
      commit: (t) => (this.up.graph ? this.graph.commit(t) : 0),
      events: () => (this.up.context ? this.context.events() : []),
      statePath: path.join(home, 'distill-state.json'),
      retentionDays: () => this.cfgNumber('core.memory.rule_retention_days', 7),
      speaker: opts.speaker,
      now: opts.now,
      log,
    });
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
        findCold: (o) =>
          this.up.docs
            ? this.docs
                .findCold(o.now, o.olderThanMs / 3_600_000, o.maxAccess)
                .slice(0, o.limit)
                .map((d) => ({ id: d.id, text: d.content, refs: d.refs }))
            : [],
        remove: (id) => this.docs.remove(id),
      },
    });
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
    await this.embedder.start();
    await this.tryOpen('docs', () => this.docs.open());
    await this.tryOpen('context', () => this.context.start());
    await this.tryOpen('graph', () => this.graph.open());
    await this.tryOpen('knowledge', () => this.knowledge.open());
    if (this.up.graph) await this.rules.load();
  }

  /** Stops the loops, flushes the context, closes the databases. Idempotent. */
  async close(): Promise<void> {
    if (!this.opened) return;
    this.opened = false;
    this.stopHeartbeats();
    const step = async (what: string, fn: () => unknown) => {
      try {
        await fn();
      } catch (e) {
        this.log.error(`memory: closing ${what} failed: ${(e as Error).message}`);
      }
    };
    if (this.up.context) await step('context', () => this.context.stop());
    if (this.up.docs) await step('documents', () => this.docs.close());
    if (this.up.graph) await step('graph', () => this.graph.close());
    if (this.up.knowledge) await step('knowledge', () => this.knowledge.close());
    await step('embedder', () => this.embedder.stop());
    for (const k of Object.keys(this.up) as (keyof MemorySystem['up'])[]) this.up[k] = false;
  }

  /** Which tiers are up. */
  status(): { context: boolean; docs: boolean; graph: boolean; knowledge: boolean; heartbeats: Partial<Record<LoopName, LoopStatus>> } {
    return { ...this.up, heartbeats: { ...this.heartbeats.lastRun } };
  }

  /** Memory, document, social and knowledge tools — each group only while its tier is up (C-5). */
  tools(): ToolDef[] {
    const out: ToolDef[] = [];
    if (this.up.graph) {
      out.push(
        ...graphTools({
          graph: this.graph,
          indexer: this.indexer,
          docs: this.up.docs ? this.docs : undefined,
          context: this.up.context ? this.context : undefined,
          recallDepth: () => this.cfgNumber('core.memory.recall_depth', 2),
          introspect: () => ({ embedder: this.embedder.modelId(), heartbeats: this.heartbeats.lastRun }),
        }),
        ...socialTools(this.social),
      );
    }
    if (this.up.docs && this.up.context) {
      out.push(...docTools({ docs: this.docs, context: this.context, reappend: (docs, ctx) => reappendAsColdStorage(docs as unknown as Parameters<typeof reappendAsColdStorage>[0], ctx) }));
    }
    if (this.up.knowledge) out.push(...knowledgeTools(this.knowledge));
    return out;
  }

  /** Prompt-slot providers: memory_index (T-5), related_documents (T-3), knowledge (T-10). */
  promptSlots(): Partial<Record<PromptSlot, PromptSlotProvider>> {
    const slots: Partial<Record<PromptSlot, PromptSlotProvider>> = {};
    if (this.up.graph) slots.memory_index = this.indexer.slot();
    if (this.up.docs) slots.related_documents = relatedDocumentsSlot(this.docs, { config: this.opts.config });
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

  /** Keeps entities a tool returned in `turnId` out of that turn's 【记忆索引】. */
  markRecalled(entityNames: readonly string[], turnId: string): void {
    this.indexer.markRecalled(entityNames, turnId);
  }

  /** The kernel calls this with the final answer of a consolidation round (meta as injected). */
  onConsolidationAnswer(answer: { text: string; toolCalls?: { name: string; arguments: string }[] }, meta?: Record<string, unknown>): MergeOutcome {
    return this.heartbeats.onConsolidationAnswer(answer, meta);
  }
}
