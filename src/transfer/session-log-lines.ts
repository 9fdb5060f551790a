/*
 * Reading a session log's lines for an import: records as the session store reads them, what each
 * turn said, what identifies its events, and the inputs an archive left without an answer.
 */

/**
 * An archive's inputs that never got an outcome (a turn in flight when it was exported) are closed
 * with a `done` marker in the log that comes in: this install never acknowledged them, and its
 * next start must not run them as live turns (decision 0390; a crafted archive could otherwise
 * plant an input with no speaker — an owner turn — to be run after a restart).
 */
export function closeUnanswered(lines: Record<string, unknown>[], now: number): Record<string, unknown>[] {
  const open = new Set<string>();
  let lastSeq = 0;
  for (const l of lines) {
    if (l.type !== 'event' || typeof l.turnId !== 'string') continue;
    if (typeof l.seq === 'number' && l.seq > lastSeq) lastSeq = l.seq;
    const data = l.data as { op?: unknown } | undefined;
    if (l.kind === 'user') open.add(l.turnId);
    else if (l.kind === 'assistant' || l.kind === 'error' || (l.kind === 'marker' && data?.op === 'done')) open.delete(l.turnId);
  }
  if (!open.size) return lines;
  return [...lines, ...[...open].map((turnId) => ({ type: 'event', seq: ++lastSeq, turnId, kind: 'marker', at: now, text: '[imported without an answer]', data: { op: 'done', imported: true } }))];
}

/** Parsed lines of a session log (header, titles, events); torn lines dropped. */
export function logLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // a torn or foreign line: the session store skips it too
    }
  }
  return out;
}

/** How many non-empty lines of a log do not parse as a record (damaged by hand, another encoding). */
export function unreadableLines(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) if (line.trim() && !isRecordLine(line)) n++;
  return n;
}

function isRecordLine(line: string): boolean {
  try {
    const v = JSON.parse(line) as unknown;
    return !!v && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** The events of a log, turn by turn: what was said (`user`), answered (`assistant`, `tool_result`), and its other texts. */
export function logTurns(lines: readonly Record<string, unknown>[]): Map<string, { messages: unknown[]; replies: unknown[]; others: unknown[] }> {
  const out = new Map<string, { messages: unknown[]; replies: unknown[]; others: unknown[] }>();
  for (const l of lines) {
    if (l.type !== 'event' || typeof l.turnId !== 'string') continue;
    const redacted = !!l.data && typeof l.data === 'object' && (l.data as { redacted?: unknown }).redacted === true;
    if (redacted) continue;
    let g = out.get(l.turnId);
    if (!g) out.set(l.turnId, (g = { messages: [], replies: [], others: [] }));
    (l.kind === 'user' ? g.messages : l.kind === 'assistant' || l.kind === 'tool_result' ? g.replies : g.others).push(l.text);
  }
  return out;
}

/** What identifies each event of a log, in order: seq, turn, kind and text. */
export function eventKeys(lines: readonly Record<string, unknown>[]): string[] {
  return lines.filter((l) => l.type === 'event').map((l) => JSON.stringify([l.seq, l.turnId, l.kind, l.text]));
}

/** An event line the session store reads (toEvent): a seq, a turn and a kind. */
export function isReadableEvent(l: Record<string, unknown>): boolean {
  return typeof l.seq === 'number' && typeof l.turnId === 'string' && typeof l.kind === 'string';
}

/** True when `a` is `b` or its start. */
export function isPrefix(a: readonly string[], b: readonly string[]): boolean {
  return a.length <= b.length && a.every((k, i) => k === b[i]);
}

export const serialise = (lines: readonly Record<string, unknown>[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join('');
