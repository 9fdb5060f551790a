/**
 * Everyday use through `waiter` and the HTTP API on a real in-process daemon (issue 14): exit
 * codes per SPEC §8, the person's own LLM sources (add, list, test, models, order, remove),
 * session titles from the first message, `library summarize --last N`, the M-11 probe.
 * The LLM is the fake server over loopback.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { main } from '../src/waiter/main.js';

let fake: FakeLlm;
let d: Daemon;
let home: string;
const KEY = 'sk-everyday-SECRET-424242';

before(async () => {
  fake = await startFakeLlm();
  home = mkdtempSync(join(tmpdir(), 'ha-everyday-'));
  d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, HOME: process.env.HOME, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
});
after(async () => {
  await d.stop();
  await fake.close();
  rmSync(home, { recursive: true, force: true });
});

/** Runs `waiter --home <home> …args` in process: exit code and what it printed. */
async function waiter(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  try {
    const code = await main(['node', 'waiter', '--home', home, ...args], { out: (t) => void (out += t), err: (t) => void (err += t) });
    return { code, out, err };
  } finally {
    process.exitCode = undefined;
  }
}

test('§8 exit codes: no LLM source, an unknown source, a failing test, a bad flag', async () => {
  const sent = await waiter('send', '--no-stream', '-s', 'cli:nokey', 'hello');
  assert.equal(sent.code, 1, 'a reply that could not be produced is a failure');
  assert.match(sent.out, /OPENAI_API_KEY|waiter providers add/);
  assert.doesNotMatch(sent.out + sent.err, /at .*\.[jt]s:\d+/, 'no stack trace');

  const unknown = await waiter('providers', 'test', 'no-such-source');
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /LLM source not found: no-such-source/);
  const failing = await waiter('--json', 'providers', 'test', 'openai');
  assert.equal(failing.code, 1, 'ok:false is a failure');
  assert.equal(JSON.parse(failing.out).ok, false);
  // No key: said plainly, not as the DNS failure of a request that should not have been made.
  assert.equal(JSON.parse(failing.out).code, 'PROVIDER_NO_KEY');
  const noKeyModels = await waiter('providers', 'models', 'openai');
  assert.equal(noKeyModels.code, 1);
  assert.equal(noKeyModels.err, 'waiter: openai has no API key: add one in the WebUI (Settings → LLM providers) or with `waiter providers update openai --key-stdin`\n');

  const bad = await waiter('library', 'summarize', 'cli:nokey', '--last', 'three');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--last takes a whole number/);
  // Too many, or not a number at all: a usage error naming the flag and its range, not zod's words
  // nor a silent default (found by a new-user walk).
  const huge = await waiter('library', 'summarize', 'cli:nokey', '--last', '99999999999');
  assert.equal(huge.code, 2);
  assert.match(huge.err, /--last takes a whole number from 1 to 10000, not "99999999999"/);
  const history = await waiter('memory', 'history', '--limit', 'abc');
  assert.equal(history.code, 2);
  assert.match(history.err, /--limit takes a whole number from 1 to 1000, not "abc"/);
});

