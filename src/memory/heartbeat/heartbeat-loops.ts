import type { ConfigReader, ConfigValue, ContextEvent, PluginLogger } from '../../spec/index.js';
import { parseDuration } from '../../config/index.js';
import type { GraphDB } from '../graph/index.js';
import type { DistillableDoc, LlmLike, MergeCandidate } from '../distill/index.js';
import { docToTriples, findMergeCandidates } from '../distill/index.js';
import { applyMergeAnswer, decideMerge, mergePrompt, type MergeOutcome } from './merge-decider.js';
import { reviewRelations } from './relation-reviewer.js';
import { timerScheduler, type Scheduler } from './scheduler.js';
import { withChangeActor } from '../control/index.js';

/** The documents the archive loop distills (DocStore's cold half) and where they go then. */
export interface ColdDocSource {
  /** Cold documents (and those beyond the warm tier's bound), oldest first, at most `limit`. */
  findCold(opts: { olderThanMs: number; maxAccess: number; now: number; limit: number }): DistillableDoc[] | Promise<DistillableDoc[]>;
  /** Moves documents to the cold archive: they leave the warm tier and stay searchable on disk. */
  archive(ids: string[]): unknown;
}

/** What the distill loop needs of the context window. */
export interface PrunableContext {
  prune(query: string): Promise<void>;
  events(): readonly ContextEvent[];
}

/** What `injectConsolidation` may return: the outcome of the consolidation turn. */
export type ConsolidationTicket = { done?: Promise<{ text?: string; status?: string } | undefined> } | undefined;

export type LoopName = 'distill' | 'archive' | 'merge' | 'review' | 'rules';

/** Config key and default interval of each loop (T-8, T-9). */
export const LOOP_INTERVALS: Record<LoopName, { key: string; default: string }> = {
  distill: { key: 'core.memory.distill_interval', default: '30m' },
  archive: { key: 'core.memory.archive_interval', default: '60m' },
  merge: { key: 'core.memory.merge_interval', default: '120m' },
  review: { key: 'core.memory.review_interval', default: '120m' },
  rules: { key: 'core.memory.rule_distill_interval', default: '10m' },
};

export interface HeartbeatDeps {
  config: ConfigReader;
  scheduler?: Scheduler;
  now?: () => number;
  log?: PluginLogger;
  context?: PrunableContext;
  docs?: ColdDocSource;
  graph?: GraphDB;
  llm?: LlmLike;
  /** The rule distiller's tick (T-9). */
  rules?: { tick(): Promise<unknown> };
  /**
   * Kernel hook: queue an internal consolidation input (seed: selfInputCh). When it returns the
   * kernel's ticket (`{ done: Promise<{ text }> }`, as `injectSelfInput` does), the round's final
   * answer is applied automatically; otherwise the kernel calls `onConsolidationAnswer`.
   */
  injectConsolidation?: (text: string, meta?: Record<string, unknown>) => ConsolidationTicket | unknown;
  speaker?: string;
}

export interface LoopStatus {
  at: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

const HOUR = 3_600_000;
/** Cold documents an archive run distills with the LLM (the rest of the batch: rules). */
export const ARCHIVE_LLM_CALLS = 20;

/**
 * The four independent memory heartbeats plus the rule-distiller tick, each on its own
 * interval from config (hot: a changed interval reschedules its loop). A loop never overlaps
 * itself; a failing run is logged and the loop goes on.
 */
export class HeartbeatLoops {
  private cancels = new Map<LoopName, () => void>();
  private running = new Set<LoopName>();
  /** Bodies in flight, so {@link idle} can wait for them. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private offConfig: (() => void) | undefined;
  private readonly pending = new Map<string, number>();
  /** One-shot runs asked for by {@link nudge}, not yet run (their cancels). */
  private readonly nudges = new Map<LoopName, () => void>();
  private similar: { version: string; pairs: MergeCandidate[] } | undefined;
  readonly lastRun: Partial<Record<LoopName, LoopStatus>> = {};
  private readonly now: () => number;

  constructor(private readonly deps: HeartbeatDeps) {
    this.now = deps.now ?? Date.now;
  }

  private get scheduler(): Scheduler {
    return this.deps.scheduler ?? timerScheduler;
  }

  private cfg<T extends ConfigValue>(key: string, fallback: T): T {
    try {
      const v = this.deps.config.get<T>(key);
      return v === undefined || v === null ? fallback : v;
    } catch {
      return fallback;
    }
  }

  /** The loop's interval in ms (an invalid configured value falls back to the default). */
  intervalOf(name: LoopName): number {
    const { key, default: d } = LOOP_INTERVALS[name];
    const raw = this.cfg<ConfigValue>(key, d);
    try {
      return typeof raw === 'number' ? raw : parseDuration(String(raw));
    } catch {
      this.deps.log?.warn(`invalid ${key} ${JSON.stringify(raw)}; using ${d}`);
      return parseDuration(d);
    }
  }

