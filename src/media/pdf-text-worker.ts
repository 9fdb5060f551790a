/**
 * The body of the PDF reader's worker thread, started by `PdfReader`'s pool (pdf-reader.ts): it
 * loads Mozilla's pdf.js, then reads one PDF's text layer per job, page by page.
 */
import { serveJobs } from './worker-job.js';

/** A PDF to read: its bytes (transferred), the pages read at most, and the characters after which no further page is read. */
export interface PdfTextRequest {
  bytes: Uint8Array;
  maxPages: number;
  maxChars: number;
}

/** What was read of a PDF: its page count, how many pages were read, their text. */
export interface PdfText {
  pages: number;
  read: number;
  text: string;
}

// pdf.js warns about fonts it does without on this thread's console, which is the process's: not
// the daemon's output. Nothing else runs here.
console.log = console.warn = console.info = () => {};
// Loaded before the first PDF, so a PDF's time limit is spent on the PDF. Without a worker of its
// own (there is none here) pdf.js runs its parser on this thread, importing it at the first
// document unless it is already on globalThis.pdfjsWorker.
// (pdf.worker.mjs ships without types: named through a variable, its import is untyped.)
const PARSER = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
const [pdfjs, parser] = await Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import(PARSER) as Promise<unknown>]);
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = parser;

serveJobs(async ({ bytes, maxPages, maxChars }: PdfTextRequest): Promise<PdfText> => {
  const doc = await pdfjs.getDocument({ data: bytes, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const parts: string[] = [];
    let chars = 0;
    const last = Math.min(doc.numPages, maxPages);
    for (let i = 1; i <= last && chars < maxChars; i++) {
      const page = await doc.getPage(i);
      const content = await page.getTextContent();
      let t = '';
      for (const it of content.items) if ('str' in it && typeof it.str === 'string') t += it.str + (it.hasEOL ? '\n' : '');
      parts.push(t.trim());
      chars += t.length;
      page.cleanup();
    }
    return { pages: doc.numPages, read: parts.length, text: parts.filter(Boolean).join('\n\n') };
  } finally {
    await doc.destroy();
  }
});
