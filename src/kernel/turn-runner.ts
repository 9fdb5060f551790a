import type { ChatMessage, ContextEvent, LlmChainEvent, StoredAttachment, StageContext, StageName, ToolCall, ToolDef, ToolOutputRecord, TurnInput, TurnOutcome } from '../spec/index.js';
import { errorToJSON, HomeAgentError, turnAudience, type TurnAudience } from '../spec/index.js';
import type { KernelDeps } from './kernel-deps.js';
import { cfg, timeZoneOf } from './ports.js';
import { llmChainEvent } from './llm-chain-event.js';
import { capToolResult, DEFAULT_TOOL_RESULT_CHARS } from './tool-result-cap.js';
import { interruptMessages, type PendingInterrupt } from './interrupts.js';
import { renderTimeline, systemFirst } from './system-prompt.js';
import { conversationBlock } from './speaker-input.js';

/** Hooks the Agent gives a running turn (interrupt plumbing and the shutdown signal). */
export interface TurnHooks {
  /** Aborted when the daemon shuts down: the turn stops at the next step boundary. */
  shutdown: AbortSignal;
  /** Takes queued interrupts (C-2 b). */
  drainInterrupts: () => PendingInterrupt[];
  /** True while interrupts wait for the next LLM call (an interruptible tool is then not started). */
  hasInterrupts?: () => boolean;
  /** Sets the abort controller of the in-flight LLM call (C-2 a). */
  setLlmAbort: (ac: AbortController | undefined) => void;
  /** True when the last LLM abort came from an interrupt (then the call is retried). */
  takeInterruptAbort: () => boolean;
  /** Extra tools for this turn only (media tools while media is pending). */
  turnTools?: (turn: TurnState) => ToolDef[];
}

/** Mutable state of one turn. */
export interface TurnState {
  turnId: string;
  input: TurnInput;
  consolidation: boolean;
  messages: ChatMessage[];
  round: number;
  toolOutputs: ToolOutputRecord[];
  state: Record<string, unknown>;
  pendingMedia: NonNullable<TurnInput['attachments']>;
  /** The channel the session was created on (a chat's channel), for proactive replies. */
  homeChannel?: string;
  /** Where the input's attachments were kept (C-11). */
  stored?: StoredAttachment[];
}

/**
 * True when nobody waits for this turn's reply on its own channel: a system input (timer,
 * terminal exit) or an interrupt that became a turn, from a source that registered no output
 * channel. Its reply is delivered proactively. A user input from such a source (an API client)
 * is not: its caller reads the outcome itself.
 */
export function isProactive(input: TurnInput, hasChannel: boolean): boolean {
  return !hasChannel && (input.trigger === 'system' || input.meta?.interrupt === true);
}

/** The speaker (user events only) and place of a turn, for its context events. */
function place(input: TurnInput, withSpeaker: boolean): Pick<ContextEvent, 'speaker' | 'conversation'> {
  const out: Pick<ContextEvent, 'speaker' | 'conversation'> = {};
  if (withSpeaker && input.speaker) out.speaker = input.speaker;
  if (input.conversation) out.conversation = input.conversation;
  return out;
}

class ShortCircuit {
  constructor(readonly response: string, readonly stage: StageName) {}
}
class Stopped {}

const MAX_INTERRUPT_RETRIES = 5;
/** What someone other than the owner is told when their turn fails (no LLM, every source down): no setup steps, no source names. */
const CANNOT_ANSWER = { en: "Sorry, the assistant can't answer right now. Please try again later.", zh: '抱歉，助手现在无法回答，请稍后再试。' };

/**
 * One turn (seed: processTextInput + process): on_input → context append/prune → pre_action →
 * tool loop [system prompt → tools → LLM → post_action → (before_toolcall → execute →
 * after_toolcall)*] → context append → before_output → emit → after_output.
 */
export class TurnRunner {
  constructor(private readonly d: KernelDeps) {}

  private ctx(turn: TurnState, stage: StageName, extra: Partial<StageContext> = {}): StageContext {
    return { stage, input: turn.input, turnId: turn.turnId, round: turn.round, messages: turn.messages, state: turn.state, ...extra };
  }

  private async stage(turn: TurnState, stage: StageName, ctx: StageContext, toolName?: string): Promise<void> {
    const failures = await this.d.stages.runStage(stage, ctx, toolName);
    for (const f of failures) this.d.bus.emit('stage_error', { turnId: turn.turnId, stage, plugin: f.plugin, message: f.message, stack: f.stack });
    if (stage !== 'after_output' && typeof ctx.response === 'string') throw new ShortCircuit(ctx.response, stage);
  }