test('waiter providers add / list / models / test / order / remove; the chat uses the added source; the key never shows', async () => {
  process.env.HA_TEST_KEY = KEY;
  try {
    const add = await waiter('--json', 'providers', 'add', 'homelab', '--base-url', `${fake.url}/v1`, '--key-env', 'HA_TEST_KEY', '--model', 'fake-model', '--label', 'Home lab', '--models', 'fake-model,fake-large');
    assert.equal(add.code, 0, add.err);
    const added = JSON.parse(add.out);
    assert.equal(added.name, 'homelab');
    assert.equal(added.hasKey, true);
    assert.equal(added.custom, true);
    assert.doesNotMatch(add.out, new RegExp(KEY));
  } finally {
    delete process.env.HA_TEST_KEY;
  }
  const list = await waiter('providers', 'list');
  assert.equal(list.code, 0);
  assert.match(list.out, /homelab/);
  const cfg = await waiter('config', 'list', 'core.llm.sources.homelab');
  assert.doesNotMatch(list.out + cfg.out, new RegExp(KEY), 'masked everywhere');
  assert.match(cfg.out, /••••4242/);

  fake.setModels(['fake-model', 'fake-large', 'fake-mini']);
  const models = await waiter('--json', 'providers', 'models', 'homelab');
  assert.equal(models.code, 0, models.err);
  assert.deepEqual(JSON.parse(models.out).models, ['fake-large', 'fake-mini', 'fake-model']);

  const tested = await waiter('providers', 'test', 'homelab');
  assert.equal(tested.code, 0, tested.out + tested.err);
  const order = await waiter('--json', 'providers', 'order', 'homelab');
  assert.equal(JSON.parse(order.out)[0], 'homelab');

  // A session started from waiter is named after its first message.
  fake.enqueue({ text: 'Kyoto in spring: go early for the temples.' });
  const sent = await waiter('send', '--no-stream', '-s', 'cli:trip', 'Plan my trip to Kyoto next spring, with temples and gardens please');
  assert.equal(sent.code, 0, sent.err);
  assert.match(sent.out, /Kyoto in spring/);
  assert.equal(fake.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)?.headers.authorization, `Bearer ${KEY}`);
  const sessions = await waiter('--json', 'sessions');
  const trip = (JSON.parse(sessions.out) as { id: string; title: string }[]).find((s) => s.id === 'cli:trip');
  assert.equal(trip?.title, 'Plan my trip to Kyoto next spring, with…');

  const dup = await waiter('providers', 'add', 'homelab', '--base-url', `${fake.url}/v1`);
  assert.equal(dup.code, 1);
  assert.match(dup.err, /already exists/);
  // Without --base-url: a usage error that names the flag (it was zod's "expected string, received undefined").
  const noUrl = await waiter('providers', 'add', 'nourl');
  assert.equal(noUrl.code, 2);
  assert.match(noUrl.err, /--base-url/);
  const removeSeeded = await waiter('providers', 'remove', 'openai');
  assert.equal(removeSeeded.code, 1);
  assert.match(removeSeeded.err, /built-in/);

  const removed = await waiter('providers', 'remove', 'homelab');
  assert.equal(removed.code, 0, removed.err);
  const after = await waiter('--json', 'providers', 'list');
  assert.ok(!(JSON.parse(after.out) as { order: string[] }).order.includes('homelab'));
});

