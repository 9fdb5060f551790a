import type { SessionEvent, StoredAttachment, TurnInput } from '../spec/index.js';
import { normalizeConversation, normalizeSpeaker } from './speaker-input.js';

/**
 * How old an acknowledged, unanswered input may be and still be answered after a restart
 * (decision 0390): an answer a day later still reads as a reply; one days later surprises.
 */
export const RESUME_MAX_AGE_MS = 24 * 60 * 60_000;
/**
 * Older than this an unanswered input is left as it is, neither run nor marked: a log from before
 * decision 0390 may hold turns that ended with no outcome event (an empty reply), and a first start
 * on old data must not fill old chats with "not answered".
 */
export const MARK_MAX_AGE_MS = 7 * 24 * 60 * 60_000;
/** How many restarts may resume one turn; a turn that keeps dying with the daemon is then marked. */
export const MAX_RESUMES = 2;
/** Error code of the event that closes an input HomeAgent did not answer. */
export const NOT_ANSWERED = 'NOT_ANSWERED';
/** Largest `meta` of an input kept in its session event (so it can be resumed with it). */
const MAX_META_CHARS = 16_000;
const CHANNEL = /^[A-Za-z0-9_-]{1,64}$/;

/** What the kernel does with one unanswered input at start. */
export type UnansweredAction = { kind: 'resume'; attempt: number } | { kind: 'mark'; why: 'too-old' | 'too-many-restarts' };

/** The action for an input logged at `at` that `resumes` restarts already resumed (decision 0390). */
export function actionFor(at: number, resumes: number, now: number): UnansweredAction {
  if (resumes >= MAX_RESUMES) return { kind: 'mark', why: 'too-many-restarts' };
  if (now - at > RESUME_MAX_AGE_MS) return { kind: 'mark', why: 'too-old' };
  return { kind: 'resume', attempt: resumes + 1 };
}

/** The text the person sees in the chat for an input that is not answered. */
export function notAnsweredText(why: 'too-old' | 'too-many-restarts'): string {
  return why === 'too-old'
    ? 'Not answered: HomeAgent stopped before it could, and this message is now too old to answer late. Send it again if it still matters.'
    : 'Not answered: HomeAgent stopped while answering this message more than once, so it was not tried again. Send it again if it still matters.';
}

/** An input's `meta` as its session event keeps it: JSON-safe and bounded, else left out. */
export function recordableMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!meta || !Object.keys(meta).length) return undefined;
  try {
    const json = JSON.stringify(meta);
    return json.length <= MAX_META_CHARS ? (JSON.parse(json) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The input a logged `user` event recorded, as it is run again after a restart: its source,
 * channel, trigger, speaker, conversation and meta (a log written before decision 0390 has no
 * channel and no meta: the source is the channel, as `injectInput` defaults it). Attachments come
 * back from the files they were kept in (`readStored`); one that cannot be read is left out.
 * Undefined when the event does not hold a usable input.
 */
export function inputOf(sessionId: string, ev: SessionEvent, readStored: (s: StoredAttachment) => string | undefined): { input: TurnInput; stored?: StoredAttachment[] } | undefined {
  const d = ev.data ?? {};
  if (d.redacted) return undefined;
  const source = typeof d.source === 'string' && CHANNEL.test(d.source) ? d.source : undefined;
  if (!source) return undefined;
  const channel = typeof d.channel === 'string' && CHANNEL.test(d.channel) ? d.channel : source;
  const trigger = d.trigger === 'system' ? 'system' : 'user';
  const meta = d.meta && typeof d.meta === 'object' && !Array.isArray(d.meta) ? { ...(d.meta as Record<string, unknown>) } : {};
  const input: TurnInput = { sessionId, source, channel, text: ev.text, trigger, meta: { ...meta, resumed: true } };
  const speaker = normalizeSpeaker(d.speaker as never);
  const conversation = normalizeConversation(d.conversation as never);
  if (speaker) input.speaker = speaker;
  if (conversation) input.conversation = conversation;
  const attachments: NonNullable<TurnInput['attachments']> = [];
  const stored: StoredAttachment[] = [];
  for (const a of Array.isArray(d.attachments) ? (d.attachments as Record<string, unknown>[]) : []) {
    if (!a || typeof a.path !== 'string' || typeof a.mimeType !== 'string') continue;
    const s: StoredAttachment = { name: typeof a.name === 'string' ? a.name : 'attachment', mimeType: a.mimeType, bytes: typeof a.bytes === 'number' ? a.bytes : 0, kind: a.kind as StoredAttachment['kind'], path: a.path };
    const data = readStored(s);
    if (data === undefined) continue;
    attachments.push({ name: s.name, mimeType: s.mimeType, data });
    stored.push(s);
  }
  if (!input.text.trim() && !attachments.length) return undefined;
  if (attachments.length) input.attachments = attachments;
  return { input, ...(stored.length ? { stored } : {}) };
}
