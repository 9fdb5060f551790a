import { Worker } from 'node:worker_threads';
import { HomeAgentError } from '../spec/index.js';

/** A PDF whose text cannot be read (broken, encrypted, too slow). */
export class PdfReadError extends HomeAgentError {
  constructor(message: string, reason: 'invalid' | 'password' | 'timeout' | 'failed') {
    super('PDF_UNREADABLE', message, { details: { reason } });
  }
}

/** What was read of a PDF: its page count, how many pages were read, their text. */
export interface PdfText {
  pages: number;
  read: number;
  text: string;
}

export interface PdfTextOptions {
  /** Pages read at most (the rest are reported, not read). Default 200. */
  maxPages?: number;
  /** Stop reading pages once this many characters are in. Default 200,000. */
  maxChars?: number;
  /** Whole extraction, after which the worker is ended. Default 30 s. */
  timeoutMs?: number;
}

// The worker is plain JavaScript (no build step, runs the same under tsx and from dist/): it
// imports Mozilla's pdf.js, reads the text layer page by page and posts the result.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  try {
    const pdfjs = await import(workerData.url);
    const doc = await pdfjs.getDocument({ data: workerData.data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
    const parts = [];
    let chars = 0;
    const last = Math.min(doc.numPages, workerData.maxPages);
    for (let i = 1; i <= last && chars < workerData.maxChars; i++) {
      const page = await doc.getPage(i);
      const content = await page.getTextContent();
      let t = '';
      for (const it of content.items) if (typeof it.str === 'string') t += it.str + (it.hasEOL ? '\\n' : '');
      parts.push(t.trim());
      chars += t.length;
      page.cleanup();
    }
    parentPort.postMessage({ ok: true, pages: doc.numPages, read: parts.length, text: parts.filter(Boolean).join('\\n\\n') });
    await doc.destroy();
  } catch (e) {
    parentPort.postMessage({ ok: false, name: e && e.name, message: String((e && e.message) || e) });
  }
})();
`;

let pdfjsUrl: string | undefined;

/**
 * The text layer of a PDF, read by pdf.js in a worker thread: a huge or hostile file can neither
 * block the daemon's event loop nor outgrow a 256 MiB heap, and is ended after `timeoutMs`. A
 * scanned PDF (images only) gives empty text. Failures are {@link PdfReadError}s.
 */
export function extractPdfText(bytes: Uint8Array, opts: PdfTextOptions = {}): Promise<PdfText> {
  pdfjsUrl ??= import.meta.resolve('pdfjs-dist/legacy/build/pdf.mjs');
  const data = new Uint8Array(bytes);
  return new Promise<PdfText>((resolve, reject) => {
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { url: pdfjsUrl, data, maxPages: opts.maxPages ?? 200, maxChars: opts.maxChars ?? 200_000 },
      transferList: [data.buffer],
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
      // pdf.js warns on stdout about fonts it does without: not the daemon's output.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const timer = setTimeout(() => finish(() => reject(new PdfReadError(`reading the PDF took longer than ${timeoutMs} ms`, 'timeout'))), timeoutMs);
    worker.once('message', (m: { ok: boolean; pages?: number; read?: number; text?: string; name?: string; message?: string }) =>
      finish(() => {
        if (m.ok) resolve({ pages: m.pages ?? 0, read: m.read ?? 0, text: m.text ?? '' });
        else if (m.name === 'PasswordException') reject(new PdfReadError('the PDF is password-protected', 'password'));
        else if (m.name === 'InvalidPDFException') reject(new PdfReadError(`not a valid PDF (${m.message ?? 'invalid structure'})`, 'invalid'));
        else reject(new PdfReadError(`the PDF could not be read: ${m.message ?? 'unknown error'}`, 'failed'));
      }),
    );
    worker.once('error', (e) => finish(() => reject(new PdfReadError(`the PDF could not be read: ${e.message}`, 'failed'))));
    worker.once('exit', (code) => finish(() => reject(new PdfReadError(`the PDF reader stopped (exit code ${code})`, 'failed'))));
  });
}
