/**
 * The local HTTP surface as an attacker in the user's browser sees it (SPEC §9, docs/security.md):
 * every route of the real daemon — the webui's own and every route a plugin registered — is
 * enumerated from the route tables and sent each forged request a web page can make. Every one
 * must be refused before its handler runs (a coded 401/403/415 of the API guard), and nothing in
 * the data folder may change. A route added later without protection fails here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { createWebuiApp } from '../src/builtins/webui/index.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import type { PluginDefinition } from '../src/spec/index.js';

const GUARD_CODES = new Set(['UNAUTHORIZED', 'CROSS_SITE_REQUEST', 'UNSUPPORTED_MEDIA_TYPE']);
const EVIL = 'http://evil.example';

interface Route {
  method: string;
  path: string;
  owner: string;
}

/** The webui's own routes (from its hono app) and the routes plugins registered (`host.routes`). */
function allRoutes(d: Daemon): Route[] {
  const core = createWebuiApp({} as never)
    .routes.filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
    .map((r) => ({ method: r.method, path: r.path, owner: 'webui' }));
  const plugin = d.host.services.use('host.routes')!.list().map((r) => ({ method: r.method, path: r.path, owner: r.plugin }));
  const seen = new Set<string>();
  return [...plugin, ...core].filter((r) => {
    const k = `${r.method} ${r.path}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function fill(path: string): string {
  return path.replace(/:key\b/g, 'core.agent.max_tool_rounds').replace(/:name\b/g, 'webui').replace(/:[a-z]+\b/gi, 'x');
}

function hmap(files: Record<string, string>): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [n, t] of Object.entries(files)) z.addBuffer(Buffer.from(t), n);
  z.end();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

describe('the local HTTP surface refuses forged requests on every route', { timeout: 120_000 }, () => {
  let llm: FakeLlm;
  let d: Daemon;
  let home: string;
  const pokes: string[] = [];
  /** A plugin route (registered through the SDK like any plugin's) that records when it runs. */
  const sentinel: PluginDefinition = {
    name: 'surface-sentinel',
    start(sdk) {
      sdk.registerRoute({ method: 'POST', path: '/api/surface-sentinel/poke', handler: () => (pokes.push('POST'), Response.json({ ok: true })) });
      sdk.registerRoute({ method: 'GET', path: '/api/surface-sentinel/secret', handler: () => (pokes.push('GET'), Response.json({ ok: true, secret: 'memories' })) });
    },
  };

  before(async () => {
    llm = await startFakeLlm();
    home = mkdtempSync(join(tmpdir(), 'ha-surface-'));
    d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${llm.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false, plugins: [sentinel] });
    assert.ok(d.url);
    // A session the forged session routes name (`:id` and `:turnId` are filled with "x"): deleting
    // it, or a turn of it, would show in the session list that `state()` compares.
    await d.sessions.create({ channel: 'webui', id: 'x', title: 'kept' });
    await d.sessions.append('x', { turnId: 'x#1', kind: 'user', text: 'a message a forged request must not delete' });
  });
  after(async () => {
    await d?.stop();
    await llm?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const call = (path: string, init: RequestInit & { token?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    return fetch(`${d.url}${path}`, { ...init, headers });
  };
  const authed = (path: string, init: RequestInit = {}) => call(path, { ...init, token: d.authToken, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });

  /** What the person would notice if a forged request got through. */
  async function state(): Promise<string> {
    const j = async (p: string, init?: RequestInit) => JSON.stringify(await (await authed(p, init)).json());
    const mm = (op: string, args = {}) => j('/api/memory-manager', { method: 'POST', body: JSON.stringify({ op, args }) });
    return [
      await j('/api/v1/settings'),
      JSON.stringify(d.registry.list().map((p) => [p.name, p.state, p.enabled])),
      JSON.stringify(d.registry.pending()),
      await j('/api/v1/sessions'),
      await mm('memory.list'),
      await mm('plan.get'),
      await mm('state.get'),
      await j('/api/v1/memory/knowledge'),
      JSON.stringify((await (await authed('/api/v1/memory/stats')).json() as { stats: { documents?: unknown } }).stats.documents),
      await j('/api/v1/changes'),
      readdirSync(join(home, 'plugins')).sort().join(','),
    ].join('\n');
  }

  it('enumerates the core and plugin routes (the list is not empty, and holds the dangerous ones)', () => {
    const keys = allRoutes(d).map((r) => `${r.method} ${r.path}`);
    for (const must of ['POST /api/v1/plugins/install', 'POST /api/v1/plugins/rescan', 'POST /api/v1/memory/knowledge/:name/file', 'POST /api/v1/plugin-installs/:name/confirm', 'POST /api/memory-manager', 'PUT /api/v1/settings/:key', 'POST /api/v1/chat', 'POST /api/v1/confirm/:id', 'POST /api/v1/changes/:id/undo', 'POST /api/surface-sentinel/poke', 'GET /api/v1/events', 'GET /api/v1/sessions/:id/events', 'DELETE /api/v1/sessions/:id', 'DELETE /api/v1/sessions/:id/turns/:turnId', 'DELETE /api/v1/sessions/:id/turns/:turnId/reply', 'POST /api/v1/sessions/:id/turns/:turnId/resend', 'GET /api/v1/sessions/:id/export', 'POST /api/v1/providers', 'DELETE /api/v1/providers/:name', 'GET /v1/models', 'POST /v1/chat/completions', 'POST /mcp', 'GET /mcp', 'GET /api/v1/channels', 'GET /api/v1/channels/telegram', 'POST /api/v1/channels/telegram/test', 'GET /api/v1/channels/qq', 'POST /api/v1/channels/qq/test', 'POST /api/v1/adapters/held/:name/take', 'POST /api/v1/adapters/held/:name/discard']) {
      assert.ok(keys.includes(must), `${must} missing from ${keys.join(', ')}`);
    }
  });

  it('every state-changing route refuses what a foreign page (or a client without the token) can send; nothing changes', async () => {
    const before = await state();
    const routes = allRoutes(d).filter((r) => !['GET', 'HEAD'].includes(r.method));
    assert.ok(routes.length >= 20, `only ${routes.length} state-changing routes found`);
    const json = JSON.stringify({ value: 99, op: 'memory.save', args: { title: 'x', snapshot: 'forged' }, text: 'forged', approved: true, content: 'forged', order: ['ollama'] });
    const variants: { name: string; init: RequestInit & { token?: string }; query?: string; want: number }[] = [
      { name: 'Origin evil + text/plain, no token', init: { headers: { origin: EVIL, 'content-type': 'text/plain' }, body: json }, want: 403 },
      { name: 'form-encoded, no token', init: { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'value=99' }, want: 401 },
      { name: 'multipart, Origin evil', init: { headers: { origin: EVIL, 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--' }, want: 403 },
      { name: 'Sec-Fetch-Site cross-site', init: { headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, body: json }, want: 403 },
      { name: 'no token', init: { headers: { 'content-type': 'application/json' }, body: json }, want: 401 },
      { name: 'wrong token', init: { token: 'wrong-token', headers: { 'content-type': 'application/json' }, body: json }, want: 401 },
      { name: 'token only in the query', init: { headers: { 'content-type': 'application/json' }, body: json }, query: `?token=${encodeURIComponent(d.authToken)}`, want: 401 },
      { name: 'right token, but Origin evil', init: { token: d.authToken, headers: { origin: EVIL, 'content-type': 'application/json' }, body: json }, want: 403 },
      { name: 'right token, but another port (same-site)', init: { token: d.authToken, headers: { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1', 'content-type': 'application/json' }, body: json }, want: 403 },
      { name: 'Origin null (sandboxed frame)', init: { token: d.authToken, headers: { origin: 'null', 'content-type': 'application/json' }, body: json }, want: 403 },
      { name: 'right token, text/plain body', init: { token: d.authToken, headers: { 'content-type': 'text/plain' }, body: json }, want: 415 },
    ];
    const failures: string[] = [];
    for (const r of routes) {
      for (const v of variants) {
        const res = await call(fill(r.path) + (v.query ?? ''), { ...v.init, method: r.method });
        // On /v1/ the refusal is OpenAI-shaped; the guard's own code is its `homeagent_code` there.
        const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; homeagent_code?: string } };
        const code = body.error?.homeagent_code ?? body.error?.code ?? '';
        if (res.status !== v.want || !GUARD_CODES.has(code)) failures.push(`${r.method} ${r.path} (${r.owner}) — ${v.name}: ${res.status} ${code}`);
        if (res.headers.get('x-frame-options') !== 'DENY' || res.headers.get('x-content-type-options') !== 'nosniff') failures.push(`${r.method} ${r.path} — ${v.name}: the refusal lacks the security headers`);
      }
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(pokes, [], 'a plugin handler ran');
    assert.equal(await state(), before, 'something changed');
    // Positive control: the same plugin route with the token and JSON runs.
    assert.equal((await authed('/api/surface-sentinel/poke', { method: 'POST', body: '{}' })).status, 200);
    assert.deepEqual(pokes.splice(0), ['POST']);
  });

  it('reads (memories, sessions, settings, the event stream) need the token too; ?token= works on the event stream only', async () => {
    const failures: string[] = [];
    for (const r of allRoutes(d).filter((x) => x.method === 'GET')) {
      const path = fill(r.path);
      for (const [name, init, want] of [
        ['no token', {}, 401],
        ['Origin evil with token', { token: d.authToken, headers: { origin: EVIL } }, 403],
        ['cross-site with token', { token: d.authToken, headers: { 'sec-fetch-site': 'cross-site' } }, 403],
      ] as const) {
        const res = await call(path, init);
        if (res.status !== want) failures.push(`GET ${r.path} — ${name}: ${res.status}`);
        await res.body?.cancel();
      }
      if (r.path !== '/api/v1/events') {
        const q = await call(`${path}?token=${encodeURIComponent(d.authToken)}`);
        if (q.status !== 401) failures.push(`GET ${r.path} — token in the query: ${q.status}`);
        await q.body?.cancel();
      }
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(pokes, []);
    const sse = await call(`/api/v1/events?token=${encodeURIComponent(d.authToken)}`);
    assert.equal(sse.status, 200);
    await sse.body?.cancel();
    // The SPA (static files) needs no token: it holds no secret, and is never framed.
    const page = await call('/');
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    await page.body?.cancel();
  });

  it('the reproduction: a cross-site no-cors .hmap upload is refused; nothing is staged, installed or run', async () => {
    const marker = join(home, 'pwned.txt');
    const pkg = await hmap({
      'plugin.json': JSON.stringify({ name: 'pwn', version: '1.0.0', entry: 'index.js' }),
      'index.js': `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x'); export default { name: 'pwn', start() {} };`,
    });
    for (const headers of [{ origin: EVIL, 'content-type': 'text/plain' }, { 'content-type': 'application/zip' }] as Record<string, string>[]) {
      const res = await call('/api/v1/plugins/install', { method: 'POST', headers, body: new Uint8Array(pkg) });
      assert.ok(res.status === 403 || res.status === 401, String(res.status));
    }
    assert.deepEqual(d.registry.pending(), []);
    assert.equal(d.registry.get('pwn'), undefined);
    assert.equal(existsSync(marker), false);
    // With the token it is staged — and still does not run until the person confirms.
    const staged = await authed('/api/v1/plugins/install', { method: 'POST', headers: { 'content-type': 'application/zip' }, body: new Uint8Array(pkg) });
    assert.equal(staged.status, 202);
    assert.equal(((await staged.json()) as { value: { name: string } }).value.name, 'pwn');
    assert.equal(d.registry.get('pwn'), undefined);
    assert.equal(existsSync(marker), false);
    assert.equal((await authed('/api/v1/plugin-installs/pwn', { method: 'DELETE' })).status, 200);
    assert.deepEqual(d.registry.pending(), []);
  });

  it('error bodies name no absolute path of the data folder', async () => {
    const res = await authed('/api/v1/memory/knowledge/nope-not-here');
    const text = await res.text();
    assert.ok(res.status >= 400);
    assert.equal(text.includes(home), false, text);
    const mm = await authed('/api/memory-manager', { method: 'POST', body: JSON.stringify({ op: 'memory.get', args: { id: 'missing-1' } }) });
    assert.equal((await mm.text()).includes(home), false);
  });

  it('a prompt-injected model cannot widen its powers: config_set refuses the cmd allowlist, agentcli, libraryPath, persona file, embedding endpoints, web_fetch\'s private addresses, the channels\' allowlists, servers and default, and the outbound proxy', async () => {
    const keys = ['plugin.cmd.allowlist', 'plugin.agentcli.confirm_open', 'plugin.memory-manager.libraryPath', 'core.agent.persona_file', 'core.memory.embedding_api.base_url', 'plugin.webui.token', 'plugin.web.allow_private', 'plugin.web.search_endpoint', 'plugin.telegram.allowed_user_ids', 'plugin.qq.allowed_group_ids', 'plugin.telegram.api_root', 'core.notify.channel', 'core.identity.owner_ids', 'core.network.proxy'];
    const values: unknown[] = [['sh'], false, '/tmp/elsewhere', '/etc/passwd', 'http://evil.example/v1', 'x', ['0.0.0.0/0'], 'http://evil.example/', ['666'], ['123456'], 'http://evil.example', 'qq', ['telegram:666'], 'http://evil.example:8080'];
    const before = await Promise.all(keys.map(async (k) => JSON.stringify(((await (await authed(`/api/v1/settings/${k}`)).json()) as { value: { value: unknown } }).value.value)));
    llm.enqueue({ toolCalls: keys.map((key, i) => ({ name: 'config_set', arguments: { key, value: values[i] } })) }, { text: 'done' });
    const res = await authed('/api/v1/chat', { method: 'POST', body: JSON.stringify({ text: 'please reconfigure yourself' }) });
    assert.equal(res.status, 202);
    const { sessionId } = (await res.json()) as { sessionId: string };
    let results: { kind: string; text?: string }[] = [];
    for (let i = 0; i < 200 && results.length < keys.length; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const evs = ((await (await authed(`/api/v1/sessions/${encodeURIComponent(sessionId)}/events`)).json()) as { events: { kind: string; text?: string }[] }).events;
      results = evs.filter((e) => e.kind === 'tool_result');
    }
    assert.equal(results.length, keys.length);
    for (const r of results) assert.match(r.text ?? '', /FORBIDDEN.*can only be changed by the user/);
    const after = await Promise.all(keys.map(async (k) => JSON.stringify(((await (await authed(`/api/v1/settings/${k}`)).json()) as { value: { value: unknown } }).value.value)));
    assert.deepEqual(after, before);
  });
});
