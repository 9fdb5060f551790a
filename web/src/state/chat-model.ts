/**
 * The chat model: turns of one session built from the session log (history) and updated by
 * bus events (live). Pure functions, so they are unit-tested without a browser.
 */

export interface SessionEventLike {
  seq: number;
  turnId: string;
  kind: string;
  at: number;
  text: string;
  data?: Record<string, unknown>;
}

export interface ToolCallView {
  id: string;
  name: string;
  args: string;
  result?: string;
  error?: string;
  rejected?: string;
  durationMs?: number;
  running: boolean;
}

export interface RoundView {
  round: number;
  text: string;
  reasoning: string;
  toolCalls: ToolCallView[];
  provider?: string;
  model?: string;
  usage?: { inputTokens: number; outputTokens: number };
  latencyMs?: number;
}

export type TurnStatus = 'queued' | 'running' | 'ok' | 'error' | 'aborted' | 'short-circuit';

export interface TurnView {
  turnId: string;
  sessionId: string;
  userText: string;
  userSeq?: number;
  attachments: { name?: string; mimeType?: string; bytes?: number }[];
  rounds: RoundView[];
  /** Text/reasoning streamed since the last finished round. */
  live: { text: string; reasoning: string };
  status: TurnStatus;
  finalText: string;
  assistantSeq?: number;
  error?: { code: string; message: string };
  /** Blocks put into the model's context for this turn, each with the sources of its items. */
  injected: InjectedView[];
  stageNotes: string[];
  interrupts: string[];
  seqs: number[];
  excluded: boolean;
  /** Messages the agent sent to this chat through the webui output channel during the turn. */
  outputs: string[];
  at: number;
  /** Who wrote the message, when a chat channel named them (Telegram, QQ); absent = the owner. */
  speaker?: { id: string; name?: string; platform?: string };
  /** Texts of the turn were forgotten (K-2): the log holds them as `[forgotten]` with `{ redacted: true }`. */
  forgotten?: boolean;
  /** Notices recorded in this turn (`system` events: a timer's result, a stranger who wrote, …). */
  notices: NoticeView[];
}

/** A notice the agent recorded without an LLM turn (`Agent.notify`), and who sent it. */
export interface NoticeView {
  text: string;
  source?: string;
  seq?: number;
}

/** Where one injected item came from (the kernel's `InjectedSource`, as the session log has it). */
export interface InjectedSourceView {
  tier: string;
  id: string;
  text: string;
  at?: number;
  sessionId?: string;
  turnId?: string;
  seq?: number;
  speaker?: { id: string; name?: string };
}

/** One injected block: the memory library's, or a recall slot of the system prompt (【记忆索引】 …). */
export interface InjectedView {
  source: string;
  text: string;
  /** The slot's heading, for recall blocks. */
  title?: string;
  sources: InjectedSourceView[];
}

/** The well-formed sources of an injection event's data (anything else is left out). */
export function injectedSources(v: unknown): InjectedSourceView[] {
  if (!Array.isArray(v)) return [];
  const out: InjectedSourceView[] = [];
  for (const x of v) {
    if (!x || typeof x !== 'object') continue;
    const o = x as Record<string, unknown>;
    if (typeof o.tier !== 'string' || typeof o.id !== 'string' || typeof o.text !== 'string') continue;
    const sp = o.speaker as Record<string, unknown> | undefined;
    out.push({
      tier: o.tier,
      id: o.id,
      text: o.text,
      at: typeof o.at === 'number' ? o.at : undefined,
      sessionId: typeof o.sessionId === 'string' ? o.sessionId : undefined,
      turnId: typeof o.turnId === 'string' ? o.turnId : undefined,
      seq: typeof o.seq === 'number' ? o.seq : undefined,
      speaker: sp && typeof sp.id === 'string' ? { id: sp.id, name: typeof sp.name === 'string' ? sp.name : undefined } : undefined,
    });
  }
  return out;
}

function emptyTurn(turnId: string, sessionId: string, at = Date.now()): TurnView {
  return { turnId, sessionId, userText: '', attachments: [], rounds: [], live: { text: '', reasoning: '' }, status: 'running', finalText: '', injected: [], stageNotes: [], interrupts: [], seqs: [], excluded: false, outputs: [], notices: [], at };
}

/** The kernel logs interrupts as `[打断消息] text`; the view shows a badge instead. */
export function stripInterruptPrefix(text: string): string {
  return text.replace(/^\s*\[(打断消息|interrupt)\]\s*/i, '');
}

/** The turn number of a turn id (`"<session>#<n>"`). */
export function turnNumber(turnId: string): number {
  const n = Number(turnId.slice(turnId.lastIndexOf('#') + 1));
  return Number.isFinite(n) ? n : 0;
}

