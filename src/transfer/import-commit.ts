import { rmSync } from 'node:fs';
import { importNote, type TransferReplacement, type TransferReport } from '../spec/index.js';
import { committedImport, journalPath } from './swap-journal.js';
import { emptyLedger, type TransferHost } from './transfer-host.js';

/**
 * An import past its commit point (decisions 0320, 0620): the tombstones and replaced turns its
 * journal lists are recorded, what this install holds of the forgets it brought is forgotten here
 * too, and the journal goes — right after the commit point, or at the next start after a kill.
 */
export class ImportCommit {
  constructor(private readonly host: TransferHost) {}

  /** Where forget tombstones are recorded and applied (the memory control's, else an in-memory stand-in). */
  ledger() {
    return this.host.forget?.() ?? emptyLedger();
  }

  /**
   * Finishes an import past its commit point (decision 0320): records the tombstones it brought
   * (idempotent: a tombstone recorded twice is one), forgets what this install holds of them, and
   * removes the journal. Runs right after the commit point, and at start for an import a kill cut
   * off there (the daemon calls it once plugins are up, so a `memory.tombstones` provider is
   * asked). When they cannot be recorded the journal stays, for the next start; the report says so.
   */
  async finishCommitted(report?: TransferReport, recorded = false): Promise<void> {
    const file = journalPath(this.host.home);
    const c = committedImport(file);
    if (!c) return;
    if (!recorded && !(await this.recordCommitted(report))) return;
    if (!report) this.host.log.warn(`an import was interrupted after its commit point; recorded the ${c.tombstones.length} forget tombstones it brought`);
    // Only the tombstones this import brought that were new here (the commit record holds just
    // those): one recorded here before was a forget made here, which acted here exactly.
    if (report ? report.parts.tombstones?.added : c.tombstones.length) await this.applyTombstones(c.tombstones.map((t) => t.ref), report);
    rmSync(file, { force: true });
  }

  /** Records the tombstones of a committed import's journal; false (the journal kept, the report told) when they cannot be. */
  async recordCommitted(report?: TransferReport): Promise<boolean> {
    const c = committedImport(journalPath(this.host.home));
    if (!c) return false;
    // Without the memory control (its store did not open) there is nowhere to keep them: the
    // fallback ledger would only hold them in memory, and the journal would go with them.
    const ledger = this.host.forget?.();
    if (!ledger && c.tombstones.length > 0) {
      this.host.log.error('the forgets an import brought could not be recorded (the memory-control store is not open); the next start tries again', { tombstones: c.tombstones.length });
      report?.notes.push(importNote.forgetsNotRecorded('the memory-control store is not open'));
      return false;
    }
    try {
      await (ledger ?? emptyLedger()).record(c.tombstones);
    } catch (e) {
      this.host.log.error(`the forgets an import brought could not be recorded (${(e as Error).message}); the next start tries again`, { tombstones: c.tombstones.length });
      report?.notes.push(importNote.forgetsNotRecorded((e as Error).message));
      return false;
    }
    return this.recordReplacements(c.replacements, report);
  }

  /**
   * Records the replaced turns a committed import brought (decision 0620), while the tiers are
   * still closed (their reopening sweeps them out) or, at a start after a kill, now (they are taken
   * out of the open tiers then). False, the journal kept for the next start, when they cannot be.
   */
  private async recordReplacements(rows: readonly TransferReplacement[], report?: TransferReport): Promise<boolean> {
    if (!rows.length) return true;
    const ledger = this.host.replacements?.();
    try {
      if (!ledger) throw new Error('the memory-control store is not open');
      await ledger.record(rows);
      return true;
    } catch (e) {
      this.host.log.error(`the replaced turns an import brought could not be recorded (${(e as Error).message}); the next start tries again`, { replacements: rows.length });
      report?.notes.push(importNote.replacementsNotRecorded((e as Error).message));
      return false;
    }
  }

  /**
   * After the import's commit point: forgets what this install held of the tombstones it brought
   * (the same K-2 forget as any, recorded as the import's). A failure here does not undo the import
   * (the tombstones are recorded; the next forget or reindex honours them): the report says so.
   */
  private async applyTombstones(refs: readonly string[], report?: TransferReport): Promise<void> {
    try {
      const r = await this.ledger().applyToExisting?.(refs);
      if (r && r.turns + r.facts + r.documents > 0 && !report) this.host.log.warn(`forgot here too, as on the archive's install: ${r.turns} turns, ${r.facts} facts, ${r.documents} documents`);
      if (r && r.turns + r.facts + r.documents > 0) report?.notes.push(importNote.forgotHere(r));
    } catch (e) {
      this.host.log.warn(`applying the imported tombstones failed: ${(e as Error).message}`);
      report?.notes.push(importNote.forgetsNotApplied((e as Error).message));
    }
  }
}
