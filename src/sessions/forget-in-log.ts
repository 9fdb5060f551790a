import type { SessionEvent } from '../spec/index.js';
import { titleFromForgotten, titleFromMessage } from '../spec/session-title.js';
import { parseObject } from './jsonl-file.js';
import { redactLogBytes, retitleLogBytes, toEvent } from './session-record.js';
import { SessionVisibility } from './session-visibility.js';

/** What {@link forgetInLogBytes} made of a log. */
export interface ForgottenInLog {
  /** The log as a forget leaves it. */
  bytes: Buffer;
  /** How many events became `[forgotten]`. */
  n: number;
  /** Their texts as they were (to find copies of them elsewhere). */
  texts: string[];
  /** The turns those events belong to. */
  turnIds: Set<string>;
  /** True when a title made from one of those texts was replaced. */
  retitled: boolean;
}

/**
 * Forget's rewrite of one session log (K-2), over its bytes: every event `match` selects becomes
 * `[forgotten]` in its place (`redactLogBytes`: same seq, turn, kind and time), and a title made
 * from one of their texts is replaced by the title of the first message still visible in the log
 * (or none, and the next message names the conversation). `SessionStore.redact` rewrites a live
 * log with it, and an import rewrites an archive's log with it (decision 0540), so a turn
 * forgotten here leaves the same bytes in both — an archive of this install taken before the
 * forget compares as the same log, not as a conflict. Lines that do not parse are kept byte for byte.
 */
export function forgetInLogBytes(buf: Buffer, sessionId: string, match: (e: SessionEvent) => boolean): ForgottenInLog {
  const turnIds = new Set<string>();
  const red = redactLogBytes(buf, (e) => {
    if (!match(e)) return false;
    turnIds.add(e.turnId);
    return true;
  });
  if (!red.n) return { bytes: buf, n: 0, texts: [], turnIds, retitled: false };
  const renamed = retitleLogBytes(red.bytes, (t) => titleFromForgotten(t, red.texts), firstVisibleMessageTitle(red.bytes, sessionId));
  return { bytes: renamed.bytes, n: red.n, texts: red.texts, turnIds, retitled: renamed.n > 0 };
}

/**
 * A title from the first message of a log a reader still sees (not forgotten, not deleted), or "".
 * Deletions are judged over the whole log, as the store judges them once it has read it.
 */
export function firstVisibleMessageTitle(buf: Buffer, sessionId: string): string {
  const vis = new SessionVisibility(sessionId);
  const users: SessionEvent[] = [];
  let lastSeq = 0;
  for (const line of buf.toString('utf8').split('\n')) {
    const r = parseObject(line);
    if (!r) continue;
    if (r.type === 'deleted') {
      vis.clear(typeof r.throughSeq === 'number' ? r.throughSeq : lastSeq);
      continue;
    }
    const ev = toEvent(r);
    if (!ev) continue;
    vis.note(ev);
    if (ev.seq > lastSeq) lastSeq = ev.seq;
    if (ev.kind === 'user' && !ev.data?.redacted && ev.text.trim()) users.push(ev);
  }
  const first = users.find((ev) => vis.visible(ev));
  return first ? titleFromMessage(first.text) : '';
}