  private checkStop(hooks: TurnHooks): void {
    if (hooks.shutdown.aborted) throw new Stopped();
  }

  private async log(turn: TurnState, kind: Parameters<KernelDeps['sessions']['append']>[1]['kind'], text: string, data?: Record<string, unknown>): Promise<void> {
    try {
      const ev = await this.d.sessions.append(turn.input.sessionId, { turnId: turn.turnId, kind, text, data });
      this.d.bus.emit('session_event', { sessionId: turn.input.sessionId, seq: ev.seq, kind });
    } catch (e) {
      this.d.log.error(`session log append failed: ${(e as Error).message}`, { turnId: turn.turnId });
    }
  }

  /**
   * Logs a step event (tool call/result, reasoning, interrupt) without making the tool loop wait
   * for its fsync: the store appends one session's events in call order, and the turn awaits them
   * all before it ends. User input and the reply are logged with `log` (awaited), since those are
   * what a user is told was received.
   */
  private logStep(turn: TurnState, kind: Parameters<KernelDeps['sessions']['append']>[1]['kind'], text: string, data?: Record<string, unknown>): void {
    const pending = ((turn.state.__pendingLogs as Promise<void>[] | undefined) ??= []);
    pending.push(this.log(turn, kind, text, data));
  }

  /**
   * The person's message as the model gets it: with the media port, every attachment's text
   * (file, PDF, transcript) or a note about it follows the typed text, within the budget;
   * without it, images only.
   */
  private async userMessage(turn: TurnState, hooks: TurnHooks): Promise<ChatMessage> {
    const { input } = turn;
    const images = input.attachments?.filter((a) => a.mimeType.startsWith('image/'));
    if (!input.attachments?.length || !this.d.media) return { role: 'user', content: input.text, attachments: images };
    try {
      const prepared = await this.d.media.prepare(input.attachments, turn.stored ?? [], { signal: hooks.shutdown });
      const content = [input.text, prepared.text].filter((s) => s.trim()).join('\n\n');
      return { role: 'user', content, attachments: prepared.images.length ? prepared.images : undefined };
    } catch (e) {
      this.d.log.warn(`reading the attachments of ${turn.turnId} failed: ${(e as Error).message}`);
      return { role: 'user', content: input.text, attachments: images };
    }
  }

