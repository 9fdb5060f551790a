import type { ChangeMeta, Disposer } from '../../spec/index.js';
import { HomeAgentError, NotFoundError } from '../../spec/index.js';
import type { ControlHistory } from './control-history.js';
import type { ControlQueue } from './control-queue.js';
import { ALL, everyTierUp, type ControlTiers } from './control-tiers.js';
import { sessionOfTurn } from './text-match.js';
import { checkTurnIds } from './turn-ids.js';
import { putBack, sweepTurn } from './turn-exclusion.js';

/**
 * Excluding a turn from every memory tier and restoring it (M-9): what the tiers hold of it is
 * swept aside into its row of `exclusions` and put back where it was on a restore. The memory
 * manager hears each change (`onExclusionChange`) and mirrors it in its plan.
 */
export class ExclusionControl {
  private readonly listeners = new Set<(e: { turnIds: string[]; excluded: boolean }) => void>();

  constructor(
    private readonly t: ControlTiers,
    private readonly queue: ControlQueue,
    private readonly history: ControlHistory,
    private readonly forgotten: (ref: string) => boolean,
  ) {}

  excluded(): string[] {
    return this.t.db.excluded();
  }

  isExcluded(turnId: string): boolean {
    return this.t.db.isExcluded(turnId);
  }

  async exclude(turnIds: string[], meta: ChangeMeta = {}): Promise<{ turns: number; held: number }> {
    const ids = checkTurnIds(turnIds);
    return this.queue.run(async () => {
      // A turn that does not exist is refused, not recorded: an exclusion of `cli:default#99` would
      // otherwise wait for that turn and take it out of memory the day it is said.
      const unknown: string[] = [];
      for (const id of ids) if (!(await this.turnKnown(id))) unknown.push(id);
      if (unknown.length) throw new NotFoundError('turn', unknown.slice(0, 5).join(', '));
      return this.excludeNow(ids, meta, true);
    });
  }

  /** Whether a turn is in its session's log or in a memory tier (or already excluded). */
  private async turnKnown(id: string): Promise<boolean> {
    if (this.t.db.isExcluded(id)) return true;
    const events = this.t.sessions ? await this.t.sessions.events(sessionOfTurn(id), ALL).catch(() => []) : [];
    if (events.some((e) => e.turnId === id)) return true;
    if (this.t.context()?.events().some((e) => e.refs?.includes(id))) return true;
    return (this.t.docs()?.idsOfTurn(id).length ?? 0) > 0 || (this.t.archive()?.rowsOfTurn(id).length ?? 0) > 0;
  }

  /** Excludes inside the queue (an undo runs there already); `record`: a history entry per turn. */
  async excludeNow(ids: string[], meta: ChangeMeta, record: boolean): Promise<{ turns: number; held: number }> {
    const added: string[] = [];
    for (const id of ids) if (this.t.db.addExclusion(id, sessionOfTurn(id))) added.push(id);
    let held = 0;
    for (const id of ids) held += await this.sweep(id);
    if (added.length) {
      this.emit(added, true);
      if (record) this.history.recordMany(added.map((id) => ({ ...meta, kind: 'exclusion' as const, target: id, op: 'exclude', summary: `excluded turn ${id}`, before: { excluded: false }, after: { excluded: true } })));
    }
    return { turns: added.length, held };
  }

  async restore(turnIds: string[], meta: ChangeMeta = {}): Promise<{ turns: number; restored: number }> {
    const ids = checkTurnIds(turnIds);
    return this.queue.run(() => this.restoreNow(ids, meta, true));
  }

  /** Restores inside the queue (an undo runs there already); `record`: a history entry per turn. */
  async restoreNow(ids: string[], meta: ChangeMeta, record: boolean): Promise<{ turns: number; restored: number }> {
    const db = this.t.db;
    const done: string[] = [];
    const failed: string[] = [];
    let restored = 0;
    let firstError: Error | undefined;
    for (const id of ids) {
      if (!db.isExcluded(id)) continue;
      const held = db.held(id);
      // Not swept any more, recorded before anything is put back: a kill mid-restore leaves items in
      // the tiers with the row in place, and the next open must sweep them aside again (decision 0700).
      db.unsweepExclusion(id);
      // The gate lifts first (the window would refuse the events), the row goes last: a kill in
      // between leaves the turn excluded, and the next open sweeps it aside again.
      db.liftGate(id);
      try {
        // A turn replaced while excluded held nothing since (decision 0550), and is not archived from its log either.
        restored += await putBack(this.t, id, held, this.forgotten, { fromLog: !db.isReplaced(id) });
      } catch (e) {
        // What is held is not dropped (it was, with the row): the turn stays excluded, and what was
        // already put back is swept aside again, merged with what is held (or at the next open).
        db.closeGate(id);
        await sweepTurn(this.t, id, { skipFailingTiers: true }).catch((err: Error) => this.t.log.warn(`memory control: re-sweeping ${id} after a failed restore failed: ${err.message}`));
        failed.push(id);
        firstError ??= e instanceof Error ? e : new Error(String(e));
        continue;
      }
      db.removeExclusion(id);
      done.push(id);
    }
    if (done.length) {
      this.emit(done, false);
      if (record) this.history.recordMany(done.map((id) => ({ ...meta, kind: 'exclusion' as const, target: id, op: 'restore', summary: `restored turn ${id}`, before: { excluded: true }, after: { excluded: false } })));
    }
    if (failed.length) throw new HomeAgentError('RESTORE_FAILED', `could not restore ${failed.length} turn(s) (${failed.slice(0, 5).join(', ')}): ${firstError?.message}; they stay excluded, nothing is lost — try again`, { details: { failed, restored: done } });
    return { turns: done.length, restored };
  }

  /**
   * At open: an excluded turn not yet swept with every tier up — a kill came first, a tier was down,
   * an import swapped the tiers, a restore was cut off, an undo wrote something of it back — may
   * still sit in a tier; each such one is swept again and marked. One swept since is not read at all
   * (decision 0700). Returns how many were swept.
   */
  async sweepUnswept(): Promise<number> {
    let swept = 0;
    for (const id of this.t.db.unsweptExclusions()) {
      swept++;
      try {
        await this.sweep(id);
      } catch (e) {
        this.t.log.error(`memory control: sweeping excluded turn ${id} failed; the next start tries again: ${(e as Error).message}`);
      }
    }
    if (swept) this.t.log.info(`memory control: swept ${swept} excluded turn(s) not swept since they were excluded or something could have brought them back`);
    return swept;
  }

  /** Sweeps an excluded turn aside; marked swept only when every tier was up for it (a tier that is down may still hold it). */
  private async sweep(id: string): Promise<number> {
    const whole = everyTierUp(this.t);
    const n = await sweepTurn(this.t, id);
    if (whole && this.t.db.isExcluded(id)) this.t.db.markExclusionSwept(id);
    return n;
  }

  onExclusionChange(fn: (e: { turnIds: string[]; excluded: boolean }) => void): Disposer {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  private emit(turnIds: string[], excluded: boolean): void {
    for (const fn of this.listeners) {
      try {
        fn({ turnIds, excluded });
      } catch (e) {
        this.t.log.warn('memory control: an exclusion listener failed', { error: (e as Error).message });
      }
    }
  }
}
