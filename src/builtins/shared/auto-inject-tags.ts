import type { ConfirmService } from '../../spec/index.js';

/** The tag of convention memories (M-3). */
export const TAG_CONVENTION = 'convention';
/** The tag of session summaries (M-3). */
export const TAG_SUMMARY = '会话总结';

/**
 * Library tags that put a memory into every new session's prompt (M-3, M-7): conventions and
 * session summaries. A model steered by text it read could use them to leave a lasting
 * instruction, so a tool caller (the agent, an MCP client) sets them — or changes a memory that
 * has one — only with the person's yes (decision 0240).
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

/**
 * The tags a tool may save: reserved ones (and their look-alikes) only when `ask` — the person,
 * through `host.confirm` — says yes, then in their own spelling; otherwise without them, with a
 * note for the model saying why.
 */
export async function toolTags(tags: unknown, ask: (reserved: string[]) => Promise<boolean>): Promise<{ tags: unknown; note?: string }> {
  const reserved = autoInjectTagsIn(tags);
  if (!reserved.length || !Array.isArray(tags)) return { tags };
  const rest = tags.filter((t) => typeof t !== 'string' || !RESERVED.has(folded(t)));
  if (await ask(reserved).catch(() => false)) return { tags: [...rest, ...reserved] };
  return { tags: rest, note: `saved without the ${reserved.join(' / ')} tag: only the user can make a memory part of every new session (WebUI library)` };
}

/** Asks the person through the WebUI's dialog; no dialog (no WebUI open) is a no. */
export async function personSays(confirm: ConfirmService | undefined, q: { plugin: string; sessionId: string; title: string; detail: string }): Promise<boolean> {
  if (!confirm) return false;
  return confirm.ask(q).catch(() => false);
}
