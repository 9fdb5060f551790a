import type { WorkerJobFailure, WorkerJobFailureInfo } from './worker-pool.js';

/** How a reader names itself and what it reads, for the words of its failures. */
export interface ReaderNouns {
  /** `HTML reader`, `PDF reader`. */
  reader: string;
  /** `page`, `PDF`. */
  item: string;
  /** `pages`, `PDFs`. */
  items: string;
}

/** A pool failure worded: the reason and message of the reader's own coded error. */
export interface ReaderFailureWords {
  reason: Exclude<WorkerJobFailure, 'failed'>;
  message: string;
  details: Record<string, unknown>;
  cause?: unknown;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/**
 * The words of a worker-pool failure (decision 0630) for any reader on the pool — undefined for
 * `failed`, which each reader words from its own worker's error.
 */
export function readerFailureWords(reason: WorkerJobFailure, info: WorkerJobFailureInfo, n: ReaderNouns): ReaderFailureWords | undefined {
  switch (reason) {
    case 'timeout':
      return { reason, message: `reading the ${n.item} took longer than ${seconds(info.timeoutMs!)}; the reader was stopped`, details: { timeoutMs: info.timeoutMs } };
    case 'out-of-memory':
      return { reason, message: `the ${n.item} needs more memory than the ${n.reader} has (${info.heapMb} MB); the reader was stopped`, details: { heapMb: info.heapMb }, cause: info.cause };
    case 'crashed':
      return { reason, message: info.exitCode !== undefined ? `the ${n.reader} stopped (exit code ${info.exitCode})` : `the ${n.reader} failed: ${info.message}`, details: info.exitCode !== undefined ? { exitCode: info.exitCode } : {}, cause: info.cause };
    case 'cancelled':
      return { reason, message: info.message ? `the ${n.reader} was stopped before the ${n.item} was read` : `reading the ${n.item} was cancelled`, details: {} };
    case 'busy':
      return info.waitedMs !== undefined
        ? { reason, message: `the ${n.reader} was busy with other ${n.items} for ${seconds(info.waitedMs)}; the ${n.item} was not read`, details: { waitedMs: info.waitedMs } }
        : { reason, message: `the ${n.reader} is busy: ${info.waiting} ${n.items} are already waiting`, details: { waiting: info.waiting } };
    default:
      return undefined;
  }
}
