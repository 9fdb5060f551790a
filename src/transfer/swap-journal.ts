import { existsSync, readFileSync, renameSync, rmSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomicSync } from '../fs/index.js';
import type { TransferReplacement } from '../spec/index.js';

/**
 * One rename of an import's swap: the live file is moved `aside` (when it `existed`), then the
 * `merged` copy (when there is one) is moved to `live`. `-wal` / `-shm` companions of a database
 * are ops without a merged copy (moved aside only).
 */
export interface SwapOp {
  live: string;
  aside: string;
  merged?: string;
  existed: boolean;
}

/** Where the journal of a swap in progress lives (one import at a time). */
export function journalPath(home: string): string {
  return join(home, '.transfer', 'swap-journal.json');
}

/** The ops that swap `files` in, originals kept in `backup`. */
export function planSwap(files: readonly { live: string; merged: string }[], backup: string): SwapOp[] {
  const ops: SwapOp[] = [];
  files.forEach((f, i) => {
    for (const suffix of ['-wal', '-shm']) {
      if (existsSync(f.live + suffix)) ops.push({ live: f.live + suffix, aside: join(backup, `${i}${suffix}`), existed: true });
    }
    ops.push({ live: f.live, aside: join(backup, String(i)), merged: f.merged, existed: existsSync(f.live) });
  });
  return ops;
}

/**
 * A setting as it was stored before an import set it: its raw row (JSON text, as in config.db),
 * or null when nothing was stored (the key was at its env value or default).
 */
export interface JournalSetting {
  key: string;
  value: string | null;
}

/** A tombstone an import brings (`sha256:<kind>:<hex>`, with the time of its forget). */
export interface JournalTombstone {
  ref: string;
  at: number;
}

interface Journal {
  v: 1;
  ops: SwapOp[];
  /** The settings the import is about to set, as they were; absent until it starts setting them. */
  settings?: JournalSetting[];
  /**
   * Written at the commit point, replacing the ops and settings (decision 0320): the import is
   * kept from here, and these are the tombstones it brings, recorded only now — a failed or undone
   * import must not leave forgets behind that the person never asked for. Removed once they are
   * recorded and applied; a kill before that finishes them at the next start. `replacements`
   * (decision 0620): the replaced turns it brings, recorded with them for the same reason.
   */
  committed?: { tombstones: JournalTombstone[]; replacements?: TransferReplacement[] };
}

/**
 * Writes the journal before the first rename: a kill in the middle is undone at the next start.
 * It can hold settings' raw values (API keys among them), so it is the person's alone (0600).
 */
export function writeJournal(file: string, ops: readonly SwapOp[], settings?: readonly JournalSetting[]): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const journal: Journal = { v: 1, ops: [...ops], ...(settings ? { settings: [...settings] } : {}) };
  writeFileAtomicSync(file, JSON.stringify(journal), { mode: 0o600 });
}

/**
 * What is left of a journal after an undo: only the ops that could not be undone and the settings
 * not put back yet — what is done must not be done again at a later start (a new file the person
 * made since at a path an op once added would go). Removes the journal when nothing is left.
 */
export function keepUndone(file: string, ops: readonly SwapOp[], failedLive: readonly string[], settings?: readonly JournalSetting[]): void {
  const left = ops.filter((o) => failedLive.includes(o.live));
  if (left.length || settings?.length) writeJournal(file, left, settings?.length ? settings : undefined);
  else rmSync(file, { force: true });
}

/**
 * Adds to the journal the settings an import is about to set, as they were, before the first of
 * them changes: a kill after that puts them back at the next start with the files.
 */
export function journalSettings(file: string, settings: readonly JournalSetting[]): void {
  const journal = readJournal(file);
  writeJournal(file, journal.ops, settings);
}

function readJournal(file: string): Journal {
  const j = JSON.parse(readFileSync(file, 'utf8')) as Partial<Journal>;
  if (!j || !Array.isArray(j.ops)) throw new Error('no ops');
  const settings = j.settings;
  if (settings !== undefined && (!Array.isArray(settings) || !settings.every((s) => s && typeof s.key === 'string' && (s.value === null || typeof s.value === 'string')))) {
    throw new Error('unreadable settings');
  }
  const committed = j.committed;
  if (committed !== undefined && (!committed || !Array.isArray(committed.tombstones) || !committed.tombstones.every((t) => t && typeof t.ref === 'string' && typeof t.at === 'number'))) {
    throw new Error('unreadable tombstones');
  }
  // Replacements (decision 0620) are checked again where they are recorded: a row that is not two strings is dropped here.
  const replacements = Array.isArray(committed?.replacements) ? committed.replacements.filter((r) => r && typeof r.turnId === 'string' && typeof r.byTurn === 'string') : undefined;
  return { v: 1, ops: j.ops, settings, ...(committed ? { committed: { tombstones: committed.tombstones, ...(replacements?.length ? { replacements } : {}) } } : {}) };
}

