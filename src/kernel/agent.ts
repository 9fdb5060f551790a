import { join, relative, resolve as resolvePath, sep } from 'node:path';
import type { AttachmentPort, StoredAttachment, ConfigReader, ContextEvent, ContextWindow, PeopleDirectory, Disposer, InputOptions, InputTicket, NewContextEvent, ToolDef, TurnInput, TurnOutcome } from '../spec/index.js';
import { NotFoundError, ValidationError } from '../spec/index.js';
import type { Logger } from '../log/index.js';
import { silentLogger } from '../log/index.js';
import { EventBus } from './event-bus.js';
import { StageHost, type ToolScope } from './stage-host.js';
import { SystemPromptBuilder } from './system-prompt.js';
import { ToolAggregator } from './tool-aggregator.js';
import { OutputChannels } from './output-channels.js';
import { TurnRunner, type TurnState } from './turn-runner.js';
import type { PendingInterrupt } from './interrupts.js';
import type { KernelDeps } from './kernel-deps.js';
import { cfg, timeZoneOf, type LlmPort, type PluginAdminPort, type ProviderAdminPort, type SessionPort, type TextLogPort } from './ports.js';
import { subAgentTool } from './subagent.js';
import { mediaTools } from './media-tools.js';
import { normalizeConversation, normalizeSpeaker } from './speaker-input.js';
import { actionFor, inputOf, MARK_MAX_AGE_MS, NOT_ANSWERED, notAnsweredText, recordableMeta } from './unanswered-inputs.js';
import { readFileSync } from 'node:fs';
import { realPath, within } from '../fs/index.js';

/** Where notices are recorded when no session is named. */
export const NOTICES_SESSION = 'system:notices';
const MAX_NOTICE_CHARS = 20_000;
import { titleFromConversation, titleFromMessage } from '../spec/session-title.js';

/** The consolidation channel (seed: `_consolidation_`). */
export const CONSOLIDATION = '_consolidation_';
const MAX_INPUT_CHARS = 200_000;
const SESSION_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
/** Channel/source names, as the session store accepts them (C-9). */
const CHANNEL = /^[A-Za-z0-9_-]{1,64}$/;

export interface AgentOptions {
  llm: LlmPort;
  sessions: SessionPort;
  /** The context window; a small in-memory window is used when the memory subsystem is absent. */
  context?: ContextWindow;
  config?: ConfigReader;
  /** Who is who across channels (decision 0090); without it only `core.identity.owner_ids` marks the owner. */
  people?: PeopleDirectory;
  log?: Logger;
  textLog?: TextLogPort;
  persona?: () => string;
  now?: () => number;
  homeDir?: string;
  providerAdmin?: ProviderAdminPort;
  pluginAdmin?: PluginAdminPort;
  /** Keeps attachments in the data folder and reads them for the model (C-11). */
  media?: AttachmentPort;
  /**
   * Every tool call runs inside it — whichever plugin gave the tool. The daemon attributes what a
   * tool changes in memory to the agent and its turn there (K-3), once for all tools.
   */
  toolScope?: ToolScope;
}

interface QueuedInput {
  input: TurnInput;
  turnId: string;
  /** Where its attachments were kept (when a media port is wired). */
  stored?: StoredAttachment[];
  /** Where the channel saved each attachment itself, from the data folder (decision 0370). */
  channelPaths?: (string | undefined)[];
  resolve: (o: TurnOutcome) => void;
  /** Settles once recording the user message ended (never rejects: see `recordError`). */
  accepted?: Promise<void>;
  /** Why the user message could not be written to the session log, if it could not. */
  recordError?: Error;
  /** The channel the session was created on (its chat), known once recorded. */
  home?: string;
}

