import { join, relative, sep } from 'node:path';
import type { SessionEvent } from '../spec/index.js';
import { filesOnlyOf } from '../memory/control/index.js';
import { mergeFileItem } from './file-item.js';
import type { MergeContext } from './merge-context.js';

/**
 * The archive's media files, by path. A file the archive's logs name only in events left out as
 * forgotten stays out (decision 0370). `theirLogs`: the events of each of the archive's logs.
 */
export function mergeMedia(c: MergeContext, theirLogs: ReadonlyMap<string, SessionEvent[]>): void {
  const { staged, live, mergedHome: M, refs, plan, textForgotten } = c;
  // A file the archive's logs name only in events left out as forgotten (a message sent with it)
  // stays out too: an export made before a forget brings back no file the forget deleted (decision 0370).
  const leftOutEvent = (e: SessionEvent) => (typeof e.turnId === 'string' && refs.forgotten(e.turnId, e.data?.redacted !== true)) || (typeof e.text === 'string' && e.text !== '' && textForgotten(e.text));
  const forgottenMedia = new Set(filesOnlyOf(theirLogs, leftOutEvent, live.home).map((f) => relative(join(live.home, 'media'), f).split(sep).join('/')));
  for (const m of staged.media()) {
    if (forgottenMedia.has(m.rel)) {
      plan('media').forgotten++;
      continue;
    }
    mergeFileItem(c, 'media', m.file, join(live.home, 'media', ...m.rel.split('/')), join(M, 'media', ...m.rel.split('/')), undefined);
  }
}
