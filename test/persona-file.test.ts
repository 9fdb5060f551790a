/**
 * `core.agent.persona_file` on the REAL daemon with the fake LLM over loopback: the setting names
 * the file the agent's persona is read from (it was stored and ignored: the daemon always read
 * persona.md); a path outside the data folder is refused with the reason and changes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

describe('core.agent.persona_file', { timeout: 60_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  const put = (key: string, value: unknown) => fetch(`${d.url}/api/v1/settings/${encodeURIComponent(key)}`, { method: 'PUT', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ value }) });
  const systemOfNextTurn = async (text: string) => {
    llm.enqueue({ text: 'ok' });
    const out = await d.agent.injectInput({ sessionId: 'webui:persona', source: 'webui', text }).done;
    assert.equal(out.status, 'ok');
    const req = llm.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)!;
    const msgs = (req.body as { messages: { role: string; content: unknown }[] }).messages;
    return msgs.filter((m) => m.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
  };

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-persona-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('names the file the persona is read from, at once', async () => {
    writeFileSync(join(home, 'persona.md'), 'You are HomeBot, the default persona.');
    mkdirSync(join(home, 'personas'));
    writeFileSync(join(home, 'personas', 'work.md'), 'You are WorkBot, terse and formal.');
    assert.match(await systemOfNextTurn('hello'), /HomeBot/);
    assert.equal((await put('core.agent.persona_file', 'personas/work.md')).status, 200);
    const system = await systemOfNextTurn('hello again');
    assert.match(system, /WorkBot/);
    assert.doesNotMatch(system, /HomeBot/);
  });

  it('a path outside the data folder is refused with the reason, and the persona stays', async () => {
    writeFileSync(join(tmpdir(), 'ha-persona-outside.md'), 'You are OutsideBot.');
    for (const bad of ['../../../../etc/passwd', '/etc/passwd', join(tmpdir(), 'ha-persona-outside.md'), 'personas/../../x.md', 'config.db', '.', 'sessions']) {
      const res = await put('core.agent.persona_file', bad);
      assert.equal(res.status, 400, bad);
      assert.match(await res.text(), /a \.md or \.txt file inside the data folder/);
    }
    const system = await systemOfNextTurn('still there?');
    assert.match(system, /WorkBot/);
    assert.doesNotMatch(system, /OutsideBot|root:/);
    rmSync(join(tmpdir(), 'ha-persona-outside.md'), { force: true });
  });
});