  async run(turn: TurnState, hooks: TurnHooks): Promise<TurnOutcome> {
    const { d } = this;
    const { input } = turn;
    d.bus.emit('turn_start', { turnId: turn.turnId, sessionId: input.sessionId, input, at: d.now() });
    let finalText = '';
    let status: TurnOutcome['status'] = 'ok';
    let error: TurnOutcome['error'];
    try {
      this.checkStop(hooks);
      await this.stage(turn, 'on_input', this.ctx(turn, 'on_input'));
      // Consolidation turns (internal jobs) stay out of the context window: their instructions
      // and answers are not conversation, must not show in the timeline nor be archived as memory.
      if (!turn.consolidation) {
        // Whose private chat this is, so a person linked across channels finds it (decision 0090).
        if (input.speaker && input.conversation?.kind === 'private') {
          try {
            if (d.people?.notePrivateChat(input.speaker.id, input.conversation.id)) this.noticeUnknownOwner(turn);
          } catch (e) {
            d.log.warn(`could not record the private chat ${input.conversation.id}: ${(e as Error).message}`);
          }
        }
        d.context.append({ kind: 'user', source: input.source, channel: input.channel, sessionId: input.sessionId, input: input.text, response: '', refs: [turn.turnId], ...place(input, true) });
        try {
          await d.context.prune(input.text);
        } catch (e) {
          d.log.warn(`context prune failed: ${(e as Error).message}`);
        }
      }
      turn.messages.push(await this.userMessage(turn, hooks));
      this.checkStop(hooks);
      const before = turn.messages.length;
      await this.stage(turn, 'pre_action', this.ctx(turn, 'pre_action'));
      for (const m of turn.messages.slice(before)) d.bus.emit('stage_event', { turnId: turn.turnId, sessionId: input.sessionId, stage: 'pre_action', note: `injected ${m.role} message from ${m.source ?? 'a plugin'} (${m.content.length} chars)` });
      finalText = await this.toolLoop(turn, hooks);
      if (!turn.consolidation) d.context.append({ kind: 'agent', source: input.source, channel: input.channel, sessionId: input.sessionId, input: input.text, response: finalText, toolOutputs: turn.toolOutputs, refs: [turn.turnId], ...place(input, false) });
      const outCtx = this.ctx(turn, 'before_output', { text: finalText });
      await this.stage(turn, 'before_output', outCtx);
      finalText = outCtx.text ?? finalText;
    } catch (e) {
      if (e instanceof ShortCircuit) {
        status = 'short-circuit';
        finalText = e.response;
        d.bus.emit('stage_event', { turnId: turn.turnId, sessionId: input.sessionId, stage: e.stage, note: 'short-circuit: a handler set the response' });
      } else if (e instanceof Stopped) {
        status = 'aborted';
        finalText = '';
        error = { code: 'SHUTDOWN', message: 'the daemon is shutting down; the turn stopped at a step boundary' };
      } else {
        status = 'error';
        const j = errorToJSON(e);
        error = { code: j.code, message: j.message, details: j.details };
        // Said in the person's language: Chinese to a message written in Chinese.
        const han = /\p{Script=Han}/u.test(input.text);
        const chinese = typeof j.details?.chinese === 'string' && han ? j.details.chinese : undefined;
        // The setup steps and the sources' failures are the owner's business: anyone else is told
        // only that the assistant cannot answer now (decision 0650).
        if (!this.audience(turn).owner) finalText = han ? CANNOT_ANSWER.zh : CANNOT_ANSWER.en;
        else finalText = e instanceof HomeAgentError && e.code === 'NO_PROVIDER_CONFIGURED' ? (chinese ?? e.message) : `Sorry, this turn failed: ${j.message}`;
        if (!(e instanceof HomeAgentError)) d.log.error(`turn ${turn.turnId} failed: ${(e as Error).message}`, { stack: (e as Error).stack });
      }
    }
    if (finalText) await this.emit(turn, finalText, status);
    if (error) await this.log(turn, 'error', error.message, { code: error.code });
    // A turn that ended with nothing to say still ends in the log: else a restart would take its
    // input for one a kill left unanswered and run it again (decision 0390).
    if (!finalText && !error) await this.log(turn, 'marker', '', { op: 'done', status });
    try {
      await this.stage(turn, 'after_output', this.ctx(turn, 'after_output', { text: finalText }));
    } catch {
      /* after_output is read-only; a response set there is ignored */
    }
    await Promise.all((turn.state.__pendingLogs as Promise<void>[] | undefined) ?? []);
    const outcome: TurnOutcome = { turnId: turn.turnId, sessionId: input.sessionId, text: finalText, status, error, rounds: turn.round };
    d.bus.emit('turn_end', { turnId: turn.turnId, sessionId: input.sessionId, text: finalText, status, error: error && { code: error.code, message: error.message }, rounds: turn.round, at: d.now() });
    return outcome;
  }

  /** emitResponse: the assistant message is logged, then sent through the input's channel. */
  private async emit(turn: TurnState, text: string, status: TurnOutcome['status']): Promise<void> {
    const { d } = this;
    // `rounds`: how many LLM requests the turn made (a reopened chat shows them all).
    await this.log(turn, 'assistant', text, { status, rounds: turn.round });
    try {
      await d.textLog?.append({ at: d.now(), sessionId: turn.input.sessionId, turnId: turn.turnId, role: 'assistant', text });
    } catch {}
    if (turn.consolidation) return;
    const ch = d.channels.get(turn.input.channel);
    const msg = { sessionId: turn.input.sessionId, turnId: turn.turnId, payload: text, type: 'text' as const, meta: { status } };
    if (ch) {
      try {
        await d.channels.send(turn.input.channel, msg);
      } catch (e) {
        d.log.error(`output channel ${turn.input.channel} failed: ${(e as Error).message}`);
      }
    } else if (isProactive(turn.input, false)) {
      const used = await d.channels.sendProactive(
        { ...msg, meta: { ...msg.meta, source: turn.input.source } },
        { home: turn.homeChannel, preferred: cfg(d.config, 'core.notify.channel', 'webui'), onError: (c, e) => d.log.warn(`proactive reply of ${turn.turnId} could not go through ${c}: ${(e as Error).message}`) },
      );
      if (!used) d.log.warn(`proactive reply of ${turn.turnId} (from ${turn.input.source}) reached no channel; it stays in the session log`);
    }
  }