test('HTTP: POST/PATCH/DELETE /api/v1/providers and the model list, with coded errors', async () => {
  const url = d.url!;
  const auth = { authorization: `Bearer ${d.authToken}` };
  const post = (body: unknown) => fetch(`${url}/api/v1/providers`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) });
  const created = await post({ name: 'claude-proxy', api: 'anthropic', baseUrl: fake.url, apiKey: KEY, model: 'claude-x' });
  assert.equal(created.status, 201);
  const body = (await created.json()) as { source: { name: string; adapter: string; hasKey: boolean }; order: string[] };
  assert.equal(body.source.adapter, 'anthropic');
  assert.ok(body.order.includes('claude-proxy'));

  fake.setModels(['claude-x', 'claude-y']);
  const models = await fetch(`${url}/api/v1/providers/claude-proxy/models`, { headers: auth });
  assert.equal(models.status, 200);
  assert.deepEqual(((await models.json()) as { models: string[] }).models, ['claude-x', 'claude-y']);

  const patched = await fetch(`${url}/api/v1/providers/claude-proxy`, { method: 'PATCH', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ model: 'claude-y', enabled: false }) });
  assert.equal(patched.status, 200);
  const p = (await patched.json()) as { source: { model: string; enabled: boolean } };
  assert.deepEqual([p.source.model, p.source.enabled], ['claude-y', false]);

  const list = await (await fetch(`${url}/api/v1/providers`, { headers: auth })).text();
  assert.doesNotMatch(list, new RegExp(KEY));

  assert.equal((await post({ name: 'x y', baseUrl: 'https://a.example' })).status, 400);
  assert.equal((await post({ name: 'claude-proxy', baseUrl: 'https://a.example' })).status, 409);
  assert.equal((await post('not an object')).status, 400);
  assert.equal((await fetch(`${url}/api/v1/providers/nope/models`, { headers: auth })).status, 404);
  assert.equal((await fetch(`${url}/api/v1/providers/openai`, { method: 'DELETE', headers: auth })).status, 400);
  // The provider's API failing is a 502 with its error, not a 500.
  await post({ name: 'dead', baseUrl: `${fake.url}/no/such/path`, apiKey: KEY });
  const dead = await fetch(`${url}/api/v1/providers/dead/models`, { headers: auth });
  assert.equal(dead.status, 502);
  assert.doesNotMatch(await dead.text(), new RegExp(KEY));
  // A built-in source without a key (the WebUI's model picker before a key is entered): 409 with
  // the code and what to do, not a network error.
  const noKey = await fetch(`${url}/api/v1/providers/openai/models`, { headers: auth });
  assert.equal(noKey.status, 409);
  const noKeyBody = (await noKey.json()) as { error: { code: string; message: string } };
  assert.equal(noKeyBody.error.code, 'PROVIDER_NO_KEY');
  assert.match(noKeyBody.error.message, /^openai has no API key: add one in the WebUI \(Settings → LLM providers\) or with `waiter providers update openai --key-stdin`$/);

  assert.equal((await fetch(`${url}/api/v1/providers/claude-proxy`, { method: 'DELETE', headers: auth })).status, 200);
  assert.equal((await fetch(`${url}/api/v1/providers/claude-proxy/models`, { headers: auth })).status, 404);
  // Without the token, none of them (the local surface is locked, docs/security.md).
  assert.equal((await fetch(`${url}/api/v1/providers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 401);
});

test('waiter library summarize --last N summarizes only the last N turns; GET /api/memory-manager answers at the top level', async () => {
  await d.providers.addSource({ name: 'sumllm', baseUrl: `${fake.url}/v1`, apiKey: KEY, model: 'fake-model' });
  await d.providers.setOrder(['sumllm']);
  for (const [i, topic] of ['apples', 'bicycles', 'comets'].entries()) {
    fake.enqueue({ text: `noted ${i}` });
    const r = await waiter('send', '--no-stream', '-s', 'cli:sum', `tell me about ${topic}`);
    assert.equal(r.code, 0, r.err);
  }
  const before = fake.requests.length;
  fake.enqueue({ text: JSON.stringify({ user: 'asked about comets', thinking: 't', processing: 'p', result: 'r' }) });
  const s = await waiter('--json', 'library', 'summarize', 'cli:sum', '--last', '1');
  assert.equal(s.code, 0, s.err);
  const out = JSON.parse(s.out) as { count: number; summaries: { title: string }[] };
  assert.equal(out.count, 1);
  const asked = JSON.stringify(fake.requests.slice(before).map((r) => r.body));
  assert.match(asked, /comets/);
  assert.doesNotMatch(asked, /apples|bicycles/, 'earlier turns were not sent');
  assert.match(out.summaries[0].title, /轮次 3-3/);

  const probe = (await (await fetch(`${d.url}/api/memory-manager`, { headers: { authorization: `Bearer ${d.authToken}` } })).json()) as Record<string, unknown>;
  assert.deepEqual([probe.ok, probe.service, probe.enabled], [true, 'memory-manager', true]);
});

test('config set/reset of a key this run fixes (--port) stores the value and warns that it is not in effect; env values give way', async () => {
  // The daemon runs with webuiPort 0, as `homed --port 0` would.
  const set = await waiter('config', 'set', 'plugin.webui.port', '18952');
  assert.equal(set.code, 0, 'the value is stored');
  assert.match(set.out, /origin: override/);
  assert.doesNotMatch(set.out, /warning/, 'the warning goes to stderr, not into the printed setting');
  assert.equal(set.err, "waiter: warning: 18952 is stored, but it does not take effect now: this run's --port (0) overrides plugin.webui.port. It applies from the next start without --port.\n");
  const json = JSON.parse((await waiter('--json', 'config', 'set', 'plugin.webui.port', '18953')).out) as { value: number; origin: string; overriddenBy: string; warning: string };
  assert.deepEqual([json.value, json.origin, json.overriddenBy], [0, 'override', '--port']);
  assert.match(json.warning, /^18953 is stored, but it does not take effect now/);
  const reset = await waiter('config', 'reset', 'plugin.webui.port');
  assert.equal(reset.code, 0);
  assert.match(reset.err, /^waiter: warning: the stored value is removed, but it does not take effect now: this run's --port \(0\) overrides plugin\.webui\.port/);

  // A key whose value comes from an env var (OLLAMA_HOST): a stored value wins at once, no warning.
  const before = JSON.parse((await waiter('--json', 'config', 'get', 'core.llm.sources.ollama.base_url')).out) as { origin: string };
  assert.equal(before.origin, 'env');
  const envSet = await waiter('--json', 'config', 'set', 'core.llm.sources.ollama.base_url', 'http://127.0.0.1:10');
  assert.equal(envSet.code, 0);
  const after = JSON.parse(envSet.out) as { value: string; origin: string; warning?: string };
  assert.deepEqual([after.value, after.origin, after.warning], ['http://127.0.0.1:10', 'stored', undefined]);
  assert.equal(envSet.err, '');
  await waiter('config', 'reset', 'core.llm.sources.ollama.base_url');
});

test('an empty key from standard input or an empty variable changes nothing (usage error): it is a typo, not "remove the key" (found by a new-user walk)', async () => {
  process.env.HA_TEST_KEY2 = KEY;
  process.env.HA_EMPTY_KEY = '';
  try {
    const add = await waiter('--json', 'providers', 'add', 'keybox', '--base-url', `${fake.url}/v1`, '--key-env', 'HA_TEST_KEY2', '--model', 'fake-model');
    assert.equal(add.code, 0, add.err);
    const empty = await waiter('providers', 'update', 'keybox', '--key-env', 'HA_EMPTY_KEY');
    assert.equal(empty.code, 2);
    assert.match(empty.err, /HA_EMPTY_KEY is empty: no key was changed \(to remove the key, pass --key ""\)/);
  } finally {
    delete process.env.HA_TEST_KEY2;
    delete process.env.HA_EMPTY_KEY;
  }
  const { execFile } = await import('node:child_process');
  const viaStdin = await new Promise<{ status: number; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'src', 'waiter', 'main.ts'), '--home', home, 'providers', 'update', 'keybox', '--key-stdin'], { encoding: 'utf8', timeout: 30_000 }, (err, _out, stderr) =>
      resolve({ status: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stderr }),
    );
    child.stdin?.end('\n');
  });
  assert.equal(viaStdin.status, 2, viaStdin.stderr);
  assert.match(viaStdin.stderr, /no API key on standard input: no key was changed/);
  const hasKey = async () => (JSON.parse((await waiter('--json', 'providers', 'list')).out) as { sources: { name: string; hasKey: boolean }[] }).sources.find((p) => p.name === 'keybox')?.hasKey;
  assert.equal(await hasKey(), true, 'the stored key is still there');
  assert.equal((await waiter('providers', 'update', 'keybox', '--key', '')).code, 0, 'removing it is said so');
  assert.equal(await hasKey(), false);
});

test('waiter interrupt with nothing running says so and starts no turn (its answer would be shown nowhere) (found by a new-user walk)', async () => {
  const before = (await d.sessions.list()).find((s) => s.id === 'cli:idle');
  const r = await waiter('interrupt', '-s', 'cli:idle', 'stop');
  assert.notEqual(r.code, 0);
  assert.match(r.err, /nothing is running in cli:idle to interrupt: to send it as a message, use waiter send -s cli:idle <text>/);
  assert.equal((await d.sessions.list()).find((s) => s.id === 'cli:idle'), before, 'no turn was started');
});

test('waiter memory reindex into a file (not a terminal) writes progress lines, not carriage returns', async () => {
  const r = await waiter('memory', 'reindex');
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^reindex: \d+\/\d+ sessions, \d+ turns added/m);
  assert.doesNotMatch(r.err, /\r/);
});

test('usage errors say what is missing: providers add without --base-url, a number too large for JSON (found by a new-user walk)', async () => {
  const noUrl = await waiter('providers', 'add', 'nourl', '--model', 'm');
  assert.equal(noUrl.code, 2);
  assert.match(noUrl.err, /providers add needs --base-url <url>/);
  const huge = await waiter('config', 'set', 'core.context.top_k', '1e309');
  assert.equal(huge.code, 2);
  assert.match(huge.err, /1e309 is too large a number/);
});

test('waiter knowledge put with a file over 1 MB says the limit before sending (it was "socket frame is larger than …") (found by a new-user walk)', async () => {
  const { writeFileSync } = await import('node:fs');
  const file = join(home, 'big-note.md');
  writeFileSync(file, 'x'.repeat(5 * 1_048_576));
  const r = await waiter('knowledge', 'put', 'big', file);
  assert.equal(r.code, 2);
  assert.match(r.err, /big-note\.md is 5\.0 MB; a knowledge entry holds at most 1 MB/);
});

test('waiter knowledge put reads a PDF and an HTML page as text, prints a short summary, and refuses a binary file (found by a user walk: a PDF was stored as 56 KB of mojibake)', async () => {
  const { writeFileSync } = await import('node:fs');
  const { makePdf } = await import('./fixtures/make-pdf.js');
  const pdf = join(home, '体检报告.pdf');
  writeFileSync(pdf, makePdf([['Annual check-up 2026', 'Blood pressure 118/76'], ['Cholesterol within range']]));
  const put = await waiter('knowledge', 'put', '体检报告', pdf);
  assert.equal(put.code, 0, put.err);
  assert.match(put.out, /^name: 体检报告\nread: PDF, 2 pages\ncharacters: \d+\nfirstLine: Annual check-up 2026\n$/);
  assert.doesNotMatch(put.out, /Cholesterol|%PDF/, 'the entry is not printed back whole');
  const entry = await d.host.services.use('host.memory')!.knowledgeGet('体检报告');
  assert.match(entry.content, /Blood pressure 118\/76/);
  assert.doesNotMatch(entry.content, /%PDF|endobj/);
  const found = await waiter('--json', 'knowledge', 'search', 'cholesterol');
  assert.equal((JSON.parse(found.out) as { name: string }[])[0]?.name, '体检报告');

  const html = join(home, 'router.html');
  writeFileSync(html, '<!doctype html><html><head><title>Router</title><style>p{color:red}</style><script>track("x")</script></head><body><h1>Router</h1><p>The admin page is <b>192.168.1.1</b>.</p></body></html>');
  const page = await waiter('--json', 'knowledge', 'put', 'router', html);
  assert.equal(page.code, 0, page.err);
  assert.deepEqual(JSON.parse(page.out), { name: 'router', read: 'HTML (as readable text)', characters: 40, firstLine: '# Router' });
  const stored = await d.host.services.use('host.memory')!.knowledgeGet('router');
  assert.equal(stored.content, '# Router\n\nThe admin page is 192.168.1.1.');

  const png = join(home, 'photo.png');
  writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]));
  const bin = await waiter('knowledge', 'put', 'photo', png);
  assert.equal(bin.code, 2);
  assert.match(bin.err, /photo\.png is not a file the knowledge base can read: add Markdown, plain text, PDF or HTML \(\.md, \.txt, \.pdf, \.html, \.htm\)/);
  const scan = join(home, 'scan.pdf');
  writeFileSync(scan, makePdf([[]]));
  const empty = await waiter('knowledge', 'put', 'scan', scan);
  assert.equal(empty.code, 2);
  assert.match(empty.err, /scan\.pdf has no text to read: its pages are pictures only \(a scan\); nothing was stored/);
  const missing = await waiter('knowledge', 'put', 'nope', join(home, 'nope.md'));
  assert.equal(missing.code, 2);
  assert.match(missing.err, /cannot read .*nope\.md/);
  // A folder is said to be one, with how to add its files (it was "EISDIR: illegal operation on a directory").
  const folder = await waiter('knowledge', 'put', 'notes', home);
  assert.equal(folder.code, 2);
  assert.match(folder.err, /is a folder: add its files one at a time, each under its own name/);
  // A name taken is not written over without --replace, as the WebUI's "Add" refuses it.
  const again = join(home, 'again.md');
  writeFileSync(again, 'new text for the report\n');
  const taken = await waiter('knowledge', 'put', '体检报告', again);
  assert.equal(taken.code, 2, taken.err);
  assert.match(taken.err, /there is a knowledge entry named "体检报告" already: pass --replace to write over it/);
  assert.notEqual((await d.host.services.use('host.memory')!.knowledgeGet('体检报告')).content.trim(), 'new text for the report', 'the entry is as it was');
  const replaced = await waiter('knowledge', 'put', '体检报告', again, '--replace');
  assert.equal(replaced.code, 0, replaced.err);
  assert.equal((await d.host.services.use('host.memory')!.knowledgeGet('体检报告')).content.trim(), 'new text for the report');
  const names = (await d.host.services.use('host.memory')!.knowledgeList()).map((k) => k.name);
  assert.ok(!names.includes('photo') && !names.includes('scan') && !names.includes('nope'), names.join(', '));
});

test('waiter interrupt naming no session does not break into someone\'s chat-app turn: it says no turn of yours is running (a review of 0480)', async () => {
  const add = await waiter('providers', 'add', 'slowbox', '--base-url', `${fake.url}/v1`, '--key', 'k-slow', '--model', 'fake-model');
  assert.equal(add.code, 0, add.err);
  assert.equal((await waiter('providers', 'order', 'slowbox')).code, 0);
  fake.enqueue({ text: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), chunkDelayMs: 50 });
  const theirs = d.agent.injectInput({ sessionId: 'telegram:555', source: 'telegram', channel: 'telegram', text: 'tell me a story', speaker: { id: 'telegram:555', name: 'Sam', platform: 'telegram' } });
  for (let i = 0; i < 100 && !d.agent.currentTurn; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(d.agent.currentTurn?.speaker, 'telegram:555');
  const r = await waiter('interrupt', 'stop');
  assert.notEqual(r.code, 0);
  assert.match(r.err, /no turn of yours is running to interrupt/);
  await theirs.done;
});
