/**
 * A PDF made to stall pdf.js, added to the knowledge base of a real daemon (decision 0630): while
 * it is read the daemon goes on answering its API; at the time limit (`core.media.pdf_timeout_ms`,
 * which the model cannot raise) the person gets a coded refusal that names the limit — in Chinese
 * too — and nothing is stored; the next PDF is read. The daemon runs in this process, so its event
 * loop is this test's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { errorInWords } from '../web/src/lib/error-words.js';
import { makePdf, makeStallingPdf } from './fixtures/make-pdf.js';

/** Half a minute and more of pdf.js's time in 60 KiB. */
const STALLING = makeStallingPdf(6_000_000);
const REFUSAL = /^stalling\.pdf could not be read as a PDF: reading it took longer than 1 s \(core\.media\.pdf_timeout_ms\)$/;

describe('a PDF that stalls pdf.js, added to the knowledge base', { timeout: 180_000 }, () => {
  let d: Daemon;
  let home: string;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'ha-kb-pdf-deadline-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
  });
  after(async () => {
    await d?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const auth = () => ({ authorization: `Bearer ${d.authToken}` });
  const entries = async () => ((await (await fetch(`${d.url}/api/v1/memory/knowledge`, { headers: auth() })).json()) as { items: { name: string }[] }).items.map((k) => k.name).sort();
  const upload = (name: string, body: Buffer, file: string) =>
    fetch(`${d.url}/api/v1/memory/knowledge/${encodeURIComponent(name)}/file`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/pdf', 'x-filename': encodeURIComponent(file) },
      body: new Uint8Array(body),
    });

  it('the time limit is a setting the WebUI can change, and the model cannot', async () => {
    // Read the first PDF with the default limit: a fresh worker loads pdf.js before its first PDF.
    const first = await upload('report', makePdf([['Blood pressure 120/80']]), 'report.pdf');
    assert.equal(first.status, 200, await first.clone().text());
    const res = await fetch(`${d.url}/api/v1/settings/${encodeURIComponent('core.media.pdf_timeout_ms')}`, {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ value: 1_000 }),
    });
    assert.equal(res.status, 200, await res.text());
    const def = d.agent.tools.build().find((t) => t.name === 'config_set');
    assert.ok(def, 'the config_set tool is there');
    const tried = await d.agent.stages.executeTool(def, { key: 'core.media.pdf_timeout_ms', value: 600_000 }, { sessionId: 'test:1', turnId: 'test:1#0', callId: 'call_1', signal: new AbortController().signal });
    assert.match(tried.output, /only be changed by the user/);
    assert.equal(d.config.get('core.media.pdf_timeout_ms'), 1_000);
  });

  it('the daemon answers its API while the PDF is read; at the limit the upload is refused with a coded error naming it, and nothing is stored', async () => {
    let answered: Response | undefined;
    const pending = upload('stalling', STALLING, 'stalling.pdf').then((r) => (answered = r));
    let served = 0;
    while (!answered) {
      const status = await fetch(`${d.url}/api/v1/status`, { headers: auth() });
      assert.equal(status.status, 200);
      await status.arrayBuffer();
      if (!answered) served++;
    }
    await pending;
    assert.ok(served >= 1, `API requests answered while the PDF was read: ${served}`);
    const res = answered;
    assert.equal(res.status, 422);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    assert.equal(error.code, 'KNOWLEDGE_FILE_UNREADABLE');
    assert.match(error.message, REFUSAL);
    assert.equal(error.details.reason, 'timeout');
    assert.deepEqual(await entries(), ['report']);
    assert.equal(errorInWords(error, 'zh'), '“stalling.pdf”无法作为 PDF 读取：读取超过了 1 秒的时限（设置 core.media.pdf_timeout_ms）');
  });

  it('the next PDF is read (by a fresh worker, within the limit the owner sets)', async () => {
    await fetch(`${d.url}/api/v1/settings/${encodeURIComponent('core.media.pdf_timeout_ms')}`, { method: 'DELETE', headers: auth() });
    const res = await upload('router', makePdf([['The admin page is 192.168.1.1.']]), 'router.pdf');
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await entries(), ['report', 'router']);
  });
});
