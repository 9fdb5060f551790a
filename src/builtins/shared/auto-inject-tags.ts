import { AUTO_INJECT_TAGS, autoInjectTagsIn, isAutoInjected, isReservedTag, TAG_CONVENTION, TAG_SUMMARY, type ConfirmService } from '../../spec/index.js';

// The policy itself is in the spec: the import applies it too (decision 0350).
export { AUTO_INJECT_TAGS, autoInjectTagsIn, isAutoInjected, TAG_CONVENTION, TAG_SUMMARY };

/**
 * The tags a tool may save: reserved ones (and their look-alikes) only when `ask` — the person,
 * through `host.confirm` — says yes, then in their own spelling; otherwise without them, with a
 * note for the model saying why.
 */
export async function toolTags(tags: unknown, ask: (reserved: string[]) => Promise<boolean>): Promise<{ tags: unknown; note?: string }> {
  const reserved = autoInjectTagsIn(tags);
  if (!reserved.length || !Array.isArray(tags)) return { tags };
  const rest = tags.filter((t) => typeof t !== 'string' || !isReservedTag(t));
  if (await ask(reserved).catch(() => false)) return { tags: [...rest, ...reserved] };
  return { tags: rest, note: `saved without the ${reserved.join(' / ')} tag: only the user can make a memory part of every new session (WebUI library)` };
}

/** Asks the person through the WebUI's dialog; no dialog (no WebUI open) is a no. */
export async function personSays(confirm: ConfirmService | undefined, q: { plugin: string; sessionId: string; title: string; detail: string }): Promise<boolean> {
  if (!confirm) return false;
  return confirm.ask(q).catch(() => false);
}
