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

