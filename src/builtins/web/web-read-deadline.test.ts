/**
 * `web_fetch` and the HTML reader's time limit (decision 0580): a page made to stall the reader
 * does not stall the agent — the tool answers, in time, that the page could not be read in time,
 * and the next page is read. A page downloaded past what the reader takes is read as far as it
 * goes, and the answer says so. The site runs on 127.0.0.1, allowed as an owner would allow a NAS.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_READABLE_HTML_BYTES } from '../../spec/index.js';
import { HtmlReader } from '../../media/index.js';
import { coreConfigDefaults } from '../../config/index.js';
import { createTestHost, type TestHost } from '../../sdk/testing/index.js';
import { createWebPlugin } from './index.js';

const ARTICLE = `<!doctype html><html><head><title>Teas of Hangzhou</title></head><body><article><h1>Longjing</h1>
<p>${'Longjing, or Dragon Well, is a pan-roasted green tea from the area of Longjing Village in Hangzhou, Zhejiang. '.repeat(4)}</p></article></body></html>`;
/** Thousands of nested blocks: minutes of Readability's time (see src/media/html-reader.test.ts). */
const NESTED = `<html><head><title>Nested</title></head><body>${'<div>x '.repeat(3000)}${'</div>'.repeat(3000)}</body></html>`;

describe('web_fetch with a page that stalls the reader', { timeout: 120_000 }, () => {
  let server: http.Server;
  let base = '';
  let t: TestHost;
  /** The reader's time limit, asked at every page (as the daemon asks its setting). */
  let limitMs = 1_000;
  const reader = new HtmlReader({ timeoutMs: () => limitMs });

  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/nested') return void res.writeHead(200, { 'content-type': 'text/html' }).end(NESTED);
      if (req.url === '/article') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
      if (req.url === '/huge') {
        // A little text, then a comment that runs past what the reader takes.
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><body><p>The start of a very long page.</p><!--');
        return void res.end(Buffer.alloc(MAX_READABLE_HTML_BYTES + 1_048_576, 0x78));
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestHost({ plugins: [createWebPlugin()], media: reader });
    await t.config.set('plugin.web.allow_private', ['127.0.0.1']);
  });
  after(async () => {
    await t?.close();
    await reader.stop();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('the model is told the page could not be read in time, and the next page is read', async () => {
    let ticks = 0;
    const probe = setInterval(() => ticks++, 10);
    // What the model reads of a failed tool call is the error's text (callTool throws it).
    await assert.rejects(t.callTool('web_fetch', { url: `${base}/nested` }), (e: unknown) => {
      assert.match(String((e as Error).message), new RegExp(`^Error \\[WEB_PAGE_UNREADABLE\\]: ${base}/nested could not be read in time: turning its HTML into text took longer than 1 s and was stopped; try another page or source$`));
      return true;
    });
    clearInterval(probe);
    assert.ok(ticks > 0, 'timers ran while the page was read');
    const page = await t.callTool('web_fetch', { url: `${base}/article` });
    assert.match(page, /^\[web page — external content/);
    assert.match(page, /Title: Teas of Hangzhou/);
    assert.match(page, /Longjing, or Dragon Well/);
  });

  it('a call given up at the tool time limit frees its reader: the next page is read at once, not after the reader\'s own limit', async () => {
    // One worker, a reader's limit of ten minutes, a tool limit of one second: the model is
    // answered at one second, and its read must stop then. A read left running would hold the only
    // worker for ten minutes, and the next page would wait past this test's time limit.
    const one = new HtmlReader({ timeoutMs: 600_000, maxWorkers: 1 });
    const host = await createTestHost({ plugins: [createWebPlugin()], media: one });
    try {
      await host.config.set('plugin.web.allow_private', ['127.0.0.1']);
      // The daemon's setting (a test host registers only the providers' keys).
      host.config.register({ 'core.agent.tool_timeout_ms': coreConfigDefaults()['core.agent.tool_timeout_ms'] });
      await host.config.set('core.agent.tool_timeout_ms', 1_000);
      await assert.rejects(host.callTool('web_fetch', { url: `${base}/nested` }), (e: unknown) => {
        assert.equal((e as Error).message, 'Error: tool web_fetch timed out after 1000 ms');
        return true;
      });
      // Time enough for a fresh worker to start on a busy machine.
      await host.config.reset('core.agent.tool_timeout_ms');
      const page = await host.callTool('web_fetch', { url: `${base}/article` });
      assert.match(page, /Title: Teas of Hangzhou/);
    } finally {
      await host.close();
      await one.stop();
    }
  });

  it('a page longer than the reader takes is read as far as it goes, and the answer says so', async () => {
    await t.config.set('plugin.web.max_bytes', MAX_READABLE_HTML_BYTES + 4 * 1_048_576);
    // Decoding and parsing 25 MB is not quick on a busy machine, and not what this is about.
    limitMs = 600_000;
    try {
      const page = await t.callTool('web_fetch', { url: `${base}/huge` });
      assert.match(page, /Note: only the first 25 MB of the page were read/);
      assert.match(page, /The start of a very long page\./);
    } finally {
      await t.config.reset('plugin.web.max_bytes');
    }
  });
});
