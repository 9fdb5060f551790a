import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HomeAgentError, TransferError, type TransferJobView, type TransferProgress, type TransferProgressFn } from '../spec/index.js';
import type { StagedExport } from './staged-export.js';

/** One export or import: what its view says, and its work folder `<home>/.transfer/<id>/`. */
export interface TransferJob {
  view: TransferJobView;
  dir: string;
  archive?: string;
  staged?: StagedExport;
  openedWith?: string;
  exportPath?: string;
}

const MAX_JOBS = 20;

/**
 * The jobs of `host.transfer` (K-5) and which one is running: at most {@link MAX_JOBS} kept (the
 * oldest finished one goes first), one export or import at a time.
 */
export class TransferJobs {
  private readonly jobs = new Map<string, TransferJob>();
  /** The job that holds the service, if any. */
  busy: string | undefined;

  constructor(
    private readonly root: string,
    private readonly now: () => number,
  ) {}

  newJob(kind: 'export' | 'import'): TransferJob {
    if (this.jobs.size >= MAX_JOBS) {
      const oldest = [...this.jobs.values()].filter((j) => j.view.state !== 'running' && j.view.id !== this.busy).sort((a, b) => a.view.startedAt - b.view.startedAt)[0];
      if (oldest) this.drop(oldest.view.id);
    }
    const id = randomUUID();
    const dir = join(this.root, id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const job: TransferJob = { dir, view: { id, kind, state: 'running', progress: { phase: 'start', done: 0, total: 0 }, startedAt: this.now() } };
    this.jobs.set(id, job);
    return job;
  }

  drop(id: string): void {
    const j = this.jobs.get(id);
    if (!j) return;
    rmSync(j.dir, { recursive: true, force: true });
    this.jobs.delete(id);
  }

  get(id: string): TransferJob {
    const j = typeof id === 'string' ? this.jobs.get(id) : undefined;
    if (!j) throw new TransferError('TRANSFER_NOT_FOUND', `no export or import job ${String(id).slice(0, 60)}`);
    return j;
  }

  /** True while another job is running (one that has reported its outcome only cleans up). */
  busyRunning(): boolean {
    return this.busy !== undefined && this.jobs.get(this.busy)?.view.state === 'running';
  }

  claim(id: string): () => void {
    // A job that has reported its outcome only cleans up: it no longer blocks the next one.
    if (this.busy && this.busy !== id && this.jobs.get(this.busy)?.view.state === 'running') throw new TransferError('TRANSFER_BUSY', 'another export or import is running; try again when it has finished');
    this.busy = id;
    return () => {
      if (this.busy === id) this.busy = undefined;
    };
  }

  progress(job: TransferJob, p: TransferProgress, fn?: TransferProgressFn): void {
    job.view.progress = p;
    fn?.(p);
  }

  /** Marks the job failed with `e` as a coded error (`noSpace`: a full disk's) and throws it. */
  fail(job: TransferJob, e: unknown, noSpace: (e: unknown) => HomeAgentError, isDiskFull: (e: unknown) => boolean): never {
    const err = e instanceof HomeAgentError ? e : isDiskFull(e) ? noSpace(e) : new TransferError('TRANSFER_APPLY_FAILED', (e as Error).message, {}, e);
    job.view.state = 'failed';
    job.view.error = { code: err.code, message: err.message, details: err.details };
    throw err;
  }

  view(id: string): TransferJobView {
    return structuredClone(this.get(id).view);
  }

  clear(): void {
    this.jobs.clear();
  }
}
