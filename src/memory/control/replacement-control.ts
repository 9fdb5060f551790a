import type { ChangeMeta } from '../../spec/index.js';
import { REPLACES_META_KEY } from '../../spec/index.js';
import { currentChangeActor, withChangeActor } from './change-actor.js';
import type { ControlHistory } from './control-history.js';
import type { ControlQueue } from './control-queue.js';
import type { ControlTiers } from './control-tiers.js';
import { checkTurnIds } from './turn-ids.js';
import { commitReplaced, holdReplaced, putReplacedBack, reconcileReplacements } from './turn-replacement.js';

/** Who replaces a turn unless the caller says: the person, resending a message (decision 0550). */
const REPLACER: ChangeMeta = { actor: 'user', tool: 'resend' };

/**
 * Regenerate and edit-and-resend (decision 0550): the replaced turn leaves every tier for good, in
 * three durable steps (`turn-replacement.ts`), each one a job of memory control's queue; what a kill
 * left is settled at the next open (`reconcile`), and only what is not done (decision 0600).
 */
export class ReplacementControl {
  /** Turns being replaced by a run in this process: `reconcile` leaves their rows to it. */
  private readonly replacing = new Set<string>();

  constructor(
    private readonly t: ControlTiers,
    private readonly queue: ControlQueue,
    private readonly history: ControlHistory,
    private readonly forgotten: (ref: string) => boolean,
  ) {}

  /**
   * `turnId` leaves every tier for good — held in its pending row first, so the new turn does not
   * recall it — then `send` logs the new message (tagged with `meta`), then the replacement is
   * committed and recorded. `send` failing puts it back; a kill in between is settled at the next
   * open from the log. Memory that cannot take part never stops the send: it is logged, and the old
   * copy stays.
   */
  async replaceTurn(turnId: string, send: (meta: Record<string, unknown>) => Promise<string>, meta: ChangeMeta = {}): Promise<{ turnId: string; replaced: boolean; removed: number }> {
    const [id] = checkTurnIds([turnId]);
    const who = { ...REPLACER, ...currentChangeActor(), ...meta };
    const forgotten = this.forgotten;
    this.replacing.add(id);
    try {
      let removed = 0;
      let held = false;
      try {
        removed = await this.queue.run(() => withChangeActor(who, () => holdReplaced(this.t, id)));
        held = true;
      } catch (e) {
        this.t.log.warn(`memory control: ${id} could not be taken out of memory before it is said again; it stays there: ${(e as Error).message}`);
        await this.queue.run(() => putReplacedBack(this.t, id, forgotten)).catch(() => undefined);
      }
      let by: string;
      try {
        by = await send({ [REPLACES_META_KEY]: id });
      } catch (e) {
        if (held) await this.queue.run(() => withChangeActor(who, () => putReplacedBack(this.t, id, forgotten))).catch((err: Error) => this.t.log.error(`memory control: ${id} could not be put back after its resend failed; the next start does it: ${err.message}`));
        throw e;
      }
      let replaced = false;
      if (held) {
        try {
          removed += await this.queue.run(() =>
            withChangeActor(who, () =>
              commitReplaced(this.t, id, by, () => {
                replaced = true;
                this.record(id, by, who);
              }),
            ),
          );
        } catch (e) {
          this.t.log.error(`memory control: the replacement of ${id} by ${by} could not be finished now; the next start finishes it: ${(e as Error).message}`);
        }
      }
      return { turnId: by, replaced, removed };
    } finally {
      this.replacing.delete(id);
    }
  }

  /**
   * At open: replacements a kill cut off are settled by the session log; committed ones not done
   * yet are swept again (0550); done ones are left alone (0600). Returns how many were swept.
   */
  reconcile(): Promise<number> {
    return this.queue
      .run(() =>
        reconcileReplacements(this.t, {
          busy: (id) => this.replacing.has(id),
          forgotten: this.forgotten,
          committed: (id, by) => this.record(id, by, REPLACER),
        }),
      )
      .catch((e: Error) => (this.t.log.error(`memory control: settling replaced turns failed: ${e.message}`), 0));
  }

  private record(turnId: string, byTurn: string, meta: ChangeMeta): void {
    this.history.recordMany([{ ...meta, turnId: byTurn, kind: 'replacement', target: turnId, op: 'replace', summary: `replaced turn ${turnId} with ${byTurn}`, after: { byTurn } }]);
  }
}
