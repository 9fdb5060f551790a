import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HomeAgentError, TransferError, type TransferJobView } from '../spec/index.js';
import { sniff } from './age-file.js';
import type { DiskSpace } from './disk-space.js';
import type { TransferHost } from './transfer-host.js';
import type { TransferJobs } from './transfer-jobs.js';
import { isDiskFull, type UnpackLimits } from './zip-unpack.js';

/** While an archive is received, the disk's free space is looked at again after every this many bytes. */
const SPACE_CHECK_BYTES = 8 * 1024 * 1024;

/** What receiving an archive needs of the service. */
export interface ReceiveContext {
  host: TransferHost;
  jobs: TransferJobs;
  space: DiskSpace;
  limits: UnpackLimits & { maxArchiveBytes: number; uploadIdleMs: number };
}

/**
 * Receives an archive into a new job's folder. Its size, when known beforehand (a file's, or the
 * upload's declared length), is checked before a byte is written: over `maxArchiveBytes` is
 * TRANSFER_TOO_LARGE, more than the data folder's disk can take while keeping `keepFreeBytes`
 * free is TRANSFER_NO_SPACE. While bytes arrive the free space is looked at again (an upload of
 * unknown length, or other writers on the disk) and the receipt stops before the disk is full;
 * a full disk all the same is TRANSFER_NO_SPACE too. On any failure — an aborted upload
 * included — the job and its partial file are removed (decision 0280).
 */
export async function receiveArchive(c: ReceiveContext, source: { file: string } | { stream: AsyncIterable<Uint8Array>; bytes?: number }): Promise<TransferJobView> {
  const max = c.limits.maxArchiveBytes;
  let declared: number | undefined;
  if ('file' in source) {
    if (typeof source.file !== 'string' || !isAbsolute(source.file)) throw new TransferError('TRANSFER_BAD_REQUEST', 'the archive must be given as an absolute path');
    let st;
    try {
      st = statSync(source.file);
    } catch {
      throw new TransferError('TRANSFER_NOT_FOUND', `no file ${basename(source.file)}`);
    }
    if (!st.isFile()) throw new TransferError('TRANSFER_NOT_AN_EXPORT', `${basename(source.file)} is not a file`);
    declared = st.size;
  } else if (source.bytes !== undefined) {
    if (!Number.isSafeInteger(source.bytes) || source.bytes < 0) throw new TransferError('TRANSFER_BAD_REQUEST', 'the declared length of the archive is not a byte count');
    declared = source.bytes;
  }
  if (declared !== undefined) {
    if (declared > max) throw new TransferError('TRANSFER_TOO_LARGE', `the archive is ${declared} bytes; at most ${max} are taken`, { bytes: declared, limit: max });
    c.space.check(declared, 0);
  }
  const job = c.jobs.newJob('import');
  const target = join(job.dir, 'archive');
  let idle: ReturnType<typeof setTimeout> | undefined;
  try {
    let n = 0;
    let checkedAt = 0;
    const from = 'file' in source ? createReadStream(source.file) : Readable.from(source.stream);
    // An upload may take as long as it needs (the WebUI server spares the signed-in upload its
    // whole-request deadline, request-deadline.ts): only one that sends nothing for
    // `uploadIdleMs` is given up.
    const to = createWriteStream(target, { flags: 'wx', mode: 0o600 });
    let stalled: (e: Error) => void = () => {};
    const stall = new Promise<never>((_, reject) => (stalled = reject));
    const watch = () => {
      if ('file' in source) return;
      clearTimeout(idle);
      const ms = c.limits.uploadIdleMs;
      idle = setTimeout(() => {
        const e = new TransferError('TRANSFER_TRUNCATED', `no byte of the archive arrived for ${Math.round(ms / 1000)} s: the upload stalled`, { received: n });
        // Given up at once: a source stuck in a read may take its time to close.
        stalled(e);
        from.destroy(e);
        to.destroy(e);
      }, ms);
    };
    watch();
    const limit = new Transform({
      transform: (chunk: Buffer, _e, cb) => {
        watch();
        n += chunk.length;
        if (n > max) return cb(new TransferError('TRANSFER_TOO_LARGE', `the archive is larger than ${max} bytes`, { limit: max }));
        if (n - checkedAt >= SPACE_CHECK_BYTES) {
          checkedAt = n;
          try {
            c.space.check(0, n);
          } catch (e) {
            return cb(e as Error);
          }
        }
        c.jobs.progress(job, { phase: 'receive', done: n, total: declared ?? 0 });
        cb(null, chunk);
      },
    });
    await Promise.race([pipeline(from, limit, to), stall]);
    clearTimeout(idle);
    if (n === 0) throw new TransferError('TRANSFER_TRUNCATED', 'the archive is empty');
    if (declared !== undefined && n !== declared) throw new TransferError('TRANSFER_TRUNCATED', `the archive ended after ${n} of its ${declared} bytes`, { received: n, declared });
    const kind = sniff(target);
    if (kind === 'unknown') throw new TransferError('TRANSFER_NOT_AN_EXPORT', 'this is not a HomeAgent export (neither a zip nor an age file)');
    if (kind === 'age-armored') throw new TransferError('TRANSFER_NOT_AN_EXPORT', 'ASCII-armored age files are not read; use the binary .age file HomeAgent wrote');
    job.archive = target;
    job.view.encrypted = kind === 'age';
    job.view.state = 'staged';
    c.jobs.progress(job, { phase: 'staged', done: n, total: n });
    return c.jobs.view(job.view.id);
  } catch (e) {
    clearTimeout(idle);
    const err = e instanceof HomeAgentError ? e : isDiskFull(e) ? c.space.noSpace(e) : new TransferError('TRANSFER_TRUNCATED', `receiving the archive failed: ${(e as Error).message}`);
    c.jobs.drop(job.view.id);
    if (!(e instanceof HomeAgentError)) c.host.log.warn(`import: receiving an archive failed; its partial file was removed: ${err.message}`);
    throw err;
  }
}
