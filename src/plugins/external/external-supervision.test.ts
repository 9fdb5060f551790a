import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTestHost, type TestHost } from '../../sdk/testing/index.js';
import { fixtureHome, waitFor } from '../__fixtures__/fixture-home.js';

const fast = { restartBaseMs: 30, heartbeatMs: 100, heartbeatTimeoutMs: 4000, callTimeoutMs: 1000, startTimeoutMs: 8000 };

async function host(t: { after: (fn: () => unknown) => void }, ...plugins: string[]): Promise<TestHost> {
  return hostWith(t, fast, ...plugins);
}

async function hostWith(t: { after: (fn: () => unknown) => void }, external: typeof fast, ...plugins: string[]): Promise<TestHost> {
  const homeDir = fixtureHome(...plugins);
  const h = await createTestHost({ homeDir, registry: { external } });
  t.after(async () => {
    await h.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  return h;
}

function pidOf(out: string): number {
  return Number(/pid:(\d+)/.exec(out)?.[1]);
}

test('P-3: an external plugin runs in its own process; a crash is survived, it restarts and its tool comes back', async (t) => {
  const h = await host(t, 'ext-echo');
  const info = h.plugin('ext-echo')!;
  assert.equal(info.state, 'running', info.lastError);
  assert.equal(info.kind, 'external');
  assert.deepEqual(info.tools, ['ext_answers', 'ext_ask', 'ext_crash', 'ext_echo', 'ext_freeze', 'ext_hang', 'ext_missing', 'ext_outbox', 'ext_probe', 'ext_sneak', 'ext_spawn', 'ext_token', 'ext_whoami']);
  const first = await h.callTool('ext_echo', { text: 'hi' });
  assert.match(first, /^echo:hi pid:\d+$/);
  const pid1 = pidOf(first);
  assert.notEqual(pid1, process.pid);

  await h.callTool('ext_crash');
  await waitFor(() => h.plugin('ext-echo')!.state !== 'running' || h.plugin('ext-echo')!.restarts > 0, 5000, 'crash noticed');
  await waitFor(() => h.plugin('ext-echo')!.state === 'running' && h.plugin('ext-echo')!.restarts === 1 && h.plugin('ext-echo')!.tools.includes('ext_echo'), 8000, 'restart');
  const second = await h.callTool('ext_echo', { text: 'again' });
  assert.match(second, /^echo:again pid:\d+$/);
  assert.notEqual(pidOf(second), pid1);
  assert.match(h.plugin('ext-echo')!.lastError ?? '', /crashed/);
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('P-3: the subprocesses a plugin started end with it — on a crash and on stop', { skip: process.platform === 'win32' && 'process groups are POSIX' }, async (t) => {
  const h = await host(t, 'ext-echo');
  const sub1 = pidOf(await h.callTool('ext_spawn'));
  assert.ok(alive(sub1), 'the subprocess runs');
  t.after(() => {
    if (alive(sub1)) process.kill(sub1, 'SIGKILL');
  });
  await h.callTool('ext_crash');
  await waitFor(() => !alive(sub1), 5000, 'the crashed plugin\'s subprocess is gone');
  await waitFor(() => h.plugin('ext-echo')!.state === 'running' && h.plugin('ext-echo')!.tools.includes('ext_spawn'), 8000, 'restart');

  const sub2 = pidOf(await h.callTool('ext_spawn'));
  t.after(() => {
    if (alive(sub2)) process.kill(sub2, 'SIGKILL');
  });
  assert.ok(alive(sub2));
  await h.registry.disable('ext-echo');
  await waitFor(() => !alive(sub2), 5000, 'the stopped plugin\'s subprocess is gone');
});

test('P-3: when the daemon is killed outright, the plugin process and its subprocesses end too', { skip: process.platform === 'win32' && 'process groups are POSIX' }, async (t) => {
  const host = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../__fixtures__/host-with-ext-echo.ts', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => host.kill('SIGKILL'));
  const line = await new Promise<string>((resolve, reject) => {
    let buf = '';
    host.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      const i = buf.indexOf('\n');
      if (i >= 0) resolve(buf.slice(0, i));
    });
    host.on('exit', (code) => reject(new Error(`host exited early (${code})`)));
  });
  const { runner, sub } = JSON.parse(line) as { runner: number; sub: number };
  t.after(() => {
    for (const pid of [runner, sub]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  assert.ok(alive(runner) && alive(sub));
  host.kill('SIGKILL'); // no exit handler of the daemon runs
  await waitFor(() => !alive(runner), 8000, 'the plugin process ends with its daemon');
  await waitFor(() => !alive(sub), 8000, 'the plugin\'s subprocess ends with it');
});

test('P-3: a hung plugin (tool call never answers) is killed and restarted', async (t) => {
  const h = await host(t, 'ext-echo');
  const pid1 = pidOf(await h.callTool('ext_echo', { text: 'a' }));
  await assert.rejects(h.callTool('ext_hang'), /timed out/);
  await waitFor(() => h.plugin('ext-echo')!.state === 'running' && h.plugin('ext-echo')!.restarts >= 1, 8000, 'restart after hang');
  assert.throws(() => process.kill(pid1, 0), /ESRCH/);
  assert.notEqual(pidOf(await h.callTool('ext_echo', { text: 'b' })), pid1);
  assert.match(h.plugin('ext-echo')!.lastError ?? '', /hung/);
  assert.ok((h.plugin('ext-echo')!.lastHeartbeat ?? 0) > 0);
});

test('P-3: a frozen plugin (no heartbeat) is killed and restarted', async (t) => {
  const h = await hostWith(t, { ...fast, heartbeatTimeoutMs: 1500 }, 'ext-echo');
  const pid1 = pidOf(await h.callTool('ext_echo', { text: 'a' }));
  assert.equal(await h.callTool('ext_freeze'), 'frozen soon');
  await waitFor(() => h.plugin('ext-echo')!.restarts >= 1 && h.plugin('ext-echo')!.state === 'running', 8000, 'restart after freeze');
  assert.match(h.plugin('ext-echo')!.lastError ?? '', /hung: no heartbeat/);
  assert.notEqual(pidOf(await h.callTool('ext_echo', { text: 'b' })), pid1);
});

test('P-3: a plugin that keeps crashing is given up after the threshold', async (t) => {
  const homeDir = fixtureHome('ext-crashy');
  const h = await createTestHost({ homeDir, registry: { external: { ...fast, restartBaseMs: 10, giveUpCount: 3 } } });
  t.after(async () => {
    await h.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  await waitFor(() => h.plugin('ext-crashy')!.state === 'gave-up', 10000, 'give up');
  const info = h.plugin('ext-crashy')!;
  assert.equal(info.restarts, 2);
  assert.match(info.lastError!, /gave up after 3 crashes/);
  assert.deepEqual(info.tools, []);
  // A manual reload starts it afresh.
  await h.registry.reload('ext-crashy');
  assert.equal(h.plugin('ext-crashy')!.restarts, 0);
});
