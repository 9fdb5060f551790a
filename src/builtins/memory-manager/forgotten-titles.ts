import { titleFromForgotten } from '../../spec/session-title.js';
import type { MemoryLibrary } from './memory-library.js';
import { summaryTitle } from './summarizer.js';

/** `会话总结（<session> · 轮次 X-Y）` (`summaryTitle`), read back. */
const SUMMARY_TITLE = /^会话总结（([\s\S]+) · 轮次 (\d+)-(\d+)）$/;

/**
 * Session summaries named after a forgotten message (K-2). A summary's title holds its session's
 * title, which is made from the session's first message: forgetting that turn renames the session,
 * but a summary of later turns kept the old name — and with it what was forgotten. Such a title is
 * renamed after the session's id (recorded nowhere: a history entry would keep the old title).
 * Returns how many were renamed.
 */
export async function retitleForgottenSummaries(library: MemoryLibrary, texts: readonly string[]): Promise<number> {
  if (!texts.length) return 0;
  await library.ready();
  let n = 0;
  for (const r of library.all()) {
    const m = SUMMARY_TITLE.exec(r.title);
    if (!m || !titleFromForgotten(m[1], texts)) continue;
    await library.retitle(r.id, summaryTitle(r.source?.sessionId ?? r.id, Number(m[2]), Number(m[3])));
    n++;
  }
  return n;
}
