/** Longest title a session gets from its first message (the WebUI's list shows about this much). */
export const TITLE_CHARS = 40;

/**
 * A session title from the first message a person sent in it: the first non-empty line,
 * whitespace collapsed, cut at a word boundary near {@link TITLE_CHARS} with an ellipsis; an
 * attachment's name when there is no text. Empty when there is nothing to name it after.
 */
export function titleFromMessage(text: string, attachmentNames: string[] = []): string {
  const line = text.split(/\r?\n/).map((l) => l.replace(/\s+/g, ' ').trim()).find(Boolean) ?? attachmentNames.find((n) => n.trim())?.trim() ?? '';
  const chars = [...line];
  if (chars.length <= TITLE_CHARS) return line;
  let cut = chars.slice(0, TITLE_CHARS).join('');
  const space = cut.lastIndexOf(' ');
  if (space >= TITLE_CHARS / 2) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** How the built-in chat apps are written in a title; another platform is written as its id. */
const PLATFORM_LABELS: Record<string, string> = { telegram: 'Telegram', qq: 'QQ' };

/**
 * A session title for a chat on a chat app, from who or where it is: "Wen · Telegram" for a private
 * chat, "Family · QQ" for a group — a list of channel chats named after their first messages ("hi",
 * "hi", "在吗") does not say which is whose. Empty when the channel gave no name.
 */
export function titleFromConversation(c: { title?: string; platform?: string } | undefined): string {
  const name = collapse(c?.title ?? '');
  if (!name) return '';
  const cut = [...name].length > TITLE_CHARS ? `${[...name].slice(0, TITLE_CHARS).join('').trimEnd()}…` : name;
  const platform = c?.platform ? (PLATFORM_LABELS[c.platform] ?? c.platform) : '';
  return platform ? `${cut} · ${platform}` : cut;
}

/**
 * Whether a session title may have been made from one of `texts` (K-2: a forgotten message must not
 * live on as its conversation's name). A title is made from the first message — its first line,
 * cut with an ellipsis (`titleFromMessage`), or its first 40 characters — so it counts when what is
 * left of it without the ellipsis occurs in one of the texts, whitespace collapsed.
 */
export function titleFromForgotten(title: string, texts: readonly string[]): boolean {
  const stem = collapse(title).replace(/…$/, '').trimEnd();
  return stem !== '' && texts.some((t) => collapse(t).includes(stem));
}

