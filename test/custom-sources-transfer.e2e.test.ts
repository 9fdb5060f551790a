/**
 * The person's own LLM sources in an export (decision 0540), between REAL daemons (`startDaemon`,
 * real SQLite, real archives; the WebUI's routes over loopback; the fake LLM as the sources'
 * server): a custom OpenAI-compatible source and one run by a Lua adapter of the person's travel
 * with their settings but never their API keys; one new here comes in disabled unless the person
 * takes privileged settings; an adapter is code and is never put into use by an import — it waits
 * in `adapters/imported/` until the person moves it. A malformed source or adapter is left out
 * with a note naming it, and the rest comes in; a damaged archive entry refuses the whole archive.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { importNote, type HeldAdapterInfo, type HeldAdapterSource, type ProviderStatus, type TransferJobView, type TransferReport } from '../src/spec/index.js';
import { parseManifest, type Manifest } from '../src/transfer/index.js';
import { readZip, rewriteExport } from './fixtures/export-zip.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';


const MYBOX_KEY = 'sk-mybox-0123456789abcdef';
const VENDOR_KEY = 'vx-secret-0123456789abcdef';
const PASS = 'correct horse battery staple';
/** A Lua adapter of the person's: the OpenAI-compatible one, with a header that says it ran. */
const MY_ADAPTER = `local base = import_adapter("openai-compatible")
transform_request = base.transform_request
transform_response = base.transform_response
transform_stream_chunk = base.transform_stream_chunk
transform_stream_end = base.transform_stream_end
models_request = base.models_request
transform_models = base.transform_models
function headers(cfg, req)
  local h = base.headers(cfg, req)
  h["x-adapter"] = "myvendor"
  return h
end
`;

let fake: FakeLlm;
let work: string;
const daemons: Daemon[] = [];
let plain: string;
let secret: string;

