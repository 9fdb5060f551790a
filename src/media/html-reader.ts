import { Worker, type ResourceLimits } from 'node:worker_threads';
import { MAX_READABLE_HTML_BYTES, type MediaService, type ReadableHtml, type ReadableHtmlOptions } from '../spec/index.js';
import { HtmlReadError } from './html-read-error.js';
import type { HtmlReadReply, HtmlReadRequest } from './readable-html-worker.js';

/** Time limit of one page when the reader is given none: `core.media.html_timeout_ms`'s default. */
export const DEFAULT_HTML_TIMEOUT_MS = 15_000;

export interface HtmlReaderOptions {
  /**
   * Time limit of one page in ms, counted from when a started worker is handed it; a function is
   * asked at every page (a setting that may change). Default {@link DEFAULT_HTML_TIMEOUT_MS}.
   */
  timeoutMs?: number | (() => number);
  /** Pages read at once, each in a worker of its own; more wait their turn. Default 2. */
  maxWorkers?: number;
  /** A worker with no page for this long is ended (a warm one holds Readability and linkedom). Default 30 s. */
  idleMs?: number;
  /** Each worker's heap. Default 512 MiB old generation, 32 MiB young (a page's DOM takes ~100× its bytes). */
  resourceLimits?: ResourceLimits;
}

const DEFAULT_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32 };
/** Loading Readability and linkedom into a new worker: not the page's time, but not unbounded either. */
const START_LIMIT_MS = 60_000;