  private async systemPrompt(turn: TurnState): Promise<string> {
    const { d } = this;
    const { speaker, conversation } = turn.input;
    const q = { sessionId: turn.input.sessionId, turnId: turn.turnId, input: turn.input.text, consolidation: turn.consolidation, speaker, conversation };
    const { prompt: base, injected } = await d.prompt.buildWithSources(q);
    // Why was this recalled (issue 12 part 6): the first round's blocks and their sources go into
    // the session log once per turn, so the WebUI, the API and `waiter memory why` can show them.
    if (!turn.consolidation && !turn.state.__sourcesLogged) {
      turn.state.__sourcesLogged = true;
      for (const i of injected) this.logStep(turn, 'injection', i.text, { source: 'recall', slot: i.slot, title: i.title, sources: i.sources });
      // And into the round's live event, for a view that follows the turn as it runs.
      turn.state.__slotBlocks = injected.map((i) => ({ source: 'recall', text: i.text, slot: i.slot, title: i.title, sources: i.sources }));
    }
    // The agent-wide timeline carries private chats (the owner's WebUI, other people's direct
    // messages). A group, and a private chat with anyone but the owner, sees only its own
    // conversation there — or, for a person the owner linked across channels, their private chats
    // on every platform (R-5, decision 0090); the owner's ids see everything.
    const person = speaker ? d.people?.personOf(speaker.id) : undefined;
    const { owner, scope: scoped } = this.audience(turn);
    const scope = scoped ? new Set(scoped) : undefined;
    const visible = d.context.events().filter((e: ContextEvent) => !(e.refs ?? []).includes(turn.turnId) && (!scope || (e.conversation !== undefined && scope.has(e.conversation.id))) && !this.deletedByPerson(e) && d.contextVisible(e));
    const timeline = renderTimeline(visible, cfg(d.config, 'core.agent.timeline_chars', 12000), timeZoneOf(d.config));
    const rules = d.channels.rules();
    const here = conversationBlock(speaker, conversation, owner, person && !person.owner ? person.name : undefined);
    const proactive = isProactive(turn.input, d.channels.get(turn.input.channel) !== undefined)
      ? `This turn was started by ${turn.input.source}, not by a message in a chat: your final reply is delivered to the owner proactively (their default channel).`
      : undefined;
    return [base, rules ? `【输出通道】\n${rules}` : '', here || proactive ? `【当前对话】\n${[here, proactive].filter(Boolean).join('\n')}` : '', timeline ? `【时间线】\n${timeline}` : ''].filter(Boolean).join('\n\n');
  }

  /**
   * A new private chat with someone who is not the owner, on a platform where the owner has no id
   * yet: maybe it is the owner themselves, whose own chat then gets only the tools for anyone and
   * sees only itself. Once per chat (the first time it is seen), a notice tells the owner how to
   * mark that id as theirs.
   */
  private noticeUnknownOwner(turn: TurnState): void {
    const d = this.d;
    const { speaker, conversation } = turn.input;
    if (!speaker || !conversation || this.audience(turn).owner || !d.notice) return;
    const platform = speaker.platform ?? speaker.id.split(':')[0];
    const ownerIds = [...cfg<string[]>(d.config, 'core.identity.owner_ids', []), ...(d.people?.list().find((p) => p.owner)?.ids ?? [])];
    if (ownerIds.some((id) => id.startsWith(`${platform}:`))) return;
    const who = speaker.name ? `${speaker.name} (${speaker.id})` : speaker.id;
    const text =
      `${who} started a private chat with me on ${platform}. I treat them as someone other than you: their chat sees only itself and gets only the tools meant for anyone. ` +
      `If this is you, mark the id as yours: Settings → People → on your own card, link ${speaker.id}, or \`waiter people link ${speaker.id} --to owner\`.\n` +
      `${who} 在 ${platform} 上开始了与我的私聊。我把对方当作你以外的人：这个对话只看到它自己，也只能用给所有人的工具。如果这是你本人，请把这个 id 标为你的：设置 → 人物 → 在你自己的卡片上关联 ${speaker.id}，或运行 \`waiter people link ${speaker.id} --to owner\`。`;
    void d.notice({ text, source: 'people' }).catch((e: Error) => d.log.warn(`could not send the notice about ${speaker.id}: ${e.message}`));
  }

