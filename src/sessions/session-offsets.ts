import type { SessionEvent } from '../spec/index.js';

// The sparse offset index of a session log and the page picks over cached events: how a page of a
// long log is found without parsing the whole file (decision 0050).

/** One entry of a session's sparse offset index: where the line of event `seq` starts. */
export interface OffsetMark {
  seq: number;
  offset: number;
}

/** Every how many events the offset index keeps a mark (a page read starts at most this far off). */
export const MARK_EVERY = 64;

/** Offset of the last mark at or before `seq` (0 = the file's start): a forward read starts there. */
export function markAtOrBefore(marks: OffsetMark[], seq: number): number {
  let lo = 0;
  let hi = marks.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (marks[mid].seq <= seq) {
      found = marks[mid].offset;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Offset of the first mark at or after `seq` (undefined = none: read back from the end). */
export function markAtOrAfter(marks: OffsetMark[], seq: number): number | undefined {
  let lo = 0;
  let hi = marks.length - 1;
  let found: number | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (marks[mid].seq >= seq) {
      found = marks[mid].offset;
      hi = mid - 1;
    } else lo = mid + 1;
  }
  return found;
}

/** Index of the first cached event with `seq > after` (events are in seq order). */
export function firstAfter(events: SessionEvent[], after: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid].seq > after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Up to `limit` kept events with `seq > after`, oldest first (copies). */
export function pickForward(events: SessionEvent[], after: number, limit: number, keep: (ev: SessionEvent) => boolean, copy: (ev: SessionEvent) => SessionEvent): SessionEvent[] {
  const out: SessionEvent[] = [];
  for (let i = firstAfter(events, after); i < events.length && out.length < limit; i++) if (keep(events[i])) out.push(copy(events[i]));
  return out;
}

/** The last `limit` kept events with `after < seq < before`, oldest first (copies). */
export function pickBackward(events: SessionEvent[], after: number, before: number, limit: number, keep: (ev: SessionEvent) => boolean, copy: (ev: SessionEvent) => SessionEvent): SessionEvent[] {
  const out: SessionEvent[] = [];
  for (let i = firstAfter(events, before - 1) - 1; i >= 0 && events[i].seq > after && out.length < limit; i--) if (keep(events[i])) out.push(copy(events[i]));
  return out.reverse();
}