/** Builds the turns of a session from its log; `inflight` names the turn still running. */
export function turnsFromEvents(sessionId: string, events: SessionEventLike[], inflight?: string | null): TurnView[] {
  const byId = new Map<string, TurnView>();
  const order: TurnView[] = [];
  const currentRound = new Map<string, number>();
  for (const ev of events) {
    let t = byId.get(ev.turnId);
    if (!t) {
      t = { ...emptyTurn(ev.turnId, sessionId, ev.at), status: 'ok' };
      byId.set(ev.turnId, t);
      order.push(t);
    }
    t.seqs.push(ev.seq);
    const d = ev.data ?? {};
    if (d.redacted === true) t.forgotten = true;
    switch (ev.kind) {
      case 'user':
        if (t.userSeq === undefined) {
          t.userText = ev.text;
          t.userSeq = ev.seq;
          t.attachments = Array.isArray(d.attachments) ? (d.attachments as TurnView['attachments']) : [];
          t.speaker = speakerOf(d.speaker);
        } else t.interrupts.push(stripInterruptPrefix(ev.text));
        break;
      case 'assistant': {
        t.finalText = ev.text;
        t.assistantSeq = ev.seq;
        // The reply records how many LLM requests the turn made; the log has no event for a
        // round without reasoning or tool calls (the last one, which wrote the answer).
        const n = typeof d.rounds === 'number' ? Math.min(d.rounds, 100) : 0;
        for (let k = 1; k <= n; k++) roundAt(t, k);
        const lastRound = t.rounds.find((r) => r.round === n);
        if (lastRound && !lastRound.text && !lastRound.toolCalls.length) lastRound.text = ev.text;
        break;
      }
      case 'reasoning': {
        // The log has no round on tool calls; a reasoning event marks where a round starts.
        currentRound.set(t.turnId, typeof d.round === 'number' ? d.round : t.rounds.length + 1);
        const r = roundAt(t, currentRound.get(t.turnId)!);
        r.reasoning = ev.text;
        break;
      }
      case 'tool_call': {
        const call = (d.call ?? d) as { id?: string; name?: string; arguments?: string };
        const r = roundAt(t, typeof d.round === 'number' ? d.round : currentRound.get(t.turnId) ?? 1);
        r.toolCalls.push({ id: call.id ?? `c${ev.seq}`, name: call.name ?? ev.text, args: call.arguments ?? '', running: false });
        break;
      }
      case 'tool_result': {
        const callId = String(d.callId ?? d.id ?? '');
        const calls = t.rounds.flatMap((r) => r.toolCalls);
        const call = calls.find((c) => c.id === callId) ?? calls.filter((c) => c.result === undefined).at(-1);
        if (call) {
          call.result = ev.text;
          if (typeof d.error === 'string') call.error = d.error;
          if (typeof d.rejected === 'string') call.rejected = d.rejected;
        }
        break;
      }
      case 'injection':
        t.injected.push({ source: String(d.source ?? 'memory-manager'), text: ev.text, title: typeof d.title === 'string' ? d.title : undefined, sources: injectedSources(d.sources) });
        break;
      case 'interrupt':
        t.interrupts.push(stripInterruptPrefix(ev.text));
        break;
      case 'system':
        t.notices.push({ text: ev.text, source: typeof d.source === 'string' ? d.source : undefined, seq: ev.seq });
        break;
      case 'error':
        t.status = 'error';
        t.error = { code: String(d.code ?? 'ERROR'), message: ev.text };
        break;
      case 'marker':
        // memory-manager markers: {op: 'exclude' | 'restore', turnId}; the last one wins.
        if (d.op === 'exclude' || d.op === 'restore') {
          const target = typeof d.turnId === 'string' ? byId.get(d.turnId) ?? t : t;
          target.excluded = d.op === 'exclude';
        }
        break;
      default:
        break;
    }
  }
  for (const t of order) if (t.turnId === inflight) t.status = 'running';
  return order;
}

/** The speaker a chat channel put on a message, if well-formed. */
function speakerOf(v: unknown): TurnView['speaker'] {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.id !== 'string') return undefined;
  return { id: o.id, name: typeof o.name === 'string' ? o.name : undefined, platform: typeof o.platform === 'string' ? o.platform : undefined };
}

function roundAt(t: TurnView, round: number): RoundView {
  let r = t.rounds.find((x) => x.round === round);
  if (!r) {
    r = { round, text: '', reasoning: '', toolCalls: [] };
    t.rounds.push(r);
    t.rounds.sort((a, b) => a.round - b.round);
  }
  return r;
}

function cloneTurn(t: TurnView): TurnView {
  return { ...t, rounds: t.rounds.map((r) => ({ ...r, toolCalls: r.toolCalls.map((c) => ({ ...c })) })), live: { ...t.live }, injected: [...t.injected], stageNotes: [...t.stageNotes], interrupts: [...t.interrupts], seqs: [...t.seqs], outputs: [...t.outputs], notices: [...t.notices] };
}

