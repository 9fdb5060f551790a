import { isAbsolute, join, resolve } from 'node:path';
import type { Disposer, PluginSDK, StageContext } from '../../sdk/index.js';
import type { Conversation, ContextEvent, InjectedSource, Speaker } from '../../spec/index.js';
import { NotFoundError, OWNER_SPEAKER_ID, ValidationError, errorToJSON } from '../../spec/index.js';
import { allocateBudget, memoryHeading, memoryText, renderBlock, type BudgetCandidate, type BudgetResult } from './injection-budget.js';
import { TAG_CONVENTION, TAG_SUMMARY, type MemoryRecord } from './memory-file.js';
import { MemoryLibrary } from './memory-library.js';
import { GENERATED_MEMORY_ID } from './memory-id.js';
import { PlanStore, type OnceItem } from './plan-store.js';
import { ClientLog, PluginLogFile } from './plugin-log-file.js';
import { readConfig, configPatchSchema, type MemoryManagerConfig } from './settings.js';
import { assertTurnId, buildTurns, isNewSession, sessionOfTurn, SOURCE, type Turn } from './session-turns.js';
import { summarizeSession, type SummarizeArgs, type SummaryProgress } from './summarizer.js';
import { createAgentTools } from './agent-tools.js';
import { createApiRoutes } from './http-api.js';
import { linkMemoryControl, recordLibraryChange, recordPlanChange } from './control-link.js';
import { setAsideByExclusion } from './set-aside.js';
import { appendExclusionMarker } from './exclusion-marker.js';
import type { ConfigValue } from '../../sdk/index.js';

/** How many summaries are auto-injected into a new session (seed: SUMMARY_AUTO_INJECT_MAX). */
export const SUMMARY_AUTO_INJECT_MAX = 8;
const ROLE_LABEL = { user: '[用户]', assistant: '[助手]', system: '[系统]' } as const;

/** What composing an injection produced (also the body of `plan.preview`). */
export interface InjectionResult {
  block: string | undefined;
  budget: BudgetResult;
  active: boolean;
  autoInjected: string[];
}

/**
 * The memory manager (M-1…M-13) on top of the plugin SDK: owns the library and the plan of the
 * configured folder, the `pre_action` injection, the context filter of excluded turns, the HTTP
 * API, the agent tools and the logs.
 */
export class MemoryManager {
  readonly sdk: PluginSDK;
  readonly bootLog: PluginLogFile;
  readonly clientLog: ClientLog;
  private lib: MemoryLibrary | undefined;
  private planStore: PlanStore | undefined;
  private root = '';
  private disposers: Disposer[] = [];
  private toolDisposers: Disposer[] = [];
  private turnBlocks = new Map<string, Promise<string | undefined>>();
  private stopped = false;

  constructor(sdk: PluginSDK) {
    this.sdk = sdk;
    this.bootLog = new PluginLogFile(join(sdk.homeDir, 'logs', 'memory-manager-boot.log'));
    this.clientLog = new ClientLog(join(sdk.homeDir, 'logs', 'memory-manager-client.log'));
  }

  /** The effective config, read live (hot). */
  cfg(): MemoryManagerConfig {
    return readConfig(this.sdk.settings());
  }

  /** The library folder: `libraryPath` (relative to the data folder) or `<home>/memory`. */
  libraryRoot(cfg = this.cfg()): string {
    const p = cfg.libraryPath.trim();
    if (!p) return join(this.sdk.homeDir, 'memory');
    return isAbsolute(p) ? p : resolve(this.sdk.homeDir, p);
  }

  get library(): MemoryLibrary {
    this.ensureStores();
    return this.lib as MemoryLibrary;
  }

  get plan(): PlanStore {
    this.ensureStores();
    return this.planStore as PlanStore;
  }

