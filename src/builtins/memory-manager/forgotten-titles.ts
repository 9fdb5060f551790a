import { titleFromMessage } from '../../spec/session-title.js';
import type { MemoryLibrary } from './memory-library.js';
import { sessionOfTurn } from './session-turns.js';
import { summaryTitle } from './summarizer.js';

/** `会话总结（<session> · 轮次 X-Y）` (`summaryTitle`), read back. */
const SUMMARY_TITLE = /^会话总结（([\s\S]+) · 轮次 (\d+)-(\d+)）$/;

/**
 * Session summaries named after a forgotten message (K-2). A summary's title holds its session's
 * title, which is made from the session's first message: forgetting that turn renames the session,
 * but a summary of later turns kept the old name — and with it what was forgotten. Such a title is
 * renamed after the session's id (recorded nowhere: a history entry would keep the old title; the
 * forget's history pass takes the entries that hold it). Only summaries of the sessions the
 * forgotten turns were in, and only a title that is exactly what the session store makes of a
 * forgotten message (`titleFromMessage`) — a person's own session name ("Hi", "Plans") is never
 * touched because some forgotten text contains it. One that cannot be renamed is reported in
 * `failed` and the others are still done. Returns how many were renamed.
 */
export async function retitleForgottenSummaries(library: MemoryLibrary, texts: readonly string[], turnIds: readonly string[], failed: (id: string, e: Error) => void = () => undefined): Promise<number> {
  const sessions = new Set(turnIds.map((id) => sessionOfTurn(id)).filter((s): s is string => !!s));
  if (!texts.length || !sessions.size) return 0;
  const titles = new Set(texts.map((x) => titleFromMessage(x)).filter(Boolean));
  await library.ready();
  let n = 0;
  for (const r of library.all()) {
    const m = SUMMARY_TITLE.exec(r.title);
    if (!m || !r.source || !sessions.has(r.source.sessionId) || !titles.has(m[1])) continue;
    try {
      await library.retitle(r.id, summaryTitle(r.source.sessionId, Number(m[2]), Number(m[3])));
      n++;
    } catch (e) {
      failed(r.id, e as Error);
    }
  }
  return n;
}
