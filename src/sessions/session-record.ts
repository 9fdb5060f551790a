import type { SessionEvent, SessionEventKind } from '../spec/index.js';
import { parseObject } from './jsonl-file.js';

/** What a forgotten event's text becomes in its log (K-2). */
export const REDACTED_TEXT = '[forgotten]';

/** The event of a parsed log line, or undefined when the line is not an event (header, title, …). */
export function toEvent(r: Record<string, unknown>): SessionEvent | undefined {
  if (r.type !== 'event' || typeof r.seq !== 'number' || typeof r.turnId !== 'string' || typeof r.kind !== 'string') return undefined;
  const ev: SessionEvent = {
    seq: r.seq,
    turnId: r.turnId,
    kind: r.kind as SessionEventKind,
    at: typeof r.at === 'number' ? r.at : 0,
    text: typeof r.text === 'string' ? r.text : '',
  };
  if (r.data && typeof r.data === 'object' && !Array.isArray(r.data)) ev.data = r.data as Record<string, unknown>;
  return ev;
}

/**
 * Forget's rewrite of a log (K-2), over its bytes: the lines of the events `match` selects are
 * replaced by the same event (seq, turn, kind, time) with its text `[forgotten]` and its data
 * `{ redacted: true }` (a deletion marker keeps its data: what it hides stays hidden); every other
 * line — one that does not parse (damaged by hand, another encoding) included — is copied byte for
 * byte, so a forget never drops what the store could not read. `n` is how many were redacted.
 */
export function redactLogBytes(buf: Buffer, match: (e: SessionEvent) => boolean): { bytes: Buffer; n: number; texts: string[] } {
  const texts: string[] = [];
  const { bytes, n } = rewriteLogLines(buf, (r) => {
    const ev = toEvent(r);
    if (!ev || ev.data?.redacted || !match(ev)) return undefined;
    if (ev.text) texts.push(ev.text);
    const keep = ev.kind === 'marker' && ev.data?.op === 'delete' ? ev.data : { redacted: true };
    return { type: 'event', seq: ev.seq, turnId: ev.turnId, kind: ev.kind, at: ev.at, text: REDACTED_TEXT, data: keep };
  });
  return { bytes, n, texts };
}

/**
 * A log's lines, each parsed and offered to `rewrite`: a record it returns replaces the line (same
 * line ending); every other line — one that does not parse included — is copied byte for byte.
 */
function rewriteLogLines(buf: Buffer, rewrite: (r: Record<string, unknown>) => Record<string, unknown> | undefined): { bytes: Buffer; n: number } {
  let n = 0;
  const parts: Buffer[] = [];
  for (let start = 0; start < buf.length; ) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl === -1 ? buf.length : nl + 1;
    const line = buf.subarray(start, end);
    start = end;
    const r = parseObject(line.toString('utf8'));
    const next = r ? rewrite(r) : undefined;
    if (next) {
      n++;
      const json = JSON.stringify(next);
      parts.push(Buffer.from(nl === -1 ? json : `${json}\n`, 'utf8'));
    } else parts.push(line);
  }
  return { bytes: n ? Buffer.concat(parts) : buf, n };
}

/**
 * Forget's rewrite of a log's titles (K-2): the `title` of each `session` header and `title` line
 * that `forgotten` selects becomes `replacement`; every other line is copied byte for byte.
 */
export function retitleLogBytes(buf: Buffer, forgotten: (title: string) => boolean, replacement: string): { bytes: Buffer; n: number } {
  return rewriteLogLines(buf, (r) => ((r.type === 'session' || r.type === 'title') && typeof r.title === 'string' && r.title !== replacement && forgotten(r.title) ? { ...r, title: replacement } : undefined));
}
