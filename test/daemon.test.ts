/**
 * `homed` + `waiter` end to end over the real Unix socket, in temp data folders, with the fake LLM
 * server standing in for OpenAI (C-12, §8, G-1, C-2, C-9).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';
import { processAlive, type Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';

const root = resolve(import.meta.dirname, '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const homedBin = join(root, 'src', 'daemon', 'main.ts');
const waiterBin = join(root, 'src', 'waiter', 'main.ts');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let fake: FakeLlm;
const homes: string[] = [];
function home(): string {
  const d = mkdtempSync(join(tmpdir(), 'ha-d-'));
  homes.push(d);
  return d;
}
function env(h: string, withLlm = true): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, HOMEAGENT_HOME: h, HOMEAGENT_WEBUI_PORT: '0', OLLAMA_HOST: 'http://127.0.0.1:9' };
  if (withLlm) {
    e.OPENAI_API_KEY = 'sk-test-secret-value';
    e.OPENAI_BASE_URL = `${fake.url}/v1`;
  }
  return e;
}
function waiter(h: string, args: string[], e = env(h)) {
  return spawnSync(tsx, [waiterBin, ...args], { env: e, encoding: 'utf8', timeout: 120_000 });
}
/** Async spawn: the fake LLM lives in this process, so a blocking spawnSync would starve it. */
function runAsync(file: string, args: string[], e: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(tsx, [file, ...args], { env: e });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => c.kill('SIGTERM'), timeoutMs);
    c.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * The WebUI address of the `homed run` in data folder `h`, asked over its socket once the WebUI
 * plugin has started: the banner homed prints when it is ready can still say "still starting" on
 * a loaded machine. Undefined when the WebUI failed, or nothing answered within a minute.
 */
async function webuiUrl(h: string): Promise<string | undefined> {
  for (let i = 0; i < 600; i++) {
    const c = new DaemonClient(join(h, 'homed.sock'));
    try {
      await c.connect();
      const s = await c.request<{ endpoints: Record<string, string>; plugins: { name: string; state: string }[] }>('status');
      if (s.endpoints.webui) return s.endpoints.webui;
      const webui = s.plugins.find((p) => p.name === 'webui')?.state;
      if (webui !== 'starting' && webui !== 'stopped') return undefined;
    } catch {
      // Not listening yet (or a socket file the killed run left): asked again.
    } finally {
      c.close();
    }
    await sleep(100);
  }
  return undefined;
}

before(async () => {
  fake = await startFakeLlm();
});
after(async () => {
  await fake.close();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

test('in process: a chat turn through the socket, streamed, with no key configured the reply says how to configure one', async () => {
  const h = home();
  const d: Daemon = await startTestDaemon({ homeDir: h, env: env(h, false), webuiPort: 0, heartbeats: false });
  try {
    assert.equal(statSync(d.socketPath).mode & 0o777, 0o600, 'socket is private to the user');
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    const outcome = await c.request<{ status: string; text: string; error?: { code: string } }>('send', { text: 'hello', sessionId: 'cli:t1' });
    assert.equal(outcome.error?.code, 'NO_PROVIDER_CONFIGURED');
    assert.match(outcome.text, /OPENAI_API_KEY|DEEPSEEK_API_KEY|ANTHROPIC_API_KEY/);
    assert.doesNotMatch(outcome.text, /at .*\.ts:\d+/, 'no stack trace');
    c.close();
  } finally {
    await d.stop();
  }
});

test('in process: streaming reply, tool call events, config get/set/list with masked secret, bad frames', async () => {
  const h = home();
  const d = await startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false });
  try {
    const c = new DaemonClient(d.socketPath);
    await c.connect();
    fake.enqueue({ toolCalls: [{ name: 'memory_introspect', arguments: {} }] }, { text: 'Hello from the fake model', chunkDelayMs: 1 });
    const events: string[] = [];
    const outcome = await c.request<{ status: string; text: string }>('send', { text: 'hi there', sessionId: 'cli:t2' }, (e) => events.push(e.event));
    assert.equal(outcome.status, 'ok');
    assert.equal(outcome.text, 'Hello from the fake model');
    assert.ok(events.includes('delta'), 'text streamed as deltas');
    assert.ok(events.includes('tool_start') && events.includes('tool_end'), 'tool call visible');

    const list = await c.request<{ key: string; value: unknown }[]>('config.list', { prefix: 'core.llm.sources.openai' });
    const key = list.find((k) => k.key === 'core.llm.sources.openai.api_key');
    assert.ok(key, 'openai api key listed');
    assert.doesNotMatch(JSON.stringify(list), /sk-test-secret-value/, 'secret never returned unmasked');
    await assert.rejects(c.request('config.set', { key: 'core.agent.max_tool_rounds', value: 'lots' }), /max_tool_rounds/);
    const set = await c.request<{ value: unknown }>('config.set', { key: 'core.agent.max_tool_rounds', value: 3 });
    assert.equal(set.value, 3);
    await assert.rejects(c.request('nope' as never), /unknown command/);

    // Malformed and oversized frames on raw sockets: clear errors, daemon keeps serving.
    const raw = await rawExchange(d.socketPath, '{not json}\n');
    assert.match(raw, /not valid JSON/);
    const big = await rawExchange(d.socketPath, 'x'.repeat(5 * 1024 * 1024));
    assert.match(big, /PAYLOAD_TOO_LARGE/);
    const st = await c.request<{ busy: boolean }>('status');
    assert.equal(typeof st.busy, 'boolean');
    const sessions = await c.request<{ id: string }[]>('sessions.list');
    assert.ok(sessions.some((s) => s.id === 'cli:t2'));
    c.close();
  } finally {
    await d.stop();
  }
  // Persistence across restart.
  const d2 = await startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false });
  try {
    assert.equal(d2.config.get('core.agent.max_tool_rounds'), 3);
    const events = await d2.sessions.events('cli:t2');
    assert.deepEqual(
      events.filter((e) => e.kind === 'user' || e.kind === 'assistant').map((e) => e.kind),
      ['user', 'assistant'],
    );
  } finally {
    await d2.stop();
  }
});

