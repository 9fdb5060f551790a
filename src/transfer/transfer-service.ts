import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { HomeAgentError, importNote, TransferError, TRANSFER_MODES, type ImportOptions, type TransferJobView, type TransferProgressFn, type TransferReport, type TransferService } from '../spec/index.js';
import { fsyncPaths } from '../fs/index.js';
import { summarise } from './manifest.js';
import { DEFAULT_UNPACK_LIMITS, isDiskFull, unpackExport, type UnpackLimits } from './zip-unpack.js';
import { decryptFile } from './age-file.js';
import { StagedExport } from './staged-export.js';
import { archiveTurnFloors, mergeImport, type SwapFile } from './import-merge.js';
import type { TransferHost } from './transfer-host.js';
import { applyOp, commitJournal, committedImport, journalPath, journalSettings, keepUndone, planSwap, undoOps, writeJournal, type JournalSetting } from './swap-journal.js';
import { DiskSpace } from './disk-space.js';
import { isFolder, runExport, type ExportContext } from './export-run.js';
import { ImportCommit } from './import-commit.js';
import { receiveArchive } from './import-receive.js';
import { importHistory, recordImport } from './import-record.js';
import { TransferJobs, type TransferJob } from './transfer-jobs.js';

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
  private readonly jobs: TransferJobs;
  private readonly space: DiskSpace;
  private readonly commits: ImportCommit;
  private readonly root: string;
  private readonly limits: UnpackLimits & { maxArchiveBytes: number; uploadIdleMs: number };

  constructor(
    private readonly host: TransferHost,
    private readonly opts: TransferServiceOptions = {},
  ) {
    this.root = join(host.home, '.transfer');
    this.limits = { ...DEFAULT_UNPACK_LIMITS, maxArchiveBytes: 64 * 1024 ** 3, uploadIdleMs: 120_000, ...opts.limits };
    this.jobs = new TransferJobs(this.root, () => this.now());
    this.space = new DiskSpace(host.home, this.limits.keepFreeBytes, opts.freeBytes);
    this.commits = new ImportCommit(host);
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

  private fail(job: TransferJob, e: unknown): never {
    return this.jobs.fail(job, e, (x) => this.space.noSpace(x), isDiskFull);
  }

  job(id: string): TransferJobView {
    return this.jobs.view(id);
  }

  // ---------------------------------------------------------------- export

  async exportTo(opts: { file?: string; passphrase?: string }, onProgress?: TransferProgressFn): Promise<TransferJobView> {
    if (opts.file !== undefined && (typeof opts.file !== 'string' || !isAbsolute(opts.file))) throw new TransferError('TRANSFER_BAD_REQUEST', 'the export file must be an absolute path');
    if (opts.passphrase !== undefined && (typeof opts.passphrase !== 'string' || opts.passphrase.length === 0)) throw new TransferError('TRANSFER_BAD_REQUEST', 'the passphrase must not be empty');
    // Never replaces a file: an export is not a way to overwrite something by mistake.
    if (opts.file !== undefined && existsSync(opts.file)) throw new TransferError('TRANSFER_BAD_REQUEST', `${basename(opts.file)} already exists; choose another name`);
    // Nor a way to make folders by a typo in the path: the folder must be there.
    if (opts.file !== undefined && !isFolder(dirname(opts.file))) throw new TransferError('TRANSFER_BAD_REQUEST', `there is no folder ${dirname(opts.file)}: create it first, or export to a folder that exists`);
    const job = this.jobs.newJob('export');
    const release = this.jobs.claim(job.view.id);
    try {
      await runExport(this.exportContext(), job, opts, onProgress);
      return this.job(job.view.id);
    } catch (e) {
      this.fail(job, e);
    } finally {
      release();
    }
  }

  startExport(opts: { passphrase?: string }): TransferJobView {
    if (this.jobs.busyRunning()) throw new TransferError('TRANSFER_BUSY', 'another export or import is running; try again when it has finished');
    if (opts.passphrase !== undefined && (typeof opts.passphrase !== 'string' || opts.passphrase.length === 0)) throw new TransferError('TRANSFER_BAD_REQUEST', 'the passphrase must not be empty');
    const job = this.jobs.newJob('export');
    const release = this.jobs.claim(job.view.id);
    void runExport(this.exportContext(), job, opts)
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

  private exportContext(): ExportContext {
    return { host: this.host, jobs: this.jobs, now: () => this.now(), scryptLogN: this.opts.scryptLogN };
  }

  exportFile(id: string): { path: string; name: string; bytes: number } {
    const j = this.jobs.get(id);
    if (j.view.kind !== 'export' || j.view.state !== 'done' || !j.exportPath || !j.view.file) throw new TransferError('TRANSFER_NOT_FOUND', 'this export is not finished');
    return { path: j.exportPath, name: j.view.file.name, bytes: j.view.file.bytes };
  }

  // ---------------------------------------------------------------- import

  /** Receives an archive into a new job's folder: see {@link receiveArchive}. */
  async stageImport(source: { file: string } | { stream: AsyncIterable<Uint8Array>; bytes?: number }): Promise<TransferJobView> {
    return receiveArchive({ host: this.host, jobs: this.jobs, space: this.space, limits: this.limits }, source);
  }

  /** Decrypts, unpacks and verifies a staged archive (once per passphrase). */
  private async open(job: TransferJob, opts: ImportOptions, onProgress?: TransferProgressFn): Promise<StagedExport> {
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
      this.space.check(size, 0);
      let done = 0;
      await decryptFile(job.archive, zip, opts.passphrase, { onBytes: (n) => this.jobs.progress(job, { phase: 'decrypt', done: (done += n), total: size }, onProgress) });
    }
    let done = 0;
    const manifest = await unpackExport(zip, join(job.dir, 'unpacked'), this.limits, (n, total) => this.jobs.progress(job, { phase: 'verify', done: (done += n), total }, onProgress));
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
    const job = this.jobs.get(id);
    if (job.view.state !== 'staged') throw new TransferError('TRANSFER_NOT_FOUND', 'this import is not waiting to be applied');
    const release = this.jobs.claim(id);
    const scratch = join(job.dir, 'dry-run');
    job.view.state = 'running';
    try {
      const staged = await this.open(job, opts);
      this.jobs.progress(job, { phase: 'plan', done: 0, total: 1 });
      const r = await mergeImport({ staged, live: this.live(), mergedHome: scratch, mode: opts.mode, ledger: this.commits.ledger(), memory: this.host.memory, config: this.host.config, privilegedSettings: opts.privilegedSettings === true, approveInjected: opts.approveInjected === true, replacedHere: this.replacedHere() });
      // The archive's forgets reach what is here too (see applyTombstones): the preview says how much.
      const here = r.tombstones.length ? await this.commits.ledger().previewExisting?.(r.tombstones.map((t) => t.ref)) : undefined;
      if (here && here.turns + here.facts + here.documents > 0) r.report.notes.push(importNote.wouldForgetHere(here));
      job.view.report = r.report;
      this.jobs.progress(job, { phase: 'staged', done: 1, total: 1 });
      // The view returned says what the job is once this returns: staged again, waiting to be
      // applied (it said `running`, so the WebUI took a checked archive for a new upload).
      job.view.state = 'staged';
      return this.job(id);
    } catch (e) {
      const err = e instanceof HomeAgentError ? e : isDiskFull(e) ? this.space.noSpace(e) : new TransferError('TRANSFER_CORRUPT', (e as Error).message, {}, e);
      job.view.error = { code: err.code, message: err.message, details: err.details };
      throw err;
    } finally {
      job.view.state = 'staged';
      rmSync(scratch, { recursive: true, force: true });
      release();
    }
  }

  /** The turns replaced here (decision 0620), which an import's replacements of the same turn leave as they are. */
  private replacedHere(): Set<string> {
    return new Set((this.host.replacements?.()?.list() ?? []).map((r) => r.turnId));
  }

  async applyImport(id: string, options: ImportOptions, onProgress?: TransferProgressFn): Promise<TransferJobView> {
    const opts = this.checkOptions(options);
    const job = this.jobs.get(id);
    if (job.view.state !== 'staged' && !(job.view.state === 'running' && this.jobs.busy === id)) throw new TransferError('TRANSFER_NOT_FOUND', 'this import is not waiting to be applied');
    const release = this.jobs.claim(id);
    job.view.state = 'running';
    job.view.error = undefined;
    try {
      const staged = await this.open(job, opts, onProgress);
      job.view.report = await this.apply(job, staged, opts, onProgress);
      job.view.state = 'done';
      this.jobs.progress(job, { phase: 'done', done: 1, total: 1 }, onProgress);
      await recordImport(this.host, job, this.now());
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
    const job = this.jobs.get(id);
    if (job.view.state !== 'staged') throw new TransferError('TRANSFER_NOT_FOUND', 'this import is not waiting to be applied');
    if (this.jobs.busyRunning()) throw new TransferError('TRANSFER_BUSY', 'another export or import is running; try again when it has finished');
    job.view.state = 'running';
    this.jobs.busy = id;
    void this.applyImport(id, opts).catch((e: unknown) => this.host.log.warn(`import failed: ${(e as Error).message}`, { code: (e as HomeAgentError).code }));
    return this.job(id);
  }

  /**
   * Applies a verified import: agent and memory loops held, tiers closed; merged into copies;
   * the copies swapped in (each original kept aside until the end); session logs re-read; settings
   * set; then the commit point; then the tombstones it brings recorded and applied to what is here.
   * Any failure before the commit point puts every original back, and leaves no tombstone of it.
   */
  private async apply(job: TransferJob, staged: StagedExport, opts: ImportOptions, onProgress?: TransferProgressFn): Promise<TransferReport> {
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
        this.jobs.progress(job, { phase: 'plan', done: 0, total: 1 }, onProgress);
        // The session logs are read for the merge and swapped in under the store's write gate
        // (decision 0380): an input that comes meanwhile waits to be written (its 202 with it) and
        // lands in the log that is there once the import is in — or undone — never in one it replaces.
        const openWrites = await this.host.sessions.holdWrites(archiveTurnFloors(staged));
        try {
          const ledger = this.commits.ledger();
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
          recorded = await this.commits.recordCommitted(r.report);
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
    return this.commits.finishCommitted(report, recorded);
  }

  /**
   * Renames each merged file over its live path, keeping the original aside, with a journal
   * written first (a kill in the middle is undone at the next start, see
   * `recoverInterruptedImport`); returns the undo. A failure part-way undoes what was swapped and
   * throws TRANSFER_APPLY_FAILED.
   */
  private async swap(job: TransferJob, files: readonly SwapFile[], backup: string, onProgress?: TransferProgressFn): Promise<(pendingSettings?: readonly JournalSetting[]) => void> {
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
        this.jobs.progress(job, { phase: 'apply', done: i + 1, total: ops.length }, onProgress);
      }
      // The renames themselves, before the commit point removes the journal.
      await fsyncPaths([], ops.flatMap((o) => [dirname(o.live), dirname(o.aside)]));
    } catch (e) {
      this.jobs.progress(job, { phase: 'rollback', done: 0, total: ops.length }, onProgress);
      undo();
      throw new TransferError('TRANSFER_APPLY_FAILED', `the import failed while applying and was undone: ${(e as Error).message}`, {}, e);
    }
    return undo;
  }

  async history(): Promise<Awaited<ReturnType<TransferService['history']>>> {
    return importHistory(this.host.home);
  }

  async discard(id: string): Promise<void> {
    const j = this.jobs.get(id);
    if (this.jobs.busy === id) throw new TransferError('TRANSFER_BUSY', 'this job is running');
    if (j.exportPath && j.exportPath.startsWith(j.dir)) rmSync(j.exportPath, { force: true });
    this.jobs.drop(id);
  }
}