  /**
   * Whose the turn is (decision 0360), by the one rule (`turnAudience`) the timeline, the tool gate
   * and the memory tools share; computed once per turn.
   */
  private audience(turn: TurnState): TurnAudience {
    const cached = turn.state.__audience as TurnAudience | undefined;
    if (cached) return cached;
    const { speaker, conversation } = turn.input;
    const a = turnAudience(speaker, conversation, cfg<string[]>(this.d.config, 'core.identity.owner_ids', []), this.d.people);
    turn.state.__audience = a;
    return a;
  }

  /** The tools a turn is offered: all for the owner; for anyone else only those whose audience is `anyone` (decision 0360). */
  private offered(turn: TurnState, tools: ToolDef[]): ToolDef[] {
    // A memory-upkeep turn quotes remembered text — which anyone in a group may have written — and
    // answers in its text (JSON its caller checks): it is offered no tool, so an injected line in
    // a remembered name cannot reach the owner's tools through it.
    if (turn.consolidation) return [];
    return this.audience(turn).owner ? tools : tools.filter((t) => t.audience === 'anyone');
  }

  /**
   * Whether the person deleted what a timeline event carries (decision 0050): a deleted turn hides
   * both its events; a deleted reply hides the agent's (and any archived copy holding it).
   */
  private deletedByPerson(e: ContextEvent): boolean {
    const turnId = e.refs?.[0];
    if (!turnId || !this.d.sessions.deleted) return false;
    const scope = this.d.sessions.deleted(e.sessionId, turnId);
    return scope === 'turn' || (scope === 'reply' && e.kind !== 'user');
  }

