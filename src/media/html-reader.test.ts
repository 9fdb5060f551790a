/**
 * The HTML reader off the main thread (decision 0580): a page reads the same in its worker as on
 * the calling thread; while a page made to stall Readability is read, this thread goes on
 * answering timers and HTTP; such a page is given up at the time limit, a worker that runs out of
 * memory is a coded error, and either way the next page is read by a fresh worker.
 * No assertion here is on how long anything took: only on what happened before what.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTML_UNREADABLE, MAX_READABLE_HTML_BYTES, type ReadableHtmlOptions } from '../spec/index.js';
import { HtmlReader } from './html-reader.js';
import { HtmlReadError } from './html-read-error.js';
import { readableHtml as readHere } from './readable-html.js';

const html = (s: string) => Buffer.from(s, 'utf8');
const LONG = 'Longjing, or Dragon Well, is a pan-roasted green tea from the area of Longjing Village in Hangzhou, Zhejiang. '.repeat(4);
const ARTICLE = html(`<!doctype html><html><head><title>Teas of Hangzhou</title><script>window.secret = 1;</script></head>
<body><nav><a href="/">Home</a> NAV-TEXT</nav><article><h1>Longjing</h1><p>${LONG}</p>
<p>See <a href="/brew">the brewing guide</a>.</p><table><tr><th>Tea</th><th>Water</th></tr><tr><td>Longjing</td><td>80 °C</td></tr></table>
<pre>  two  spaces
kept</pre></article><footer>FOOTER-TEXT</footer></body></html>`);
/**
 * Markup made to stall the reader view: thousands of nested blocks, each with a little text.
 * Readability's work on it grows with the square of its depth (500 levels took seconds, 1,000 tens
 * of seconds on the machine where this was found); this one would take minutes.
 */
const NESTED = html(`<html><head><title>Nested</title></head><body>${'<div>x '.repeat(3000)}${'</div>'.repeat(3000)}</body></html>`);
const rejectsWith = (reason: string) => (e: unknown) => {
  assert.ok(e instanceof HtmlReadError, String(e));
  assert.equal(e.code, HTML_UNREADABLE);
  assert.equal(e.details.reason, reason, e.message);
  return true;
};

