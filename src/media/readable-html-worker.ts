/**
 * The body of the HTML reader's worker thread, started by `HtmlReader`'s pool (html-reader.ts): it
 * loads Readability and linkedom, then reads one page per job with {@link readableHtml}.
 */
import type { ReadableHtmlOptions } from '../spec/index.js';
import { readableHtml } from './readable-html.js';
import { serveJobs } from './worker-job.js';

/** A page to read. */
export interface HtmlReadRequest {
  bytes: Uint8Array;
  options: Omit<ReadableHtmlOptions, 'signal'>;
}

// Loaded before the first page, so a page's time limit is spent on the page.
await Promise.all([import('linkedom'), import('@mozilla/readability')]);
serveJobs((m: HtmlReadRequest) => readableHtml(m.bytes, m.options));
