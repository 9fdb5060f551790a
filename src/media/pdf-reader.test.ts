/**
 * The PDF reader on the shared worker pool (decision 0630): a PDF's text reads the same as before;
 * while a PDF made to stall pdf.js is read, this thread goes on answering timers and HTTP and
 * another PDF is read beside it; such a PDF is given up at the time limit, a worker that runs out
 * of memory is a coded error, the caller's signal ends the read, and the next PDF is read by a
 * fresh worker. No assertion here is on how long anything took: only on what happened before what.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeHugeTextPdf, makePdf, makeStallingPdf } from '../../test/fixtures/make-pdf.js';
import { PdfReader } from './pdf-reader.js';
import { PdfReadError } from './pdf-read-error.js';

const REPORT = makePdf([['Blood pressure 120/80', 'Cholesterol normal'], ['Next check in May']]);
/** About half a minute of pdf.js's time in a file of 60 KiB. */
const STALLING = makeStallingPdf(6_000_000);
const rejectsWith = (reason: string) => (e: unknown) => {
  assert.ok(e instanceof PdfReadError, String(e));
  assert.equal(e.code, 'PDF_UNREADABLE');
  assert.equal(e.details.reason, reason, e.message);
  return true;
};

describe('the PDF reader in worker threads', { timeout: 180_000 }, () => {
  let server: http.Server;
  let url = '';
  before(async () => {
    server = http.createServer((_req, res) => res.end('pong'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('reads a PDF\'s text layer, page by page, within maxPages; several at once each get their own; damaged and password-protected PDFs are coded', async () => {
    const reader = new PdfReader();
    try {
      assert.deepEqual(await reader.read(REPORT), { pages: 2, read: 2, text: 'Blood pressure 120/80\nCholesterol normal\n\nNext check in May' });
      assert.deepEqual(await reader.read(REPORT, { maxPages: 1 }), { pages: 2, read: 1, text: 'Blood pressure 120/80\nCholesterol normal' });
      const many = await Promise.all([1, 2, 3].map((i) => reader.read(makePdf([[`page of file ${i}`]]))));
      assert.deepEqual(many.map((p) => p.text), ['page of file 1', 'page of file 2', 'page of file 3']);
      await assert.rejects(reader.read(Buffer.from('%PDF-1.4 nonsense')), rejectsWith('invalid'));
      // The caller's bytes are not taken from it (the worker gets a copy).
      assert.equal(REPORT.subarray(0, 5).toString('latin1'), '%PDF-');
    } finally {
      await reader.stop();
    }
  });

  it('while a PDF made to stall pdf.js is read, this thread answers a timer and an HTTP request, and another PDF is read beside it; the caller\'s signal gives it up', async () => {
    const reader = new PdfReader({ timeoutMs: 600_000 });
    try {
      await reader.read(REPORT);
      const stop = new AbortController();
      let settled = false;
      const stalled = reader.read(STALLING, { signal: stop.signal }).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(await (await fetch(url)).text(), 'pong');
      assert.equal((await reader.read(makePdf([['read beside it']]))).text, 'read beside it');
      assert.equal(settled, false, 'the stalling PDF was still being read all along');
      stop.abort();
      await assert.rejects(stalled, rejectsWith('cancelled'));
      assert.equal((await reader.read(REPORT)).pages, 2);
    } finally {
      await reader.stop();
    }
  });

  it('a PDF not read within the time limit: its worker is ended, the call says so with a coded error, and the next PDF reads', async () => {
    const reader = new PdfReader({ timeoutMs: 1_000 });
    try {
      let ticks = 0;
      const probe = setInterval(() => ticks++, 10);
      await assert.rejects(reader.read(STALLING), (e: unknown) => {
        rejectsWith('timeout')(e);
        assert.equal((e as PdfReadError).details.timeoutMs, 1_000);
        assert.match((e as Error).message, /^reading the PDF took longer than 1 s; the reader was stopped$/);
        return true;
      });
      clearInterval(probe);
      assert.ok(ticks > 0, 'timers ran while the PDF was read');
      assert.equal((await reader.read(REPORT)).read, 2);
    } finally {
      await reader.stop();
    }
  });

  it('a worker that runs out of memory is a coded error, and the next PDF is read by a fresh one', async () => {
    // A small heap (loading pdf.js under tsx takes about 100 MB of it), and a PDF that outgrows it.
    const reader = new PdfReader({ timeoutMs: 600_000, resourceLimits: { maxOldGenerationSizeMb: 128 } });
    try {
      await assert.rejects(reader.read(makeHugeTextPdf(100_000_000)), (e: unknown) => {
        rejectsWith('out-of-memory')(e);
        assert.match((e as Error).message, /needs more memory than the PDF reader has \(128 MB\)/);
        return true;
      });
      assert.equal((await reader.read(REPORT)).pages, 2);
    } finally {
      await reader.stop();
    }
  });

  it('PDFs past the waiting bound are refused at once (busy); stop ends a PDF being read and one waiting, and is safe twice', async () => {
    const reader = new PdfReader({ timeoutMs: 600_000, maxWorkers: 1, maxWaiting: 1 });
    const reading = reader.read(STALLING);
    const waiting = reader.read(REPORT);
    await assert.rejects(reader.read(REPORT), (e: unknown) => {
      rejectsWith('busy')(e);
      assert.match((e as Error).message, /^the PDF reader is busy: 1 PDFs are already waiting$/);
      return true;
    });
    const outcomes = Promise.allSettled([reading, waiting]);
    await reader.stop();
    await reader.stop();
    for (const o of await outcomes) assert.ok(o.status === 'rejected' && rejectsWith('cancelled')(o.reason));
    assert.equal((await reader.read(REPORT)).pages, 2);
    await reader.stop();
  });
});