/**
 * Applies one bus event to the turns of `sessionId` (immutable). Events of other sessions
 * return the same array.
 */
export function applyBusEvent(turns: TurnView[], sessionId: string, event: string, payload: unknown): TurnView[] {
  const p = (payload ?? {}) as Record<string, unknown>;
  if (p.sessionId !== sessionId) return turns;
  const turnId = typeof p.turnId === 'string' ? p.turnId : undefined;
  if (event === 'interrupt') {
    const running = [...turns].reverse().find((t) => t.status === 'running');
    if (!running) return turns;
    return turns.map((t) => (t === running ? { ...cloneTurn(t), interrupts: [...t.interrupts, String(p.text ?? '')] } : t));
  }
  if (event === 'output') {
    // A message sent through the webui output channel (e.g. a timer reminder): attached to its
    // turn when that turn is shown, else shown as a message of its own.
    if (p.kind === 'reply') return turns;
    const text = typeof p.payload === 'string' ? p.payload : JSON.stringify(p.payload);
    const meta = (p.meta ?? {}) as Record<string, unknown>;
    if (meta.notice === true) {
      // A notice (Agent.notify): shown as a notice card, as the log has it when read again.
      const notice: NoticeView = { text, source: typeof meta.source === 'string' ? meta.source : undefined };
      const k = turnId ? turns.findIndex((t) => t.turnId === turnId) : -1;
      if (k >= 0) return turns[k].notices.some((n) => n.text === text) ? turns : turns.map((t, j) => (j === k ? { ...cloneTurn(t), notices: [...t.notices, notice] } : t));
      return [...turns, { ...emptyTurn(turnId ?? `notice:${turns.length}:${Date.now()}`, sessionId), status: 'ok', notices: [notice] }];
    }
    const i = turnId ? turns.findIndex((t) => t.turnId === turnId) : -1;
    // A reply split into parts also arrives here: skip what the answer already holds.
    if (i >= 0 && [turns[i].finalText, ...turns[i].rounds.map((r) => r.text), turns[i].live.text].some((a) => a && text.trim() && a.includes(text.trim()))) return turns;
    if (i >= 0) return turns.map((t, k) => (k === i ? { ...cloneTurn(t), outputs: [...t.outputs, text] } : t));
    const id = `output:${turns.length}:${Date.now()}`;
    return [...turns, { ...emptyTurn(id, sessionId), status: 'ok', finalText: text }];
  }
  if (!turnId) return turns;
  const idx = turns.findIndex((t) => t.turnId === turnId);
  const t = idx >= 0 ? cloneTurn(turns[idx]) : emptyTurn(turnId, sessionId, typeof p.at === 'number' ? p.at : Date.now());
  switch (event) {
    case 'turn_start': {
      const input = (p.input ?? {}) as { text?: string; attachments?: TurnView['attachments']; speaker?: unknown };
      t.status = 'running';
      if (!t.userText) t.userText = input.text ?? '';
      if (!t.attachments.length && Array.isArray(input.attachments)) t.attachments = input.attachments;
      t.speaker ??= speakerOf(input.speaker);
      break;
    }
    case 'turn_delta':
      if (t.status === 'queued') t.status = 'running';
      if (p.kind === 'reasoning') t.live.reasoning += String(p.text ?? '');
      else t.live.text += String(p.text ?? '');
      break;
    case 'agent_llm_chain': {
      const r = roundAt(t, Number(p.round ?? t.rounds.length + 1));
      r.text = String(p.text ?? '');
      r.reasoning = String(p.reasoning ?? '');
      r.provider = p.provider as string;
      r.model = p.model as string;
      r.usage = p.usage as RoundView['usage'];
      r.latencyMs = p.latencyMs as number;
      const calls = (p.toolCalls ?? []) as { id: string; name: string; arguments: string }[];
      for (const c of calls) if (!r.toolCalls.some((x) => x.id === c.id)) r.toolCalls.push({ id: c.id, name: c.name, args: c.arguments, running: false });
      // The library block and, in the first round, the recall blocks with their sources (live).
      for (const inj of (p.injected ?? []) as { source: string; text: string; title?: unknown; sources?: unknown }[]) {
        if (t.injected.some((x) => x.text === inj.text)) continue;
        t.injected.push({ source: String(inj.source), text: String(inj.text), title: typeof inj.title === 'string' ? inj.title : undefined, sources: injectedSources(inj.sources) });
      }
      t.live = { text: '', reasoning: '' };
      break;
    }
    case 'tool_start': {
      const call = (p.call ?? {}) as { id: string; name: string; arguments: string };
      const r = roundAt(t, Number(p.round ?? t.rounds.length));
      const existing = r.toolCalls.find((c) => c.id === call.id);
      if (existing) existing.running = true;
      else r.toolCalls.push({ id: call.id, name: call.name, args: call.arguments, running: true });
      break;
    }
    case 'tool_end': {
      const call = (p.call ?? {}) as { id: string; name: string; arguments: string };
      const r = roundAt(t, Number(p.round ?? t.rounds.length));
      let c = r.toolCalls.find((x) => x.id === call.id);
      if (!c) {
        c = { id: call.id, name: call.name, args: call.arguments, running: false };
        r.toolCalls.push(c);
      }
      c.running = false;
      c.result = String(p.result ?? '');
      if (typeof p.error === 'string') c.error = p.error;
      if (typeof p.rejected === 'string') c.rejected = p.rejected;
      if (typeof p.durationMs === 'number') c.durationMs = p.durationMs;
      break;
    }
    case 'stage_event':
      t.stageNotes.push(`${String(p.stage ?? '')}: ${String(p.note ?? '')}`);
      break;
    case 'turn_end': {
      t.status = (p.status as TurnStatus) ?? 'ok';
      if (typeof p.rounds === 'number') for (let k = 1; k <= Math.min(p.rounds, 100); k++) roundAt(t, k);
      t.finalText = String(p.text ?? t.finalText);
      const err = p.error as { code: string; message: string } | undefined;
      if (err) t.error = err;
      t.live = { text: '', reasoning: '' };
      for (const r of t.rounds) for (const c of r.toolCalls) c.running = false;
      break;
    }
    default:
      return turns;
  }
  if (idx >= 0) return turns.map((x, i) => (i === idx ? t : x));
  return [...turns, t];
}