  /** Loops whose subsystems are present. */
  enabledLoops(): LoopName[] {
    const d = this.deps;
    const out: LoopName[] = [];
    if (d.context) out.push('distill');
    if (d.docs && d.graph) out.push('archive');
    if (d.graph) out.push('merge', 'review');
    if (d.rules) out.push('rules');
    return out;
  }

  /** Schedules every enabled loop. Calling it twice does nothing. */
  start(): void {
    if (this.offConfig) return;
    for (const name of this.enabledLoops()) this.schedule(name);
    this.offConfig = this.deps.config.onChange((key) => {
      const name = (Object.keys(LOOP_INTERVALS) as LoopName[]).find((n) => LOOP_INTERVALS[n].key === key);
      if (name && this.cancels.has(name)) this.schedule(name);
    }, 'core.memory');
  }

  private schedule(name: LoopName): void {
    this.cancels.get(name)?.();
    this.cancels.set(name, this.scheduler.every(this.intervalOf(name), () => this.runOnce(name).then(() => undefined)));
  }

  /**
   * Asks for one run of a scheduled loop `delayMs` from now, besides its interval — the rule
   * distiller after a message, so a fact just said is in the graph within seconds rather than at the
   * next tick. Nudges coalesce: while one is pending another does nothing. A loop that is not
   * scheduled (stopped, held for an import, not enabled) is not nudged.
   */
  nudge(name: LoopName, delayMs: number): void {
    if (!this.cancels.has(name) || this.nudges.has(name)) return;
    const after = this.scheduler.after?.bind(this.scheduler);
    if (!after) return;
    this.nudges.set(
      name,
      after(delayMs, async () => {
        this.nudges.delete(name);
        if (this.cancels.has(name)) await this.runOnce(name);
      }),
    );
  }

  /** Cancels every loop. Safe to call twice. */
  stop(): void {
    for (const cancel of this.cancels.values()) cancel();
    this.cancels.clear();
    for (const cancel of this.nudges.values()) cancel();
    this.nudges.clear();
    this.offConfig?.();
    this.offConfig = undefined;
  }

  /** True while loops are scheduled. */
  get started(): boolean {
    return this.offConfig !== undefined;
  }

  /** Runs one loop body now (skipped while the same loop is still running). */
  async runOnce(name: LoopName): Promise<LoopStatus | undefined> {
    if (this.running.has(name)) return undefined;
    this.running.add(name);
    const at = this.now();
    let run: Promise<unknown>;
    try {
      // Whatever a loop changes is the heartbeat's in the memory history (K-3).
      run = withChangeActor({ actor: 'heartbeat', tool: name }, () => this.body(name));
    } catch (e) {
      run = Promise.reject(e);
    }
    this.inFlight.add(run);
    try {
      const result = await run;
      this.lastRun[name] = { at, ok: true, result };
    } catch (e) {
      this.deps.log?.error(`memory heartbeat "${name}" failed: ${(e as Error).message}`, { stack: (e as Error).stack });
      this.lastRun[name] = { at, ok: false, error: (e as Error).message };
    } finally {
      this.running.delete(name);
      this.inFlight.delete(run);
    }
    return this.lastRun[name];
  }

  /** Resolves when no loop body is running (e.g. after `stop()`, before an import changes the tiers). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private body(name: LoopName): Promise<unknown> {
    switch (name) {
      case 'distill':
        return this.distillContext();
      case 'archive':
        return this.archiveColdDocs();
      case 'merge':
        return this.detectEntityMerge();
      case 'review':
        return reviewRelations(this.deps.graph as GraphDB, this.deps.llm, { log: this.deps.log });
      case 'rules':
        return this.deps.rules?.tick() ?? Promise.resolve(undefined);
    }
  }

  /** distillLoop: prune the context against the latest user input; pruned events go to Documents. */
  async distillContext(): Promise<{ before: number; after: number }> {
    const ctx = this.deps.context;
    if (!ctx) return { before: 0, after: 0 };
    const events = ctx.events();
    const lastInput = [...events].reverse().find((e) => e.kind === 'user')?.input ?? '';
    await ctx.prune(lastInput);
    return { before: events.length, after: ctx.events().length };
  }

