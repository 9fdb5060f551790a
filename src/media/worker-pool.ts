import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { WorkerJobReply, WorkerJobRequest } from './worker-job.js';

/**
 * Why a job did not get its answer: not done within the time limit (`timeout`), the worker ran out
 * of heap (`out-of-memory`) or stopped otherwise (`crashed`), the caller's signal or `stop` gave it up
 * (`cancelled`), too many jobs were already waiting or it waited longer than the time limit (`busy`),
 * or the worker's code threw (`failed`, with the error's name and message).
 */
export type WorkerJobFailure = 'timeout' | 'out-of-memory' | 'crashed' | 'cancelled' | 'busy' | 'failed';

/** What a failure is known by, for the reader to word its own coded error. */
export interface WorkerJobFailureInfo {
  timeoutMs?: number;
  heapMb?: number;
  exitCode?: number;
  /** `busy`: jobs waiting when it was refused, or how long it waited (`waitedMs`). */
  waiting?: number;
  waitedMs?: number;
  /** `failed`: the worker's error. */
  name?: string;
  message?: string;
  cause?: unknown;
}

export interface WorkerPoolOptions<E extends Error> {
  /** The worker module, beside this file: `readable-html-worker` is `.ts` under tsx, `.js` in dist/. */
  module: string;
  /** Time limit of one job in ms, counted from when a started worker is handed it; asked at every job. */
  timeoutMs: () => number;
  /** Jobs run at once, each in a worker of its own. Default 2. */
  maxWorkers?: number;
  /** Jobs that may wait for a worker; one more is refused at once (`busy`). Default 8. */
  maxWaiting?: number;
  /** A worker with no job for this long is ended. Default 30 s. */
  idleMs?: number;
  resourceLimits: ResourceLimits;
  /** The reader's coded error for a failure. */
  error(reason: WorkerJobFailure, info: WorkerJobFailureInfo): E;
}

/** Loading a worker's libraries: not a job's time, but not unbounded either. */
const START_LIMIT_MS = 60_000;

