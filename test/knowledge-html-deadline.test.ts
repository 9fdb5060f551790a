/**
 * An HTML file made to stall the reader, added to the knowledge base of a real daemon (decision
 * 0580): while it is read the daemon goes on answering its API; at the time limit
 * (`core.media.html_timeout_ms`) the person gets a coded refusal that names the limit — in
 * Chinese too — and nothing is stored; the next file is read. `waiter knowledge put` reads within
 * the daemon's limit as well. The daemon runs in this process, so its event loop is this test's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { main } from '../src/waiter/main.js';
import { errorInWords } from '../web/src/lib/error-words.js';

/** Thousands of nested blocks: minutes of Readability's time (see src/media/html-reader.test.ts). */
const NESTED = `<!doctype html><html><head><title>Nested</title></head><body>${'<div>x '.repeat(3000)}${'</div>'.repeat(3000)}</body></html>`;
const REFUSAL = /^nested\.html could not be read as HTML: reading it took longer than 3 s \(core\.media\.html_timeout_ms\)$/;

describe('an HTML file that stalls the reader, added to the knowledge base', { timeout: 180_000 }, () => {
  let d: Daemon;
  let home: string;

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'ha-kb-html-deadline-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
  });
  after(async () => {
    await d?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const auth = () => ({ authorization: `Bearer ${d.authToken}` });
  const api = async <T>(path: string) => (await (await fetch(`${d.url}${path}`, { headers: auth() })).json()) as T;
  const entries = async () => (await api<{ items: { name: string }[] }>('/api/v1/memory/knowledge')).items.map((k) => k.name).sort();
  const upload = (name: string, body: string, file: string) =>
    fetch(`${d.url}/api/v1/memory/knowledge/${encodeURIComponent(name)}/file`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'text/html', 'x-filename': encodeURIComponent(file) },
      body,
    });

  it('the time limit is a setting the WebUI can change, and the model cannot', async () => {
    const res = await fetch(`${d.url}/api/v1/settings/${encodeURIComponent('core.media.html_timeout_ms')}`, {
      method: 'PUT',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ value: 3_000 }),
    });
    assert.equal(res.status, 200, await res.text());
    // …and a protection the model cannot raise: a page could ask it to (docs/security.md, decision 0580).
    const def = d.agent.tools.build().find((t) => t.name === 'config_set');
    assert.ok(def, 'the config_set tool is there');
    const tried = await d.agent.stages.executeTool(def, { key: 'core.media.html_timeout_ms', value: 600_000 }, { sessionId: 'test:1', turnId: 'test:1#0', callId: 'call_1', signal: new AbortController().signal });
    assert.match(tried.output, /only be changed by the user/);
    assert.equal(d.config.get('core.media.html_timeout_ms'), 3_000);
  });

  it('the daemon answers its API while the file is read; at the limit the upload is refused with a coded error naming it, and nothing is stored', async () => {
    let answered: Response | undefined;
    const pending = upload('nested', NESTED, 'nested.html').then((r) => (answered = r));
    // One request after another for as long as the file is read: a reader on the daemon's own
    // thread would hold every one of them until it finished (minutes), and this test would time out.
    let served = 0;
    while (!answered) {
      const status = await fetch(`${d.url}/api/v1/status`, { headers: auth() });
      assert.equal(status.status, 200);
      await status.arrayBuffer();
      if (!answered) served++;
    }
    await pending;
    assert.ok(served >= 1, `API requests answered while the file was read: ${served}`);
    const res = answered;
    assert.equal(res.status, 422);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    assert.equal(error.code, 'KNOWLEDGE_FILE_UNREADABLE');
    assert.match(error.message, REFUSAL);
    assert.equal(error.details.reason, 'timeout');
    assert.deepEqual(await entries(), []);
    // The person reading Chinese reads it in Chinese (web/src/lib/error-words.ts).
    assert.equal(errorInWords(error, 'zh'), '“nested.html”无法作为网页读取：读取超过了 3 秒的时限（设置 core.media.html_timeout_ms）');
  });

  it('the next file is read', async () => {
    const res = await upload('router', '<!doctype html><html><head><title>Router</title></head><body><h1>Router</h1><p>The admin page is 192.168.1.1.</p></body></html>', 'router.html');
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await entries(), ['router']);
  });

  it('waiter knowledge put reads within the daemon\'s limit: the same refusal, nothing stored', async () => {
    const file = join(home, 'nested.html');
    writeFileSync(file, NESTED);
    let err = '';
    try {
      const code = await main(['node', 'waiter', '--home', home, 'knowledge', 'put', 'nested', file], { out: () => {}, err: (t) => void (err += t) });
      assert.equal(code, 2, err);
    } finally {
      process.exitCode = undefined;
    }
    assert.match(err, /could not be read as HTML: reading it took longer than 3 s \(core\.media\.html_timeout_ms\)/);
    assert.deepEqual(await entries(), ['router']);
  });
});
