import type { PluginLogger } from '../../spec/index.js';
import type { RelevanceContext } from '../context/index.js';
import { loggedTurnEvents, type SessionSource } from './session-events.js';

const HOUR = 3_600_000;

export interface ContextRecoveryDeps {
  sessions: SessionSource;
  context: RelevanceContext;
  /** True when a tier (window, documents, archive) already holds this turn's event of this kind. */
  present: (turnId: string, eventKind: 'user' | 'agent') => boolean;
  now: () => number;
  log?: PluginLogger;
}

/** What a recovery replayed. */
export interface RecoveryResult {
  sessions: number;
  replayed: number;
}

/**
 * Replayed events the window may take before it is pruned (its pruning moves the older ones on to
 * the documents): a replay of a long history stays bounded in memory, whatever the logs hold.
 */
export const REPLAY_BATCH = 256;

/**
 * Crash recovery of the memory tiers (§9 durability): the session log is written (fdatasync)
 * before a turn is acknowledged, the context window only every few seconds. At start, every
 * session whose log goes past the window's turn mark (saved with `context.json`) is read, and each
 * user message and completed reply of the turns from the mark on that no tier holds is appended
 * to the window at its logged time; then the window is pruned once and written. The marks of every
 * session are then current, so the next start reads nothing.
 *
 * A `context.json` of an older version has no marks: events logged from an hour before it was
 * last written are checked instead; without any file, the last 24 hours. A corrupt file, or one
 * with invalid events (`loadedFrom.replayAll`), says nothing trustworthy about what the window
 * held: every session log is replayed whole, however old (what a tier holds is skipped). The
 * window is pruned every `REPLAY_BATCH` replayed events, so a long history flows on into the
 * documents instead of piling up in memory.
 */
export async function recoverContext(d: ContextRecoveryDeps): Promise<RecoveryResult> {
  const loaded = d.context.loadedFrom;
  const all = loaded.replayAll;
  const since = all || loaded.marks ? undefined : loaded.status === 'ok' && loaded.savedAt !== undefined ? loaded.savedAt - HOUR : d.now() - 24 * HOUR;
  let sessions = 0;
  let replayed = 0;
  let unpruned = 0;
  // The newest user message replayed: the query of the pruning (what the person said last).
  let lastUser: { text: string; at: number } | undefined;
  const prune = async () => {
    unpruned = 0;
    try {
      await d.context.prune(lastUser?.text ?? '');
    } catch (e) {
      d.log?.warn(`memory recovery: prune after replay failed: ${(e as Error).message}`);
    }
  };
  // Oldest first: the pruning of a batch keeps the newest turns in the window.
  const list = (await d.sessions.list()).sort((a, b) => a.updatedAt - b.updatedAt || a.id.localeCompare(b.id));
  for (const info of list) {
    if (info.turns === 0) continue;
    const mark = all ? undefined : d.context.turnMark(info.id);
    if (mark && mark.done && info.turns <= mark.turn) continue;
    let events;
    try {
      events = await d.sessions.events(info.id);
    } catch (e) {
      d.log?.warn(`memory recovery: could not read session ${info.id}: ${(e as Error).message}`);
      continue;
    }
    sessions++;
    for (const t of loggedTurnEvents(info, events)) {
      if (mark) {
        if (t.turn !== undefined && t.turn < mark.turn) continue;
      } else if (since !== undefined && t.event.timestamp < since) continue;
      const kind = t.event.kind as 'user' | 'agent';
      if (d.present(t.turnId, kind)) continue;
      d.context.append(t.event);
      replayed++;
      if (kind === 'user' && (!lastUser || t.event.timestamp >= lastUser.at)) lastUser = { text: t.event.input, at: t.event.timestamp };
      if (++unpruned >= REPLAY_BATCH) await prune();
    }
    d.context.setTurnMark(info.id, { turn: info.turns, done: true });
  }
  if (replayed > 0) {
    d.log?.info(`memory recovery: ${replayed} events of ${sessions} sessions were in the session logs but not in memory; replayed into the context window${all ? ' (every session log was read: context.json was missing or set aside)' : ''}`);
    await prune();
  }
  await d.context.flush();
  return { sessions, replayed };
}