  /**
   * archiveLoop: cold documents → docToTriples → graph, then their text moves to the cold archive
   * (never deleted: ageing keeps everything searchable). At most `core.memory.archive_batch`
   * documents a run; with an LLM, at most ARCHIVE_LLM_CALLS of them are distilled by it and the
   * rest by the rules, so a backlog never waits on the model. A document whose distillation
   * fails stays warm and is tried again next run.
   */
  async archiveColdDocs(): Promise<{ docs: number; triples: number }> {
    const { docs, graph } = this.deps;
    if (!docs || !graph) return { docs: 0, triples: 0 };
    const cold = await docs.findCold({
      olderThanMs: this.cfg<number>('core.memory.cold_after_hours', 72) * HOUR,
      maxAccess: this.cfg<number>('core.memory.cold_max_access', 2),
      now: this.now(),
      limit: Math.max(1, this.cfg<number>('core.memory.archive_batch', 500)),
    });
    const done: string[] = [];
    let triples = 0;
    let llmCalls = 0;
    for (const doc of cold) {
      try {
        const useLlm = llmCalls < ARCHIVE_LLM_CALLS && this.deps.llm?.available() === true;
        if (useLlm) llmCalls++;
        const t = await docToTriples(doc, { llm: useLlm ? this.deps.llm : undefined, speaker: this.deps.speaker, log: this.deps.log });
        if (t.length) triples += graph.commit(t);
        done.push(doc.id);
      } catch (e) {
        this.deps.log?.warn('archive: a cold document could not be distilled; kept', { doc: doc.id, error: (e as Error).message });
      }
    }
    if (done.length) await docs.archive(done);
    return { docs: done.length, triples };
  }

  /** Merge candidates not yet decided nor waiting for a consolidation answer. */
  mergeCandidates(): MergeCandidate[] {
    const graph = this.deps.graph;
    if (!graph) return [];
    const t = this.now();
    for (const [k, at] of this.pending) if (t - at > 24 * HOUR) this.pending.delete(k);
    const threshold = this.cfg<number>('core.memory.merge_threshold', 0.75);
    // The similar-name search reads every name: done again only when the entities changed.
    const version = `${graph.entityVersion()}|${threshold}`;
    if (!this.similar || this.similar.version !== version) this.similar = { version, pairs: findMergeCandidates(graph.entityNames(5000), threshold, 50) };
    return this.similar.pairs.filter((c) => !graph.hasMergeDecision(c.a, c.b) && !this.pending.has(pairKey(c))).slice(0, 10);
  }

  /**
   * mergeLoop: similar entity names → an internal consolidation input when the kernel offers
   * one (the LLM answers with memory_merge calls or JSON), else the direct `decideMerge` path.
   */
  async detectEntityMerge(): Promise<{ candidates: number; via: 'consolidation' | 'direct' | 'none'; outcome?: MergeOutcome }> {
    const candidates = this.mergeCandidates();
    if (!candidates.length) return { candidates: 0, via: 'none' };
    if (this.deps.injectConsolidation) {
      for (const c of candidates) this.pending.set(pairKey(c), this.now());
      const meta = { kind: 'memory_merge', candidates };
      const ticket = this.deps.injectConsolidation(mergePrompt(candidates), meta);
      const done = ticket && typeof ticket === 'object' ? (ticket as NonNullable<ConsolidationTicket>).done : undefined;
      if (done && typeof done.then === 'function') {
        done.then(
          (out) => this.applyConsolidation({ text: typeof out?.text === 'string' && out.status !== 'aborted' ? out.text : '' }, meta),
          (e: unknown) => this.applyConsolidation({ text: '' }, meta, e),
        );
      }
      return { candidates: candidates.length, via: 'consolidation' };
    }
    if (!this.deps.llm?.available()) return { candidates: candidates.length, via: 'none' };
    const outcome = await decideMerge(candidates, this.deps.llm, this.deps.graph as GraphDB, this.deps.log);
    return { candidates: candidates.length, via: 'direct', outcome };
  }

  private applyConsolidation(answer: { text: string }, meta: Record<string, unknown>, error?: unknown): void {
    if (error) this.deps.log?.warn('merge: the consolidation round failed', { error: (error as Error)?.message });
    try {
      this.onConsolidationAnswer(answer, meta);
    } catch (e) {
      this.deps.log?.warn('merge: could not apply the consolidation answer', { error: (e as Error).message });
    }
  }

  /**
   * Applies the answer of a consolidation round started by the merge loop (the kernel calls it
   * with the round's final text and tool calls and the meta it was given).
   */
  onConsolidationAnswer(answer: { text: string; toolCalls?: { name: string; arguments: string }[] }, meta: Record<string, unknown> | undefined): MergeOutcome {
    const candidates = Array.isArray(meta?.candidates) ? (meta.candidates as MergeCandidate[]) : [];
    for (const c of candidates) this.pending.delete(pairKey(c));
    if (!this.deps.graph || meta?.kind !== 'memory_merge') return { merged: [], distinct: [] };
    return applyMergeAnswer(answer, candidates, this.deps.graph, this.deps.log);
  }
}

function pairKey(c: { a: string; b: string }): string {
  return [c.a.toLowerCase(), c.b.toLowerCase()].sort().join('\u0000');
}
