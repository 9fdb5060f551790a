import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, copyFileSync, unlinkSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import {
  HomeAgentError,
  importNote,
  TransferError,
  TRANSFER_MODES,
  type ImportOptions,
  type TransferJobView,
  type TransferProgress,
  type TransferProgressFn,
  type TransferReplacement,
  type TransferReport,
  type TransferService,
  type TransferPart,
  type ChangeKind,
  type NewMemoryChange,
} from '../spec/index.js';
import { fsyncPaths, writeFileAtomic } from '../fs/index.js';
import { EXPORT_FORMAT, formatVersionFor, summarise, type Manifest } from './manifest.js';
import { takeSnapshot } from './export-snapshot.js';
import { describeFiles, writeZip } from './zip-pack.js';
import { DEFAULT_UNPACK_LIMITS, freeBytes, isDiskFull, unpackExport, type UnpackLimits } from './zip-unpack.js';
import { decryptFile, encryptFile, sniff } from './age-file.js';
import { StagedExport } from './staged-export.js';
import { archiveTurnFloors, mergeImport, type SwapFile } from './import-merge.js';
import { emptyLedger, type TransferHost } from './transfer-host.js';
import { applyOp, commitJournal, committedImport, journalPath, journalSettings, keepUndone, planSwap, undoOps, writeJournal, type JournalSetting } from './swap-journal.js';

/** Options of the service beyond the host. */
export interface TransferServiceOptions {
  /** Limits of archives being imported (tests lower them). */
  limits?: Partial<UnpackLimits> & { maxArchiveBytes?: number; uploadIdleMs?: number };
  /** scrypt work factor of encrypted exports (2^n; default 18 as `age -p`). Tests lower it. */
  scryptLogN?: number;
  /**
   * Fault injection for tests of atomicity: called before the i-th file of an import is swapped
   * in; a throw there is a failure in the middle of applying.
   */
  beforeSwap?: (i: number, file: string) => void;
  /** Fault injection for tests: called before an import sets the setting `key` (a throw there fails it). */
  beforeSetting?: (key: string) => void;
  /**
   * Fault injection for tests: called at an import's commit point, its settings set (a throw there
   * is a failure just before it; a promise holds the import there, with its write gate closed).
   */
  beforeCommit?: () => void | Promise<void>;
  /** The free space of a folder's disk (tests stand in for a disk filling up); default statfs. */
  freeBytes?: (dir: string) => number | undefined;
}

/** While an archive is received, the disk's free space is looked at again after every this many bytes. */
const SPACE_CHECK_BYTES = 8 * 1024 * 1024;

interface Job {
  view: TransferJobView;
  dir: string;
  archive?: string;
  staged?: StagedExport;
  openedWith?: string;
  exportPath?: string;
}

const MAX_JOBS = 20;

/**
 * `host.transfer` (K-5): export of the whole memory into one archive and import of one, merged
 * with skip / overwrite / keep-both. Work happens in `<home>/.transfer/<job>/` (0700, removed at
 * start and when a job is discarded). An import is verified whole before it changes anything, then
 * merged into copies of the live files, and only then swapped in (rename by rename, with the tiers
 * closed, the agent and the memory loops held); a failure while swapping renames every original
 * back.
 */
export class TransferRuntime implements TransferService {
  private applyingNow = 0;
  private readonly jobs = new Map<string, Job>();
  private busy: string | undefined;
  private readonly root: string;
  private readonly limits: UnpackLimits & { maxArchiveBytes: number; uploadIdleMs: number };

  constructor(
    private readonly host: TransferHost,
    private readonly opts: TransferServiceOptions = {},
  ) {
    this.root = join(host.home, '.transfer');
    this.limits = { ...DEFAULT_UNPACK_LIMITS, maxArchiveBytes: 64 * 1024 ** 3, uploadIdleMs: 120_000, ...opts.limits };
  }