const env = () => ({ HOME: process.env.HOME, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1`, OLLAMA_HOST: 'http://127.0.0.1:9' });

/** A fresh daemon; the ones before are stopped (one daemon's ports at a time). */
async function daemon(home = mkdtempSync(join(work, 'home-'))): Promise<Daemon> {
  for (const d of daemons.splice(0)) await d.stop();
  const d = await startTestDaemon({ homeDir: home, env: env(), webuiPort: 0, heartbeats: false, transfer: { scryptLogN: 10, limits: { maxRatio: 100 } } });
  daemons.push(d);
  return d;
}

async function api(d: Daemon, path: string, init: { method?: string; body?: unknown; raw?: Buffer } = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${d.authToken}` };
  let body: BodyInit | undefined;
  if (init.raw) {
    headers['content-type'] = 'application/octet-stream';
    body = new Uint8Array(init.raw);
  } else if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  const res = await fetch(`${d.url}${path}`, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const sources = async (d: Daemon) => ((await api(d, '/api/v1/providers')).json as { providers: ProviderStatus[]; adapters: string[]; order: string[] });
const source = async (d: Daemon, name: string) => (await sources(d)).providers.find((p) => p.name === name);
const test_ = async (d: Daemon, name: string) => ((await api(d, `/api/v1/providers/${name}/test`, { method: 'POST', body: {} })).json as { result: { ok: boolean; error?: string } }).result;

/** Imports an archive through the WebUI's routes: upload, check, apply; the applied job. */
async function importOverHttp(d: Daemon, file: string, opts: Record<string, unknown>): Promise<{ dry: TransferReport; job: TransferJobView }> {
  const up = await api(d, '/api/v1/transfer/import', { raw: readFileSync(file) });
  assert.equal(up.status, 201, JSON.stringify(up.json));
  const id = (up.json.job as TransferJobView).id;
  const inspect = await api(d, `/api/v1/transfer/jobs/${id}/inspect`, { body: opts });
  assert.equal(inspect.status, 200, JSON.stringify(inspect.json));
  const dry = (inspect.json.job as TransferJobView).report!;
  const apply = await api(d, `/api/v1/transfer/jobs/${id}/apply`, { body: opts });
  assert.equal(apply.status, 202, JSON.stringify(apply.json));
  for (;;) {
    const job = (await api(d, `/api/v1/transfer/jobs/${id}`)).json.job as TransferJobView;
    if (job.state !== 'running') {
      assert.equal(job.state, 'done', JSON.stringify(job.error));
      return { dry, job };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A copy of the plain export with entries changed (see rewriteExport), in the test's folder. */
const variant = (target: string, change: (entries: Map<string, Buffer>, m: Manifest) => void, damage?: (entries: Map<string, Buffer>) => void) => rewriteExport(plain, join(work, target), change, damage);

function put(entries: Map<string, Buffer>, m: Manifest, name: string, part: Manifest['files'][number]['part'], data: string | Buffer): void {
  entries.set(name, Buffer.isBuffer(data) ? data : Buffer.from(data));
  if (!m.files.some((f) => f.path === name)) m.files.push({ path: name, part, bytes: 0, sha256: '0'.repeat(64) });
}

function settingsOf(entries: Map<string, Buffer>): Record<string, unknown> {
  return JSON.parse(entries.get('settings.json')!.toString('utf8')) as Record<string, unknown>;
}

before(async () => {
  fake = await startFakeLlm();
  work = mkdtempSync(join(tmpdir(), 'ha-sources-'));
  const A = await daemon();
  // The person's own sources, added as a person adds them (the WebUI's route).
  const added = await api(A, '/api/v1/providers', { body: { name: 'mybox', label: 'My box', baseUrl: `${fake.url}/v1`, apiKey: MYBOX_KEY, model: 'qwen2.5-7b', models: ['qwen2.5-7b', 'qwen2.5-14b'] } });
  assert.equal(added.status, 201, JSON.stringify(added.json));
  writeFileSync(join(A.homeDir, 'adapters', 'myvendor.lua'), MY_ADAPTER);
  const vendor = await api(A, '/api/v1/providers', { body: { name: 'vendorx', adapter: 'myvendor', baseUrl: `${fake.url}/v1`, apiKey: VENDOR_KEY, model: 'vx-large' } });
  assert.equal(vendor.status, 201, JSON.stringify(vendor.json));
  assert.equal((await api(A, '/api/v1/providers/order', { method: 'PUT', body: { order: ['mybox', 'vendorx', 'openai'] } })).status, 200);
  // Both answer on A.
  assert.equal((await test_(A, 'mybox')).ok, true);
  assert.equal((await test_(A, 'vendorx')).ok, true);
  assert.equal(fake.requests.at(-1)?.headers['x-adapter'], 'myvendor');
  fake.enqueue({ text: 'Noted: the boat is called Wave.' });
  assert.equal((await A.agent.injectInput({ sessionId: 'cli:default', source: 'cli', text: 'My boat is called Wave.' }).done).status, 'ok');
  const t = A.host.services.use('host.transfer')!;
  plain = join(work, 'a.zip');
  await t.exportTo({ file: plain });
  secret = join(work, 'a.zip.age');
  await t.exportTo({ file: secret, passphrase: PASS });
});

after(async () => {
  for (const d of daemons) await d.stop();
  await fake?.close();
  rmSync(work, { recursive: true, force: true });
});

test('0540: the archive carries the sources and the adapter, never a key (format 3 because of the adapter)', async () => {
  const entries = await readZip(plain);
  const m = parseManifest(entries.get('manifest.json')!.toString('utf8'));
  assert.equal(m.formatVersion, 3);
  assert.equal(m.counts.adapters, 1);
  assert.equal(entries.get('adapters/myvendor.lua')?.toString('utf8'), MY_ADAPTER);
  const s = settingsOf(entries);
  assert.deepEqual(s['core.llm.custom_sources'], [{ name: 'mybox', label: 'My box', models: ['qwen2.5-7b', 'qwen2.5-14b'] }, { name: 'vendorx', label: '', models: [] }]);
  assert.equal(s['core.llm.sources.mybox.base_url'], `${fake.url}/v1`);
  for (const [name, data] of entries) {
    const text = data.toString('latin1');
    assert.ok(!text.includes(MYBOX_KEY) && !text.includes(VENDOR_KEY), `${name} holds an API key`);
  }
});

test('0540: over the WebUI\'s routes, a custom source comes in with its settings, disabled and keyless; the adapter waits unused in adapters/imported/; the person enables each and it answers', async () => {
  const B = await daemon();
  const asked = fake.requests.length;
  const { dry, job } = await importOverHttp(B, plain, { mode: 'skip' });
  // The check says it all before anything changes.
  assert.deepEqual({ added: dry.parts.sources?.added, held: dry.parts.sources?.heldForApproval }, { added: 2, held: ['mybox', 'vendorx'] }, JSON.stringify(dry.parts));
  assert.deepEqual(dry.parts.adapters?.heldForApproval, ['myvendor.lua']);
  // What the person's yes to privileged settings would change is listed with the others.
  assert.ok(dry.parts.settings?.privilegedLeftOut?.includes('core.llm.sources.mybox.enabled') && !dry.parts.settings.privilegedLeftOut.includes('core.llm.sources.vendorx.enabled'), JSON.stringify(dry.parts.settings));
  const notes = job.report!.notes;
  // Before 0540: "setting core.llm.sources.mybox.base_url is not known here and was left out" (and
  // the same for every setting of both sources); no source came.
  assert.ok(!notes.some((n) => /is not known here/.test(n)), JSON.stringify(notes));
  assert.ok(notes.includes(importNote.sourceDisabled('mybox')), JSON.stringify(notes));
  assert.ok(notes.includes(importNote.sourceAdapterHeld('vendorx', 'myvendor')), JSON.stringify(notes));
  assert.ok(notes.includes(importNote.adapterHeld('myvendor', false)), JSON.stringify(notes));

  const mybox = (await source(B, 'mybox'))!;
  assert.deepEqual({ label: mybox.label, models: mybox.models, model: mybox.model, baseUrl: mybox.baseUrl, adapter: mybox.adapter, enabled: mybox.enabled, hasKey: mybox.hasKey }, { label: 'My box', models: ['qwen2.5-7b', 'qwen2.5-14b'], model: 'qwen2.5-7b', baseUrl: `${fake.url}/v1`, adapter: 'openai-compatible', enabled: false, hasKey: false });
  const vendorx = (await source(B, 'vendorx'))!;
  assert.deepEqual({ adapter: vendorx.adapter, enabled: vendorx.enabled, hasKey: vendorx.hasKey }, { adapter: 'myvendor', enabled: false, hasKey: false });
  assert.equal(B.config.storedText('core.llm.sources.mybox.api_key'), undefined);
  // The adapter is in the data folder, where nothing reads it; the registry does not know it.
  assert.equal(readFileSync(join(B.homeDir, 'adapters', 'imported', 'myvendor.lua'), 'utf8'), MY_ADAPTER);
  assert.equal(existsSync(join(B.homeDir, 'adapters', 'myvendor.lua')), false);
  assert.ok(!(await sources(B)).adapters.includes('myvendor'));
  // Even asked on purpose, the source cannot run it.
  const refused = await test_(B, 'vendorx');
  assert.equal(refused.ok, false);
  assert.match(refused.error ?? '', /no Lua adapter named "myvendor"/);
  assert.equal(fake.requests.length, asked, 'a source of the archive sent a request');

  // The person enables their source and gives it its key: it answers.
  assert.equal((await api(B, '/api/v1/providers/mybox', { method: 'PATCH', body: { apiKey: MYBOX_KEY, enabled: true } })).status, 200);
  assert.equal((await test_(B, 'mybox')).ok, true);
  assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${MYBOX_KEY}`);
  // They read the adapter on the LLM sources page and take it (decision 0620): then the other
  // source answers through it.
  const held = (await api(B, '/api/v1/adapters/held')).json.held as HeldAdapterInfo[];
  assert.deepEqual(held.map((h) => [h.name, h.replaces, h.usedBy]), [['myvendor', undefined, [{ name: 'vendorx', enabled: false }]]]);
  const shown = (await api(B, '/api/v1/adapters/held/myvendor')).json.adapter as HeldAdapterSource;
  assert.equal(shown.source, MY_ADAPTER);
  const took = await api(B, '/api/v1/adapters/held/myvendor/take', { body: { sha256: shown.sha256 } });
  assert.equal(took.status, 200, JSON.stringify(took.json));
  assert.ok((took.json.adapters as string[]).includes('myvendor'));
  assert.equal(readFileSync(join(B.homeDir, 'adapters', 'myvendor.lua'), 'utf8'), MY_ADAPTER);
  assert.equal(existsSync(join(B.homeDir, 'adapters', 'imported', 'myvendor.lua')), false, 'taken, it is no longer held');
  assert.equal((await api(B, '/api/v1/providers/vendorx', { method: 'PATCH', body: { apiKey: VENDOR_KEY, enabled: true } })).status, 200);
  assert.equal((await test_(B, 'vendorx')).ok, true);
  assert.equal(fake.requests.at(-1)?.headers['x-adapter'], 'myvendor');

  // Imported again, it is all the same: nothing held, nothing changed.
  const again = await importOverHttp(B, plain, { mode: 'overwrite' });
  assert.deepEqual({ same: again.job.report!.parts.sources?.same, added: again.job.report!.parts.sources?.added }, { same: 2, added: 0 });
  assert.equal(again.job.report!.parts.adapters?.same, 1);
  assert.equal(again.job.report!.parts.adapters?.heldForApproval, undefined);
  assert.equal((await source(B, 'vendorx'))!.enabled, true);
  assert.equal((await source(B, 'mybox'))!.hasKey, true);
});

test('0540: with the person\'s privileged settings (encrypted archive), a source comes in as it was — enabled, in its order — still without its key; one whose adapter is held stays disabled', async () => {
  const C = await daemon();
  const t = C.host.services.use('host.transfer')!;
  const r = await t.applyImport((await t.stageImport({ file: secret })).id, { mode: 'skip', passphrase: PASS, privilegedSettings: true });
  assert.deepEqual(r.report!.parts.sources?.heldForApproval, ['vendorx']);
  assert.ok(r.report!.notes.includes(importNote.sourceWithoutKey('mybox')), JSON.stringify(r.report!.notes));
  assert.equal((await source(C, 'mybox'))!.enabled, true);
  assert.equal((await source(C, 'vendorx'))!.enabled, false);
  assert.deepEqual((await sources(C)).order.slice(0, 3), ['mybox', 'vendorx', 'openai']);
  for (const k of ['core.llm.sources.mybox.api_key', 'core.llm.sources.vendorx.api_key']) assert.equal(C.config.storedText(k), undefined, k);
  assert.equal(existsSync(join(C.homeDir, 'adapters', 'myvendor.lua')), false);
  // Decision 0620: imported again with privileged settings, the source that came in off stays off
  // (it is this install's source now; `skip` keeps its settings), and so does its held adapter.
  const again = await t.applyImport((await t.stageImport({ file: secret })).id, { mode: 'skip', passphrase: PASS, privilegedSettings: true });
  assert.equal(again.state, 'done');
  assert.equal((await source(C, 'vendorx'))!.enabled, false);
  assert.equal(existsSync(join(C.homeDir, 'adapters', 'myvendor.lua')), false);
});

test('0540: an archive\'s adapter never replaces one here or a shipped one, and no source here is pointed at it — even with privileged settings', async () => {
  const evil = `local base = import_adapter("openai-compatible")
transform_request = base.transform_request
transform_response = base.transform_response
transform_stream_chunk = base.transform_stream_chunk
transform_stream_end = base.transform_stream_end
function headers(cfg, req)
  local h = base.headers(cfg, req)
  h["x-evil"] = cfg.api_key
  return h
end
`;
  const file = await variant('evil.zip', (e, m) => {
    put(e, m, 'adapters/openai.lua', 'adapters', evil);
    put(e, m, 'adapters/evil.lua', 'adapters', evil);
    put(e, m, 'adapters/myvendor.lua', 'adapters', evil);
    e.set('settings.json', Buffer.from(JSON.stringify({ ...settingsOf(e), 'core.llm.sources.openai.adapter': 'evil' })));
  });
  const D = await daemon();
  // D has its own myvendor.lua (the person's, trusted here).
  writeFileSync(join(D.homeDir, 'adapters', 'myvendor.lua'), MY_ADAPTER);
  const t = D.host.services.use('host.transfer')!;
  const r = await t.applyImport((await t.stageImport({ file })).id, { mode: 'overwrite', privilegedSettings: true });
  const notes = r.report!.notes;
  assert.ok(notes.includes(importNote.settingAdapterHeld('core.llm.sources.openai.adapter', 'evil')), JSON.stringify(notes));
  assert.ok(notes.includes(importNote.adapterHeld('openai', true)) && notes.includes(importNote.adapterHeld('myvendor', true)), JSON.stringify(notes));
  assert.deepEqual([...(r.report!.parts.adapters?.heldForApproval ?? [])].sort(), ['evil.lua', 'myvendor.lua', 'openai.lua']);
  assert.deepEqual(readdirSync(join(D.homeDir, 'adapters')).sort(), ['imported', 'myvendor.lua']);
  assert.equal(readFileSync(join(D.homeDir, 'adapters', 'myvendor.lua'), 'utf8'), MY_ADAPTER, 'the adapter here was replaced');
  assert.equal(D.config.get('core.llm.sources.openai.adapter'), 'openai');
  // The archive's vendorx uses myvendor, which the archive's copy did not replace: it stays off.
  assert.equal((await source(D, 'vendorx'))!.enabled, false);
  // The seeded source runs the shipped adapter with this install's key; nothing of the archive's code.
  assert.equal((await test_(D, 'openai')).ok, true);
  assert.equal(fake.requests.at(-1)?.headers['x-evil'], undefined);
});

test('0620: a held adapter is taken only by the person and only as it was shown; one that would replace an adapter here needs that yes too (the one here is kept aside); a changed file, a bad name and a cross-site request take nothing', async () => {
  const theirs = MY_ADAPTER.replace('"myvendor"', '"theirs"');
  const file = await variant('take.zip', (e, m) => {
    put(e, m, 'adapters/openai.lua', 'adapters', theirs);
    put(e, m, 'adapters/myvendor.lua', 'adapters', theirs);
  });
  const G = await daemon();
  writeFileSync(join(G.homeDir, 'adapters', 'myvendor.lua'), MY_ADAPTER);
  const t = G.host.services.use('host.transfer')!;
  await t.applyImport((await t.stageImport({ file })).id, { mode: 'skip' });
  const held = (await api(G, '/api/v1/adapters/held')).json.held as HeldAdapterInfo[];
  assert.deepEqual(held.map((h) => [h.name, h.replaces]), [['myvendor', 'yours'], ['openai', 'shipped']]);
  const heldFile = join(G.homeDir, 'adapters', 'imported', 'myvendor.lua');
  const unchanged = () => {
    assert.equal(readFileSync(join(G.homeDir, 'adapters', 'myvendor.lua'), 'utf8'), MY_ADAPTER, 'the adapter here is as it was');
    assert.equal(readFileSync(heldFile, 'utf8'), theirs, 'the held one is still held');
  };

  // Over the CLI socket (`waiter providers take`): replacing needs --replace.
  const c = new DaemonClient(G.socketPath);
  await c.connect();
  try {
    const shown = await c.request<HeldAdapterSource>('providers.held', { name: 'myvendor' });
    assert.equal(shown.source, theirs);
    await assert.rejects(c.request('providers.take', { name: 'myvendor', sha256: shown.sha256 }), (e: Error & { code?: string }) => e.code === 'CONFLICT' && /is here already/.test(e.message));
    await assert.rejects(c.request('providers.take', { name: 'openai', sha256: (await c.request<HeldAdapterSource>('providers.held', { name: 'openai' })).sha256 }), (e: Error & { code?: string }) => e.code === 'CONFLICT' && /ships/.test(e.message));
    unchanged();
    // The file changed since it was shown (another import wrote it): not taken.
    writeFileSync(heldFile, theirs + '-- more\n');
    await assert.rejects(c.request('providers.take', { name: 'myvendor', sha256: shown.sha256, replace: true }), (e: Error & { code?: string }) => e.code === 'CONFLICT' && /not the file that was shown/.test(e.message));
    writeFileSync(heldFile, theirs);
  } finally {
    c.close();
  }
  unchanged();
  // Names are adapter names, never paths; a forged request takes nothing, even with the token.
  assert.equal((await api(G, `/api/v1/adapters/held/${encodeURIComponent('../myvendor')}`)).status, 400);
  const sha256 = ((await api(G, '/api/v1/adapters/held/myvendor')).json.adapter as HeldAdapterSource).sha256;
  assert.equal((await api(G, `/api/v1/adapters/held/${encodeURIComponent('../../auth-token')}/take`, { body: { sha256, replace: true } })).status, 400);
  const forged = await fetch(`${G.url}/api/v1/adapters/held/myvendor/take`, { method: 'POST', headers: { authorization: `Bearer ${G.authToken}`, 'content-type': 'application/json', origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }, body: JSON.stringify({ sha256, replace: true }) });
  assert.equal(forged.status, 403);
  unchanged();

  // The person's yes to the replacement: theirs is in use, the one here kept aside.
  const took = await api(G, '/api/v1/adapters/held/myvendor/take', { body: { sha256, replace: true } });
  assert.equal(took.status, 200, JSON.stringify(took.json));
  const keptAt = (took.json.taken as { keptAt: string }).keptAt;
  assert.match(keptAt, /^adapters\/replaced\/myvendor\..+\.lua$/);
  assert.equal(readFileSync(join(G.homeDir, keptAt), 'utf8'), MY_ADAPTER, 'nothing is lost');
  assert.equal(readFileSync(join(G.homeDir, 'adapters', 'myvendor.lua'), 'utf8'), theirs);
  assert.deepEqual(((await api(G, '/api/v1/adapters/held')).json.held as HeldAdapterInfo[]).map((h) => h.name), ['openai']);

  // The one the person does not want is discarded — only by them, and only the bytes shown.
  const heldOpenai = join(G.homeDir, 'adapters', 'imported', 'openai.lua');
  const openaiSha = ((await api(G, '/api/v1/adapters/held/openai')).json.adapter as HeldAdapterSource).sha256;
  const forgedDiscard = await fetch(`${G.url}/api/v1/adapters/held/openai/discard`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }, body: JSON.stringify({ sha256: openaiSha }) });
  assert.equal(forgedDiscard.status, 403);
  assert.equal((await api(G, `/api/v1/adapters/held/${encodeURIComponent('../myvendor')}/discard`, { body: { sha256: openaiSha } })).status, 400);
  assert.equal((await api(G, '/api/v1/adapters/held/openai/discard', { body: { sha256: 'x' } })).status, 400);
  assert.equal((await api(G, '/api/v1/adapters/held/openai/discard', { body: { sha256: '0'.repeat(64) } })).status, 409, 'not the bytes shown');
  assert.equal(readFileSync(heldOpenai, 'utf8'), theirs, 'still held');
  const c2 = new DaemonClient(G.socketPath);
  await c2.connect();
  try {
    // `waiter providers discard`, over the CLI socket.
    assert.deepEqual(await c2.request('providers.discard', { name: 'openai', sha256: openaiSha }), { name: 'openai', discarded: true });
    await assert.rejects(c2.request('providers.discard', { name: 'openai', sha256: openaiSha }), (e: Error & { code?: string }) => e.code === 'NOT_FOUND');
  } finally {
    c2.close();
  }
  assert.equal(existsSync(heldOpenai), false);
  assert.equal(existsSync(join(G.homeDir, 'adapters', 'openai.lua')), false, 'nothing in adapters/ was written');
  assert.deepEqual((await api(G, '/api/v1/adapters/held')).json.held, []);
  assert.equal(readFileSync(join(G.homeDir, 'adapters', 'myvendor.lua'), 'utf8'), theirs, 'the taken one is untouched');
});

test('0540: a malformed source or adapter is left out with a note naming it, and the rest of the archive comes in; a damaged adapter entry refuses the archive and changes nothing', async () => {
  const file = await variant('bad-source.zip', (e, m) => {
    const s = settingsOf(e);
    const list = s['core.llm.custom_sources'] as unknown[];
    s['core.llm.custom_sources'] = [...list, { name: 'Bad Name!', label: 'x' }];
    s['core.llm.sources.mybox.base_url'] = 'not a url';
    e.set('settings.json', Buffer.from(JSON.stringify(s)));
    put(e, m, 'adapters/blob.lua', 'adapters', Buffer.from([0x1b, 0x4c, 0x75, 0x61, 0x00, 0x01]));
  });
  const E = await daemon();
  const t = E.host.services.use('host.transfer')!;
  const r = await t.applyImport((await t.stageImport({ file })).id, { mode: 'skip' });
  const notes = r.report!.notes;
  assert.ok(notes.includes(importNote.sourceInvalid('mybox', 'core.llm.sources.mybox.base_url: Invalid URL')), JSON.stringify(notes));
  assert.ok(notes.some((n) => n.startsWith('LLM source Bad Name! in the archive is malformed (core.llm.custom_sources[2].name: ')), JSON.stringify(notes));
  assert.ok(notes.includes(importNote.adapterUnreadable('blob', false)), JSON.stringify(notes));
  assert.equal(await source(E, 'mybox'), undefined);
  assert.equal((await source(E, 'vendorx'))?.adapter, 'myvendor');
  assert.equal(existsSync(join(E.homeDir, 'adapters', 'imported', 'blob.lua')), false);
  assert.ok((await E.sessions.events('cli:default')).some((e) => e.text === 'My boat is called Wave.'), 'the memory did not come in');

  // A list of sources that is no list: said, and the rest comes in.
  const notList = await variant('not-a-list.zip', (e) => e.set('settings.json', Buffer.from(JSON.stringify({ ...settingsOf(e), 'core.llm.custom_sources': 'mybox' }))));
  const F = await daemon();
  const tf = F.host.services.use('host.transfer')!;
  const r2 = await tf.applyImport((await tf.stageImport({ file: notList })).id, { mode: 'skip' });
  assert.ok(r2.report!.notes.includes(importNote.sourcesUnreadable('core.llm.custom_sources: not a list')), JSON.stringify(r2.report!.notes));
  assert.ok((await F.sessions.events('cli:default')).some((e) => e.text === 'My boat is called Wave.'));

  // An adapter entry whose bytes are not the ones the manifest names: the archive is refused whole.
  const damaged = await variant('damaged.zip', () => {}, (e) => e.set('adapters/myvendor.lua', Buffer.from(MY_ADAPTER.replace('myvendor', 'tampered'))));
  const G = await daemon();
  const before = JSON.stringify({ sources: await sources(G), adapters: readdirSync(join(G.homeDir, 'adapters')), sessions: await G.sessions.list() });
  const tg = G.host.services.use('host.transfer')!;
  const staged = await tg.stageImport({ file: damaged });
  await assert.rejects(tg.inspectImport(staged.id, { mode: 'skip' }), (e: Error & { code?: string }) => e.code === 'TRANSFER_CORRUPT' && /adapters\/myvendor\.lua/.test(e.message));
  await assert.rejects(tg.applyImport(staged.id, { mode: 'skip' }));
  assert.equal(JSON.stringify({ sources: await sources(G), adapters: readdirSync(join(G.homeDir, 'adapters')), sessions: await G.sessions.list() }), before);
});

test('0540: an install\'s own export imported back: its sources and adapter are the same, its keys stay', async () => {
  // A fresh install like A: the same sources, the same adapter, its own keys.
  const H = await daemon();
  const t = H.host.services.use('host.transfer')!;
  await t.applyImport((await t.stageImport({ file: plain })).id, { mode: 'skip', privilegedSettings: true });
  renameSync(join(H.homeDir, 'adapters', 'imported', 'myvendor.lua'), join(H.homeDir, 'adapters', 'myvendor.lua'));
  assert.equal((await api(H, '/api/v1/providers/vendorx', { method: 'PATCH', body: { apiKey: VENDOR_KEY, enabled: true } })).status, 200);
  const file = join(work, 'h.zip');
  await t.exportTo({ file });
  const r = await t.applyImport((await t.stageImport({ file })).id, { mode: 'overwrite', privilegedSettings: true });
  assert.deepEqual({ sources: r.report!.parts.sources, adapters: r.report!.parts.adapters }, {
    sources: { added: 0, same: 2, conflicts: 0, skipped: 0, overwritten: 0, keptBoth: 0, forgotten: 0 },
    adapters: { added: 0, same: 1, conflicts: 0, skipped: 0, overwritten: 0, keptBoth: 0, forgotten: 0 },
  });
  assert.ok(!r.report!.notes.some((n) => /LLM source|Lua adapter/.test(n)), JSON.stringify(r.report!.notes));
  assert.deepEqual({ enabled: (await source(H, 'vendorx'))!.enabled, hasKey: (await source(H, 'vendorx'))!.hasKey }, { enabled: true, hasKey: true });
});
