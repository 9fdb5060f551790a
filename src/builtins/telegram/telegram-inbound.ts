import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../sdk/index.js';
import type { Conversation, InputOptions, PluginLogger, Speaker } from '../../sdk/index.js';
import type { TelegramBotApi } from './bot-api.js';
import { TELEGRAM_LIMITS, tgUpdateSchema, type TgMessage, type TgUser } from './bot-types.js';

/** What the inbound side needs (the plugin passes live settings in). */
export interface InboundDeps {
  api: TelegramBotApi;
  /** Telegram user ids (as strings) allowed to talk to the agent. */
  allowed: () => ReadonlySet<string>;
  /** Largest file downloaded from Telegram (voice, documents, photos). */
  maxFileBytes: () => number;
  /** Where voice messages and files are saved: `<home>/media/telegram`. */
  filesDir: string;
  /** Users already refused in this run (one polite refusal each). Held in memory only. */
  refused: Set<string>;
  /** Resolves once the message is in the session log (the update is confirmed to Telegram after). */
  inject: (input: InputOptions) => Promise<void>;
  log: PluginLogger;
  signal?: AbortSignal;
}

export type InboundResult = 'accepted' | 'refused' | 'ignored' | 'malformed' | 'command';

/** The refusal a stranger gets, once: polite, in both languages, with the id the owner would need. */
export function refusalText(userId: string): string {
  return `Sorry — this is a private assistant and only talks with the people its owner allowed.\n抱歉，这是私人助理，只和主人允许的人对话。\n(Your Telegram user id: ${userId}. If this is your own HomeAgent, add it under Settings → Channels → Telegram.)\n（你的 Telegram 用户 ID：${userId}。如果这是你自己的 HomeAgent，请在 设置 → 聊天渠道 → Telegram 中添加它。）`;
}

/** The display name of a Telegram user ("First Last", else @username, else the id). */
export function displayName(u: TgUser): string {
  return [u.first_name, u.last_name].filter(Boolean).join(' ').trim() || (u.username ? `@${u.username}` : String(u.id));
}

/** The session of a private chat (R-5: sessions are per chat). */
export function sessionOf(chatId: number | string): string {
  return `telegram:${chatId}`;
}

const SAFE_NAME = /[^A-Za-z0-9._\-\u4e00-\u9fff]/g;

function safeName(name: string): string {
  return name.replace(SAFE_NAME, '_').replace(/^\.+/, '_').slice(-100) || 'file';
}

/**
 * Handles one update (already fetched): only private chats; only allowlisted users. Someone else
 * gets one polite refusal per run and nothing of theirs is kept — no download, no session, no
 * memory: the update is only confirmed. An allowed user's text goes in as input; a photo becomes
 * pending media (the media tools, C-11); voice messages and files are saved under `filesDir` and
 * reach the agent as pending media and a note with the saved path.
 */
export async function handleUpdate(raw: unknown, d: InboundDeps): Promise<InboundResult> {
  const parsed = tgUpdateSchema.safeParse(raw);
  if (!parsed.success) {
    d.log.warn('skipped a malformed Telegram update', { issue: parsed.error.issues[0]?.message });
    return 'malformed';
  }
  const m = parsed.data.message;
  if (!m || !m.from || m.from.is_bot) return 'ignored';
  // Groups and channels are not supported: a bot added to one says nothing and keeps nothing.
  if (m.chat.type !== 'private') return 'ignored';
  const userId = String(m.from.id);
  if (!d.allowed().has(userId)) {
    if (!d.refused.has(userId)) {
      d.refused.add(userId);
      d.log.info('refused a Telegram user who is not on the allowlist', { userId });
      await d.api.sendMessage(m.chat.id, refusalText(userId), d.signal).catch((e) => d.log.warn('could not send the refusal', { error: (e as Error).message }));
    }
    return 'refused';
  }
  const text = (m.text ?? m.caption ?? '').trim();
  if (/^\/start(@\w+)?$/.test(text)) {
    await d.api.sendMessage(m.chat.id, 'HomeAgent is here. Send me a message, a photo, a voice message or a file. 你好，我在。', d.signal).catch(() => {});
    return 'command';
  }
  const { attachments, notes } = await collectMedia(m, d);
  const body = [text || (m.sticker?.emoji ?? ''), ...sharedNotes(m), ...notes].filter(Boolean).join('\n');
  if (!body && attachments.length === 0) return 'ignored';
  const speaker: Speaker = { id: `telegram:${userId}`, name: displayName(m.from), platform: 'telegram', userId };
  const conversation: Conversation = { kind: 'private', id: sessionOf(m.chat.id), platform: 'telegram', title: displayName(m.from) };
  d.api.sendChatAction(m.chat.id, 'typing').catch(() => {});
  await d.inject({
    sessionId: sessionOf(m.chat.id),
    source: 'telegram',
    channel: 'telegram',
    text: body || '(sent an attachment)',
    attachments: attachments.length ? attachments : undefined,
    trigger: 'user',
    speaker,
    conversation,
    meta: { telegram: { chatId: m.chat.id, messageId: m.message_id } },
  });
  return 'accepted';
}

type Attachment = NonNullable<InputOptions['attachments']>[number];

