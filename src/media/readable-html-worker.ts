/**
 * The body of the HTML reader's worker thread, started by `HtmlReader` (html-reader.ts): it loads
 * Readability and linkedom, says it is ready, then reads one page per message with
 * {@link readableHtml} and posts the result. It holds no state between pages; a page that stalls
 * it is the main thread's to end (it terminates this thread).
 */
import { parentPort } from 'node:worker_threads';
import type { ReadableHtml, ReadableHtmlOptions } from '../spec/index.js';
import { readableHtml } from './readable-html.js';

/** A page to read, as the main thread posts it (its bytes transferred, not copied). */
export interface HtmlReadRequest {
  id: number;
  bytes: Uint8Array;
  options: Omit<ReadableHtmlOptions, 'signal'>;
}

/** What the worker posts: once `ready`, then one answer per request. */
export type HtmlReadReply = { ready: true } | { id: number; ok: true; page: ReadableHtml } | { id: number; ok: false; message: string };

const port = parentPort;
if (!port) throw new Error('readable-html-worker.js runs only as the HTML reader\'s worker thread');
// Loaded before the first page, so a page's time limit is spent on the page.
await Promise.all([import('linkedom'), import('@mozilla/readability')]);
port.on('message', (m: HtmlReadRequest) => {
  readableHtml(m.bytes, m.options).then(
    (page) => port.postMessage({ id: m.id, ok: true, page } satisfies HtmlReadReply),
    (e: unknown) => port.postMessage({ id: m.id, ok: false, message: e instanceof Error ? e.message : String(e) } satisfies HtmlReadReply),
  );
});
port.postMessage({ ready: true } satisfies HtmlReadReply);