describe('the HTML reader in worker threads', { timeout: 120_000 }, () => {
  let server: http.Server;
  let url = '';
  before(async () => {
    server = http.createServer((_req, res) => res.end('pong'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('a page reads the same through the worker as on the calling thread (article, whole page, fragment, charset, base URL, minShare)', async () => {
    const reader = new HtmlReader();
    try {
      const cases: [Buffer, ReadableHtmlOptions?][] = [
        [ARTICLE, { baseUrl: 'https://tea.example/guides/longjing' }],
        [ARTICLE, { article: { minChars: 1, minShare: 0.7 } }],
        [html('<p>just a fragment with <a href="https://example.com/x">a link</a></p>')],
        [Buffer.concat([html('<html><head><meta charset="utf-8"></head><body><p>'), Buffer.from([0xd6, 0xd0, 0xce, 0xc4]), html('</p></body></html>')]), { charset: 'gbk' }],
        [html('')],
      ];
      for (const [bytes, options] of cases) assert.deepEqual(await reader.readableHtml(bytes, options), await readHere(bytes, options));
      // Pages at once: each is answered with its own text.
      const many = await Promise.all(Array.from({ length: 5 }, (_, i) => reader.readableHtml(html(`<p>page ${i}</p>`))));
      assert.deepEqual(
        many.map((p) => p.text),
        ['page 0', 'page 1', 'page 2', 'page 3', 'page 4'],
      );
      // The caller's bytes are not taken from it (the worker gets a copy).
      assert.match(ARTICLE.toString('utf8'), /Longjing/);
    } finally {
      await reader.stop();
    }
  });

  it('while a page made to stall the reader is read, this thread answers a timer and an HTTP request, and another page is read beside it; the caller\'s signal gives it up', async () => {
    const reader = new HtmlReader({ timeoutMs: 600_000 });
    try {
      // A worker started and warm, so the stalling page is being read from the moment it is handed over.
      await reader.readableHtml(ARTICLE);
      const stop = new AbortController();
      let settled = false;
      const stalled = reader.readableHtml(NESTED, { signal: stop.signal }).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(await (await fetch(url)).text(), 'pong');
      const beside = await reader.readableHtml(html('<p>a page read beside it</p>'));
      assert.equal(beside.text, 'a page read beside it');
      assert.equal(settled, false, 'the stalling page was still being read all along');
      stop.abort();
      await assert.rejects(stalled, rejectsWith('cancelled'));
      // The next page is read by a fresh worker.
      assert.equal((await reader.readableHtml(ARTICLE)).title, 'Teas of Hangzhou');
    } finally {
      await reader.stop();
    }
  });

  it('a page not read within the time limit: its worker is ended, the call says so with a coded error, and the next page reads', async () => {
    const reader = new HtmlReader({ timeoutMs: 1_000 });
    try {
      let ticks = 0;
      const probe = setInterval(() => ticks++, 10);
      await assert.rejects(reader.readableHtml(NESTED), (e: unknown) => {
        rejectsWith('timeout')(e);
        assert.equal((e as HtmlReadError).details.timeoutMs, 1_000);
        assert.match((e as Error).message, /^reading the page took longer than 1 s; the reader was stopped$/);
        return true;
      });
      clearInterval(probe);
      assert.ok(ticks > 0, 'timers ran while the page was read');
      const page = await reader.readableHtml(ARTICLE);
      assert.equal(page.mode, 'article');
      assert.match(page.text, /^## Longjing/);
    } finally {
      await reader.stop();
    }
  });

  it('a worker that runs out of memory is a coded error, and the next page is read by a fresh one', async () => {
    // A small heap, and a page whose DOM outgrows it (half a million elements).
    const reader = new HtmlReader({ timeoutMs: 600_000, resourceLimits: { maxOldGenerationSizeMb: 64 } });
    try {
      await assert.rejects(reader.readableHtml(html(`<html><body>${'<p>a</p>'.repeat(800_000)}</body></html>`)), (e: unknown) => {
        rejectsWith('out-of-memory')(e);
        assert.match((e as Error).message, /needs more memory than the HTML reader has \(64 MB\)/);
        return true;
      });
      assert.equal((await reader.readableHtml(ARTICLE)).title, 'Teas of Hangzhou');
    } finally {
      await reader.stop();
    }
  });

  it('pages past the waiting bound are refused at once (busy), not queued without end; a waiting page is read when the worker is freed', async () => {
    const reader = new HtmlReader({ timeoutMs: 600_000, maxWorkers: 1, maxWaiting: 1 });
    try {
      const stop = new AbortController();
      const stalled = reader.readableHtml(NESTED, { signal: stop.signal });
      const waiting = reader.readableHtml(ARTICLE);
      await assert.rejects(reader.readableHtml(html('<p>one too many</p>')), (e: unknown) => {
        rejectsWith('busy')(e);
        assert.equal((e as HtmlReadError).details.waiting, 1);
        assert.match((e as Error).message, /^the HTML reader is busy: 1 pages are already waiting$/);
        return true;
      });
      stop.abort();
      await assert.rejects(stalled, rejectsWith('cancelled'));
      assert.equal((await waiting).title, 'Teas of Hangzhou');
    } finally {
      await reader.stop();
    }
  });

  it('the wait for a worker counts: a page that waits longer than the time limit is given up (busy) before the page ahead of it', async () => {
    // A cold reader: the stalling page's limit starts once its worker has started, the waiting
    // page's as it is handed in — so the waiting page's limit is reached first.
    const reader = new HtmlReader({ timeoutMs: 1_000, maxWorkers: 1 });
    try {
      const order: string[] = [];
      const stalled = reader.readableHtml(NESTED).catch((e: unknown) => void order.push(`stalled ${(e as HtmlReadError).reason}`));
      const waiting = reader.readableHtml(ARTICLE).then(
        () => void order.push('waiting read'),
        (e: unknown) => {
          rejectsWith('busy')(e);
          assert.equal((e as HtmlReadError).details.waitedMs, 1_000);
          assert.match((e as Error).message, /^the HTML reader was busy with other pages for 1 s; the page was not read$/);
          order.push('waiting busy');
        },
      );
      await Promise.all([stalled, waiting]);
      assert.deepEqual(order, ['waiting busy', 'stalled timeout']);
      assert.equal((await reader.readableHtml(ARTICLE)).title, 'Teas of Hangzhou');
    } finally {
      await reader.stop();
    }
  });

  it('input over the limit is refused before a worker sees it; stop ends a page being read and is safe twice', async () => {
    const reader = new HtmlReader({ timeoutMs: 600_000 });
    await assert.rejects(reader.readableHtml(new Uint8Array(MAX_READABLE_HTML_BYTES + 1)), (e: unknown) => {
      rejectsWith('too-large')(e);
      assert.match((e as Error).message, /^the page is 25\.0 MB; the HTML reader reads at most 25 MB$/);
      return true;
    });
    // One page being read (or its worker starting), one more in the other worker, one waiting.
    const pages = [reader.readableHtml(NESTED), reader.readableHtml(NESTED), reader.readableHtml(ARTICLE)];
    const outcomes = Promise.allSettled(pages);
    await reader.stop();
    await reader.stop();
    for (const o of await outcomes) assert.ok(o.status === 'rejected' && rejectsWith('cancelled')(o.reason));
    // Stopped is not closed: a later page starts a worker again.
    assert.equal((await reader.readableHtml(html('<p>again</p>'))).text, 'again');
    await reader.stop();
  });
});
