import { copyFileSync, mkdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { TransferProgressFn } from '../spec/index.js';
import { fsyncPaths } from '../fs/index.js';
import { encryptFile } from './age-file.js';
import { takeSnapshot } from './export-snapshot.js';
import { EXPORT_FORMAT, formatVersionFor, summarise, type Manifest } from './manifest.js';
import type { TransferHost } from './transfer-host.js';
import type { TransferJob, TransferJobs } from './transfer-jobs.js';
import { describeFiles, writeZip } from './zip-pack.js';

/** What an export run needs of the service. */
export interface ExportContext {
  host: TransferHost;
  jobs: TransferJobs;
  now: () => number;
  /** scrypt work factor of an encrypted export (see `TransferServiceOptions.scryptLogN`). */
  scryptLogN?: number;
}

/**
 * Writes an export (K-5): a snapshot of every part, checksummed, packed into one zip with its
 * manifest, encrypted with `passphrase` when given, and moved atomically to `file` when given
 * (else kept in the job's folder for a download). The job says what was written.
 */
export async function runExport(c: ExportContext, job: TransferJob, opts: { file?: string; passphrase?: string }, onProgress?: TransferProgressFn): Promise<void> {
  const snap = join(job.dir, 'snapshot');
  mkdirSync(snap, { recursive: true, mode: 0o700 });
  const parts = ['context', 'documents', 'archive', 'graph', 'sessions', 'library', 'knowledge', 'persona', 'settings', 'adapters', 'tombstones', 'replacements', 'media'];
  let step = 0;
  const snapshot = await takeSnapshot(c.host, snap, () => c.jobs.progress(job, { phase: 'snapshot', done: step++, total: parts.length }, onProgress));
  const total = snapshot.files.reduce((n, f) => n + statSync(f.source).size, 0);
  let done = 0;
  const files = await describeFiles(snapshot.files, (n) => c.jobs.progress(job, { phase: 'checksum', done: (done += n), total }, onProgress));
  const manifest: Manifest = {
    format: EXPORT_FORMAT,
    formatVersion: formatVersionFor(files),
    homeagentVersion: c.host.version,
    createdAt: new Date(c.now()).toISOString(),
    counts: snapshot.counts,
    schemas: snapshot.schemas,
    files,
  };
  const zip = join(job.dir, 'export.zip');
  done = 0;
  await writeZip(zip, manifest, snapshot.files, (n) => c.jobs.progress(job, { phase: 'pack', done: (done += n), total }, onProgress));
  rmSync(snap, { recursive: true, force: true });
  let out = zip;
  if (opts.passphrase) {
    out = join(job.dir, 'export.age');
    const size = statSync(zip).size;
    done = 0;
    await encryptFile(zip, out, opts.passphrase, { logN: c.scryptLogN, onBytes: (n) => c.jobs.progress(job, { phase: 'encrypt', done: (done += n), total: size }, onProgress) });
    unlinkSync(zip);
  }
  const stamp = manifest.createdAt.replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z');
  const name = `homeagent-export-${stamp}.zip${opts.passphrase ? '.age' : ''}`;
  let path = out;
  if (opts.file) {
    // Atomic at the destination: a partial file next to it, renamed when complete.
    const partial = `${opts.file}.partial-${job.view.id.slice(0, 8)}`;
    copyFileSync(out, partial);
    await fsyncPaths([partial]);
    renameSync(partial, opts.file);
    await fsyncPaths([], [dirname(opts.file)]);
    rmSync(out, { force: true });
    path = opts.file;
  }
  const { sha256 } = await import('./zip-pack.js').then((m) => m.hashFile(path));
  job.exportPath = path;
  job.view.manifest = summarise(manifest, Boolean(opts.passphrase));
  job.view.file = { name: opts.file ? basename(opts.file) : name, bytes: statSync(path).size, sha256 };
  if (snapshot.leftOut.length) {
    job.view.leftOut = snapshot.leftOut;
    for (const l of snapshot.leftOut) c.host.log.warn(`export: ${l.file} is damaged (${l.error}) and was left out; the rest was exported. ${l.recover}`);
  }
  job.view.state = 'done';
  c.jobs.progress(job, { phase: 'done', done: 1, total: 1 }, onProgress);
  c.host.log.info('export written', { file: opts.file ? path : '(download)', bytes: job.view.file.bytes, encrypted: Boolean(opts.passphrase), counts: manifest.counts });
}

/** True when `path` is a folder that exists. */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