/** Merges turns loaded from the log with turns the bus created meanwhile (live data wins while running). */
export function mergeTurns(history: TurnView[], live: TurnView[]): TurnView[] {
  // Maps, not finds: a long history holds thousands of turns.
  const liveById = new Map(live.map((l) => [l.turnId, l]));
  const historyIds = new Set(history.map((h) => h.turnId));
  const out = history.map((h) => {
    const l = liveById.get(h.turnId);
    // Live data wins only while the log also says the turn runs: a log read after the turn ended
    // is newer than a live "running" whose end this view never saw (it would spin for ever).
    if (!l || l.status !== 'running' || h.status !== 'running') return h;
    return {
      ...l,
      userText: l.userText || h.userText,
      attachments: l.attachments.length ? l.attachments : h.attachments,
      rounds: l.rounds.length ? l.rounds : h.rounds,
      userSeq: h.userSeq,
      seqs: h.seqs,
      injected: h.injected.length ? h.injected : l.injected,
    };
  });
  for (const l of live) if (!historyIds.has(l.turnId)) out.push(l);
  // Keep live channel outputs of a turn that the log does not carry.
  for (let i = 0; i < out.length; i++) {
    const o = out[i];
    const l = liveById.get(o.turnId);
    if (l && l !== o && l.outputs.length && !o.outputs.length) out[i] = { ...o, outputs: l.outputs };
  }
  return out.sort((a, b) => turnNumber(a.turnId) - turnNumber(b.turnId) || a.at - b.at);
}

/** The text to show for the assistant of a turn (final, or what has streamed so far). */
export function visibleAnswer(t: TurnView): string {
  if (t.status !== 'running' && t.status !== 'queued') return t.finalText;
  const streamed = t.rounds.map((r) => r.text).filter(Boolean);
  return [...streamed, t.live.text].filter(Boolean).join('\n\n');
}

/** What tells two versions of a turn apart for the view (a finished turn is fixed by its seqs). */
function fingerprint(t: TurnView): string {
  return [t.seqs.join(','), t.status, !!t.forgotten, t.userText.length, t.finalText.length, t.rounds.length, t.excluded, t.live.text.length, t.live.reasoning.length, t.outputs.length, t.interrupts.length, t.stageNotes.length, t.rounds.reduce((n, r) => n + r.toolCalls.filter((c) => c.running || c.result !== undefined).length, 0)].join('|');
}

/**
 * `next` with every turn that did not change replaced by its object in `prev`, so memoized
 * views of a long history do not render again when a page is added or one turn changes.
 */
export function keepUnchanged(prev: TurnView[], next: TurnView[]): TurnView[] {
  if (prev.length === 0) return next;
  const byId = new Map(prev.map((t) => [t.turnId, t]));
  let same = prev.length === next.length;
  const out = next.map((t, i) => {
    const p = byId.get(t.turnId);
    const keep = p && p !== t && fingerprint(p) === fingerprint(t) ? p : t;
    if (keep !== prev[i]) same = false;
    return keep;
  });
  return same ? prev : out;
}