  private ensureStores(): void {
    const root = this.libraryRoot();
    if (this.lib && root === this.root) return;
    const old = this.lib;
    this.root = root;
    const log = (msg: string, data?: Record<string, unknown>) => this.logBoot('warn', msg, data);
    // Search ranks in the agent's one embedding space (T-1) when a dense model is loaded.
    // (A host without a memory tier, or an older one without embed, leaves search lexical.)
    let memory: ReturnType<PluginSDK['memory']> | undefined;
    try {
      memory = this.sdk.memory?.();
    } catch {}
    const embedder = memory && typeof memory.embed === 'function' && typeof memory.embeddingModel === 'function' ? { embed: (texts: string[]) => memory.embed(texts), model: () => memory.embeddingModel() } : undefined;
    // Every write is recorded in the history (K-3) and reported to the change feed (decision
    // 0260), hand edits of memory files too.
    // Only ids the library made (`m-<time>-<hex>`) go on the event stream: a file named by hand or
    // in Obsidian (`bank-pin-4711.md`) names what it holds (decision 0260: no text on the wire).
    const changed = (kind: 'memory' | 'plan', id?: string) => this.sdk.use('host.memory-changes')?.notify({ kind, ...(id && GENERATED_MEMORY_ID.test(id) ? { ids: [id] } : {}) });
    this.lib = new MemoryLibrary(root, {
      log,
      embedder,
      onChange: (op, before, after) => {
        recordLibraryChange(this.sdk.use('host.memory-control'), op, before, after);
        changed('memory', (after ?? before)?.id);
      },
      // A hand edit (Obsidian, a sync tool, an editor) is in the history too, with what it was
      // before: a memory deleted or garbled by accident can be put back with undo.
      onFileChange: (id, before, after) => {
        // A file an import writes (the library is read again after it) is the import's, in its own history entry.
        if ((before || after) && this.sdk.use('host.transfer')?.applying?.() !== true) recordLibraryChange(this.sdk.use('host.memory-control'), before ? (after ? 'update' : 'delete') : 'create', before, after, true);
        changed('memory', id);
      },
    });
    this.planStore = new PlanStore(root, log);
    this.planStore.onChange = (op, before, after) => {
      recordPlanChange(this.sdk.use('host.memory-control'), op, before, after);
      changed('plan');
    };
    this.turnBlocks.clear();
    if (old) {
      this.logBoot('info', 'library folder changed', { from: old.root, to: root });
      void old.close();
    }
    if (!this.stopped) {
      // Both start at once (still async): the context filter of excluded turns needs the plan early.
      this.lib.open();
      this.planStore.ready().catch((e) => this.logBoot('error', 'plan load failed', { error: errorToJSON(e) }));
    }
  }

  /** Writes the boot log and the plugin logger; never throws. */
  logBoot(level: 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>): void {
    this.bootLog.write(level, msg, data);
    try {
      this.sdk.log[level](msg, data);
    } catch {}
  }

  /** Registers the stage, context filter, routes, tools and settings listener. */
  start(): void {
    this.stopped = false;
    const step = (name: string, fn: () => void) => {
      try {
        fn();
        this.logBoot('info', `start: ${name}`);
      } catch (e) {
        this.logBoot('error', `start: ${name} failed`, { error: errorToJSON(e), stack: (e as Error)?.stack });
        throw e;
      }
    };
    step('library', () => {
      this.ensureStores();
      this.logBoot('info', 'library folder', { root: this.root });
    });
    step('pre_action stage', () => this.disposers.push(this.sdk.registerStage('pre_action', (ctx) => this.onPreAction(ctx), 'global')));
    step('context filter', () => this.disposers.push(this.sdk.registerContextFilter((e) => this.contextVisible(e))));
    step('routes', () => {
      for (const r of createApiRoutes(this)) this.disposers.push(this.sdk.registerRoute(r));
    });
    step('tools', () => this.syncTools());
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the link reads the current stores (a changed library folder replaces them)
    const self = this;
    step('memory control', () =>
      this.disposers.push(
        ...linkMemoryControl({
          sdk: this.sdk,
          get library() {
            return self.library;
          },
          get plan() {
            return self.plan;
          },
          log: (l, m, d) => this.logBoot(l, m, d),
        }),
      ),
    );
    step('settings listener', () => this.disposers.push(this.sdk.settings().onChange(() => this.onSettingsChanged())));
    this.logBoot('info', 'started', { config: { ...this.cfg() } });
  }

  /** Disposes registrations and closes the library. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const d of [...this.toolDisposers, ...this.disposers].reverse()) {
      try {
        d();
      } catch {}
    }
    this.toolDisposers = [];
    this.disposers = [];
    await this.planStore?.flush().catch(() => undefined);
    await this.lib?.close();
    this.logBoot('info', 'stopped');
  }

  private onSettingsChanged(): void {
    try {
      this.syncTools();
      this.ensureStores();
    } catch (e) {
      this.logBoot('error', 'applying settings failed', { error: errorToJSON(e) });
    }
  }

  /** Tools exist only while `enabled && modelTools` (M-12). */
  private syncTools(): void {
    const cfg = this.cfg();
    const want = cfg.enabled && cfg.modelTools && !this.stopped;
    if (want && this.toolDisposers.length === 0) {
      for (const t of createAgentTools(this)) this.toolDisposers.push(this.sdk.registerTool(t));
    } else if (!want && this.toolDisposers.length) {
      for (const d of this.toolDisposers.reverse()) d();
      this.toolDisposers = [];
    }
  }