// The worker's entry is plain JavaScript, as the PDF reader's is, and runs the same under tsx and
// from dist/. It imports the worker module (readable-html-worker): under tsx that is TypeScript,
// which a worker thread loads only once tsx's hooks are registered in it — tsx is a dev
// dependency, and dist/ never asks for it.
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.script);
})().catch((e) => setImmediate(() => { throw e; }));
`;

let entry: { script: string; tsx?: string } | undefined;
/** Where the worker module is: beside this file, `.ts` under tsx (tests), `.js` in dist/. */
function workerEntry(): { script: string; tsx?: string } {
  if (entry) return entry;
  const ts = import.meta.url.endsWith('.ts');
  entry = { script: new URL(`./readable-html-worker.${ts ? 'ts' : 'js'}`, import.meta.url).href, ...(ts ? { tsx: import.meta.resolve('tsx/esm/api') } : {}) };
  return entry;
}

interface Job {
  id: number;
  /** The reader's own copy, transferred to the worker. */
  bytes: Uint8Array<ArrayBuffer>;
  options: HtmlReadRequest['options'];
  signal?: AbortSignal;
  onAbort?: () => void;
  slot?: Slot;
  settled?: boolean;
  resolve(page: ReadableHtml): void;
  reject(e: HtmlReadError): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
  /** The start limit, then the page's time limit, or the idle time. */
  timer?: NodeJS.Timeout;
  ended?: Promise<number>;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/**
 * The HTML reader off the main thread: {@link readableHtml} of `readable-html.ts` run in worker
 * threads with their own heap ({@link HtmlReaderOptions.resourceLimits}), one page per worker at a
 * time, each page within a time limit. A page that is not read in time, a worker that runs out of
 * memory or stops, and a caller's `signal` end that worker (the next page gets a fresh one); the
 * call rejects with an {@link HtmlReadError}. Input over {@link MAX_READABLE_HTML_BYTES} is refused
 * before a worker sees it. Workers stay warm between pages for `idleMs` and never keep a process
 * alive while idle. Workers start on the first page; {@link HtmlReader.stop} ends them.
 *
 * @example
 * const reader = new HtmlReader({ timeoutMs: () => config.get<number>('core.media.html_timeout_ms') });
 * const page = await reader.readableHtml(body, { baseUrl: url, signal });
 */
export class HtmlReader implements MediaService {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(private readonly opts: HtmlReaderOptions = {}) {}

  /** {@link MediaService.readableHtml}, in a worker, within the time limit (a bound function: it may be handed around). */
  readonly readableHtml = (bytes: Uint8Array, options: ReadableHtmlOptions = {}): Promise<ReadableHtml> => {
    const { signal, ...rest } = options;
    if (signal?.aborted) return Promise.reject(cancelled());
    if (bytes.length > MAX_READABLE_HTML_BYTES) {
      return Promise.reject(new HtmlReadError('too-large', `the page is ${mb(bytes.length)}; the HTML reader reads at most ${MAX_READABLE_HTML_BYTES / 1_048_576} MB`, { bytes: bytes.length, limitBytes: MAX_READABLE_HTML_BYTES }));
    }
    return new Promise<ReadableHtml>((resolve, reject) => {
      // A copy of its own, whose buffer moves to the worker: the caller's bytes stay theirs.
      const job: Job = { id: this.nextId++, bytes: new Uint8Array(bytes), options: rest, signal, resolve, reject };
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  };

  /** Ends every worker; pages being read or waiting are rejected (`cancelled`). Safe to call twice; a later page starts a worker again. */
  async stop(): Promise<void> {
    const stopped = () => new HtmlReadError('cancelled', 'the HTML reader was stopped before the page was read');
    for (const job of this.queue.splice(0)) this.settle(job, stopped());
    await Promise.all([...this.slots].map((slot) => this.end(slot, stopped())));
  }

  private timeoutMs(): number {
    const t = typeof this.opts.timeoutMs === 'function' ? this.opts.timeoutMs() : this.opts.timeoutMs;
    return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : DEFAULT_HTML_TIMEOUT_MS;
  }

  /** Hands waiting pages to free workers, starting workers up to `maxWorkers`. */
  private pump(): void {
    while (this.queue.length) {
      let slot = [...this.slots].find((s) => !s.job);
      if (!slot) {
        if (this.slots.size >= Math.max(1, this.opts.maxWorkers ?? 2)) return;
        slot = this.spawn();
      }
      const job = this.queue.shift()!;
      if (slot.ready) {
        // Its idle time (a starting worker's timer is the start limit, which stands).
        clearTimeout(slot.timer);
        slot.timer = undefined;
      }
      slot.job = job;
      job.slot = slot;
      // Busy, the worker keeps the process alive (a waiter command waits for its page).
      slot.worker.ref();
      if (slot.ready) this.post(slot);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: workerEntry(),
      resourceLimits: this.opts.resourceLimits ?? DEFAULT_LIMITS,
      // Its console is the process's, as when the reader ran on the main thread (it prints nothing):
      // a piped stdout being read would keep an idle worker's process alive.
    });
    const slot: Slot = { worker, ready: false };
    this.slots.add(slot);
    slot.timer = setTimeout(() => void this.end(slot, new HtmlReadError('crashed', `the HTML reader did not start within ${seconds(START_LIMIT_MS)}`)), START_LIMIT_MS);
    worker.on('message', (m: HtmlReadReply) => this.onReply(slot, m));
    worker.once('error', (e: Error & { code?: string }) => {
      const heap = (this.opts.resourceLimits ?? DEFAULT_LIMITS).maxOldGenerationSizeMb;
      void this.end(
        slot,
        e.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new HtmlReadError('out-of-memory', `the page needs more memory than the HTML reader has (${heap} MB); the reader was stopped`, { heapMb: heap }, e)
          : new HtmlReadError('crashed', `the HTML reader failed: ${e.message}`, {}, e),
      );
    });
    worker.once('exit', (code) => void this.end(slot, new HtmlReadError('crashed', `the HTML reader stopped (exit code ${code})`, { exitCode: code })));
    return slot;
  }

  /** Sends the slot's page to its worker and starts the page's time limit. */
  private post(slot: Slot): void {
    const job = slot.job!;
    const timeoutMs = this.timeoutMs();
    slot.timer = setTimeout(() => void this.end(slot, new HtmlReadError('timeout', `reading the page took longer than ${seconds(timeoutMs)}; the reader was stopped`, { timeoutMs })), timeoutMs);
    slot.worker.postMessage({ id: job.id, bytes: job.bytes, options: job.options } satisfies HtmlReadRequest, [job.bytes.buffer]);
  }

  private onReply(slot: Slot, m: HtmlReadReply): void {
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
    this.settle(job, m.ok ? m.page : new HtmlReadError('failed', `the page could not be read: ${m.message}`));
    this.idle(slot);
    this.pump();
  }

  /** A worker without a page: it no longer keeps the process alive, and is ended after `idleMs`. */
  private idle(slot: Slot): void {
    slot.worker.unref();
    slot.timer = setTimeout(() => void this.end(slot), this.opts.idleMs ?? 30_000);
    slot.timer.unref();
  }

  /** Ends a worker; its page, if any, rejects with `error`. Waiting pages go on in other workers. */
  private end(slot: Slot, error?: HtmlReadError): Promise<number> {
    if (!this.slots.delete(slot)) return slot.ended ?? Promise.resolve(0);
    clearTimeout(slot.timer);
    slot.ended = slot.worker.terminate();
    const job = slot.job;
    slot.job = undefined;
    if (job) this.settle(job, error ?? cancelled());
    this.pump();
    return slot.ended;
  }

  private cancel(job: Job): void {
    if (job.settled) return;
    if (job.slot?.job === job) return void this.end(job.slot, cancelled());
    const i = this.queue.indexOf(job);
    if (i >= 0) this.queue.splice(i, 1);
    this.settle(job, cancelled());
  }

  private settle(job: Job, outcome: ReadableHtml | HtmlReadError): void {
    if (job.settled) return;
    job.settled = true;
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    if (outcome instanceof HtmlReadError) job.reject(outcome);
    else job.resolve(outcome);
  }
}

function cancelled(): HtmlReadError {
  return new HtmlReadError('cancelled', 'reading the page was cancelled');
}

let shared: HtmlReader | undefined;

/**
 * {@link MediaService.readableHtml} through one reader shared by this process, with the default time
 * limit ({@link DEFAULT_HTML_TIMEOUT_MS}): what `src/media`'s callers use unless they are handed a
 * reader of their own (the daemon's follows `core.media.html_timeout_ms`). The reading itself is
 * `readable-html.ts`'s function of the same name, which runs on the calling thread.
 */
export function readableHtml(bytes: Uint8Array, options?: ReadableHtmlOptions): Promise<ReadableHtml> {
  shared ??= new HtmlReader();
  return shared.readableHtml(bytes, options);
}