  private async callLlm(turn: TurnState, hooks: TurnHooks, tools: ToolDef[]): Promise<Awaited<ReturnType<KernelDeps['llm']['run']>> & { injected: LlmChainEvent['injected'] }> {
    const { d } = this;
    const injected: LlmChainEvent['injected'] = turn.messages.filter((m) => m.source && !(turn.state.__reported as Set<ChatMessage> | undefined)?.has(m)).map((m) => ({ source: m.source!, text: m.content }));
    const reported = (turn.state.__reported as Set<ChatMessage>) ?? new Set<ChatMessage>();
    turn.state.__reported = reported;
    for (const m of turn.messages) if (m.source) reported.add(m);
    for (let attempt = 0; ; attempt++) {
      const pending = hooks.drainInterrupts();
      if (pending.length) {
        const msgs = interruptMessages(pending);
        turn.messages.push(...msgs);
        msgs.forEach((m, i) => {
          reported.add(m);
          injected.push({ source: 'interrupt', text: m.content });
          const logged = this.log(turn, 'interrupt', m.content);
          ((turn.state.__pendingLogs as Promise<void>[] | undefined) ??= []).push(logged);
          // Its sender (a reminder) learns it is in a session log only now (decision 0390).
          void logged.then(() => pending[i].recorded?.());
        });
      }
      this.checkStop(hooks);
      const system = await this.systemPrompt(turn);
      const blocks = turn.state.__slotBlocks as LlmChainEvent['injected'] | undefined;
      if (blocks) {
        injected.push(...blocks);
        turn.state.__slotBlocks = undefined;
      }
      const ac = new AbortController();
      const onShutdown = () => ac.abort(new Error('shutdown'));
      hooks.shutdown.addEventListener('abort', onShutdown, { once: true });
      hooks.setLlmAbort(ac);
      // A `before_output` handler may rewrite the reply (redact, format): while one is registered
      // the reply's words are not streamed — a surface that cannot take back what it showed
      // (a terminal, an OpenAI stream) would show what the handler removes. They get the
      // rewritten reply whole at the turn's end. Reasoning still streams.
      const holdText = d.stages.handlerCount('before_output') > 0;
      try {
        const res = await d.llm.run(
          { messages: systemFirst(system, turn.messages), tools: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })) },
          {
            signal: ac.signal,
            onPart: (p) => {
              if ((p.type === 'text-delta' && !holdText) || p.type === 'reasoning-delta')
                d.bus.emit('turn_delta', { turnId: turn.turnId, sessionId: turn.input.sessionId, round: turn.round, kind: p.type === 'text-delta' ? 'text' : 'reasoning', text: p.text });
            },
          },
        );
        return { ...res, injected };
      } catch (e) {
        const byInterrupt = hooks.takeInterruptAbort();
        if (byInterrupt && !hooks.shutdown.aborted && !turn.consolidation && attempt < MAX_INTERRUPT_RETRIES) {
          d.log.info(`LLM call of ${turn.turnId} aborted by an interrupt; retrying with the interrupt message`);
          continue;
        }
        if (hooks.shutdown.aborted) throw new Stopped();
        throw e;
      } finally {
        hooks.setLlmAbort(undefined);
        hooks.shutdown.removeEventListener('abort', onShutdown);
      }
    }
  }

  /** The tool loop; exits when the LLM calls no tool, every call was rejected, or at the round limit. */
  private async toolLoop(turn: TurnState, hooks: TurnHooks): Promise<string> {
    const { d } = this;
    const maxRounds = Math.max(1, cfg(d.config, turn.consolidation ? 'core.agent.consolidation_max_rounds' : 'core.agent.max_tool_rounds', 8));
    let lastText = '';
    for (;;) {
      this.checkStop(hooks);
      const tools = [...d.tools.build(), ...(hooks.turnTools?.(turn) ?? [])];
      const byName = new Map(tools.map((t) => [t.name, t]));
      const res = await this.callLlm(turn, hooks, this.offered(turn, tools));
      turn.round++;
      const chain = llmChainEvent(res, { turnId: turn.turnId, sessionId: turn.input.sessionId, round: turn.round, consolidation: turn.consolidation, injected: res.injected, at: d.now() });
      d.bus.emit('agent_llm_chain', chain);
      if (res.reasoning) this.logStep(turn, 'reasoning', res.reasoning, { round: turn.round });
      const post = this.ctx(turn, 'post_action', { text: res.text, toolCalls: [...res.toolCalls] });
      await this.stage(turn, 'post_action', post);
      lastText = post.text ?? res.text;
      const calls: ToolCall[] = post.toolCalls ?? [];
      if (calls.length === 0) return lastText;
      turn.messages.push({ role: 'assistant', content: lastText, toolCalls: calls, reasoning: res.reasoning || undefined });
      let rejected = 0;
      for (const call of calls) {
        this.checkStop(hooks);
        const result = await this.runToolCall(turn, call, byName, hooks);
        if (result.rejected) rejected++;
        turn.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.text });
      }
      if (rejected === calls.length) {
        d.log.info(`turn ${turn.turnId}: every tool call was rejected; leaving the tool loop`);
        return lastText || 'I was not allowed to run the tools I needed for this request.';
      }
      if (turn.round >= maxRounds) {
        d.log.warn(`turn ${turn.turnId} reached the tool round limit (${maxRounds})`);
        return lastText || `(stopped after ${maxRounds} tool rounds without a final answer)`;
      }
    }
  }

  /** Runs one call; `rejected` is true only when a before_toolcall handler refused it. */
  private async runToolCall(turn: TurnState, call: ToolCall, byName: Map<string, ToolDef>, hooks: TurnHooks): Promise<{ text: string; rejected: boolean }> {
    const { d } = this;
    const base = { turnId: turn.turnId, sessionId: turn.input.sessionId, round: turn.round };
    const started = d.now();
    const def = byName.get(call.name);
    let args: Record<string, unknown> = {};
    let parseError: string | undefined;
    try {
      const parsed = call.arguments.trim() ? JSON.parse(call.arguments) : {};
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed;
      else parseError = 'tool arguments must be a JSON object';
    } catch {
      parseError = `tool arguments are not valid JSON: ${call.arguments.slice(0, 200)}`;
    }
    this.logStep(turn, 'tool_call', call.name, { id: call.id, arguments: call.arguments, round: turn.round });
    d.bus.emit('tool_start', { ...base, call, plugin: d.stages.toolPlugin(call.name) });
    const finish = async (text: string, extra: { error?: string; rejected?: string } = {}) => {
      this.logStep(turn, 'tool_result', text, { id: call.id, name: call.name, round: turn.round, ...extra });
      d.bus.emit('tool_end', { ...base, call, result: text, durationMs: d.now() - started, ...extra });
      return { text, rejected: extra.rejected !== undefined };
    };
    if (!def) return finish(`Error: unknown tool "${call.name}"`, { error: 'unknown tool' });
    if (turn.consolidation) {
      const why = `FORBIDDEN: ${call.name}: a memory-upkeep turn uses no tools; answer in text`;
      d.log.warn(`tool ${call.name} refused in a memory-upkeep turn`, { turnId: turn.turnId });
      return finish(`Rejected: ${why}`, { rejected: why });
    }
    const audience = this.audience(turn);
    if (!audience.owner && def.audience !== 'anyone') {
      // A model talked into calling an owner tool from a group or someone else's chat (decision 0360).
      const why = `FORBIDDEN: ${call.name} is the owner's; it cannot be used from a group or someone else's chat`;
      d.log.warn(`tool ${call.name} refused in a non-owner turn`, { turnId: turn.turnId, speaker: turn.input.speaker?.id });
      return finish(`Rejected: ${why}`, { rejected: why });
    }
    if (parseError) {
      d.log.warn(`tool ${call.name}: ${parseError}`, { turnId: turn.turnId });
      return finish(`Error: ${parseError}`, { error: parseError });
    }
    const before = this.ctx(turn, 'before_toolcall', { toolCall: call, args });
    await this.stage(turn, 'before_toolcall', before, call.name);
    if (before.rejected) return finish(`Rejected: ${before.rejected}`, { rejected: before.rejected });
    // The tool's signal is the shutdown signal: stop() cancels a tool in flight (C-1). An
    // interruptible tool (its work is an LLM call) is also aborted by a user interrupt (C-2 a).
    let signal = hooks.shutdown;
    let ac: AbortController | undefined;
    const onShutdown = () => ac?.abort(new Error('shutdown'));
    // The user already interrupted (during an earlier call of this round, or a stage): an
    // interruptible tool is not started; the interrupt goes to the next LLM call at once.
    if (def.interruptible && !turn.consolidation && hooks.hasInterrupts?.()) {
      const skipped = `(${def.name} was not started because the user interrupted; their message follows)`;
      // after_toolcall still runs: audit stages see every before_toolcall matched.
      const after = this.ctx(turn, 'after_toolcall', { toolCall: call, args: before.args ?? args, result: skipped });
      await this.stage(turn, 'after_toolcall', after, call.name);
      turn.toolOutputs.push({ tool: def.name, text: skipped, noMemory: true });
      return finish(skipped, { error: 'interrupted' });
    }
    if (def.interruptible && !turn.consolidation) {
      ac = new AbortController();
      hooks.shutdown.addEventListener('abort', onShutdown, { once: true });
      if (hooks.shutdown.aborted) ac.abort(new Error('shutdown'));
      hooks.setLlmAbort(ac);
      signal = ac.signal;
    }
    let r: Awaited<ReturnType<typeof d.stages.executeTool>>;
    let interrupted = false;
    try {
      r = await d.stages.executeTool(def, before.args ?? args, { sessionId: turn.input.sessionId, turnId: turn.turnId, callId: call.id, signal, ...place(turn.input, true), owner: audience.owner, ...(audience.scope ? { scope: audience.scope } : {}) });
    } finally {
      if (ac) {
        hooks.setLlmAbort(undefined);
        hooks.shutdown.removeEventListener('abort', onShutdown);
        interrupted = ac.signal.aborted && !hooks.shutdown.aborted && hooks.takeInterruptAbort();
      }
    }
    if (interrupted) {
      d.log.info(`tool ${def.name} of ${turn.turnId} stopped by an interrupt; the interrupt goes to the next LLM call`);
      r = { output: `(${def.name} was stopped because the user interrupted; their message follows)`, error: 'interrupted' };
    }
    const after = this.ctx(turn, 'after_toolcall', { toolCall: call, args: before.args ?? args, result: r.output });
    await this.stage(turn, 'after_toolcall', after, call.name);
    // The cap applies after after_toolcall (a stage may shorten the result itself) and before the
    // result reaches history, memory, the session log and the next LLM request.
    const text = capToolResult(after.result ?? r.output, Math.max(1_000, cfg(d.config, 'core.agent.tool_result_chars', DEFAULT_TOOL_RESULT_CHARS)));
    if (!def.noMemory) {
      let memText = text;
      if (def.cleaner) {
        try {
          memText = def.cleaner(text);
        } catch (e) {
          d.log.warn(`cleaner of ${def.name} failed: ${(e as Error).message}`);
        }
      }
      turn.toolOutputs.push({ tool: def.name, text: memText });
    } else turn.toolOutputs.push({ tool: def.name, text, noMemory: true });
    return finish(text, r.error ? { error: r.error } : {});
  }
}