function rawExchange(path: string, payload: string): Promise<string> {
  return new Promise((resolve) => {
    const s = createConnection(path);
    let out = '';
    s.setEncoding('utf8');
    s.on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) s.end();
    });
    s.on('close', () => resolve(out));
    s.on('error', () => resolve(out));
    s.on('connect', () => s.write(payload));
    setTimeout(() => s.destroy(), 30_000).unref();
  });
}

test('waiter without a daemon: clear message and exit code 3', () => {
  const h = home();
  const r = waiter(h, ['status']);
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /not running/);
  const j = waiter(h, ['--json', 'status']);
  assert.equal(j.status, 3);
  assert.equal(JSON.parse(j.stderr).error.code, 'DAEMON_NOT_RUNNING');
});

test('homed start/status/stop with the supervisor; a crashed daemon is restarted; SIGTERM during a turn loses nothing', async (t) => {
  const h = home();
  const e = { ...env(h), HOMEAGENT_RESTART_DELAY_MS: '200' };
  const start = spawnSync(tsx, [homedBin, 'start', '--json'], { env: e, encoding: 'utf8', timeout: 120_000 });
  t.after(() => {
    spawnSync(tsx, [homedBin, 'stop'], { env: e, encoding: 'utf8', timeout: 60_000 });
  });
  assert.equal(start.status, 0, start.stdout + start.stderr);
  const st = JSON.parse(start.stdout.trim().split('\n').pop()!);
  assert.equal(st.socket, true);
  assert.match(st.endpoints.webui, /^http:\/\/127\.0\.0\.1:\d+/);
  const status = spawnSync(tsx, [homedBin, 'status', '--json'], { env: e, encoding: 'utf8' });
  assert.equal(status.status, 0);

  // waiter send + --json
  fake.enqueue({ text: 'pong' });
  const send = await runAsync(waiterBin, ['--json', 'send', '--no-stream', '-s', 'cli:w', 'ping'], e);
  assert.equal(send.status, 0, send.stderr);
  assert.equal(JSON.parse(send.stdout).text, 'pong');

  // Crash the daemon child (not the supervisor): it comes back.
  const c = new DaemonClient(join(h, 'homed.sock'));
  await c.connect();
  const { pid } = await c.request<{ pid: number }>('status');
  c.close();
  process.kill(pid, 'SIGKILL');
  let back = false;
  for (let i = 0; i < 100 && !back; i++) {
    await sleep(200);
    const s = spawnSync(tsx, [homedBin, 'status', '--json'], { env: e, encoding: 'utf8' });
    back = s.status === 0;
  }
  assert.ok(back, 'supervisor restarted the daemon');

  // SIGTERM (homed stop) during a slow turn: the user message is in the log, the daemon stops cleanly.
  fake.enqueue({ text: 'a very slow answer', delayMs: 10_000 });
  const child: ChildProcess = spawn(tsx, [waiterBin, '--json', 'send', '--no-stream', '-s', 'cli:slow', 'remember that my cat is called Mochi'], { env: e });
  const exited = new Promise((r) => child.once('exit', r));
  const slowLog = join(h, 'sessions', 'cli%3Aslow.jsonl');
  for (let i = 0; i < 600 && !(existsSync(slowLog) && readFileSync(slowLog, 'utf8').includes('Mochi')); i++) await sleep(100);
  const stop = await runAsync(homedBin, ['stop', '--json'], e, 60_000);
  assert.equal(stop.status, 0, stop.stdout + stop.stderr);
  await exited;
  assert.ok(!existsSync(join(h, 'homed.pid')), 'pid file removed');
  const log = readFileSync(join(h, 'sessions', 'cli%3Aslow.jsonl'), 'utf8');
  assert.match(log, /my cat is called Mochi/);
});