/** A minimal context window (last 200 events) for a kernel without the memory subsystem. */
export class SimpleContextWindow implements ContextWindow {
  private list: ContextEvent[] = [];
  private n = 0;
  constructor(private readonly now: () => number = Date.now) {}
  append(e: NewContextEvent): ContextEvent {
    const ev: ContextEvent = { ...e, id: e.id ?? `e${++this.n}`, timestamp: e.timestamp ?? this.now() };
    this.list.push(ev);
    if (this.list.length > 200) this.list = this.list.slice(-200);
    return ev;
  }
  async prune(): Promise<void> {}
  events(): readonly ContextEvent[] {
    return this.list;
  }
  async flush(): Promise<void> {}
}

/**
 * The agent kernel: the event loop over external input, self-input (consolidation path) and
 * shutdown (C-1), the interrupt listener with its three delivery paths (C-2), and the turn
 * pipeline (C-3…C-8). It performs no user-facing IO: channels are plugins.
 */
export class Agent {
  readonly bus: EventBus;
  readonly stages: StageHost;
  readonly prompt: SystemPromptBuilder;
  readonly tools: ToolAggregator;
  readonly channels: OutputChannels;
  readonly context: ContextWindow;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly deps: KernelDeps;
  private readonly runner: TurnRunner;
  private readonly external: QueuedInput[] = [];
  private readonly selfInputs: QueuedInput[] = [];
  private readonly interrupts: PendingInterrupt[] = [];
  private readonly filters = new Set<(e: ContextEvent) => boolean>();
  private readonly lastTurn = new Map<string, number>();
  private wake: (() => void) | undefined;
  /** Holds taken by {@link hold}; no turn starts while any is held. */
  private holds = 0;
  private idleWaiters: (() => void)[] = [];
  private shutdown = new AbortController();
  private loop: Promise<void> | undefined;
  private current: QueuedInput | undefined;
  private llmAbort: AbortController | undefined;
  private interruptAborted = false;
  private started = false;
  /** True after stop() until the next start(): new input is recorded, then ends `aborted`. */
  private stopped = false;
  /** Turns this process handed out before {@link resumeUnanswered} ran: theirs are not a past run's. */
  private ownTurns: Set<string> | undefined = new Set();

  constructor(private readonly opts: AgentOptions) {
    this.log = opts.log ?? silentLogger;
    this.now = opts.now ?? Date.now;
    this.bus = new EventBus((event, e) => this.log.error(`listener of ${event} failed: ${(e as Error).message}`, { stack: (e as Error).stack }));
    this.stages = new StageHost({
      log: this.log.child('stages'),
      handlerTimeoutMs: () => cfg(opts.config, 'core.agent.stage_timeout_ms', 30_000),
      toolTimeoutMs: () => cfg(opts.config, 'core.agent.tool_timeout_ms', 120_000),
      toolScope: opts.toolScope,
    });
    this.prompt = new SystemPromptBuilder({ persona: opts.persona ?? (() => ''), log: this.log, now: this.now, timeZone: () => timeZoneOf(opts.config) });
    this.tools = new ToolAggregator(this.log);
    this.channels = new OutputChannels();
    this.context = opts.context ?? new SimpleContextWindow(this.now);
    this.deps = {
      bus: this.bus,
      stages: this.stages,
      prompt: this.prompt,
      tools: this.tools,
      channels: this.channels,
      llm: opts.llm,
      sessions: opts.sessions,
      context: this.context,
      config: opts.config,
      people: opts.people,
      log: this.log,
      textLog: opts.textLog,
      media: opts.media,
      now: this.now,
      notice: (n) => this.notify(n),
      contextVisible: (e) => [...this.filters].every((f) => {
        try {
          return f(e);
        } catch {
          return true;
        }
      }),
    };
    this.runner = new TurnRunner(this.deps);
    // C-5: tool sources. Plugin tools (the stage host) come first in the list but yield every
    // name clash to the kernel's own sources (channels, built-in, memory): no plugin replaces them.
    this.tools.add('plugins', () => this.stages.tools(), { yields: true });
    this.tools.add('channels', () => this.channels.tools(() => this.current?.input.sessionId ?? 'system'));
    this.tools.add('builtin', () => this.builtinTools());
  }

  /** True while a turn is being processed. */
  get busy(): boolean {
    return this.current !== undefined;
  }

