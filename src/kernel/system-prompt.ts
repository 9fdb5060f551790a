import type { ChatMessage, ContextEvent, Disposer, InjectedSource, PromptQuery, PromptSlot, PromptSlotProvider } from '../spec/index.js';
import { localDateTime, localStamp, PROMPT_SLOTS, systemTimeZone } from '../spec/index.js';
import type { Logger } from '../log/index.js';
import { silentLogger } from '../log/index.js';
import { cleanSources } from './injected-sources.js';

/** Section titles of the system prompt (seed vocabulary). */
export const SLOT_TITLES: Record<PromptSlot, string> = {
  persona: '',
  memory_index: '【记忆索引】',
  related_documents: '【相关记忆文档】',
  knowledge: '【知识库】',
  memory_library: '【记忆库】',
  skills: '【技能】',
  output_rules: '【输出通道】',
  timeline: '【时间线】',
  extra: '',
};

export const DEFAULT_PERSONA = `You are HomeAgent, the user's personal assistant running on their own machine. You remember what matters to the user across conversations, and you are honest about what you remember and what you do not. Answer in the language the user writes in. Use tools when they help; keep replies clear and concise.`;

/** One slot's text and the sources its providers named. */
export interface FilledSlot {
  text: string;
  sources: InjectedSource[];
}

/** A slot of the system prompt whose items name their sources (logged as the turn's `injection`). */
export interface InjectedSlot {
  slot: PromptSlot;
  title: string;
  text: string;
  sources: InjectedSource[];
}

interface CachedLine {
  timestamp: number;
  kind: ContextEvent['kind'];
  sessionId: string;
  input: string;
  response: string;
  zone: string;
  line: string;
}

/**
 * Formatted lines by event object. The timeline is rendered every LLM round over the same
 * events; formatting dates and whitespace each time cost ~1-2 ms per round at 200 events.
 * An entry is reused only while the fields it was made from are unchanged.
 */
const lineCache = new WeakMap<ContextEvent, CachedLine>();

function timelineLine(e: ContextEvent, zone: string): string {
  const c = lineCache.get(e);
  if (c && c.timestamp === e.timestamp && c.kind === e.kind && c.sessionId === e.sessionId && c.input === e.input && c.response === e.response && c.zone === zone) return c.line;
  // The person's wall clock (decision 0270); the prompt's "Current time" line names the zone.
  const when = localStamp(e.timestamp, zone);
  // A chat user is named (from data the channel set, R-5); the owner stays "user".
  const who = e.kind === 'agent' ? 'assistant' : e.kind === 'cold_storage' ? 'recalled' : e.kind === 'user' && e.speaker ? `user ${e.speaker.name ?? e.speaker.id}` : e.kind;
  const body = e.kind === 'agent' ? e.response : e.kind === 'cold_storage' ? [e.input, e.response].filter(Boolean).join(' → ') : e.input;
  const line = `[${when}] (${e.sessionId}) ${who}: ${body.replace(/\s+/g, ' ').trim()}`;
  lineCache.set(e, { timestamp: e.timestamp, kind: e.kind, sessionId: e.sessionId, input: e.input, response: e.response, zone, line });
  return line;
}

