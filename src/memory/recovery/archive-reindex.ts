import type { PluginLogger } from '../../spec/index.js';
import type { ColdArchive } from '../archive/index.js';
import { eventDocument, type MemoryDocument } from '../documents/index.js';
import { loggedTurnEvents, type SessionSource } from './session-events.js';

/** Progress of a reindex, reported after each session. */
export interface ReindexProgress {
  sessions: number;
  totalSessions: number;
  /** Turn events read so far. */
  scanned: number;
  /** Events added to the archive so far. */
  added: number;
  /** Graph facts the rules found in the events added (absent when no graph takes them). */
  facts?: number;
}

export interface ReindexDeps {
  sessions: SessionSource;
  archive: ColdArchive;
  /** True when a tier (window, documents, archive) already holds this turn's event of this kind. */
  present: (turnId: string, eventKind: 'user' | 'agent') => boolean;
  now: () => number;
  onProgress?: (p: ReindexProgress) => void;
  log?: PluginLogger;
  /**
   * Distils the documents just archived into graph facts (the rule distiller: a backlog of
   * thousands of turns must not wait on a model); returns how many facts it committed.
   */
  distill?: (docs: MemoryDocument[]) => Promise<number>;
}

/**
 * `waiter memory reindex` (T-3): rebuilds the cold archive from the session logs. Every user
 * message and completed reply that no tier holds (by turn id and kind) is archived with its logged
 * time, session, channel and speaker — what an older version's archive loop deleted comes back.
 * Idempotent (a second run adds nothing); one transaction per session; progress after each.
 * What comes back is distilled again by today's rules (`distill`): the old loop's rules found few
 * facts; a fact the graph already cites from that turn is not committed twice.
 */
export async function reindexArchive(d: ReindexDeps): Promise<ReindexProgress> {
  const list = (await d.sessions.list()).filter((s) => s.turns > 0).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const p: ReindexProgress = { sessions: 0, totalSessions: list.length, scanned: 0, added: 0, ...(d.distill ? { facts: 0 } : {}) };
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
    if (docs.length) {
      p.added += d.archive.putMany(docs);
      if (d.distill) {
        try {
          p.facts = (p.facts ?? 0) + (await d.distill(docs));
        } catch (e) {
          d.log?.warn(`reindex: the turns of ${info.id} could not be distilled: ${(e as Error).message}`);
        }
      }
    }
    p.sessions++;
    d.onProgress?.({ ...p });
    // Yield between sessions: a long reindex must not starve the daemon's other work.
    await new Promise((r) => setImmediate(r));
  }
  d.log?.info(`reindex: ${p.added} events added to the cold archive from ${p.sessions} sessions (${p.scanned} read)${p.facts !== undefined ? `, ${p.facts} facts distilled` : ''}`);
  return p;
}