  /** The session and turn in flight, if any. */
  /** The running turn; `speaker` when it is someone's on a chat channel (an interrupt naming no session does not join it). */
  get currentTurn(): { turnId: string; sessionId: string; speaker?: string } | undefined {
    return this.current && { turnId: this.current.turnId, sessionId: this.current.input.sessionId, ...(this.current.input.speaker ? { speaker: this.current.input.speaker.id } : {}) };
  }

  get queued(): number {
    return this.external.length + this.selfInputs.length;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopped = false;
    this.shutdown = new AbortController();
    this.loop = this.eventLoop();
  }

  /**
   * Stops the loop: the turn in flight stops at its next step boundary (its LLM call is
   * aborted), queued inputs end as `aborted` (their user messages stay in the session log), and
   * the context window is flushed. Safe to call twice.
   */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.stopped = true;
    this.shutdown.abort();
    this.llmAbort?.abort(new Error('shutdown'));
    this.wake?.();
    await this.loop;
    for (const q of [...this.external.splice(0), ...this.selfInputs.splice(0)]) q.resolve(this.abortedOutcome(q));
    await this.context.flush();
  }

  /**
   * Holds the event loop for work that must not race a turn (an import of the memory, K-5):
   * resolves once the turn in flight, if any, has finished; until the returned release is called
   * no turn starts. Inputs are still recorded and queued, and run after the release. Holds nest;
   * stop() ends the wait.
   */
  async hold(): Promise<() => void> {
    this.holds++;
    while (this.current && !this.shutdown.signal.aborted) await new Promise<void>((r) => this.idleWaiters.push(r));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.holds === 0) this.wake?.();
    };
  }

  private abortedOutcome(q: QueuedInput): TurnOutcome {
    return { turnId: q.turnId, sessionId: q.input.sessionId, text: '', status: 'aborted', error: { code: 'SHUTDOWN', message: 'the daemon stopped before this input was processed' }, rounds: 0 };
  }

  registerContextFilter(filter: (e: ContextEvent) => boolean): Disposer {
    this.filters.add(filter);
    return () => {
      this.filters.delete(filter);
    };
  }

  /**
   * Queues external input (C-1). The user message is written to the session log at once, so an
   * acknowledged input is never lost even if the daemon stops before processing it.
   */
  injectInput(opts: InputOptions): InputTicket {
    const input = this.normalize(opts);
    const turnId = this.allocateTurn(input.sessionId);
    let resolve!: (o: TurnOutcome) => void;
    const done = new Promise<TurnOutcome>((r) => (resolve = r));
    const q: QueuedInput = { input, turnId, resolve, channelPaths: this.channelPaths(opts) };
    const accepted = this.record(q);
    q.accepted = accepted;
    // What a channel awaits before it acknowledges the message (a 202, a Telegram offset): the
    // message is in the session log then, so a kill right after loses nothing acknowledged.
    const recorded = accepted.then(() => {
      if (q.recordError) throw q.recordError;
    });
    recorded.catch(() => {});
    // The turn id as recorded: the one handed out now, unless the session's log was replaced by an
    // import before the message was written and holds it already (decision 0380; rare — turns
    // handed out while an import is applied start above the archive's).
    const ticket: InputTicket = {
      get turnId() {
        return q.turnId;
      },
      sessionId: input.sessionId,
      done,
      accepted: recorded,
    };
    if (this.stopped) {
      // Nothing will process it: keep the message, tell the caller at once instead of never.
      void accepted.then(() => resolve(this.abortedOutcome(q)));
      return ticket;
    }
    (input.trigger === 'system' && input.source === CONSOLIDATION ? this.selfInputs : this.external).push(q);
    void accepted.then(() => this.wake?.());
    return ticket;
  }

  /** Internal self-input: takes the consolidation path (C-1, seed selfInputCh). */
  injectSelfInput(text: string, meta: Record<string, unknown> = {}): InputTicket {
    return this.injectInput({ sessionId: 'system:consolidation', source: CONSOLIDATION, channel: CONSOLIDATION, text, trigger: 'system', meta });
  }

  /**
   * An interrupt (C-2). While a turn runs: (a) the in-flight LLM request is aborted and (b) the
   * text is queued for the next LLM call as `[打断消息]` (the aborted call is retried with it).
   * When idle: (c) it starts a new turn. Settles once the interrupt is in a session log (as the
   * running turn's `interrupt` event or a new turn's input); never for one a stop dropped.
   */
  injectInterrupt(i: { sessionId?: string; source: string; text: string }): Promise<void> {
    if (typeof i.text !== 'string' || !i.text.trim()) throw new ValidationError('interrupt text is required');
    // Checked now: a queued interrupt may become a new turn later, inside the event loop.
    if (typeof i.source !== 'string' || !CHANNEL.test(i.source)) throw new ValidationError(`invalid interrupt source "${String(i.source).slice(0, 60)}"`);
    if (i.sessionId !== undefined && (typeof i.sessionId !== 'string' || !SESSION_ID.test(i.sessionId) || i.sessionId.includes('..'))) throw new ValidationError(`invalid session id "${String(i.sessionId).slice(0, 60)}"`);
    if (i.text.length > MAX_INPUT_CHARS) throw new ValidationError(`interrupt text is longer than ${MAX_INPUT_CHARS} characters`);
    const at = this.now();
    const cur = this.current?.input;
    // An interrupt joins the running turn (C-2) — unless that turn is someone's on a chat channel
    // and the interrupt is for another session or names none: then it waits as a turn of its own,
    // so the owner's words are not answered inside a group member's turn (decision 0360, review).
    let recorded!: () => void;
    const inLog = new Promise<void>((r) => (recorded = r));
    if (cur && (!cur.speaker || i.sessionId === cur.sessionId)) {
      this.interrupts.push({ ...i, at, recorded });
      if (this.llmAbort && !this.llmAbort.signal.aborted) {
        this.interruptAborted = true;
        this.llmAbort.abort(new Error('interrupted'));
      }
      this.bus.emit('interrupt', { sessionId: i.sessionId, source: i.source, text: i.text, delivery: 'abort+queue', at, ...(this.current ? { turnId: this.current.turnId } : {}) });
    } else {
      this.bus.emit('interrupt', { sessionId: i.sessionId, source: i.source, text: i.text, delivery: 'new-turn', at });
      void this.injectInput({ sessionId: i.sessionId ?? `${i.source}:default`, source: i.source, text: i.text, trigger: 'user', meta: { interrupt: true } }).accepted.then(recorded, () => {});
    }
    return inLog;
  }

  /**
   * A proactive notice that needs no LLM turn (a health change, a reminder that could not be
   * answered): recorded as a `system` event of `sessionId` (default {@link NOTICES_SESSION}), then
   * delivered like a timer's reply — the session's own chat when it can push, else the owner's
   * default channel (`core.notify.channel`), else the WebUI.
   */
  async notify(n: { text: string; source: string; sessionId?: string; meta?: Record<string, unknown> }): Promise<{ channel?: string }> {
    if (typeof n.text !== 'string' || !n.text.trim()) throw new ValidationError('notice text is required');
    if (n.text.length > MAX_NOTICE_CHARS) throw new ValidationError(`notice text is longer than ${MAX_NOTICE_CHARS} characters`);
    if (typeof n.source !== 'string' || !CHANNEL.test(n.source)) throw new ValidationError(`invalid notice source "${String(n.source).slice(0, 60)}"`);
    const sessionId = n.sessionId ?? NOTICES_SESSION;
    if (!SESSION_ID.test(sessionId) || sessionId.includes('..')) throw new ValidationError(`invalid session id "${String(sessionId).slice(0, 60)}"`);
    let home: string | undefined;
    let turnId: string | undefined;
    try {
      home = (await this.opts.sessions.ensure(sessionId, sessionId === NOTICES_SESSION ? 'system' : n.source)).channel;
      turnId = this.allocateTurn(sessionId);
      const ev = await this.opts.sessions.append(sessionId, { turnId, kind: 'system', text: n.text, data: { source: n.source, notice: true } }, { renumber: () => (turnId = this.allocateTurn(sessionId)) });
      turnId = ev.turnId;
      this.bus.emit('session_event', { sessionId, seq: ev.seq, kind: 'system' });
    } catch (e) {
      this.log.error(`could not record a notice from ${n.source}: ${(e as Error).message}`);
    }
    const channel = await this.channels.sendProactive(
      { sessionId, turnId, payload: n.text, type: 'text', meta: { ...(n.meta ?? {}), source: n.source, notice: true } },
      { home, preferred: cfg(this.opts.config, 'core.notify.channel', 'webui'), onError: (c, e) => this.log.warn(`notice from ${n.source} could not go through ${c}: ${(e as Error).message}`) },
    );
    if (!channel) this.log.warn(`notice from ${n.source} reached no channel; it stays in ${sessionId}`);
    return { channel };
  }

  /**
   * The next turn id of a session. The session may not exist yet (it is created when the input
   * is recorded, asynchronously), so the store may not know it: count from 1 then, and never
   * hand out a turn number twice while the store catches up.
   */
  private allocateTurn(sessionId: string): string {
    let n = 1;
    try {
      n = this.opts.sessions.nextTurn(sessionId).turnSeq;
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
    }
    n = Math.max(n, (this.lastTurn.get(sessionId) ?? 0) + 1);
    this.lastTurn.set(sessionId, n);
    this.ownTurns?.add(`${sessionId}#${n}`);
    return `${sessionId}#${n}`;
  }

  /**
   * Where the channel saved each attachment itself, from the data folder — only inside
   * `<home>/media/`: recorded with the message so a forget of the turn deletes that copy too
   * (decision 0370).
   */
  private channelPaths(o: InputOptions): (string | undefined)[] | undefined {
    if (!o.attachments?.some((a) => typeof a.savedAt === 'string') || !this.opts.homeDir) return undefined;
    const home = this.opts.homeDir;
    const media = resolvePath(home, 'media');
    return o.attachments.map((a) => {
      const abs = typeof a.savedAt === 'string' ? resolvePath(home, a.savedAt) : undefined;
      return abs?.startsWith(media + sep) ? relative(home, abs) : undefined;
    });
  }

  private normalize(o: InputOptions): TurnInput {
    if (typeof o.text !== 'string') throw new ValidationError('input text must be a string');
    if (o.text.length > MAX_INPUT_CHARS) throw new ValidationError(`input text is longer than ${MAX_INPUT_CHARS} characters`);
    if (!SESSION_ID.test(o.sessionId) || o.sessionId.includes('..')) throw new ValidationError(`invalid session id "${String(o.sessionId).slice(0, 60)}"`);
    if (!o.text.trim() && !(o.attachments?.length)) throw new ValidationError('input is empty');
    const channel = o.channel ?? o.source;
    if (typeof o.source !== 'string' || !CHANNEL.test(o.source)) throw new ValidationError(`invalid input source "${String(o.source).slice(0, 60)}": use 1-64 of A-Z a-z 0-9 _ -`);
    if (!CHANNEL.test(channel)) throw new ValidationError(`invalid channel "${String(channel).slice(0, 60)}": use 1-64 of A-Z a-z 0-9 _ -`);
    // A channel's own copy (`savedAt`) is recorded with the message only (see channelPaths).
    const attachments = o.attachments?.map((a) => ({ mimeType: a.mimeType, data: a.data, ...(a.name !== undefined ? { name: a.name } : {}) }));
    const input: TurnInput = { sessionId: o.sessionId, source: o.source, channel, text: o.text, attachments, trigger: o.trigger ?? 'user', meta: o.meta };
    const speaker = normalizeSpeaker(o.speaker);
    const conversation = normalizeConversation(o.conversation);
    if (speaker) input.speaker = speaker;
    if (conversation) input.conversation = conversation;
    return input;
  }

  private async record(q: QueuedInput): Promise<void> {
    try {
      // A session a person starts (waiter, the WebUI …) is named after their first message; a chat on
      // a chat app after who or where it is ("Wen · Telegram"), when the channel names it.
      const title = q.input.trigger === 'user' ? titleFromConversation(q.input.conversation) || titleFromMessage(q.input.text, q.input.attachments?.map((a) => a.name ?? '') ?? []) : '';
      const info = await this.opts.sessions.ensure(q.input.sessionId, q.input.channel, title || undefined);
      if (!info.title && title) await this.opts.sessions.rename?.(q.input.sessionId, title);
      q.home = info.channel;
      // Attachments are kept before the message is acknowledged: the files are the person's data.
      if (q.input.attachments?.length && this.opts.media) {
        try {
          q.stored = await this.opts.media.store(q.input.attachments, { sessionId: q.input.sessionId, turnId: q.turnId });
        } catch (e) {
          this.log.warn(`could not keep the attachments of ${q.turnId}: ${(e as Error).message}`);
        }
      }
      const data: Record<string, unknown> = {
        source: q.input.source,
        trigger: q.input.trigger,
        attachments: q.input.attachments?.map((a, i) => ({ name: a.name, mimeType: a.mimeType, bytes: Math.round((a.data.length * 3) / 4), ...(q.stored?.[i]?.path ? { path: q.stored[i].path, kind: q.stored[i].kind } : {}), ...(q.channelPaths?.[i] ? { channelPath: q.channelPaths[i] } : {}) })),
      };
      // Who said it and where, as data: the WebUI and the memory tiers read it from here.
      if (q.input.speaker) data.speaker = q.input.speaker;
      if (q.input.conversation) data.conversation = q.input.conversation;
      // What running it again after a restart needs besides (decision 0390). `outcome`: this turn's
      // end is always logged (a reply, an error or a `done` marker) — a log written before that
      // may end a turn with nothing, so only events that say so are taken for unanswered.
      data.outcome = 'logged';
      if (q.input.channel !== q.input.source) data.channel = q.input.channel;
      const meta = recordableMeta(q.input.meta);
      if (meta) data.meta = meta;
      const ev = await this.opts.sessions.append(q.input.sessionId, { turnId: q.turnId, kind: 'user', text: q.input.text, data }, { renumber: () => this.allocateTurn(q.input.sessionId) });
      if (ev.turnId !== q.turnId) {
        this.log.warn(`turn ${q.turnId} is in the session log an import swapped in; the message was recorded as ${ev.turnId}`);
        q.turnId = ev.turnId;
      }
      this.bus.emit('session_event', { sessionId: q.input.sessionId, seq: ev.seq, kind: 'user' });
    } catch (e) {
      q.recordError = e instanceof Error ? e : new Error(String(e));
      this.log.error(`could not record input of ${q.turnId}: ${q.recordError.message}`);
      return;
    }
    // The text log is derived (the session log is the record): its failure is only a warning.
    try {
      await this.opts.textLog?.append({ at: this.now(), sessionId: q.input.sessionId, turnId: q.turnId, role: 'user', source: q.input.source, text: q.input.text });
    } catch (e) {
      this.log.warn(`could not add ${q.turnId} to the text log: ${(e as Error).message}`);
    }
  }

  /**
   * Deals once, at start, with the inputs the session logs hold that never got an outcome — a kill
   * (or a stop) came after the input was acknowledged and before or while its turn ran (decision
   * 0390). Each one logged within a day, and resumed by fewer than two earlier restarts, runs again
   * as the same turn (its turn id, session, source, channel, speaker, conversation, trigger and meta),
   * in the order they were logged, ahead of what arrived since; a `resume` marker is logged first,
   * so a turn that kills the daemon again is not retried forever. Any other gets an `error` event
   * the chat shows ("Not answered: …"). Consolidation turns are left alone. Call it once the
   * output channels are registered (after the plugins started), so the replies can reach them.
   */
  async resumeUnanswered(): Promise<{ resumed: string[]; marked: string[] }> {
    const own = this.ownTurns;
    this.ownTurns = undefined;
    const out = { resumed: [] as string[], marked: [] as string[] };
    if (!own) return out;
    let found: ReturnType<NonNullable<SessionPort['unanswered']>> = [];
    try {
      found = this.opts.sessions.unanswered?.() ?? [];
    } catch (e) {
      this.log.error(`could not look for unanswered inputs: ${(e as Error).message}`);
      return out;
    }
    const queued: QueuedInput[] = [];
    const mediaRoot = this.opts.homeDir ?? '.';
    for (const u of found) {
      const { sessionId, event } = u;
      if (own.has(event.turnId) || event.data?.source === CONSOLIDATION || sessionId === 'system:consolidation') continue;
      if (event.data?.outcome !== 'logged') continue;
      // Older than a week, or dated in the future (not a time this install wrote): left alone.
      if (this.now() - event.at > MARK_MAX_AGE_MS || event.at > this.now() + 60_000) continue;
      const rebuilt = inputOf(sessionId, event, (s) => {
        try {
          // The log is data, not a pointer anywhere on disk: only a file under <data>/media is read.
          const file = realPath(join(mediaRoot, s.path));
          if (!within(file, realPath(join(mediaRoot, 'media')))) return undefined;
          return readFileSync(file).toString('base64');
        } catch {
          return undefined;
        }
      });
      const action = rebuilt ? actionFor(event.at, u.resumes, this.now()) : ({ kind: 'mark', why: 'too-old' } as const);
      try {
        if (action.kind === 'mark') {
          const ev = await this.opts.sessions.append(sessionId, { turnId: event.turnId, kind: 'error', text: notAnsweredText(action.why), data: { code: NOT_ANSWERED, why: action.why } });
          this.bus.emit('session_event', { sessionId, seq: ev.seq, kind: 'error' });
          out.marked.push(event.turnId);
          continue;
        }
        // Logged before it runs: a kill during this run counts as an attempt (MAX_RESUMES).
        await this.opts.sessions.append(sessionId, { turnId: event.turnId, kind: 'marker', text: '[resumed after a restart]', data: { op: 'resume', attempt: action.attempt } });
      } catch (e) {
        this.log.error(`could not record what happens to the unanswered input ${event.turnId}: ${(e as Error).message}`);
        continue;
      }
      const turnNo = Number(event.turnId.slice(sessionId.length + 1));
      if (Number.isSafeInteger(turnNo)) this.lastTurn.set(sessionId, Math.max(this.lastTurn.get(sessionId) ?? 0, turnNo));
      const q: QueuedInput = { input: rebuilt!.input, turnId: event.turnId, stored: rebuilt!.stored, home: u.channel, resolve: () => {}, accepted: Promise.resolve() };
      queued.push(q);
      out.resumed.push(event.turnId);
    }
    if (out.resumed.length || out.marked.length) this.log.info(`inputs left unanswered by the last run: ${out.resumed.length} answered now, ${out.marked.length} marked not answered`, { resumed: out.resumed.slice(0, 20), marked: out.marked.slice(0, 20) });
    if (this.stopped) return out;
    this.external.unshift(...queued);
    if (queued.length) this.wake?.();
    return out;
  }

  private builtinTools(): ToolDef[] {
    const out: ToolDef[] = [subAgentTool(this.deps)];
    const admin = this.opts.providerAdmin;
    if (admin) {
      out.push({
        name: 'llm_sources',
        description: 'List the LLM sources and their state, or switch which source is tried first ("use").',
        parameters: { type: 'object', properties: { action: { type: 'string', enum: ['list', 'use'] }, name: { type: 'string' } }, required: ['action'] },
        handler: async (args) => {
          if (args.action === 'use') {
            const name = String(args.name ?? '');
            const order = admin.order();
            if (!order.includes(name)) throw new ValidationError(`unknown LLM source "${name}" (known: ${order.join(', ')})`);
            await admin.setOrder([name, ...order.filter((n) => n !== name)]);
            return `LLM source order is now: ${admin.order().join(', ')}`;
          }
          return admin.status().map((s) => ({ name: s.name, model: s.model, state: s.state, configured: s.configured }));
        },
      });
    }
    const plugins = this.opts.pluginAdmin;
    if (plugins) {
      out.push({
        name: 'plugin_reload',
        description: 'Reload one plugin (stop, then start it again with fresh code), or list plugins.',
        parameters: { type: 'object', properties: { name: { type: 'string' }, list: { type: 'boolean' } } },
        handler: async (args) => {
          if (args.list || !args.name) return plugins.list();
          await plugins.reload(String(args.name));
          return `plugin ${args.name} reloaded`;
        },
      });
    }
    return out;
  }

  private next(): QueuedInput | undefined {
    return this.external.shift() ?? this.selfInputs.shift();
  }

  private async eventLoop(): Promise<void> {
    const signal = this.shutdown.signal;
    while (!signal.aborted) {
      const q = this.holds > 0 ? undefined : this.next();
      if (!q) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          if (((this.external.length || this.selfInputs.length) && this.holds === 0) || signal.aborted) resolve();
        });
        this.wake = undefined;
        continue;
      }
      await this.process(q);
      // Interrupts that arrived too late for the turn's last LLM call start a new turn (C-2 c).
      for (const i of this.interrupts.splice(0)) {
        if (signal.aborted) break;
        try {
          const ticket = this.injectInput({ sessionId: i.sessionId ?? (q.input.speaker ? `${i.source}:default` : q.input.sessionId), source: i.source, text: i.text, trigger: 'user', meta: { interrupt: true } });
          if (i.recorded) void ticket.accepted.then(i.recorded, () => {});
        } catch (e) {
          // Never let one bad interrupt end the loop (the agent would stop answering).
          this.log.error(`dropped an interrupt that could not become a turn: ${(e as Error).message}`);
        }
      }
    }
  }

  private async process(q: QueuedInput): Promise<void> {
    this.current = q;
    await q.accepted;
    if (q.recordError) {
      // Not in the session log: the sender was told it failed (no 202, no Telegram offset), so the
      // turn does not run — a retry must not be answered twice, once for a message never logged.
      q.resolve({ turnId: q.turnId, sessionId: q.input.sessionId, text: '', status: 'error', error: { code: 'SESSION_WRITE_FAILED', message: `the message could not be written to the session log: ${q.recordError.message}` }, rounds: 0 });
      this.current = undefined;
      for (const w of this.idleWaiters.splice(0)) w();
      return;
    }
    const consolidation = q.input.source === CONSOLIDATION;
    const turn: TurnState = { turnId: q.turnId, input: q.input, consolidation, messages: [], round: 0, toolOutputs: [], state: {}, pendingMedia: [...(q.input.attachments ?? [])], homeChannel: q.home, stored: q.stored };
    const mediaDir = join(this.opts.homeDir ?? '.', 'media');
    try {
      const outcome = await this.runner.run(turn, {
        shutdown: this.shutdown.signal,
        drainInterrupts: () => this.interrupts.splice(0),
        hasInterrupts: () => this.interrupts.length > 0,
        setLlmAbort: (ac) => {
          this.llmAbort = ac;
          if (ac) this.interruptAborted = false;
        },
        takeInterruptAbort: () => {
          const v = this.interruptAborted;
          this.interruptAborted = false;
          return v;
        },
        turnTools: (t) => mediaTools(this.deps, t.pendingMedia, mediaDir),
      });
      q.resolve(outcome);
    } catch (e) {
      this.log.error(`turn ${q.turnId} crashed: ${(e as Error).message}`, { stack: (e as Error).stack });
      q.resolve({ turnId: q.turnId, sessionId: q.input.sessionId, text: '', status: 'error', error: { code: 'INTERNAL', message: (e as Error).message }, rounds: turn.round });
    } finally {
      this.current = undefined;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }
}
