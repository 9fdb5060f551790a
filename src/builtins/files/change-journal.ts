import { promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError } from '../../spec/index.js';
import type { ChangeRecord, ChangeTrackerService } from '../../spec/index.js';
import { writeFileAtomic } from '../../sdk/index.js';
import { readJsonFile } from '../shared/index.js';

interface JournalIndex {
  version: 1;
  changes: ChangeRecord[];
}

/** What a tool is about to change, recorded before it does. */
export interface PendingChange {
  op: ChangeRecord['op'];
  path: string;
  tool?: string;
  turnId?: string;
  /** The file's bytes before the change (`write`/`delete`); absent for `create`. */
  before?: Uint8Array;
  sizeAfter?: number;
}

/**
 * The change tracker (C-13): every write/delete of an agent tool is journaled with its
 * before-image. Bytes live in `<dir>/journal/<id>.bin`, the index in `<dir>/changes.json`
 * (written atomically). `undo` restores the bytes exactly, or removes a file the change created.
 */
export class ChangeJournal implements ChangeTrackerService {
  private changes: ChangeRecord[] = [];
  private readonly indexPath: string;
  private readonly blobDir: string;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    dir: string,
    private readonly opts: { maxEntries?: number; now?: () => number; onCorrupt?: (movedTo: string) => void } = {},
  ) {
    this.indexPath = join(dir, 'changes.json');
    this.blobDir = join(dir, 'journal');
  }

  /** Loads the index (a corrupt index is kept aside and a new one started). */
  async open(): Promise<void> {
    await fsp.mkdir(this.blobDir, { recursive: true });
    const idx = await readJsonFile<JournalIndex>(this.indexPath, { version: 1, changes: [] }, (m) => this.opts.onCorrupt?.(m));
    this.changes = Array.isArray(idx.changes) ? idx.changes : [];
  }

  /** Newest first. */
  list(opts: { limit?: number } = {}): ChangeRecord[] {
    const all = [...this.changes].reverse();
    return (opts.limit && opts.limit > 0 ? all.slice(0, opts.limit) : all).map((c) => ({ ...c }));
  }

  get(id: string): ChangeRecord | undefined {
    const c = this.changes.find((x) => x.id === id);
    return c ? { ...c } : undefined;
  }

  /** Journals a change (call BEFORE performing it so the before-image is never lost). */
  record(p: PendingChange): Promise<ChangeRecord> {
    return this.serial(async () => {
      const id = `${(this.opts.now ?? Date.now)().toString(36)}-${randomBytes(4).toString('hex')}`;
      if (p.before) await writeFileAtomic(join(this.blobDir, `${id}.bin`), p.before);
      const rec: ChangeRecord = {
        id,
        at: (this.opts.now ?? Date.now)(),
        op: p.op,
        path: p.path,
        tool: p.tool,
        turnId: p.turnId,
        sizeBefore: p.before?.byteLength,
        sizeAfter: p.sizeAfter,
        undone: false,
      };
      this.changes.push(rec);
      await this.trim();
      await this.save();
      return { ...rec };
    });
  }

  /**
   * Undoes one change: restores the before-image byte for byte (write/delete) or removes the
   * created file. Refused when the change is already undone or a newer change of the same
   * path is still in effect (undo that one first).
   */
  undo(id: string): Promise<ChangeRecord> {
    return this.serial(async () => {
      const rec = this.changes.find((c) => c.id === id);
      if (!rec) throw new NotFoundError('change', id);
      if (rec.undone) throw new ConflictError(`change ${id} is already undone`, { id });
      const newer = this.changes.slice(this.changes.indexOf(rec) + 1).find((c) => c.path === rec.path && !c.undone);
      if (newer) throw new ConflictError(`a newer change of ${rec.path} (${newer.id}) is still in effect; undo it first`, { id, newer: newer.id });
      if (rec.op === 'create') {
        await fsp.rm(rec.path, { force: true });
      } else {
        let bytes: Buffer;
        try {
          bytes = await fsp.readFile(join(this.blobDir, `${id}.bin`));
        } catch {
          throw new NotFoundError('before-image of change', id);
        }
        await fsp.mkdir(dirname(rec.path), { recursive: true });
        await writeFileAtomic(rec.path, bytes, { mode: 'umask' });
      }
      rec.undone = true;
      await this.save();
      return { ...rec };
    });
  }

  private async trim(): Promise<void> {
    const max = this.opts.maxEntries ?? 1000;
    while (this.changes.length > max) {
      const old = this.changes.shift()!;
      await fsp.rm(join(this.blobDir, `${old.id}.bin`), { force: true });
    }
  }

  private save(): Promise<void> {
    return writeFileAtomic(this.indexPath, JSON.stringify({ version: 1, changes: this.changes } satisfies JournalIndex));
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => {});
    return next;
  }
}
