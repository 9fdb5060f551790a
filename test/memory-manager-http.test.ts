/**
 * Decision 0280: every route of the memory-manager plugin (M-11) over real HTTP on the real daemon
 * — its errors carry a 4xx/5xx status and a coded envelope, and no absolute path of the machine
 * (the data folder, the home folder, /tmp, any other) reaches the page: not in the message, not
 * in the details, not after a newline, not in a file: URL. The same holds when the route is called
 * in process (MCP and the about page use it so), where the webui's own redaction does not run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

/** Fails when `text` names an absolute path: the data folder, home, /tmp, or any two-segment absolute path or file: URL. */
function assertNoPath(text: string, home: string): void {
  for (const p of [home, homedir(), tmpdir()]) assert.ok(!text.includes(`${p}/`), `names ${p}: ${text}`);
  assert.doesNotMatch(text, /file:\/\/\/\w/, text);
  // After JSON.parse, so an escaped newline is a newline again.
  const strings: string[] = [];
  JSON.stringify(JSON.parse(text), (_k, v: unknown) => (typeof v === 'string' && strings.push(v), v));
  for (const s of strings) assert.doesNotMatch(s, /(^|[^\w.~<>-])\/(?!api\/|v1\/)[\w.-]+\/[\w.-]/m, `an absolute path in ${JSON.stringify(s)}`);
}

describe('memory-manager HTTP routes: statuses and no paths (decision 0280)', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  const post = async (body: unknown, raw?: string) => {
    const res = await fetch(`${d.url}/api/memory-manager`, { method: 'POST', headers: { authorization: `Bearer ${d.authToken}`, 'content-type': 'application/json' }, body: raw ?? JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as { ok: boolean; value: { error: string; code: string; details: Record<string, unknown> } } };
  };
  /** The route as MCP and the about page call it: in process, without the webui in between. */
  const inProcess = async (body: unknown) => {
    const route = d.host.services.use('host.routes')!.list().find((r) => r.method === 'POST' && r.path === '/api/memory-manager')!;
    const res = await route.handler(new Request('http://homed.local/api/memory-manager', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), {});
    return { status: res.status, text: await res.text() };
  };
  const failed = async (body: unknown, status: number, code: string, raw?: string) => {
    const r = await post(body, raw);
    assert.equal(r.status, status, r.text);
    assert.equal(r.json.ok, false);
    assert.equal(r.json.value.code, code, r.text);
    assert.equal(typeof r.json.value.error, 'string');
    assertNoPath(r.text, home);
    return r;
  };

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-mm-http-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, HOME: process.env.HOME, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
    llm.enqueue({ text: 'Hello.' });
    assert.equal((await d.agent.injectInput({ sessionId: 'webui:mm', source: 'webui', text: 'hello there' }).done).status, 'ok');
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('GET probes; POST answers ok with 200', async () => {
    const probe = await fetch(`${d.url}/api/memory-manager`, { headers: { authorization: `Bearer ${d.authToken}` } });
    assert.equal(probe.status, 200);
    assert.equal(((await probe.json()) as { service: string }).service, 'memory-manager');
    const ok = await post({ op: 'memory.save', args: { id: 'http-ok', snapshot: 'over HTTP' } });
    assert.deepEqual([ok.status, ok.json.ok], [200, true]);
  });

  it('protocol errors: 400 malformed, 400 envelope, 400 unknown op, 413 too large', async () => {
    await failed(undefined, 400, 'PROTOCOL', '{"op": ');
    await failed({ args: {} }, 400, 'PROTOCOL');
    await failed({ op: 'memory.explode' }, 400, 'UNKNOWN_OP');
    await failed(undefined, 413, 'PAYLOAD_TOO_LARGE', JSON.stringify({ op: 'memory.save', args: { snapshot: 'x'.repeat(300 * 1024) } }));
  });

  it("an op's errors: 400 bad input, 404 missing, 409 conflict — not 200", async () => {
    await failed({ op: 'memory.get', args: { id: '../../etc/passwd' } }, 400, 'VALIDATION');
    await failed({ op: 'memory.get', args: { id: 'missing-1' } }, 404, 'NOT_FOUND');
    await failed({ op: 'session.turns', sessionId: 'webui:none', args: {} }, 404, 'NOT_FOUND');
    await post({ op: 'memory.save', args: { id: 'imm-1', snapshot: 'first' } });
    await failed({ op: 'memory.updateMeta', args: { id: 'imm-1', patch: { snapshot: 'changed' } } }, 409, 'CONFLICT');
  });

  it('an LLM failure whose text names paths (after a newline, in a file: URL) is a 502 without them — over HTTP and in process', async () => {
    const body = JSON.stringify({ error: { message: `upstream failed:\n${homedir()}/.config/proxy/cfg.json missing\n/srv/proxy/state.db locked; see file://${homedir()}/logs/x.log`, type: 'server_error' } });
    llm.setDefault(() => ({ status: 500, errorBody: body }));
    try {
      const r = await failed({ op: 'session.summarize', sessionId: 'webui:mm', args: {} }, 502, 'ALL_PROVIDERS_FAILED');
      assert.match(r.json.value.error, /upstream failed/, 'the message is kept, only its paths go');
      const direct = await inProcess({ op: 'session.summarize', sessionId: 'webui:mm', args: {} });
      assert.equal(direct.status, 502);
      assertNoPath(direct.text, home);
    } finally {
      llm.setDefault(() => ({ text: 'ok' }));
    }
  });

  it('a failure of the library folder is a 500 naming <library>, not the folder', async () => {
    writeFileSync(join(home, 'a-file'), 'x');
    const set = await post({ op: 'config.set', args: { patch: { libraryPath: join(home, 'a-file', 'lib') } } });
    assert.equal(set.status, 200, set.text);
    try {
      const r = await failed({ op: 'memory.save', args: { id: 'lost-1', snapshot: 'nowhere to go' } }, 500, 'INTERNAL');
      assert.match(r.json.value.error, /<library>/);
    } finally {
      await post({ op: 'config.set', args: { patch: { libraryPath: '' } } });
    }
  });

  it('switched off: 503 MM_DISABLED; state.get still answers', async () => {
    await post({ op: 'state.setEnabled', args: { enabled: false } });
    try {
      await failed({ op: 'memory.list', args: {} }, 503, 'MM_DISABLED');
      const st = await post({ op: 'state.get', args: {} });
      assert.deepEqual([st.status, st.json.ok], [200, true]);
    } finally {
      await post({ op: 'state.setEnabled', args: { enabled: true } });
    }
  });
});