test('a pid file left by a crash whose number another program has now: homed runs, start starts it, stop never signals that program', async (t) => {
  const h = home();
  const e = env(h, false);
  const pidFile = join(h, 'homed.pid');
  const sleeper = spawn('sleep', ['300']);
  t.after(() => sleeper.kill('SIGKILL'));
  const stalePid = () => writeFileSync(pidFile, `${sleeper.pid}\n`);
  // The foreground daemon starts and says it replaced the pid file.
  stalePid();
  const child = spawn(process.execPath, ['--import', 'tsx', homedBin, 'run'], { cwd: root, env: e });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  for (let i = 0; i < 600 && !/homed is running/.test(out) && child.exitCode === null; i++) await sleep(100);
  assert.match(out, /homed is running/, out + err);
  assert.match(err, new RegExp(`pid ${sleeper.pid}, which is not homed.*replaced`));
  assert.equal(readFileSync(pidFile, 'utf8').trim(), String(child.pid));
  // A second one is refused while the first runs.
  const second = await runAsync(homedBin, ['run'], e);
  assert.equal(second.status, 1, second.stdout + second.stderr);
  assert.match(second.stderr, new RegExp(`already running \\(pid ${child.pid}\\)`));
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;

  // homed stop with a stale pid file: nothing to stop, and the other program is left alone.
  stalePid();
  const stop = await runAsync(homedBin, ['stop'], e);
  assert.equal(stop.status, 0);
  assert.match(stop.stdout, /not running/);
  assert.ok(processAlive(sleeper.pid!), 'the program that has the number now was not signalled');
  assert.ok(!existsSync(pidFile), 'the stale pid file is gone');

  // homed start with a stale pid file starts homed.
  stalePid();
  const started = await runAsync(homedBin, ['start', '--json'], e);
  t.after(() => {
    spawnSync(tsx, [homedBin, 'stop'], { env: e, encoding: 'utf8', timeout: 60_000 });
  });
  assert.equal(started.status, 0, started.stdout + started.stderr);
  assert.equal(JSON.parse(started.stdout.trim().split('\n').pop()!).socket, true);
  const status = await runAsync(homedBin, ['status'], e);
  assert.equal(status.status, 0, status.stdout);
  const stopped = await runAsync(homedBin, ['stop'], e, 60_000);
  assert.match(stopped.stdout, /homed stopped/);
  assert.ok(processAlive(sleeper.pid!), 'still not signalled');
});

