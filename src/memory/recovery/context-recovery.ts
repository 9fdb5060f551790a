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
 * Crash recovery of the memory tiers (§9 durability): the session log is written (fdatasync)
 * before a turn is acknowledged, the context window only every few seconds. At start, every
 * session whose log goes past the window's turn mark (saved with `context.json`) is read, and each
 * user message and completed reply of the turns from the mark on that no tier holds is appended
 * to the window at its logged time; then the window is pruned once and written. The marks of every
 * session are then current, so the next start reads nothing.
 *
 * A `context.json` of an older version has no marks: events logged from an hour before it was
 * last written are checked instead; without any file (or a corrupt one), the last 24 hours.
 */
export async function recoverContext(d: ContextRecoveryDeps): Promise<RecoveryResult> {
  const loaded = d.context.loadedFrom;
  const since = loaded.marks ? undefined : loaded.status === 'ok' && loaded.savedAt !== undefined ? loaded.savedAt - HOUR : d.now() - 24 * HOUR;
  let sessions = 0;
  let replayed = 0;
  let lastUser: string | undefined;
  for (const info of await d.sessions.list()) {
    if (info.turns === 0) continue;
    const mark = d.context.turnMark(info.id);
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
      if (kind === 'user') lastUser = t.event.input;
    }
    d.context.setTurnMark(info.id, { turn: info.turns, done: true });
  }
  if (replayed > 0) {
    d.log?.info(`memory recovery: ${replayed} events of ${sessions} sessions were in the session logs but not in memory; replayed into the context window`);
    try {
      await d.context.prune(lastUser ?? '');
    } catch (e) {
      d.log?.warn(`memory recovery: prune after replay failed: ${(e as Error).message}`);
    }
  }
  await d.context.flush();
  return { sessions, replayed };
}
