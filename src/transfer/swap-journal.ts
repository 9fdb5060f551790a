import { existsSync, readFileSync, renameSync, rmSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomicSync } from '../fs/index.js';

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

/** Writes the journal before the first rename: a kill in the middle is undone at the next start. */
export function writeJournal(file: string, ops: readonly SwapOp[]): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(file, JSON.stringify({ v: 1, ops }));
}

/** Performs one op. */
export function applyOp(op: SwapOp): void {
  mkdirSync(dirname(op.live), { recursive: true, mode: 0o700 });
  if (op.existed) renameSync(op.live, op.aside);
  if (op.merged) renameSync(op.merged, op.live);
}

/**
 * Undoes ops in reverse, judging from the files where each op got to: a merged copy that was moved
 * in is removed, an original that was moved aside comes back. Safe on ops never started. Returns
 * the live paths it could not restore.
 */
export function undoOps(ops: readonly SwapOp[]): string[] {
  const failed: string[] = [];
  for (const op of [...ops].reverse()) {
    try {
      const movedIn = op.merged !== undefined && !existsSync(op.merged) && existsSync(op.live);
      const movedAside = op.existed && existsSync(op.aside);
      if (movedIn || movedAside) rmSync(op.live, { force: true });
      if (movedAside) renameSync(op.aside, op.live);
    } catch {
      failed.push(op.live);
    }
  }
  return failed;
}

/**
 * At start, before anything opens the data: an import whose swap was interrupted (the daemon was
 * killed between its renames) is undone from its journal, so the data folder is as it was before
 * that import. Returns how many ops were looked at (0 when there was nothing to undo).
 */
export function recoverInterruptedImport(home: string, log?: { warn(msg: string, data?: Record<string, unknown>): void; error(msg: string, data?: Record<string, unknown>): void }): number {
  const file = journalPath(home);
  if (!existsSync(file)) return 0;
  let ops: SwapOp[];
  try {
    ops = (JSON.parse(readFileSync(file, 'utf8')) as { ops: SwapOp[] }).ops;
    if (!Array.isArray(ops)) throw new Error('no ops');
  } catch (e) {
    log?.error(`an interrupted import left an unreadable journal (${(e as Error).message}); its backups are kept in ${dirname(file)}`);
    return 0;
  }
  const failed = undoOps(ops);
  if (failed.length) {
    log?.error('an interrupted import could not be fully undone; the originals are kept aside', { files: failed.slice(0, 20) });
    return ops.length;
  }
  rmSync(file, { force: true });
  log?.warn(`an import was interrupted while it swapped files in; undid it (${ops.length} files back as they were)`);
  return ops.length;
}
