/** The tag of convention memories (M-3). */
export const TAG_CONVENTION = 'convention';
/** The tag of session summaries (M-3). */
export const TAG_SUMMARY = '会话总结';

/**
 * Library tags that put a memory into every new session's prompt (M-3, M-7): conventions and
 * session summaries. A model steered by text it read could use them to leave a lasting
 * instruction, so a tool caller (the agent, an MCP client) sets them — or changes a memory that
 * has one — only with the person's yes (decision 0240); an import brings such a memory disabled
 * until the person enables it (decision 0350).
 */
export const AUTO_INJECT_TAGS: readonly string[] = [TAG_CONVENTION, TAG_SUMMARY];

/**
 * A tag as compared here: compatibility forms folded (full-width letters), case folded, every
 * space and invisible joiner removed — so no look-alike of a reserved tag slips past, whatever the
 * library's own cleaning keeps.
 */
function folded(tag: string): string {
  return tag.normalize('NFKC').replace(/[\s\u200b-\u200d\u2060\ufeff]+/gu, '').toLowerCase();
}

const RESERVED = new Map(AUTO_INJECT_TAGS.map((t) => [folded(t), t]));

/** The reserved tags `tags` asks for (each once, in its own spelling), however it is written. */
export function autoInjectTagsIn(tags: unknown): string[] {
  if (!Array.isArray(tags)) return [];
  const out = new Set<string>();
  for (const t of tags) if (typeof t === 'string' && RESERVED.has(folded(t))) out.add(RESERVED.get(folded(t))!);
  return [...out];
}

/** True when a stored memory's tags make it injected into every new session. */
export function isAutoInjected(tags: readonly string[]): boolean {
  return autoInjectTagsIn(tags).length > 0;
}

/** True when `tag` is a reserved tag or a look-alike of one. */
export function isReservedTag(tag: string): boolean {
  return RESERVED.has(folded(tag));
}

/** True when `text` holds a reserved tag or a look-alike of one anywhere (a check for text that could not be parsed). */
export function mentionsReservedTag(text: string): boolean {
  const f = folded(text);
  return [...RESERVED.keys()].some((t) => f.includes(t));
}