test('a WebUI message answered 202 is in the session log, its attachment kept, even when the daemon is killed right after', async (t) => {
  const h = home();
  // One process (node with tsx's loader, not the tsx wrapper), so SIGKILL reaches the daemon itself.
  const child = spawn(process.execPath, ['--import', 'tsx', homedBin, 'run'], { cwd: root, env: { ...env(h), HOMEAGENT_WEBUI_PORT: '0' } });
  t.after(() => child.kill('SIGKILL'));
  const exited = new Promise((r) => child.once('exit', r));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const url = await webuiUrl(h);
  assert.ok(url, out);
  const token = readFileSync(join(h, 'auth-token'), 'utf8').trim();
  fake.enqueue({ text: 'never sent', delayMs: 10_000 });
  // A large attachment makes the window between the request and the log write wide.
  const data = Buffer.alloc(4 * 1024 * 1024, 7).toString('base64');
  const res = await fetch(`${url}/api/v1/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'the spare key is under the third stone', attachments: [{ name: 'map.bin', mimeType: 'application/octet-stream', data }] }),
  });
  assert.equal(res.status, 202);
  const { sessionId, turnId } = (await res.json()) as { sessionId: string; turnId: string };
  child.kill('SIGKILL');
  await exited;
  const lines = readFileSync(join(h, 'sessions', `${encodeURIComponent(sessionId)}.jsonl`), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type?: string; turnId?: string; kind?: string; text?: string; data?: { attachments?: { path?: string }[] } });
  const user = lines.find((l) => l.turnId === turnId && l.kind === 'user');
  assert.equal(user?.text, 'the spare key is under the third stone', 'the acknowledged message is in the log');
  const path = user?.data?.attachments?.[0]?.path;
  assert.ok(path && statSync(join(h, path)).size === 4 * 1024 * 1024, `the attachment is kept: ${JSON.stringify(user?.data)}`);
});

test('decision 0390: a turn killed (kill -9) while it ran is answered after the restart, once, as the same turn', async (t) => {
  const h = home();
  // Its own fake LLM: replies another test queued and never used must not answer this one.
  const llm = await startFakeLlm();
  t.after(() => llm.close());
  const run = () => {
    const child = spawn(process.execPath, ['--import', 'tsx', homedBin, 'run'], { cwd: root, env: { ...env(h), OPENAI_BASE_URL: `${llm.url}/v1`, HOMEAGENT_WEBUI_PORT: '0' } });
    t.after(() => child.kill('SIGKILL'));
    return { child, exited: new Promise((r) => child.once('exit', r)), url: () => webuiUrl(h) };
  };
  const asked = () => llm.requests.filter((r) => r.format !== 'embeddings' && JSON.stringify(r.body.messages ?? []).includes('Mochi')).length;
  // While the first run holds the question, the LLM never answers it.
  llm.setDefault((req) => (JSON.stringify(req.body.messages ?? []).includes('Mochi') ? (asked() <= 1 ? { hang: true } : { text: 'Noted: your cat is Mochi.' }) : { text: 'ok' }));
  const first = run();
  const url = await first.url();
  assert.ok(url);
  const token = readFileSync(join(h, 'auth-token'), 'utf8').trim();
  const res = await fetch(`${url}/api/v1/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'my cat is called Mochi' }) });
  assert.equal(res.status, 202);
  const { sessionId, turnId } = (await res.json()) as { sessionId: string; turnId: string };
  for (let i = 0; i < 600 && asked() === 0; i++) await sleep(50);
  assert.equal(asked(), 1, 'the turn was running');
  first.child.kill('SIGKILL');
  await first.exited;

  const second = run();
  assert.ok(await second.url());
  const file = join(h, 'sessions', `${encodeURIComponent(sessionId)}.jsonl`);
  const events = () => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { turnId?: string; kind?: string; text?: string; data?: Record<string, unknown> }).filter((l) => l.turnId === turnId);
  for (let i = 0; i < 600 && !events().some((e) => e.kind === 'assistant'); i++) await sleep(100);
  const mine = events();
  assert.deepEqual(mine.filter((e) => e.kind === 'assistant').map((e) => e.text), ['Noted: your cat is Mochi.']);
  assert.deepEqual(mine.map((e) => e.kind), ['user', 'marker', 'assistant']);
  assert.equal(mine[1].data?.op, 'resume');
  assert.equal(asked(), 2, 'asked once more, not in a loop');
  // Memory holds the message and the reply once each: recovery replayed the message from the log
  // at start, and the resumed turn did not add a second copy.
  const c = new DaemonClient(join(h, 'homed.sock'));
  await c.connect();
  let ctx: { id: string; kind: string; input: string; response: string }[] = [];
  const replied = () => ctx.some((e) => e.kind === 'agent' && e.response === 'Noted: your cat is Mochi.');
  for (let i = 0; i < 100 && !replied(); i++) {
    ctx = await c.request<typeof ctx>('memory.context');
    if (!replied()) await sleep(100);
  }
  const search = await c.request<{ kind: string; turnId?: string }[]>('memory.search', { query: 'cat called Mochi', limit: 10 });
  c.close();
  assert.equal(ctx.filter((e) => e.kind === 'user' && e.input === 'my cat is called Mochi').length, 1, JSON.stringify(ctx));
  assert.equal(ctx.filter((e) => e.kind === 'agent' && e.response === 'Noted: your cat is Mochi.').length, 1, JSON.stringify(ctx));
  assert.equal(search.filter((d) => d.turnId === turnId && d.kind === 'user').length, 1, JSON.stringify(search));
});