/**
 * The commit point of an import that brings tombstones: one atomic write turns the journal (what
 * to undo) into the list of tombstones still to record (what to finish). From here a restart keeps
 * the import and records them (see {@link committedImport}).
 */
export function commitJournal(file: string, tombstones: readonly JournalTombstone[], replacements: readonly TransferReplacement[] = []): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const journal: Journal = { v: 1, ops: [], committed: { tombstones: [...tombstones], ...(replacements.length ? { replacements: [...replacements] } : {}) } };
  writeFileAtomicSync(file, JSON.stringify(journal), { mode: 0o600 });
}

/**
 * The tombstones of an import that passed its commit point and whose tombstones were not yet
 * recorded and applied (a kill, or their store failed), or undefined (no journal, or one of an
 * import that did not commit: that one is undone instead).
 */
export function committedImport(file: string): { tombstones: JournalTombstone[]; replacements: TransferReplacement[] } | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const c = readJournal(file).committed;
    return c && { tombstones: c.tombstones, replacements: c.replacements ?? [] };
  } catch {
    return undefined;
  }
}

/** Performs one op. */
export function applyOp(op: SwapOp): void {
  mkdirSync(dirname(op.live), { recursive: true, mode: 0o700 });
  if (op.existed) renameSync(op.live, op.aside);
  if (op.merged) renameSync(op.merged, op.live);
}

/**
 * Undoes ops in reverse, judging from the files where each op got to: a merged copy that was moved
 * in is removed, an original that was moved aside comes back. Safe on ops never started, and on
 * ops already undone (run twice, it changes nothing the second time: an original that is back in
 * place has no aside copy, which is what tells it from a merged copy moved in). Returns the live
 * paths it could not restore.
 */
export function undoOps(ops: readonly SwapOp[]): string[] {
  const failed: string[] = [];
  for (const op of [...ops].reverse()) {
    try {
      const movedIn = op.merged !== undefined && !existsSync(op.merged) && existsSync(op.live) && (!op.existed || existsSync(op.aside));
      const movedAside = op.existed && existsSync(op.aside);
      if (movedIn || movedAside) rmSync(op.live, { force: true });
      if (movedAside) renameSync(op.aside, op.live);
    } catch {
      failed.push(op.live);
    }
  }
  return failed;
}

/** What `recoverInterruptedImport` needs besides the data folder. */
export interface RecoverImportOptions {
  log?: { warn(msg: string, data?: Record<string, unknown>): void; error(msg: string, data?: Record<string, unknown>): void };
  /**
   * Puts the settings an interrupted import had started to set back as they were (the config
   * store, opened but before any key is registered). Without it, journalled settings are left.
   */
  restoreSettings?: (rows: readonly JournalSetting[]) => void;
}

/**
 * At start, before anything opens the data (the config store excepted: an import sets settings
 * through it, it swaps no file of it): an import that was interrupted before its commit point (the
 * daemon was killed between its renames, or while it set settings) is undone from its journal, so
 * the data folder and the settings are as they were before that import. Returns how many file ops
 * were looked at (0 when there was nothing to undo).
 */
export function recoverInterruptedImport(home: string, opts: RecoverImportOptions = {}): number {
  const { log } = opts;
  const file = journalPath(home);
  if (!existsSync(file)) return 0;
  let journal: Journal;
  try {
    journal = readJournal(file);
  } catch (e) {
    log?.error(`an interrupted import left an unreadable journal (${(e as Error).message}); its backups are kept in ${dirname(file)}`);
    return 0;
  }
  // Committed: nothing to undo; its tombstones are recorded once memory control is open
  // (`TransferRuntime.finishCommitted`).
  if (journal.committed) return 0;
  const { ops, settings } = journal;
  const failed = undoOps(ops);
  let settingsLeft: JournalSetting[] | undefined;
  if (settings?.length) {
    if (!opts.restoreSettings) settingsLeft = settings;
    else {
      try {
        opts.restoreSettings(settings);
        log?.warn(`an import was interrupted while it set settings; put ${settings.length} back as they were`, { keys: settings.map((s) => s.key).slice(0, 20) });
      } catch (e) {
        settingsLeft = settings;
        log?.error(`an interrupted import's settings could not be put back (${(e as Error).message}); the journal keeps them for the next start`);
      }
    }
  }
  // Once undone, an op is not undone again at a later start; settings put back are not put back
  // again over what the person set in between.
  keepUndone(file, ops, failed, settingsLeft);
  if (failed.length) {
    log?.error('an interrupted import could not be fully undone; the originals are kept aside', { files: failed.slice(0, 20) });
    return ops.length;
  }
  if (ops.length) log?.warn(`an import was interrupted while it swapped files in; undid it (${ops.length} files back as they were)`);
  return ops.length;
}