// The worker's entry is plain JavaScript and runs the same under tsx and from dist/. It imports the
// worker module: under tsx that is TypeScript, which a worker thread loads only once tsx's hooks
// are registered in it — tsx is a dev dependency, and dist/ never asks for it.
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.script);
})().catch((e) => setImmediate(() => { throw e; }));
`;

/** Where a worker module is: beside this file, `.ts` under tsx (tests), `.js` in dist/. */
function workerEntry(module: string): { script: string; tsx?: string } {
  const ts = import.meta.url.endsWith('.ts');
  return { script: new URL(`./${module}.${ts ? 'ts' : 'js'}`, import.meta.url).href, ...(ts ? { tsx: import.meta.resolve('tsx/esm/api') } : {}) };
}

interface Job<Req, Res, E> {
  id: number;
  request: Req;
  transfer: ArrayBuffer[];
  signal?: AbortSignal;
  onAbort?: () => void;
  slot?: Slot<Req, Res, E>;
  /** While it waits for a worker: its waiting limit. */
  waitTimer?: NodeJS.Timeout;
  settled?: boolean;
  resolve(result: Res): void;
  reject(e: E): void;
}

interface Slot<Req, Res, E> {
  worker: Worker;
  ready: boolean;
  job?: Job<Req, Res, E>;
  /** The start limit, then the job's time limit, or the idle time. */
  timer?: NodeJS.Timeout;
  ended?: Promise<number>;
}

/**
 * Worker threads that run one kind of job off the main thread, each job within a time limit — the
 * shared part of the HTML and PDF readers (decisions 0580, 0630). Up to `maxWorkers` workers, each
 * with its own heap, one job per worker at a time; up to `maxWaiting` more jobs wait their turn, at
 * most one time limit each, and more are refused. A job not done in time, a worker that runs out
 * of memory or stops, and a caller's signal end that worker (the next job gets a fresh one); the
 * call rejects with the reader's coded error. Workers stay warm between jobs for `idleMs` and never
 * keep a process alive while idle. Workers start on the first job; {@link WorkerPool.stop} ends them.
 */
export class WorkerPool<Req, Res, E extends Error> {
  private readonly slots = new Set<Slot<Req, Res, E>>();
  private readonly queue: Job<Req, Res, E>[] = [];
  private nextId = 1;
  private entry?: { script: string; tsx?: string };

  constructor(private readonly opts: WorkerPoolOptions<E>) {}

  /** Runs `request` in a worker; `transfer` (the request's own buffers) moves to it. */
  run(request: Req, transfer: ArrayBuffer[], signal?: AbortSignal): Promise<Res> {
    if (signal?.aborted) return Promise.reject(this.opts.error('cancelled', {}));
    const maxWaiting = this.opts.maxWaiting ?? 8;
    const free = [...this.slots].some((s) => !s.job) || this.slots.size < this.maxWorkers();
    if (!free && this.queue.length >= maxWaiting) return Promise.reject(this.opts.error('busy', { waiting: this.queue.length }));
    return new Promise<Res>((resolve, reject) => {
      const job: Job<Req, Res, E> = { id: this.nextId++, request, transfer, signal, resolve, reject };
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      // Its wait counts too: a job that waits longer than one time limit is given up, so a read
      // ends within two limits (and a worker's start) however busy the readers are.
      const waitMs = this.timeoutMs();
      job.waitTimer = setTimeout(() => this.giveUpWaiting(job, waitMs), waitMs);
      this.queue.push(job);
      this.pump();
    });
  }

  /** Ends every worker; jobs being run or waiting are rejected (`cancelled`). Safe to call twice; a later job starts a worker again. */
  async stop(): Promise<void> {
    for (const job of this.queue.splice(0)) this.settle(job, this.opts.error('cancelled', { message: 'the reader was stopped' }));
    await Promise.all([...this.slots].map((slot) => this.end(slot, this.opts.error('cancelled', { message: 'the reader was stopped' }))));
  }

  private maxWorkers(): number {
    return Math.max(1, this.opts.maxWorkers ?? 2);
  }

  private timeoutMs(): number {
    const t = this.opts.timeoutMs();
    return Number.isFinite(t) && t > 0 ? t : 15_000;
  }

  /** Hands waiting jobs to free workers, starting workers up to `maxWorkers`. */
  private pump(): void {
    while (this.queue.length) {
      let slot = [...this.slots].find((s) => !s.job);
      if (!slot) {
        if (this.slots.size >= this.maxWorkers()) return;
        slot = this.spawn();
      }
      const job = this.queue.shift()!;
      clearTimeout(job.waitTimer);
      job.waitTimer = undefined;
      if (slot.ready) {
        // Its idle time (a starting worker's timer is the start limit, which stands).
        clearTimeout(slot.timer);
        slot.timer = undefined;
      }
      slot.job = job;
      job.slot = slot;
      // Busy, the worker keeps the process alive (a waiter command waits for its file).
      slot.worker.ref();
      if (slot.ready) this.post(slot);
    }
  }

  private spawn(): Slot<Req, Res, E> {
    this.entry ??= workerEntry(this.opts.module);
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: this.entry,
      resourceLimits: this.opts.resourceLimits,
      // Its console is the process's: a piped stdout being read would keep an idle worker's process alive.
    });
    const slot: Slot<Req, Res, E> = { worker, ready: false };
    this.slots.add(slot);
    slot.timer = setTimeout(() => void this.end(slot, this.opts.error('crashed', { message: `the reader did not start within ${START_LIMIT_MS / 1000} s` })), START_LIMIT_MS);
    worker.on('message', (m: WorkerJobReply<Res>) => this.onReply(slot, m));
    worker.once('error', (e: Error & { code?: string }) => {
      const heapMb = this.opts.resourceLimits.maxOldGenerationSizeMb;
      void this.end(slot, e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? this.opts.error('out-of-memory', { heapMb, cause: e }) : this.opts.error('crashed', { message: e.message, cause: e }));
    });
    worker.once('exit', (code) => void this.end(slot, this.opts.error('crashed', { exitCode: code, message: `the reader stopped (exit code ${code})` })));
    return slot;
  }

  /** Sends the slot's job to its worker and starts the job's time limit. */
  private post(slot: Slot<Req, Res, E>): void {
    const job = slot.job!;
    const timeoutMs = this.timeoutMs();
    slot.timer = setTimeout(() => void this.end(slot, this.opts.error('timeout', { timeoutMs })), timeoutMs);
    slot.worker.postMessage({ id: job.id, request: job.request } satisfies WorkerJobRequest<Req>, job.transfer);
  }

  private onReply(slot: Slot<Req, Res, E>, m: WorkerJobReply<Res>): void {
    if (!this.slots.has(slot)) return;
    if ('ready' in m) {
      slot.ready = true;
      clearTimeout(slot.timer);
      slot.timer = undefined;
      if (slot.job) this.post(slot);
      else this.idle(slot);
      return;
    }
    const job = slot.job;
    if (!job || job.id !== m.id) return;
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    this.settle(job, m.ok ? { result: m.result } : this.opts.error('failed', { name: m.name, message: m.message }));
    this.idle(slot);
    this.pump();
  }

  /** A worker without a job: it no longer keeps the process alive, and is ended after `idleMs`. */
  private idle(slot: Slot<Req, Res, E>): void {
    slot.worker.unref();
    slot.timer = setTimeout(() => void this.end(slot), this.opts.idleMs ?? 30_000);
    slot.timer.unref();
  }

  /** Ends a worker; its job, if any, rejects with `error`. Waiting jobs go on in other workers. */
  private end(slot: Slot<Req, Res, E>, error?: E): Promise<number> {
    if (!this.slots.delete(slot)) return slot.ended ?? Promise.resolve(0);
    clearTimeout(slot.timer);
    slot.ended = slot.worker.terminate();
    const job = slot.job;
    slot.job = undefined;
    if (job) this.settle(job, error ?? this.opts.error('cancelled', {}));
    this.pump();
    return slot.ended;
  }

  private giveUpWaiting(job: Job<Req, Res, E>, waitedMs: number): void {
    const i = this.queue.indexOf(job);
    if (i < 0) return;
    this.queue.splice(i, 1);
    this.settle(job, this.opts.error('busy', { waitedMs }));
  }

  private cancel(job: Job<Req, Res, E>): void {
    if (job.settled) return;
    if (job.slot?.job === job) return void this.end(job.slot, this.opts.error('cancelled', {}));
    const i = this.queue.indexOf(job);
    if (i >= 0) this.queue.splice(i, 1);
    this.settle(job, this.opts.error('cancelled', {}));
  }

  private settle(job: Job<Req, Res, E>, outcome: { result: Res } | E): void {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.waitTimer);
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if (outcome instanceof Error) job.reject(outcome);
    else job.resolve(outcome.result);
  }
}
