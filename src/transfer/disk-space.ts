import { TransferError } from '../spec/index.js';
import { freeBytes } from './zip-unpack.js';

/** The free space of the data folder's disk as an import sees it (decision 0280). */
export class DiskSpace {
  constructor(
    private readonly home: string,
    private readonly keepFreeBytes: number,
    private readonly free: (dir: string) => number | undefined = freeBytes,
  ) {}

  /**
   * Refuses (TRANSFER_NO_SPACE) when `more` bytes would leave less than `keepFreeBytes` free on
   * the data folder's disk; `received` is what this job already wrote (for the message).
   */
  check(more: number, received: number): void {
    const free = this.free(this.home);
    const keep = this.keepFreeBytes;
    if (free === undefined || more + keep <= free) return;
    const what = received ? `after ${received} bytes of the archive the disk of the data folder has ${free} bytes free` : `the archive is ${more} bytes and the disk of the data folder has ${free} free`;
    throw new TransferError('TRANSFER_NO_SPACE', `not enough disk space: ${what}, and ${keep} must stay free for HomeAgent to keep working; free some space and try again`, { needed: more, received, free, keepFree: keep });
  }

  /** A write that failed because the disk is full, as the coded error. */
  noSpace(e: unknown): TransferError {
    return new TransferError('TRANSFER_NO_SPACE', 'the disk of the data folder is full; free some space and try again', { free: this.free(this.home) ?? null }, e);
  }
}
