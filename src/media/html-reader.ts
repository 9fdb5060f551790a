import type { ResourceLimits } from 'node:worker_threads';
import { MAX_READABLE_HTML_BYTES, type MediaService, type ReadableHtml, type ReadableHtmlOptions } from '../spec/index.js';
import { HtmlReadError } from './html-read-error.js';
import type { HtmlReadRequest } from './readable-html-worker.js';
import { WorkerPool, type WorkerJobFailure, type WorkerJobFailureInfo } from './worker-pool.js';
import { readerFailureWords, type ReaderNouns } from './reader-failure.js';

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
  /** Pages that may wait for a worker, each at most the time limit; one more is refused (`busy`). Default 8. */
  maxWaiting?: number;
  /** A worker with no page for this long is ended (a warm one holds Readability and linkedom). Default 30 s. */
  idleMs?: number;
  /** Each worker's heap. Default 512 MiB old generation, 32 MiB young (a page's DOM takes ~100× its bytes). */
  resourceLimits?: ResourceLimits;
}

const DEFAULT_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32 };

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/**
 * The HTML reader off the main thread: {@link readableHtml} of `readable-html.ts` run in worker
 * threads ({@link WorkerPool}) with their own heap ({@link HtmlReaderOptions.resourceLimits}), one
 * page per worker at a time, each page within a time limit. A page that is not read in time, a
 * worker that runs out of memory or stops, and a caller's `signal` end that worker (the next page
 * gets a fresh one); the call rejects with an {@link HtmlReadError}. Input over
 * {@link MAX_READABLE_HTML_BYTES} is refused before a worker sees it, and so is a page when
 * `maxWaiting` pages already wait (`busy`); a page that waits longer than the time limit is given
 * up (`busy`). Workers stay warm between pages for `idleMs` and never keep a process alive while
 * idle. Workers start on the first page; {@link HtmlReader.stop} ends them.
 *
 * @example
 * const reader = new HtmlReader({ timeoutMs: () => config.get<number>('core.media.html_timeout_ms') });
 * const page = await reader.readableHtml(body, { baseUrl: url, signal });
 */
export class HtmlReader implements MediaService {
  private readonly pool: WorkerPool<HtmlReadRequest, ReadableHtml, HtmlReadError>;

  constructor(opts: HtmlReaderOptions = {}) {
    const limits = opts.resourceLimits ?? DEFAULT_LIMITS;
    this.pool = new WorkerPool({
      module: 'readable-html-worker',
      timeoutMs: () => {
        const t = typeof opts.timeoutMs === 'function' ? opts.timeoutMs() : opts.timeoutMs;
        return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : DEFAULT_HTML_TIMEOUT_MS;
      },
      maxWorkers: opts.maxWorkers,
      maxWaiting: opts.maxWaiting,
      idleMs: opts.idleMs,
      resourceLimits: limits,
      error: htmlReadError,
    });
  }

  /** {@link MediaService.readableHtml}, in a worker, within the time limit (a bound function: it may be handed around). */
  readonly readableHtml = (bytes: Uint8Array, options: ReadableHtmlOptions = {}): Promise<ReadableHtml> => {
    const { signal, ...rest } = options;
    if (signal?.aborted) return Promise.reject(htmlReadError('cancelled', {}));
    if (bytes.length > MAX_READABLE_HTML_BYTES) {
      return Promise.reject(new HtmlReadError('too-large', `the page is ${mb(bytes.length)}; the HTML reader reads at most ${MAX_READABLE_HTML_BYTES / 1_048_576} MB`, { bytes: bytes.length, limitBytes: MAX_READABLE_HTML_BYTES }));
    }
    // A copy of its own, whose buffer moves to the worker: the caller's bytes stay theirs.
    const copy = new Uint8Array(bytes);
    return this.pool.run({ bytes: copy, options: rest }, [copy.buffer], signal);
  };

  /** Ends every worker; pages being read or waiting are rejected (`cancelled`). Safe to call twice; a later page starts a worker again. */
  stop(): Promise<void> {
    return this.pool.stop();
  }
}

/** A failure of the pool in the HTML reader's words. */
const NOUNS: ReaderNouns = { reader: 'HTML reader', item: 'page', items: 'pages' };

function htmlReadError(reason: WorkerJobFailure, info: WorkerJobFailureInfo): HtmlReadError {
  const w = readerFailureWords(reason, info, NOUNS);
  if (w) return new HtmlReadError(w.reason, w.message, w.details, w.cause);
  return new HtmlReadError('failed', `the page could not be read: ${info.message}`);
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