/** Renders context events as a compact time-ordered timeline, times on the wall clock of `zone` (an IANA name). */
export function renderTimeline(events: readonly ContextEvent[], maxChars: number, zone: string = systemTimeZone()): string {
  const lines: string[] = [];
  let used = 0;
  // A line that does not fit in what is left is cut short ("…") to at most a quarter of the
  // budget, and older turns still follow it: one pasted log or 100 KB message used to end the
  // timeline there. A line that fits stays whole.
  const perLine = Math.max(200, Math.floor(maxChars / 4));
  for (let i = events.length - 1; i >= 0; i--) {
    let line = timelineLine(events[i], zone);
    if (used + line.length > maxChars) {
      const room = Math.min(perLine, maxChars - used);
      if (line.length <= perLine || room < 80) break;
      line = cutLine(line, room);
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.reverse().join('\n');
}

/** `line` in at most `max` characters, "…" where it was cut (never inside a surrogate pair). */
function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  let end = max - 1;
  const c = line.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${line.slice(0, end)}…`;
}

/**
 * Builds the system prompt each round (C-8): persona + named slots filled by providers that
 * later subsystems register (memory index, related documents, knowledge, library, skills, output
 * rules, timeline). A failing provider leaves its slot empty and is logged.
 */
/**
 * A request's messages with the system prompt first and no other system message: the system
 * text a stage handler added to the turn (a chat client's instructions, a plugin's note) joins
 * the leading system message, in order. Strict chat templates (Mistral, Gemma on vLLM or
 * llama.cpp) refuse a system message that is not the first one.
 */
export function systemFirst(system: string, messages: readonly ChatMessage[]): ChatMessage[] {
  const added = messages.filter((m) => m.role === 'system' && m.content.trim()).map((m) => m.content);
  return [{ role: 'system', content: [system, ...added].join('\n\n') }, ...messages.filter((m) => m.role !== 'system')];
}

export class SystemPromptBuilder {
  private readonly providers = new Map<PromptSlot, { provider: PromptSlotProvider; owner: string }[]>();

  /**
   * @param opts.timeZone the person's zone (an IANA name, `core.agent.timezone` resolved): the
   *   "Current time" line is its wall clock, with the zone and offset (decision 0270); default the system's.
   */
  constructor(private readonly opts: { persona: () => string; log?: Logger; now?: () => number; timeZone?: () => string }) {}

  register(slot: PromptSlot, provider: PromptSlotProvider, owner = 'kernel'): Disposer {
    const entry = { provider, owner };
    this.providers.set(slot, [...(this.providers.get(slot) ?? []), entry]);
    return () => {
      this.providers.set(
        slot,
        (this.providers.get(slot) ?? []).filter((p) => p !== entry),
      );
    };
  }

  /** The filled slots, in render order (for inspection and tests). */
  async slots(q: PromptQuery): Promise<Partial<Record<PromptSlot, string>>> {
    const filled = await this.fill(q);
    const out: Partial<Record<PromptSlot, string>> = {};
    for (const [slot, f] of Object.entries(filled) as [PromptSlot, FilledSlot][]) out[slot] = f.text;
    return out;
  }

  /**
   * Every slot's text with the sources its providers named (issue 12 part 6). A provider that
   * returns plain text names none; its text is still in the slot.
   */
  async fill(q: PromptQuery): Promise<Partial<Record<PromptSlot, FilledSlot>>> {
    const out: Partial<Record<PromptSlot, FilledSlot>> = {};
    await Promise.all(
      PROMPT_SLOTS.map(async (slot) => {
        const list = this.providers.get(slot) ?? [];
        const texts: string[] = [];
        const sources: InjectedSource[] = [];
        for (const p of list) {
          try {
            const r = await p.provider(q);
            const t = typeof r === 'string' ? r : r?.text;
            if (!t || !t.trim()) continue;
            texts.push(t.trim());
            if (r && typeof r === 'object') sources.push(...cleanSources(r.sources));
          } catch (e) {
            (this.opts.log ?? silentLogger).warn(`prompt slot ${slot} of ${p.owner} failed: ${(e as Error).message}`);
          }
        }
        if (texts.length) out[slot] = { text: texts.join('\n\n'), sources };
      }),
    );
    return out;
  }

  async build(q: PromptQuery): Promise<string> {
    return (await this.buildWithSources(q)).prompt;
  }

  /** The system prompt and, per slot that named them, the sources of what it injected. */
  async buildWithSources(q: PromptQuery): Promise<{ prompt: string; injected: InjectedSlot[] }> {
    const slots = await this.fill(q);
    const parts: string[] = [this.opts.persona().trim() || DEFAULT_PERSONA];
    const injected: InjectedSlot[] = [];
    for (const slot of PROMPT_SLOTS) {
      const f = slots[slot];
      if (slot === 'persona' || !f) continue;
      const title = SLOT_TITLES[slot];
      parts.push(title ? `${title}\n${f.text}` : f.text);
      if (f.sources.length) injected.push({ slot, title, text: f.text, sources: f.sources });
    }
    const now = this.opts.now?.() ?? Date.now();
    parts.push(`Current time: ${localDateTime(now, this.opts.timeZone?.() ?? systemTimeZone())}`);
    return { prompt: parts.join('\n\n'), injected };
  }
}
