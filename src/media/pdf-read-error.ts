import { HomeAgentError } from '../spec/index.js';

/**
 * Why a PDF's text could not be read: damaged or not a PDF (`invalid`), password-protected
 * (`password`), not read within `core.media.pdf_timeout_ms` (`timeout`), more than the reader's
 * heap (`out-of-memory`), the reader stopped otherwise (`crashed`), given up by the caller or by
 * stopping the reader (`cancelled`), too many PDFs waiting or this one waited longer than the time
 * limit (`busy`), or pdf.js failed on it (`failed`).
 */
export type PdfReadFailure = 'invalid' | 'password' | 'timeout' | 'out-of-memory' | 'crashed' | 'cancelled' | 'busy' | 'failed';

/** A PDF whose text cannot be read, code `PDF_UNREADABLE`; `details.reason` a {@link PdfReadFailure}. */
export class PdfReadError extends HomeAgentError {
  declare readonly details: { reason: PdfReadFailure } & Record<string, unknown>;

  constructor(reason: PdfReadFailure, message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super('PDF_UNREADABLE', message, { details: { reason, ...details }, cause });
  }

  /** Why it failed. */
  get reason(): PdfReadFailure {
    return this.details.reason;
  }
}
