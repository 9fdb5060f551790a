import type { T } from '../i18n';

/** A conversation as the daemon lists it (`GET /api/v1/sessions/:id`, the About page's `conversations`). */
export interface SourceConversation {
  title: string;
  channel?: string;
  createdAt: number;
}

/**
 * A conversation as a person names it: its title in quotes ("“Trip to Lisbon”"), "a conversation
 * on 2026-11-30" when it has none, the daemon's reminders and notices as such — never its id
 * (`webui:abc`). `day` says a date on the person's calendar.
 */
export function conversationName(t: T, conversation: SourceConversation, day: (ms: number) => string): string {
  const title = conversation.title.trim();
  if (title) return t('conversation.titled', { title });
  if (conversation.channel === 'system') return t('conversation.notices');
  return t('conversation.onDay', { date: day(conversation.createdAt) });
}

/** The session the daemon records its notices in (`Agent.notify`, NOTICES_SESSION in src/kernel). */
export const NOTICES_SESSION = 'system:notices';

/**
 * A session's name in the session list: its title, "Notices" for the daemon's notices, else
 * "Untitled".
 */
export function sessionLabel(t: T, session: { id: string; title: string }): string {
  const title = session.title.trim();
  if (title) return title;
  return session.id === NOTICES_SESSION ? t('chat.notices') : t('chat.untitled');
}

/**
 * Where a remembered thing was said, in words a person reads: "message 3 of “Trip to Lisbon”", or
 * "message 3 of a conversation on 2026-11-30" when the conversation has no title — never the turn
 * id (`webui:abc#3`). `open` says whether the chat can open it there: a conversation the chat no
 * longer lists (deleted, or no conversation at all) is named as such, without a link.
 */
export function sourcePlace(t: T, source: { sessionId: string; turnId?: string }, conversation: SourceConversation | undefined, day: (ms: number) => string): { text: string; open: boolean } {
  if (!conversation) return { text: t('conversation.gone'), open: false };
  const n = turnNumber(source.sessionId, source.turnId);
  const where = conversationName(t, conversation, day);
  return { text: n === undefined ? where : t('knows.placeMessage', { n, where }), open: true };
}

/** The number of a turn in its conversation (`<session>#<n>`: the person's n-th message there), if the id is one. */
export function turnNumber(sessionId: string, turnId: string | undefined): number | undefined {
  if (!turnId?.startsWith(`${sessionId}#`)) return undefined;
  const rest = turnId.slice(sessionId.length + 1);
  return /^[1-9]\d{0,9}$/.test(rest) ? Number(rest) : undefined;
}