  /** Awaits the lazy plan load and the library scan (no silent first-turn miss, M-6). */
  async ensureInjectionReady(): Promise<void> {
    await Promise.all([this.plan.ready(), this.library.ready()]);
  }

  /**
   * Which of these memories a turn excluded now sets aside (decision 0440): made from its events,
   * they reach no prompt while it stays excluded.
   */
  async setAside(records: Iterable<MemoryRecord | undefined>): Promise<Set<string>> {
    const list = [...records].filter((r): r is MemoryRecord => !!r?.source);
    if (!list.length) return new Set();
    // Deleted turns too (decision 0600): a turn deleted from the chat and then excluded still owns
    // the seqs a memory made from it names; read without them, its summary was not set aside.
    return setAsideByExclusion(list, { excluded: () => this.plan.excluded(), events: (sid) => this.sdk.sessions().events(sid, { includeDeleted: true }) });
  }

  /** The context filter of M-9: false hides an event whose turn is excluded. */
  contextVisible(event: ContextEvent): boolean {
    if (!this.planStore) return true;
    for (const ref of event.refs ?? []) {
      const sid = sessionOfTurn(ref) ?? event.sessionId;
      if (this.planStore.isExcluded(sid, ref)) return false;
    }
    return true;
  }

  private autoMemories(): MemoryRecord[] {
    const all = this.library.all().filter((r) => r.enabled);
    const conventions = all.filter((r) => r.tags.includes(TAG_CONVENTION)).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    const summaries = all
      .filter((r) => r.tags.includes(TAG_SUMMARY) && !r.tags.includes(TAG_CONVENTION))
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id))
      .slice(0, SUMMARY_AUTO_INJECT_MAX);
    return [...conventions, ...summaries];
  }

  /**
   * Composes the injection block for a user turn. With `consume` the once queue is taken and
   * `injectOnce` reset (a real turn); without, it is a preview.
   */
  async composeInjection(opts: { sessionId?: string; turnId?: string; consume: boolean; scope?: readonly string[]; limits?: Partial<Pick<MemoryManagerConfig, 'memoryChars' | 'totalChars' | 'pinChars'>>; forceActive?: boolean }): Promise<InjectionResult> {
    await this.ensureInjectionReady();
    // A preview may try other limits (the settings page while they are edited); a turn never does.
    const cfg = opts.consume ? this.cfg() : { ...this.cfg(), ...opts.limits };
    const plan = this.plan.peek();
    const onceNow = await this.plan.once();
    // The plan (pinned messages, chosen memories, one-off items) is the owner's: a group or someone
    // else's chat neither gets it nor uses up its one-off items (R-5, decision 0090).
    const active = !opts.scope && (cfg.mode === 'on' || plan.injectOnce || onceNow.length > 0 || (!opts.consume && opts.forceActive === true));
    let isNew = false;
    if (cfg.autoInject && opts.sessionId) {
      const events = await this.sdk.sessions().events(opts.sessionId).catch(() => []);
      isNew = isNewSession(events, opts.turnId);
    }
    const once: OnceItem[] = active ? (opts.consume ? await this.plan.takeOnce() : onceNow) : [];
    if (opts.consume && active && plan.injectOnce) await this.plan.setInjectOnce(false);
    const pinned: BudgetCandidate[] = active ? plan.pinned.map((p) => ({ id: p.id, heading: ROLE_LABEL[p.role], text: p.text })) : [];
    const memories: BudgetCandidate[] = [];
    const seen = new Set<string>();
    const auto = isNew ? this.autoMemories() : [];
    // A memory made from a turn excluded now reaches no prompt (decision 0440).
    const aside = await this.setAside([...(active ? plan.memories.map((m) => this.library.get(m.id)) : []), ...auto, ...once.map((o) => (o.memoryId ? this.library.get(o.memoryId) : undefined))]);
    const addMemory = (r: MemoryRecord | undefined) => {
      if (!r || !r.enabled || seen.has(r.id) || aside.has(r.id)) return;
      seen.add(r.id);
      memories.push({ id: r.id, heading: memoryHeading(r), text: memoryText(r, cfg.view) });
    };
    if (active) for (const m of plan.memories) addMemory(this.library.get(m.id));
    const autoInjected: string[] = [];
    if (isNew) {
      for (const r of auto) {
        // A group, or someone else's private chat, gets no summary of a conversation outside its
        // scope (R-5): a summary records where it was said; one without a place is the owner's.
        if (opts.scope && !r.tags.includes(TAG_CONVENTION) && !(r.conversation && opts.scope.includes(r.conversation))) continue;
        if (!seen.has(r.id) && !aside.has(r.id)) autoInjected.push(r.id);
        addMemory(r);
      }
    }
    const onceCands: BudgetCandidate[] = once.flatMap((o) => {
      if (o.memoryId) {
        const r = this.library.get(o.memoryId);
        return r && !aside.has(r.id) ? [{ id: o.id, heading: memoryHeading(r), text: memoryText(r, cfg.view) }] : [];
      }
      return o.text ? [{ id: o.id, heading: '[一次性]', text: o.text }] : [];
    });
    const budget = allocateBudget({ pinned, memories, once: onceCands, limits: cfg });
    return { block: renderBlock(budget), budget, active, autoInjected };
  }

  /**
   * The conversations a turn may see of the library (R-5, decision 0090): undefined for the owner
   * in their own places; else only memories saved in these conversations. Without the people
   * registry every channel speaker is scoped (the safe side).
   */
  scopeOf(speaker: Speaker | undefined, conversation: Conversation | undefined): readonly string[] | undefined {
    const people = this.sdk.use('host.people');
    // Someone else's turn that names no conversation sees none of the library (decision 0360).
    if (speaker && !conversation && speaker.id !== OWNER_SPEAKER_ID && !people?.find(speaker.id)?.owner) return [];
    if (people) return people.scopeOf(speaker, conversation);
    return conversation && (conversation.kind === 'group' || speaker) ? [conversation.id] : undefined;
  }

  /** The `pre_action` handler (M-6/M-7). */
  async onPreAction(ctx: StageContext): Promise<void> {
    if (ctx.input?.trigger !== 'user') return;
    if (!this.cfg().enabled) return;
    // What a forget finished at this start owed the library is taken before anything is injected
    // (decision 0420): a memory the person ticked must not reach the first turn.
    await this.sdk.use('host.memory-control')?.settled?.('library');
    const turnId = ctx.turnId;
    let pending = this.turnBlocks.get(turnId);
    if (!pending) {
      const scope = this.scopeOf(ctx.input.speaker, ctx.input.conversation);
      pending = this.injectForTurn(ctx.input.sessionId, turnId, scope);
      this.turnBlocks.set(turnId, pending);
      if (this.turnBlocks.size > 200) this.turnBlocks.delete(this.turnBlocks.keys().next().value as string);
    }
    const block = await pending;
    // The block is composed once per turn; a later round with rebuilt messages gets it again.
    if (block && !ctx.messages.some((m) => m.source === SOURCE && m.content === block)) {
      ctx.messages.push({ role: 'user', content: block, source: SOURCE });
    }
  }

  /**
   * Where each item of the block came from (issue 12 part 6): a library memory names itself and
   * the session log events it was made from; pinned messages and one-off texts are the plan's.
   */
  private blockSources(r: InjectionResult): InjectedSource[] {
    return r.budget.items.map((it) => {
      const m = it.section === 'memory' && it.id ? this.library.get(it.id) : undefined;
      if (!m) return { tier: 'library' as const, id: `plan:${it.section}${it.id ? `:${it.id}` : ''}`, text: `${it.heading} ${it.text}`.slice(0, 400) };
      return {
        tier: 'library' as const,
        id: m.id,
        text: m.title,
        at: Date.parse(m.updatedAt) || undefined,
        ...(m.source ? { sessionId: m.source.sessionId, ...(m.source.seqs.length ? { seq: m.source.seqs[0] } : {}) } : {}),
      };
    });
  }

  private async injectForTurn(sessionId: string, turnId: string, scope: readonly string[] | undefined): Promise<string | undefined> {
    try {
      const r = await this.composeInjection({ sessionId, turnId, consume: true, scope });
      if (!r.block) return undefined;
      try {
        await this.sdk.sessions().append(sessionId, { turnId, kind: 'injection', text: r.block, data: { source: SOURCE, autoInjected: r.autoInjected, used: r.budget.used, sources: this.blockSources(r) } });
      } catch (e) {
        this.logBoot('warn', 'could not persist the injection in the session log', { sessionId, turnId, error: errorToJSON(e) });
      }
      return r.block;
    } catch (e) {
      this.logBoot('error', 'injection failed', { sessionId, turnId, error: errorToJSON(e), stack: (e as Error)?.stack });
      return undefined;
    }
  }

  // ---- sessions, turns, exclusion, summaries ----

  private async requireSession(sessionId: unknown): Promise<string> {
    if (typeof sessionId !== 'string' || !sessionId || sessionId.length > 300) throw new ValidationError('sessionId is required', { path: 'sessionId' });
    const info = await this.sdk.sessions().get(sessionId);
    if (!info) throw new NotFoundError('session', sessionId);
    return sessionId;
  }

  /** The turns of a session with their excluded flags. */
  async turns(sessionId: unknown): Promise<Turn[]> {
    const sid = await this.requireSession(sessionId);
    await this.plan.ready();
    const excluded = new Set((await this.plan.excluded())[sid] ?? []);
    return buildTurns(await this.sdk.sessions().events(sid), excluded);
  }

  private async toggleTurn(op: 'exclude' | 'restore', sessionId: unknown, turnId: unknown): Promise<{ turnId: string; excluded: boolean; changed: boolean; madeFrom: number; setAside: number }> {
    const sid = await this.requireSession(sessionId);
    const tid = assertTurnId(sid, turnId);
    const events = await this.sdk.sessions().events(sid);
    if (!events.some((e) => e.turnId === tid)) throw new NotFoundError('turn', tid);
    const changed = op === 'exclude' ? await this.plan.exclude(sid, tid) : await this.plan.restore(sid, tid);
    // Every memory tier obeys it (M-9): the memory control takes the turn out of (or puts it back
    // into) the window, the documents, the archive and the graph, and gates distillation and replay.
    const mc = this.sdk.use('host.memory-control');
    if (mc && (op === 'exclude' ? !mc.isExcluded(tid) : mc.isExcluded(tid))) {
      if (op === 'exclude') await mc.exclude([tid], { tool: 'memory-manager' });
      else await mc.restore([tid], { tool: 'memory-manager' });
    }
    if (changed) await appendExclusionMarker(this.sdk, sid, tid, op);
    // The library memories made from the turn (a summary of it, a message saved from it) and how
    // many of them are set aside now (decision 0440): the person is told what the toggle took along.
    const made = this.library.madeFrom([{ sessionId: sid, seqs: events.filter((e) => e.turnId === tid).map((e) => e.seq) }]);
    const aside = made.length ? await this.setAside(made) : new Set<string>();
    return { turnId: tid, excluded: op === 'exclude', changed, madeFrom: made.length, setAside: aside.size };
  }

  /** M-9: hides a turn from the model's context and from summaries (non-destructive). */
  excludeTurn(sessionId: unknown, turnId: unknown) {
    return this.toggleTurn('exclude', sessionId, turnId);
  }

  /** M-9: brings an excluded turn back. */
  restoreTurn(sessionId: unknown, turnId: unknown) {
    return this.toggleTurn('restore', sessionId, turnId);
  }

  /** M-8: session summary; progress goes to the callback and to `custom:memory-manager.progress`. */
  async summarize(args: SummarizeArgs, onProgress?: (p: SummaryProgress) => void) {
    await this.requireSession(args.sessionId);
    return summarizeSession(
      {
        sessions: this.sdk.sessions(),
        llm: this.sdk.llm(),
        excluded: async (sid) => (await this.plan.excluded())[sid] ?? [],
        saveAll: (inputs) => this.library.saveAll(inputs),
      },
      args,
      (p) => {
        try {
          onProgress?.(p);
        } catch {}
        try {
          this.sdk.publish('custom:memory-manager.progress', p);
        } catch {}
      },
    );
  }

  /** Validates and writes a config patch; on a failed write the keys already written are rolled back. */
  async setConfig(patch: unknown): Promise<MemoryManagerConfig> {
    const r = configPatchSchema.safeParse(patch ?? {});
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new ValidationError(`config.set: ${issue?.path.join('.') || ''} ${issue?.message ?? 'invalid'}`.trim(), { path: issue?.path.join('.') });
    }
    const settings = this.sdk.settings();
    const before = this.cfg();
    const written: string[] = [];
    try {
      for (const [k, v] of Object.entries(r.data)) {
        await settings.set(k, v as ConfigValue);
        written.push(k);
      }
    } catch (e) {
      for (const k of written) await settings.set(k, before[k as keyof MemoryManagerConfig] as ConfigValue).catch(() => undefined);
      throw e;
    }
    this.onSettingsChanged();
    return this.cfg();
  }
}
