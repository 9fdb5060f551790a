import type { ResourceLimits } from 'node:worker_threads';
import { PdfReadError } from './pdf-read-error.js';
import type { PdfText, PdfTextRequest } from './pdf-text-worker.js';
import { WorkerPool, type WorkerJobFailure, type WorkerJobFailureInfo } from './worker-pool.js';
import { readerFailureWords, type ReaderNouns } from './reader-failure.js';

/** Time limit of one PDF when the reader is given none: `core.media.pdf_timeout_ms`'s default. */
export const DEFAULT_PDF_TIMEOUT_MS = 60_000;

export interface PdfReaderOptions {
  /** Time limit of one PDF in ms, counted from when a started worker is handed it; a function is asked at every PDF. Default {@link DEFAULT_PDF_TIMEOUT_MS}. */
  timeoutMs?: number | (() => number);
  /** PDFs read at once, each in a worker of its own. Default 2. */
  maxWorkers?: number;
  /** PDFs that may wait for a worker, each at most the time limit; one more is refused (`busy`). Default 8. */
  maxWaiting?: number;
  /** A worker with no PDF for this long is ended. Default 30 s. */
  idleMs?: number;
  /** Each worker's heap. Default 256 MiB old generation, 32 MiB young. */
  resourceLimits?: ResourceLimits;
}

export interface PdfTextOptions {
  /** Pages read at most (the rest are reported, not read). Default 200. */
  maxPages?: number;
  /** Stop reading pages once this many characters are in. Default 200,000. */
  maxChars?: number;
  /** Gives the read up: its worker is ended and the call rejects with reason `cancelled`. */
  signal?: AbortSignal;
}

const DEFAULT_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 };

/**
 * The PDF reader off the main thread: pdf.js reads a PDF's text layer in worker threads
 * ({@link WorkerPool}, shared with the HTML reader) with their own heap, one PDF per worker at a
 * time, each within a time limit. A PDF not read in time, a worker that runs out of memory or
 * stops, and a caller's `signal` end that worker (the next PDF gets a fresh one); at most
 * `maxWaiting` PDFs wait, each at most the time limit. Failures are {@link PdfReadError}s. A
 * scanned PDF (images only) gives empty text.
 *
 * @example
 * const reader = new PdfReader({ timeoutMs: () => config.get<number>('core.media.pdf_timeout_ms') });
 * const { pages, text } = await reader.read(bytes, { maxPages: 200, signal });
 */
export class PdfReader {
  private readonly pool: WorkerPool<PdfTextRequest, PdfText, PdfReadError>;

  constructor(opts: PdfReaderOptions = {}) {
    this.pool = new WorkerPool({
      module: 'pdf-text-worker',
      timeoutMs: () => {
        const t = typeof opts.timeoutMs === 'function' ? opts.timeoutMs() : opts.timeoutMs;
        return typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : DEFAULT_PDF_TIMEOUT_MS;
      },
      maxWorkers: opts.maxWorkers,
      maxWaiting: opts.maxWaiting,
      idleMs: opts.idleMs,
      resourceLimits: opts.resourceLimits ?? DEFAULT_LIMITS,
      error: pdfReadError,
    });
  }

  /** The text layer of a PDF, read in a worker within the time limit (a bound function: it may be handed around). */
  readonly read = (bytes: Uint8Array, opts: PdfTextOptions = {}): Promise<PdfText> => {
    // A copy of its own, whose buffer moves to the worker: the caller's bytes stay theirs.
    const copy = new Uint8Array(bytes);
    return this.pool.run({ bytes: copy, maxPages: opts.maxPages ?? 200, maxChars: opts.maxChars ?? 200_000 }, [copy.buffer], opts.signal);
  };

  /** Ends every worker; PDFs being read or waiting are rejected (`cancelled`). Safe to call twice; a later PDF starts a worker again. */
  stop(): Promise<void> {
    return this.pool.stop();
  }
}

/** A failure of the pool in the PDF reader's words. */
const NOUNS: ReaderNouns = { reader: 'PDF reader', item: 'PDF', items: 'PDFs' };

function pdfReadError(reason: WorkerJobFailure, info: WorkerJobFailureInfo): PdfReadError {
  const w = readerFailureWords(reason, info, NOUNS);
  if (w) return new PdfReadError(w.reason, w.message, w.details, w.cause);
  if (info.name === 'PasswordException') return new PdfReadError('password', 'the PDF is password-protected');
  if (info.name === 'InvalidPDFException') return new PdfReadError('invalid', `not a valid PDF (${info.message ?? 'invalid structure'})`);
  return new PdfReadError('failed', `the PDF could not be read: ${info.message ?? 'unknown error'}`);
}
