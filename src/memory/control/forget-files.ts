import { lstatSync, unlinkSync } from 'node:fs';
import { realPath, within } from '../../fs/index.js';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { SessionEvent } from '../../spec/index.js';
import type { ControlTiers } from './control-tiers.js';

/**
 * A Telegram note from before the channel's copy was recorded as data: `[file saved to /…]`
 * (decision 0370). Only read in the person's own message, and only for `media/telegram/`.
 */
const SAVED_NOTE = /saved to ([^\]\n]+)\]/g;

/** `path` resolved against the data folder when it lies inside `<home>/<folder>/`, else undefined. */
function inside(home: string, folder: string, path: string): string | undefined {
  const root = resolve(home, folder);
  const abs = resolve(home, path);
  return abs.startsWith(root + sep) ? abs : undefined;
}

/**
 * The files a logged message brought (absolute paths, all inside `<home>/media/`): the kernel's
 * copy of each attachment (`data.attachments[].path`) and the copy its channel saved itself
 * (`data.attachments[].channelPath`; in a Telegram message logged before that was recorded, the
 * `saved to …` note of its text). Anything outside the media folder is ignored: the log is data,
 * not a pointer anywhere on disk.
 */
export function attachedFiles(e: SessionEvent, home: string): string[] {
  if (e.kind !== 'user' || e.data?.redacted || typeof e.text !== 'string') return [];
  const out = new Set<string>();
  const list = Array.isArray(e.data?.attachments) ? (e.data.attachments as { path?: unknown; channelPath?: unknown }[]) : [];
  for (const a of list) {
    for (const p of [a?.path, a?.channelPath]) {
      const abs = typeof p === 'string' && p ? inside(home, 'media', p) : undefined;
      if (abs) out.add(abs);
    }
  }
  for (const m of e.text.matchAll(SAVED_NOTE)) {
    const p = m[1].trim();
    const abs = isAbsolute(p) ? inside(home, `media${sep}telegram`, p) : undefined;
    if (abs) out.add(abs);
  }
  return [...out];
}

/**
 * The files that go with forgotten turns (decision 0370): what their messages brought, less every
 * file an event that stays still names — by its path, absolute or from the data folder, in its
 * text or data (the same file attached again, a reply or a tool output that points at it). Only
 * files that are there.
 */
export function forgottenFiles(logs: ReadonlyMap<string, readonly SessionEvent[]>, gone: (e: SessionEvent) => boolean, home: string): string[] {
  return filesOnlyOf(logs, gone, home).filter(exists);
}

/**
 * What {@link forgottenFiles} lists, whether or not the files are there (absolute paths under
 * `home`): an import asks it of an archive's logs, whose files are not in place yet.
 */
export function filesOnlyOf(logs: ReadonlyMap<string, readonly SessionEvent[]>, gone: (e: SessionEvent) => boolean, home: string): string[] {
  const files = new Set<string>();
  for (const evs of logs.values()) for (const e of evs) if (gone(e)) for (const f of attachedFiles(e, home)) files.add(f);
  if (!files.size) return [];
  const names = new Map<string, string[]>();
  for (const f of files) {
    const rel = relative(home, f);
    names.set(f, [...new Set([f, rel, JSON.stringify(f).slice(1, -1), JSON.stringify(rel).slice(1, -1)])]);
  }
  for (const evs of logs.values()) {
    for (const e of evs) {
      if (gone(e) || !files.size) continue;
      const hay = `${e.text}\n${e.data ? JSON.stringify(e.data) : ''}`;
      for (const [f, ns] of names) {
        if (!ns.some((n) => hay.includes(n))) continue;
        files.delete(f);
        names.delete(f);
      }
    }
  }
  return [...files].sort();
}

function exists(file: string): boolean {
  try {
    const s = lstatSync(file);
    return s.isFile() || s.isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Deletes files a committed forget took and drops them from its list (`forget_files`, paths from
 * the data folder: a data folder moved between a kill and the next open is still the one cleaned).
 * A file already gone counts as done, as does a listed path that leads outside `<home>/media/`
 * (never deleted); one that cannot be deleted stays listed for the next open. Returns how many
 * files were deleted.
 */
export function deleteForgottenFiles(t: Pick<ControlTiers, 'db' | 'log' | 'homeDir'>, files: readonly string[]): number {
  const home = t.homeDir;
  if (!home) return 0;
  const done: string[] = [];
  let deleted = 0;
  for (const f of files) {
    const abs = inside(home, 'media', f);
    if (!abs) {
      done.push(f);
      continue;
    }
    try {
      // Also by the folders' real paths: a symlinked folder inside media must not lead outside it.
      if (!within(realPath(dirname(abs)), realPath(resolve(home, 'media')))) {
        t.log.warn('forget: a listed file lies outside the media folder once links are followed; it was left alone');
        done.push(f);
        continue;
      }
      unlinkSync(abs);
      deleted++;
      done.push(f);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') done.push(f);
      // Not the message: it holds the file's name, which is what was forgotten.
      else t.log.warn(`forget: a file could not be deleted yet (${(e as NodeJS.ErrnoException).code ?? 'error'}); it is tried again at the next start`);
    }
  }
  t.db.dropForgetFiles(done);
  return deleted;
}
