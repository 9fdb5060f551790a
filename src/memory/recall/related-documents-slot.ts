import type { ConfigReader } from '../../spec/config.js';
import { localStamp, systemTimeZone } from '../../spec/local-time.js';
import type { InjectedSource, PromptQuery, PromptSlotFill, RecallHit } from '../../spec/memory.js';
import type { PeopleDirectory } from '../../spec/people.js';
import { recallScope, type MemoryRecall } from './memory-recall.js';

/** Characters of one document shown in the prompt. */
const SNIPPET_CHARS = 400;

/**
 * Prompt-slot provider of 【相关记忆文档】 (T-3 auto-injection, slot `related_documents`): the top
 * `core.docs.auto_inject_top` (default 3) turns for the input from the documents and the cold
 * archive (the context window is in the timeline already), each with its date and tier; warm
 * documents count an access; a group or someone else's private chat gets only turns said there
 * (R-5). The kernel prints the heading. Undefined when nothing matches or on
 * consolidation turns.
 */
export function relatedDocumentsSlot(recall: MemoryRecall, opts: { config?: ConfigReader; top?: number; people?: PeopleDirectory } = {}): (q: PromptQuery) => Promise<PromptSlotFill | undefined> {
  return async (q) => {
    if (q.consolidation || !q.input.trim()) return undefined;
    const top = opts.top ?? readTop(opts.config);
    if (top <= 0) return undefined;
    const hits = await recall.related(q.input, top, recallScope(q, ownerIds(opts.config), opts.people), q.speaker);
    if (hits.length === 0) return undefined;
    const zone = recall.timeZone();
    return { text: hits.map((h) => relatedLine(h.hit, zone)).join('\n'), sources: hits.map((h) => hitSource(h.hit)) };
  };
}

/** Where a line of 【相关记忆文档】 came from (issue 12 part 6): tier, id, date, place, turn. */
export function hitSource(h: RecallHit): InjectedSource {
  const text = h.text.length > SNIPPET_CHARS ? `${h.text.slice(0, SNIPPET_CHARS)}…` : h.text;
  return {
    tier: h.tier,
    id: h.id,
    text,
    ...(h.createdAt ? { at: h.createdAt } : {}),
    ...(h.sessionId ? { sessionId: h.sessionId } : {}),
    ...(h.channel ? { channel: h.channel } : {}),
    ...(h.turnId ? { turnId: h.turnId } : {}),
    ...(h.speaker ? { speaker: h.speaker } : {}),
    ...(h.conversation ? { conversation: h.conversation } : {}),
  };
}

/**
 * One line of 【相关记忆文档】: `- [date · tier · who] text`, who as the timeline names them — `user`
 * (the owner), `user <name>` (someone on a chat channel), `assistant` (the agent's own reply) — so
 * the model can tell what the person said from what it answered. Other documents (notes) name
 * their speaker when they have one. The date is the wall clock of `zone` (the person's, decision
 * 0270; the prompt names it).
 */
export function relatedLine(h: RecallHit, zone: string = systemTimeZone()): string {
  const text = h.text.length > SNIPPET_CHARS ? `${h.text.slice(0, SNIPPET_CHARS)}…` : h.text;
  const when = h.createdAt ? localStamp(h.createdAt, zone) : '?';
  const name = h.speaker ? (h.speaker.name ?? h.speaker.id).replace(/[\n\]·]/g, ' ').slice(0, 40) : undefined;
  const who = h.kind === 'agent' ? 'assistant' : h.kind === 'user' ? (name ? `user ${name}` : 'user') : name;
  return `- [${when} · ${h.tier}${who ? ` · ${who}` : ''}] ${text}`;
}

/** The owner's own speaker ids on chat channels (`core.identity.owner_ids`). */
export function ownerIds(config?: ConfigReader): string[] {
  try {
    const v = config?.get('core.identity.owner_ids');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function readTop(config?: ConfigReader): number {
  try {
    const v = config?.get('core.docs.auto_inject_top');
    return typeof v === 'number' && Number.isFinite(v) ? v : 3;
  } catch {
    return 3;
  }
}