  /**
   * Removes what an earlier run left in the work folder — unless an interrupted import's journal
   * is still there (it could not be undone): then its backups stay for a person to recover.
   */
  start(): void {
    if (committedImport(journalPath(this.host.home))) {
      // An import past its commit point: nothing to undo, only its tombstones to record
      // (`finishCommitted`); its work files go, the journal stays.
      for (const f of readdirSync(this.root)) if (join(this.root, f) !== journalPath(this.host.home)) rmSync(join(this.root, f), { recursive: true, force: true });
      return;
    }
    if (existsSync(journalPath(this.host.home))) {
      this.host.log.error(`an interrupted import could not be undone; ${this.root} is kept (its backup/ folders hold the original files)`);
      return;
    }
    rmSync(this.root, { recursive: true, force: true });
  }

  /** Removes every job's files — not while an import's journal is left (see `start`). */
  stop(): void {
    if (!existsSync(journalPath(this.host.home))) rmSync(this.root, { recursive: true, force: true });
    this.jobs.clear();
  }

  private now(): number {
    return (this.host.now ?? Date.now)();
  }

  private newJob(kind: 'export' | 'import'): Job {
    if (this.jobs.size >= MAX_JOBS) {
      const oldest = [...this.jobs.values()].filter((j) => j.view.state !== 'running' && j.view.id !== this.busy).sort((a, b) => a.view.startedAt - b.view.startedAt)[0];
      if (oldest) this.drop(oldest.view.id);
    }
    const id = randomUUID();
    const dir = join(this.root, id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const job: Job = { dir, view: { id, kind, state: 'running', progress: { phase: 'start', done: 0, total: 0 }, startedAt: this.now() } };
    this.jobs.set(id, job);
    return job;
  }

  private drop(id: string): void {
    const j = this.jobs.get(id);
    if (!j) return;
    rmSync(j.dir, { recursive: true, force: true });
    this.jobs.delete(id);
  }

  private get(id: string): Job {
    const j = typeof id === 'string' ? this.jobs.get(id) : undefined;
    if (!j) throw new TransferError('TRANSFER_NOT_FOUND', `no export or import job ${String(id).slice(0, 60)}`);
    return j;
  }

  private claim(id: string): () => void {
    // A job that has reported its outcome only cleans up: it no longer blocks the next one.
    if (this.busy && this.busy !== id && this.jobs.get(this.busy)?.view.state === 'running') throw new TransferError('TRANSFER_BUSY', 'another export or import is running; try again when it has finished');
    this.busy = id;
    return () => {
      if (this.busy === id) this.busy = undefined;
    };
  }

  private progress(job: Job, p: TransferProgress, fn?: TransferProgressFn): void {
    job.view.progress = p;
    fn?.(p);
  }

  private fail(job: Job, e: unknown): never {
    const err = e instanceof HomeAgentError ? e : isDiskFull(e) ? this.noSpace(e) : new TransferError('TRANSFER_APPLY_FAILED', (e as Error).message, {}, e);
    job.view.state = 'failed';
    job.view.error = { code: err.code, message: err.message, details: err.details };
    throw err;
  }

  job(id: string): TransferJobView {
    return structuredClone(this.get(id).view);
  }

  // ---------------------------------------------------------------- export

  async exportTo(opts: { file?: string; passphrase?: string }, onProgress?: TransferProgressFn): Promise<TransferJobView> {
    if (opts.file !== undefined && (typeof opts.file !== 'string' || !isAbsolute(opts.file))) throw new TransferError('TRANSFER_BAD_REQUEST', 'the export file must be an absolute path');
    if (opts.passphrase !== undefined && (typeof opts.passphrase !== 'string' || opts.passphrase.length === 0)) throw new TransferError('TRANSFER_BAD_REQUEST', 'the passphrase must not be empty');
    // Never replaces a file: an export is not a way to overwrite something by mistake.
    if (opts.file !== undefined && existsSync(opts.file)) throw new TransferError('TRANSFER_BAD_REQUEST', `${basename(opts.file)} already exists; choose another name`);
    // Nor a way to make folders by a typo in the path: the folder must be there.
    if (opts.file !== undefined && !isFolder(dirname(opts.file))) throw new TransferError('TRANSFER_BAD_REQUEST', `there is no folder ${dirname(opts.file)}: create it first, or export to a folder that exists`);
    const job = this.newJob('export');
    const release = this.claim(job.view.id);
    try {
      await this.runExport(job, opts, onProgress);
      return this.job(job.view.id);
    } catch (e) {
      this.fail(job, e);
    } finally {
      release();
    }
  }

  startExport(opts: { passphrase?: string }): TransferJobView {
    if (this.busy && this.jobs.get(this.busy)?.view.state === 'running') throw new TransferError('TRANSFER_BUSY', 'another export or import is running; try again when it has finished');
    if (opts.passphrase !== undefined && (typeof opts.passphrase !== 'string' || opts.passphrase.length === 0)) throw new TransferError('TRANSFER_BAD_REQUEST', 'the passphrase must not be empty');
    const job = this.newJob('export');
    const release = this.claim(job.view.id);
    void this.runExport(job, opts)
      .catch((e: unknown) => {
        try {
          this.fail(job, e);
        } catch {
          this.host.log.warn(`export failed: ${(e as Error).message}`);
        }
      })
      .finally(release);
    return this.job(job.view.id);
  }

  private async runExport(job: Job, opts: { file?: string; passphrase?: string }, onProgress?: TransferProgressFn): Promise<void> {
    const snap = join(job.dir, 'snapshot');
    mkdirSync(snap, { recursive: true, mode: 0o700 });
    const parts = ['context', 'documents', 'archive', 'graph', 'sessions', 'library', 'knowledge', 'persona', 'settings', 'adapters', 'tombstones', 'replacements', 'media'];
    let step = 0;
    const snapshot = await takeSnapshot(this.host, snap, () => this.progress(job, { phase: 'snapshot', done: step++, total: parts.length }, onProgress));
    const total = snapshot.files.reduce((n, f) => n + statSync(f.source).size, 0);
    let done = 0;
    const files = await describeFiles(snapshot.files, (n) => this.progress(job, { phase: 'checksum', done: (done += n), total }, onProgress));
    const manifest: Manifest = {
      format: EXPORT_FORMAT,
      formatVersion: formatVersionFor(files),
      homeagentVersion: this.host.version,
      createdAt: new Date(this.now()).toISOString(),
      counts: snapshot.counts,
      schemas: snapshot.schemas,
      files,
    };
    const zip = join(job.dir, 'export.zip');
    done = 0;
    await writeZip(zip, manifest, snapshot.files, (n) => this.progress(job, { phase: 'pack', done: (done += n), total }, onProgress));
    rmSync(snap, { recursive: true, force: true });
    let out = zip;
    if (opts.passphrase) {
      out = join(job.dir, 'export.age');
      const size = statSync(zip).size;
      done = 0;
      await encryptFile(zip, out, opts.passphrase, { logN: this.opts.scryptLogN, onBytes: (n) => this.progress(job, { phase: 'encrypt', done: (done += n), total: size }, onProgress) });
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
      for (const l of snapshot.leftOut) this.host.log.warn(`export: ${l.file} is damaged (${l.error}) and was left out; the rest was exported. ${l.recover}`);
    }
    job.view.state = 'done';
    this.progress(job, { phase: 'done', done: 1, total: 1 }, onProgress);
    this.host.log.info('export written', { file: opts.file ? path : '(download)', bytes: job.view.file.bytes, encrypted: Boolean(opts.passphrase), counts: manifest.counts });
  }

  exportFile(id: string): { path: string; name: string; bytes: number } {
    const j = this.get(id);
    if (j.view.kind !== 'export' || j.view.state !== 'done' || !j.exportPath || !j.view.file) throw new TransferError('TRANSFER_NOT_FOUND', 'this export is not finished');
    return { path: j.exportPath, name: j.view.file.name, bytes: j.view.file.bytes };
  }

  // ---------------------------------------------------------------- import

  /**
   * Receives an archive into a new job's folder. Its size, when known beforehand (a file's, or the
   * upload's declared length), is checked before a byte is written: over `maxArchiveBytes` is
   * TRANSFER_TOO_LARGE, more than the data folder's disk can take while keeping `keepFreeBytes`
   * free is TRANSFER_NO_SPACE. While bytes arrive the free space is looked at again (an upload of
   * unknown length, or other writers on the disk) and the receipt stops before the disk is full;
   * a full disk all the same is TRANSFER_NO_SPACE too. On any failure — an aborted upload
   * included — the job and its partial file are removed (decision 0280).
   */
  async stageImport(source: { file: string } | { stream: AsyncIterable<Uint8Array>; bytes?: number }): Promise<TransferJobView> {
    const max = this.limits.maxArchiveBytes;
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
      this.checkSpace(declared, 0);
    }
    const job = this.newJob('import');
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
        const ms = this.limits.uploadIdleMs;
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
              this.checkSpace(0, n);
            } catch (e) {
              return cb(e as Error);
            }
          }
          this.progress(job, { phase: 'receive', done: n, total: declared ?? 0 });
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
      this.progress(job, { phase: 'staged', done: n, total: n });
      return this.job(job.view.id);
    } catch (e) {
      clearTimeout(idle);
      const err = e instanceof HomeAgentError ? e : isDiskFull(e) ? this.noSpace(e) : new TransferError('TRANSFER_TRUNCATED', `receiving the archive failed: ${(e as Error).message}`);
      this.drop(job.view.id);
      if (!(e instanceof HomeAgentError)) this.host.log.warn(`import: receiving an archive failed; its partial file was removed: ${err.message}`);
      throw err;
    }
  }

  /**
   * Refuses (TRANSFER_NO_SPACE) when `more` bytes would leave less than `keepFreeBytes` free on
   * the data folder's disk; `received` is what this job already wrote (for the message).
   */
  private checkSpace(more: number, received: number): void {
    const free = (this.opts.freeBytes ?? freeBytes)(this.host.home);
    const keep = this.limits.keepFreeBytes;
    if (free === undefined || more + keep <= free) return;
    const what = received ? `after ${received} bytes of the archive the disk of the data folder has ${free} bytes free` : `the archive is ${more} bytes and the disk of the data folder has ${free} free`;
    throw new TransferError('TRANSFER_NO_SPACE', `not enough disk space: ${what}, and ${keep} must stay free for HomeAgent to keep working; free some space and try again`, { needed: more, received, free, keepFree: keep });
  }

  /** A write that failed because the disk is full, as the coded error. */
  private noSpace(e: unknown): TransferError {
    return new TransferError('TRANSFER_NO_SPACE', 'the disk of the data folder is full; free some space and try again', { free: (this.opts.freeBytes ?? freeBytes)(this.host.home) ?? null }, e);
  }

  /** Decrypts, unpacks and verifies a staged archive (once per passphrase). */
  private async open(job: Job, opts: ImportOptions, onProgress?: TransferProgressFn): Promise<StagedExport> {
    if (job.view.kind !== 'import' || !job.archive) throw new TransferError('TRANSFER_NOT_FOUND', 'this job is not a staged import');
    if (job.staged && (!job.view.encrypted || job.openedWith === opts.passphrase)) return job.staged;
    rmSync(join(job.dir, 'zip'), { force: true });
    rmSync(join(job.dir, 'unpacked'), { recursive: true, force: true });
    let zip = job.archive;
    if (job.view.encrypted) {
      if (!opts.passphrase) throw new TransferError('TRANSFER_PASSPHRASE_REQUIRED', 'this archive is encrypted: give its passphrase');
      zip = join(job.dir, 'zip');
      const size = statSync(job.archive).size;
      // The decrypted zip is about as large as the archive.
      this.checkSpace(size, 0);
      let done = 0;
      await decryptFile(job.archive, zip, opts.passphrase, { onBytes: (n) => this.progress(job, { phase: 'decrypt', done: (done += n), total: size }, onProgress) });
    }
    let done = 0;
    const manifest = await unpackExport(zip, join(job.dir, 'unpacked'), this.limits, (n, total) => this.progress(job, { phase: 'verify', done: (done += n), total }, onProgress));
    const staged = new StagedExport(join(job.dir, 'unpacked'), manifest);
    staged.verify();
    job.staged = staged;
    job.openedWith = opts.passphrase;
    job.view.manifest = summarise(manifest, Boolean(job.view.encrypted));
    return staged;
  }

  private checkOptions(opts: ImportOptions): ImportOptions {
    if (!opts || !TRANSFER_MODES.includes(opts.mode)) throw new TransferError('TRANSFER_BAD_REQUEST', `mode must be one of ${TRANSFER_MODES.join(', ')}`);
    if (opts.passphrase !== undefined && typeof opts.passphrase !== 'string') throw new TransferError('TRANSFER_BAD_REQUEST', 'the passphrase must be a string');
    return { mode: opts.mode, passphrase: opts.passphrase || undefined, privilegedSettings: opts.privilegedSettings === true, approveInjected: opts.approveInjected === true };
  }

  private live() {
    return { home: this.host.home, library: this.host.libraryRoot(), persona: this.host.personaFile(), adapters: join(this.host.home, 'adapters') };
  }

  async inspectImport(id: string, options: ImportOptions): Promise<TransferJobView> {
    const opts = this.checkOptions(options);
    const job = this.get(id);
    if (job.view.state !== 'staged') throw new TransferError('TRANSFER_NOT_FOUND', 'this import is not waiting to be applied');
    const release = this.claim(id);
    const scratch = join(job.dir, 'dry-run');
    job.view.state = 'running';
    try {
      const staged = await this.open(job, opts);
      this.progress(job, { phase: 'plan', done: 0, total: 1 });
      const r = await mergeImport({ staged, live: this.live(), mergedHome: scratch, mode: opts.mode, ledger: this.ledger(), memory: this.host.memory, config: this.host.config, privilegedSettings: opts.privilegedSettings === true, approveInjected: opts.approveInjected === true, replacedHere: this.replacedHere() });
      // The archive's forgets reach what is here too (see applyTombstones): the preview says how much.
      const here = r.tombstones.length ? await this.ledger().previewExisting?.(r.tombstones.map((t) => t.ref)) : undefined;
      if (here && here.turns + here.facts + here.documents > 0) r.report.notes.push(importNote.wouldForgetHere(here));
      job.view.report = r.report;
      this.progress(job, { phase: 'staged', done: 1, total: 1 });
      // The view returned says what the job is once this returns: staged again, waiting to be
      // applied (it said `running`, so the WebUI took a checked archive for a new upload).
      job.view.state = 'staged';
      return this.job(id);
    } catch (e) {
      const err = e instanceof HomeAgentError ? e : isDiskFull(e) ? this.noSpace(e) : new TransferError('TRANSFER_CORRUPT', (e as Error).message, {}, e);
      job.view.error = { code: err.code, message: err.message, details: err.details };
      throw err;
    } finally {
      job.view.state = 'staged';
      rmSync(scratch, { recursive: true, force: true });
      release();
    }
  }

  private ledger() {
    return this.host.forget?.() ?? emptyLedger();
  }

  /** The turns replaced here (decision 0620), which an import's replacements of the same turn leave as they are. */
  private replacedHere(): Set<string> {
    return new Set((this.host.replacements?.()?.list() ?? []).map((r) => r.turnId));
  }

  async applyImport(id: string, options: ImportOptions, onProgress?: TransferProgressFn): Promise<TransferJobView> {
    const opts = this.checkOptions(options);
    const job = this.get(id);
    if (job.view.state !== 'staged' && !(job.view.state === 'running' && this.busy === id)) throw new TransferError('TRANSFER_NOT_FOUND', 'this import is not waiting to be applied');
    const release = this.claim(id);
    job.view.state = 'running';
    job.view.error = undefined;
    try {
      const staged = await this.open(job, opts, onProgress);
      job.view.report = await this.apply(job, staged, opts, onProgress);
      job.view.state = 'done';
      this.progress(job, { phase: 'done', done: 1, total: 1 }, onProgress);
      await this.record(job);
      rmSync(join(job.dir, 'unpacked'), { recursive: true, force: true });
      rmSync(join(job.dir, 'zip'), { force: true });
      job.staged = undefined;
      return this.job(id);
    } catch (e) {
      // A refused archive (wrong passphrase, corrupt …) can be tried again with other options.
      const applyFailed = !(e instanceof TransferError) || e.code === 'TRANSFER_APPLY_FAILED';
      try {
        return this.fail(job, e);
      } finally {
        if (!applyFailed && job.archive) job.view.state = 'staged';
      }
    } finally {
      release();
    }
  }

  startImport(id: string, options: ImportOptions): TransferJobView {
    const opts = this.checkOptions(options);
    const job = this.get(id);
    if (job.view.state !== 'staged') throw new TransferError('TRANSFER_NOT_FOUND', 'this import is not waiting to be applied');
    if (this.busy && this.jobs.get(this.busy)?.view.state === 'running') throw new TransferError('TRANSFER_BUSY', 'another export or import is running; try again when it has finished');
    job.view.state = 'running';
    this.busy = id;
    void this.applyImport(id, opts).catch((e: unknown) => this.host.log.warn(`import failed: ${(e as Error).message}`, { code: (e as HomeAgentError).code }));
    return this.job(id);
  }

  /**
   * Applies a verified import: agent and memory loops held, tiers closed; merged into copies;
   * the copies swapped in (each original kept aside until the end); session logs re-read; settings
   * set; then the commit point; then the tombstones it brings recorded and applied to what is here.
   * Any failure before the commit point puts every original back, and leaves no tombstone of it.
   */
  private async apply(job: Job, staged: StagedExport, opts: ImportOptions, onProgress?: TransferProgressFn): Promise<TransferReport> {
    // An earlier import's journal: its tombstones are finished first; one that is still there
    // (they cannot be recorded now, or an undo that could not be done) must not be overwritten.
    await this.finishCommitted();
    if (existsSync(journalPath(this.host.home))) {
      throw new TransferError('TRANSFER_BUSY', `an earlier import is not finished (${committedImport(journalPath(this.host.home)) ? 'the forgets it brought could not be recorded yet' : 'it could not be fully undone'}); restart the daemon and try again`);
    }
    const releaseAgent = await this.host.holdAgent();
    this.applyingNow++;
    const releaseLoops = await this.host.memory.holdLoops();
    const merged = join(job.dir, 'merged');
    const backup = join(job.dir, 'backup');
    let recorded = false;
    try {
      const report = await this.host.memory.withTiersClosed(async () => {
        this.progress(job, { phase: 'plan', done: 0, total: 1 }, onProgress);
        // The session logs are read for the merge and swapped in under the store's write gate
        // (decision 0380): an input that comes meanwhile waits to be written (its 202 with it) and
        // lands in the log that is there once the import is in — or undone — never in one it replaces.
        const openWrites = await this.host.sessions.holdWrites(archiveTurnFloors(staged));
        try {
          const ledger = this.ledger();
          const r = await mergeImport({ staged, live: this.live(), mergedHome: merged, mode: opts.mode, ledger, memory: this.host.memory, config: this.host.config, privilegedSettings: opts.privilegedSettings === true, approveInjected: opts.approveInjected === true, replacedHere: this.replacedHere() });
          const undo = await this.swap(job, r.files, backup, onProgress);
          // The settings as stored before (raw rows: a secret is put back as it was, not masked),
          // journalled before the first changes, so a kill before the commit point puts them back too.
          const previous: JournalSetting[] = r.settings.map((s) => ({ key: s.key, value: this.host.config.storedText(s.key) ?? null }));
          let settingsTouched = false;
          try {
            await this.host.sessions.reload(r.sessionIds);
            if (previous.length) journalSettings(journalPath(this.host.home), previous);
            for (const s of r.settings) {
              settingsTouched = true;
              this.opts.beforeSetting?.(s.key);
              await this.host.config.set(s.key, s.value as never);
            }
            await this.opts.beforeCommit?.();
            // The commit point: from here a restart keeps the import. The archive's tombstones are
            // recorded only after it (decision 0320): recorded before, a failure or a kill in between
            // undid the files but kept the forgets — of data here the person never asked to forget.
            // The journal turns into the list of them still to record, in one atomic write.
            // The replaced turns it brings likewise (decision 0620): recorded, they take turns out of every tier.
            if (r.tombstones.length || r.replacements.length) commitJournal(journalPath(this.host.home), r.tombstones, r.replacements);
            else rmSync(journalPath(this.host.home), { force: true });
          } catch (e) {
            // The files are always undone; settings that cannot be put back now stay in the journal
            // for the next start (which puts them back before anything reads them).
            let pending: JournalSetting[] | undefined;
            if (settingsTouched) {
              try {
                this.host.config.restoreStored(previous);
              } catch (re) {
                pending = previous;
                this.host.log.error(`import rollback: the settings could not be put back (${(re as Error).message}); the journal keeps them for the next start`);
              }
            }
            undo(pending);
            await this.host.sessions.reload(r.sessionIds).catch(() => {});
            const what = pending ? 'its files were undone; its settings will be put back as they were at the next start' : 'it was undone';
            throw new TransferError('TRANSFER_APPLY_FAILED', `the import failed while applying and ${what}: ${(e as Error).message}`, {}, e);
          }
          // Past the commit point, the logs in place and re-read: the writes that waited go on.
          openWrites();
          // Past the commit point (nothing here undoes the import): the tombstones it brings, while
          // the tiers are still closed (their reopening replays no turn they name by id).
          recorded = await this.recordCommitted(r.report);
          return r.report;
        } finally {
          openWrites();
        }
      });
      // The tiers are open again: what is here of a forget made on the archive's install goes too.
      if (recorded) await this.finishCommitted(report, true);
      return report;
    } catch (e) {
      if (e instanceof TransferError) throw e;
      throw new TransferError('TRANSFER_APPLY_FAILED', `the import failed and changed nothing: ${(e as Error).message}`, {}, e);
    } finally {
      // A journal left (something could not be undone, or settings wait for the next start) may
      // point into backup/ and merged/: they stay with it. A committed one does not.
      if (!existsSync(journalPath(this.host.home)) || committedImport(journalPath(this.host.home))) {
        rmSync(merged, { recursive: true, force: true });
        rmSync(backup, { recursive: true, force: true });
      }
      releaseLoops();
      releaseAgent();
      try {
        await this.host.reloadLibrary?.().catch((e: unknown) => this.host.log.warn(`library reload after import failed: ${(e as Error).message}`));
      } finally {
        this.applyingNow--;
      }
    }
  }

  /** True while an import writes into the data folder (see TransferService.applying). */
  applying(): boolean {
    return this.applyingNow > 0;
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
  private async recordCommitted(report?: TransferReport): Promise<boolean> {
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

  /**
   * Renames each merged file over its live path, keeping the original aside, with a journal
   * written first (a kill in the middle is undone at the next start, see
   * `recoverInterruptedImport`); returns the undo. A failure part-way undoes what was swapped and
   * throws TRANSFER_APPLY_FAILED.
   */
  private async swap(job: Job, files: readonly SwapFile[], backup: string, onProgress?: TransferProgressFn): Promise<(pendingSettings?: readonly JournalSetting[]) => void> {
    mkdirSync(backup, { recursive: true, mode: 0o700 });
    // The merged copies are on disk before any of them replaces live data (a power cut after the
    // renames must not find empty files where the person's data was).
    await fsyncPaths(files.map((f) => f.merged), files.map((f) => dirname(f.merged)));
    const ops = planSwap(files, backup);
    const journal = journalPath(this.host.home);
    writeJournal(journal, ops);
    const undo = (pendingSettings?: readonly JournalSetting[]) => {
      const failed = undoOps(ops);
      keepUndone(journal, ops, failed, pendingSettings);
      if (failed.length) this.host.log.error('import rollback: could not restore every file; the journal is kept for the next start', { files: failed.slice(0, 20) });
    };
    try {
      for (let i = 0; i < ops.length; i++) {
        this.opts.beforeSwap?.(i, ops[i].live);
        applyOp(ops[i]);
        this.progress(job, { phase: 'apply', done: i + 1, total: ops.length }, onProgress);
      }
      // The renames themselves, before the commit point removes the journal.
      await fsyncPaths([], ops.flatMap((o) => [dirname(o.live), dirname(o.aside)]));
    } catch (e) {
      this.progress(job, { phase: 'rollback', done: 0, total: ops.length }, onProgress);
      undo();
      throw new TransferError('TRANSFER_APPLY_FAILED', `the import failed while applying and was undone: ${(e as Error).message}`, {}, e);
    }
    return undo;
  }

  /**
   * Appends the import to `<home>/imports.json` (what `history()` shows) and to the memory's change
   * history (K-3: every change is recorded with who made it — here `import`), one entry per part it
   * changed. Such an entry has no per-item state, so it is not undone there (memory control refuses).
   */
  private async record(job: Job): Promise<void> {
    const file = join(this.host.home, 'imports.json');
    const list = await this.history();
    const report = job.view.report!;
    list.unshift({ id: job.view.id, at: this.now(), manifest: job.view.manifest!, report });
    await writeFileAtomic(file, JSON.stringify(list.slice(0, 50), null, 1));
    try {
      for (const c of importChanges(job.view.id, report)) this.host.memory.control.record(c);
    } catch (e) {
      this.host.log.warn(`import ${job.view.id} could not be recorded in the memory history: ${(e as Error).message}`);
    }
  }

  async history(): Promise<{ id: string; at: number; file?: string; manifest: NonNullable<TransferJobView['manifest']>; report: TransferReport }[]> {
    try {
      const v = JSON.parse(readFileSync(join(this.host.home, 'imports.json'), 'utf8')) as unknown;
      return Array.isArray(v) ? (v as Awaited<ReturnType<TransferService['history']>>) : [];
    } catch {
      return [];
    }
  }

  async discard(id: string): Promise<void> {
    const j = this.get(id);
    if (this.busy === id) throw new TransferError('TRANSFER_BUSY', 'this job is running');
    if (j.exportPath && j.exportPath.startsWith(j.dir)) rmSync(j.exportPath, { force: true });
    this.drop(id);
  }
}

/** The memory-history kind of what an imported part holds. */
const PART_KIND: Partial<Record<TransferPart, ChangeKind>> = {
  graph: 'relation',
  library: 'memory',
  sessions: 'document',
  context: 'document',
  documents: 'document',
  archive: 'document',
  knowledge: 'knowledge',
};

/** One history entry per memory part an import added to or replaced in. */
export function importChanges(jobId: string, report: TransferReport): NewMemoryChange[] {
  const out: NewMemoryChange[] = [];
  for (const [part, plan] of Object.entries(report.parts) as [TransferPart, TransferReport['parts'][TransferPart]][]) {
    const kind = PART_KIND[part];
    if (!kind || !plan) continue;
    const changed = plan.added + plan.overwritten;
    if (changed === 0) continue;
    out.push({
      actor: 'import',
      tool: 'import',
      kind,
      target: `import:${jobId}:${part}`,
      subjects: [part],
      op: 'import',
      summary: `imported ${part}: ${plan.added} added, ${plan.overwritten} replaced (mode ${report.mode})`,
    });
  }
  return out;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
