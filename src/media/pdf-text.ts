import { PdfReader, type PdfTextOptions } from './pdf-reader.js';
import type { PdfText } from './pdf-text-worker.js';

let shared: PdfReader | undefined;

/**
 * The text layer of a PDF through one {@link PdfReader} shared by this process, with the default
 * time limit: what `src/media`'s callers use unless they are handed a reader of their own (the
 * daemon's follows `core.media.pdf_timeout_ms`). Failures are `PdfReadError`s.
 */
export function extractPdfText(bytes: Uint8Array, opts?: PdfTextOptions): Promise<PdfText> {
  shared ??= new PdfReader();
  return shared.read(bytes, opts);
}