/** Kinds of message Telegram can carry that the channel does not read (Bot API "Message" fields). */
const UNREADABLE_KINDS: Record<string, string> = { game: 'a game', invoice: 'an invoice', story: 'a story', giveaway: 'a giveaway', paid_media: 'paid media', checklist: 'a checklist' };

/**
 * What a shared location, place, contact, poll or dice roll says, as text for the agent; and a note
 * for a kind the channel cannot read, so the person gets an answer instead of silence.
 */
function sharedNotes(m: TgMessage): string[] {
  const out: string[] = [];
  const place = m.location ? `${m.location.latitude.toFixed(5)}, ${m.location.longitude.toFixed(5)}` : '';
  if (m.venue) out.push(`[shared a place: ${[m.venue.title, m.venue.address].filter(Boolean).join(', ')}${place ? ` (${place})` : ''}]`);
  else if (m.location) out.push(`[shared a location: ${place}]`);
  if (m.contact) out.push(`[shared a contact: ${[m.contact.first_name, m.contact.last_name].filter(Boolean).join(' ') || 'no name'}${m.contact.phone_number ? `, ${m.contact.phone_number}` : ''}]`);
  if (m.poll) out.push(`[sent a poll: ${m.poll.question ?? ''}${m.poll.options?.length ? ` — ${m.poll.options.map((o) => o.text ?? '').join(' / ')}` : ''}]`);
  if (m.dice) out.push(`[rolled ${m.dice.emoji ?? '🎲'}: ${m.dice.value ?? '?'}]`);
  for (const [k, what] of Object.entries(UNREADABLE_KINDS)) if (k in m) out.push(`[sent ${what} — HomeAgent cannot read these from Telegram]`);
  return out;
}

async function collectMedia(m: TgMessage, d: InboundDeps): Promise<{ attachments: Attachment[]; notes: string[] }> {
  const attachments: Attachment[] = [];
  const notes: string[] = [];
  const limit = Math.min(d.maxFileBytes(), TELEGRAM_LIMITS.downloadBytes);
  const fetchFile = async (fileId: string, size: number | undefined): Promise<Uint8Array> => {
    if (size !== undefined && size > limit) throw new Error(`it is ${Math.ceil(size / 1048576)} MB; the limit is ${Math.floor(limit / 1048576)} MB`);
    const f = await d.api.getFile(fileId, d.signal);
    if (!f.file_path) throw new Error('Telegram gave no download path');
    return d.api.download(f.file_path, limit, d.signal);
  };
  const save = async (name: string, bytes: Uint8Array): Promise<string> => {
    const dir = join(d.filesDir, String(m.chat.id));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, `${m.message_id}-${safeName(name)}`);
    await writeFileAtomic(file, bytes);
    return file;
  };
  if (m.photo?.length) {
    // The largest size that fits the limit (Telegram lists sizes smallest first).
    const fitting = m.photo.filter((p) => p.file_size === undefined || p.file_size <= limit);
    const best = fitting.at(-1) ?? m.photo[0];
    try {
      const bytes = await fetchFile(best.file_id, best.file_size);
      attachments.push({ mimeType: 'image/jpeg', name: `photo-${m.message_id}.jpg`, data: Buffer.from(bytes).toString('base64') });
    } catch (e) {
      notes.push(`[a photo could not be downloaded: ${(e as Error).message}]`);
    }
  }
  const files: { kind: string; ref: { file_id: string; file_size?: number; mime_type?: string }; name: string; extra?: string }[] = [];
  if (m.voice) files.push({ kind: 'voice message', ref: m.voice, name: `voice.${m.voice.mime_type === 'audio/mpeg' ? 'mp3' : 'ogg'}`, extra: m.voice.duration ? `${m.voice.duration} s` : undefined });
  if (m.audio) files.push({ kind: 'audio file', ref: m.audio, name: m.audio.file_name ?? 'audio.mp3', extra: m.audio.duration ? `${m.audio.duration} s` : undefined });
  if (m.document) files.push({ kind: 'file', ref: m.document, name: m.document.file_name ?? 'document' });
  if (m.video) files.push({ kind: 'video', ref: m.video, name: m.video.file_name ?? 'video.mp4' });
  if (m.video_note) files.push({ kind: 'video message', ref: m.video_note, name: 'video-message.mp4', extra: m.video_note.duration ? `${m.video_note.duration} s` : undefined });
  for (const f of files) {
    try {
      const bytes = await fetchFile(f.ref.file_id, f.ref.file_size);
      const path = await save(f.name, bytes);
      const mimeType = f.ref.mime_type ?? (f.kind === 'voice message' ? 'audio/ogg' : f.kind === 'video message' ? 'video/mp4' : 'application/octet-stream');
      // `savedAt`: the message records this copy too, so forgetting the turn deletes it (decision 0370).
      attachments.push({ mimeType, name: safeName(f.name), data: Buffer.from(bytes).toString('base64'), savedAt: path });
      notes.push(`[${f.kind}${f.extra ? ` (${f.extra})` : ''} saved to ${path}]`);
    } catch (e) {
      notes.push(`[a ${f.kind} could not be downloaded: ${(e as Error).message}]`);
    }
  }
  return { attachments, notes };
}
