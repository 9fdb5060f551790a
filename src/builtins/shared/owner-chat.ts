import type { PluginSDK } from '../../sdk/index.js';

/**
 * The owner's own ids on one platform, as bare platform ids (`telegram:777` → `777`): the ids
 * linked to the owner in the people registry plus `core.identity.owner_ids`. Where a channel sends
 * the owner's notices when no chat is set (decision 0650): never an id of someone else, so a
 * notice about a stranger never goes to that stranger.
 */
export function ownerPlatformIds(sdk: Pick<PluginSDK, 'use'>, platform: string): string[] {
  const ids = new Set<string>();
  const add = (id: unknown) => {
    if (typeof id === 'string' && id.startsWith(`${platform}:`)) ids.add(id.slice(platform.length + 1));
  };
  try {
    for (const id of sdk.use('host.people')?.find('owner')?.ids ?? []) add(id);
  } catch {}
  try {
    const v = sdk.use('host.config')?.get('core.identity.owner_ids').value;
    if (Array.isArray(v)) v.forEach(add);
  } catch {}
  return [...ids];
}

/** Where a channel's notices go, as its status shows it: the set chat, the owner's own id, or none (they stay in the WebUI). */
export type NoticeTarget = { to: string; by: 'setting' | 'owner' } | { to: null; by: 'none' };

/**
 * The notice target of a channel: `setting` when the person set one; else the owner's own id on
 * the platform, an allowed one first; else none.
 */
export function noticeTarget(setting: string, ownerIds: readonly string[], allowed: ReadonlySet<string>): NoticeTarget {
  if (setting) return { to: setting, by: 'setting' };
  const own = ownerIds.find((id) => allowed.has(id)) ?? ownerIds[0];
  return own ? { to: own, by: 'owner' } : { to: null, by: 'none' };
}
