import type { PluginLogger } from '../../spec/index.js';
import type { ColdArchive } from '../archive/index.js';
import { eventDocument } from '../documents/index.js';
import { loggedTurnEvents, type SessionSource } from './session-events.js';

/** Progress of a reindex, reported after each session. */
export interface ReindexProgress {
  sessions: number;
  totalSessions: number;
  /** Turn events read so far. */
  scanned: number;
  /** Events added to the archive so far. */
  added: number;
}

export interface ReindexDeps {
  sessions: SessionSource;
  archive: ColdArchive;
  /** True when a tier (window, documents, archive) already holds this turn's event of this kind. */
  present: (turnId: string, eventKind: 'user' | 'agent') => boolean;
  now: () => number;
  onProgress?: (p: ReindexProgress) => void;
  log?: PluginLogger;
}

/**
 * `waiter memory reindex` (T-3): rebuilds the cold archive from the session logs. Every user
 * message and completed reply that no tier holds (by turn id and kind) is archived with its logged
 * time, session, channel and speaker — what an older version's archive loop deleted comes back.
 * Idempotent (a second run adds nothing); one transaction per session; progress after each.
 * Graph facts are not re-distilled: the old loop committed them before it deleted the text.
 */
export async function reindexArchive(d: ReindexDeps): Promise<ReindexProgress> {
  const list = (await d.sessions.list()).filter((s) => s.turns > 0).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const p: ReindexProgress = { sessions: 0, totalSessions: list.length, scanned: 0, added: 0 };
  for (const info of list) {
    let events;
    try {
      events = await d.sessions.events(info.id);
    } catch (e) {
      d.log?.warn(`reindex: could not read session ${info.id}: ${(e as Error).message}`);
      p.sessions++;
      continue;
    }
    const now = d.now();
    const docs = [];
    for (const t of loggedTurnEvents(info, events)) {
      p.scanned++;
      if (d.present(t.turnId, t.event.kind as 'user' | 'agent')) continue;
      docs.push(eventDocument(t.event, now));
    }
    if (docs.length) p.added += d.archive.putMany(docs);
    p.sessions++;
    d.onProgress?.({ ...p });
    // Yield between sessions: a long reindex must not starve the daemon's other work.
    await new Promise((r) => setImmediate(r));
  }
  d.log?.info(`reindex: ${p.added} events added to the cold archive from ${p.sessions} sessions (${p.scanned} read)`);
  return p;
}
