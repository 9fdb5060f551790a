import type { Conversation, InputOptions, InputTicket, PluginLogger, Speaker } from '../../sdk/index.js';
import type { OneBotLink } from './onebot-link.js';
import { messageEventSchema, type MessageEvent } from './onebot-types.js';
import type { SlidingWindowLimiter } from './rate-limit.js';
import { parseMessage } from './segments.js';

/** A bounded set of recent ids (messages the bot sent: a reply to one of them addresses the bot). */
export class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly max = 2000) {}
  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
}

/** The message a group turn answers (quoted with a reply segment, its sender @-mentioned). */
export interface Trigger {
  messageId: string;
  userId: string;
}

export interface QqInboundDeps {
  link: OneBotLink;
  allowedUsers: () => ReadonlySet<string>;
  allowedGroups: () => ReadonlySet<string>;
  limiter: SlidingWindowLimiter;
  perMinute: () => number;
  /** Private-chat strangers refused in this run (held in memory only). */
  refused: Set<string>;
  sentIds: RecentIds;
  maxImageBytes: () => number;
  inject: (input: InputOptions) => InputTicket;
  onTurn: (turnId: string, trigger: Trigger) => void;
  /** Sends the one polite refusal (through the paced sender). */
  refuse: (userId: string) => Promise<void>;
  groupTitle: (groupId: string) => Promise<string | undefined>;
  log: PluginLogger;
}

export type QqInboundResult = 'accepted' | 'refused' | 'ignored' | 'not-addressed' | 'limited' | 'malformed';

/** Session ids per chat. */
export const qqSession = { private: (userId: string) => `qq:private:${userId}`, group: (groupId: string) => `qq:group:${groupId}` };

async function downloadImage(url: string, maxBytes: number): Promise<{ mimeType: string; data: string }> {
  if (!/^https?:\/\//i.test(url)) throw new Error('not an http(s) URL');
  const res = await fetch(url, { signal: AbortSignal.timeout(20_000), redirect: 'follow' });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body.cancel().catch(() => {});
    throw new Error(`it is larger than ${Math.floor(maxBytes / 1048576)} MB`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`it is larger than ${Math.floor(maxBytes / 1048576)} MB`);
    }
    chunks.push(value);
  }
  const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
  return { mimeType: type.startsWith('image/') ? type : 'image/jpeg', data: Buffer.concat(chunks).toString('base64') };
}

/** True when message `replyTo` was sent by the bot (remembered, else asked with get_msg). */
async function repliesToBot(replyTo: string, selfId: string, d: QqInboundDeps): Promise<boolean> {
  if (d.sentIds.has(replyTo)) return true;
  try {
    const m = await d.link.call<{ sender?: { user_id?: number | string }; user_id?: number | string }>('get_msg', { message_id: Number(replyTo) });
    return String(m?.sender?.user_id ?? m?.user_id ?? '') === selfId;
  } catch {
    return false;
  }
}

/**
 * Handles one OneBot event. Private messages: only allowlisted users; anyone else gets one polite
 * refusal per run and nothing of theirs is kept. Group messages: only in allowlisted groups, and
 * only when the bot is @-mentioned or a message of the bot is replied to — everything else said in
 * a group is neither answered nor stored. Per-chat flood limit. Images become pending media.
 */
export async function handleEvent(raw: Record<string, unknown>, d: QqInboundDeps): Promise<QqInboundResult> {
  if (raw.post_type !== 'message') return 'ignored';
  const parsed = messageEventSchema.safeParse(raw);
  if (!parsed.success) {
    d.log.warn('skipped a malformed OneBot message event', { issue: parsed.error.issues[0]?.message });
    return 'malformed';
  }
  const e: MessageEvent = parsed.data;
  const selfId = e.self_id;
  if (e.user_id === selfId) return 'ignored';
  const group = e.message_type === 'group' ? e.group_id : undefined;
  if (e.message_type === 'group') {
    if (!group || !d.allowedGroups().has(group) || e.anonymous) return 'ignored';
  } else if (!d.allowedUsers().has(e.user_id)) {
    if (!d.refused.has(e.user_id)) {
      d.refused.add(e.user_id);
      d.log.info('refused a QQ user who is not on the allowlist', { userId: e.user_id });
      await d.refuse(e.user_id).catch((err) => d.log.warn('could not send the refusal', { error: (err as Error).message }));
    }
    return 'refused';
  }
  const msg = parseMessage(e.message, selfId);
  if (group && !msg.mentionsSelf && !(msg.replyTo && (await repliesToBot(msg.replyTo, selfId, d)))) return 'not-addressed';
  const sessionId = group ? qqSession.group(group) : qqSession.private(e.user_id);
  if (!d.limiter.allow(sessionId, d.perMinute())) {
    d.log.warn('QQ chat over its message limit; message dropped', { sessionId });
    return 'limited';
  }
  const attachments: NonNullable<InputOptions['attachments']> = [];
  const notes: string[] = [];
  for (const [i, img] of msg.images.entries()) {
    try {
      if (!img.url) throw new Error('no URL given by the OneBot implementation');
      const a = await downloadImage(img.url, d.maxImageBytes());
      attachments.push({ ...a, name: `qq-image-${e.message_id}-${i + 1}.${a.mimeType.split('/')[1] ?? 'jpg'}` });
    } catch (err) {
      notes.push(`[an image could not be downloaded: ${(err as Error).message}]`);
    }
  }
  if (msg.unsupported.length) notes.push(`[also sent: ${[...new Set(msg.unsupported)].join(', ')} — HomeAgent cannot read these from QQ]`);
  const text = [msg.text, ...notes].filter(Boolean).join('\n');
  if (!text && attachments.length === 0) return 'ignored';
  const name = e.sender?.card || e.sender?.nickname || e.user_id;
  const speaker: Speaker = { id: `qq:${e.user_id}`, name, platform: 'qq', userId: e.user_id };
  const title = group ? (e.group_name ?? (await d.groupTitle(group).catch(() => undefined))) : name;
  const conversation: Conversation = { kind: group ? 'group' : 'private', id: sessionId, platform: 'qq', ...(title ? { title } : {}) };
  const ticket = d.inject({
    sessionId,
    source: 'qq',
    channel: 'qq',
    text: text || '(sent an image)',
    attachments: attachments.length ? attachments : undefined,
    trigger: 'user',
    speaker,
    conversation,
    meta: { qq: { messageId: e.message_id, userId: e.user_id, ...(group ? { groupId: group } : {}) } },
  });
  d.onTurn(ticket.turnId, { messageId: e.message_id, userId: e.user_id });
  return 'accepted';
}
