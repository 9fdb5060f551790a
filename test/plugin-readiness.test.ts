/**
 * Plugins never hold up readiness (issue 14): a plugins folder full of broken manifests, plugins
 * whose start throws or whose process dies, a broken Lua script, a slow plugin and one that never
 * finishes starting. The daemon is ready (the socket answers) while the hanging plugin is still
 * `starting`; every state then settles where `waiter plugins` shows it, and the hanging one ends
 * as failed with its time limit. No timing assertions: the order of events is what is checked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigRegistry, coreConfigDefaults } from '../src/config/index.js';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { DaemonClient } from '../src/waiter/daemon-client.js';
import { main as waiterMain } from '../src/waiter/main.js';
import type { PluginInfo } from '../src/spec/index.js';

function external(dir: string, name: string, code: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'plugin.json'), JSON.stringify({ name, version: '0.1.0', entry: 'index.js', permissions: [] }));
  writeFileSync(join(dir, name, 'index.js'), code);
}

/** Resolves with the plugin's state once its start has ended (running, failed …), from its `plugin_state` events. */
function startEnded(d: Daemon, name: string): Promise<string> {
  return new Promise((resolve) => {
    const ended = (state: string | undefined) => {
      if (state === undefined || state === 'stopped' || state === 'starting') return;
      off();
      resolve(state);
    };
    const off = d.agent.bus.on('plugin_state', (p) => p.plugin === name && ended(p.state));
    ended(d.registry.get(name)?.state);
  });
}

test('the daemon is ready while a plugin hangs in start; states settle and the hanging one times out', async () => {
  const home = mkdtempSync(join(tmpdir(), 'ha-ready-'));
  const plugins = join(home, 'plugins');
  for (let i = 0; i < 40; i++) {
    mkdirSync(join(plugins, `broken-${i}`), { recursive: true });
    writeFileSync(join(plugins, `broken-${i}`, 'plugin.json'), i % 2 ? '{ not json' : JSON.stringify({ name: `broken-${i}`, entry: '../outside.js' }));
  }
  for (let i = 0; i < 3; i++) external(plugins, `throws-${i}`, `export default { name: 'throws-${i}', start() { throw new Error('broken on purpose'); } };`);
  external(plugins, 'dies', `export default { name: 'dies', start() { process.exit(3); } };`);
  external(plugins, 'slow', `export default { name: 'slow', async start(sdk) { await new Promise((r) => setTimeout(r, 400)); sdk.registerTool({ name: 'slow_tool', description: 'x', parameters: { type: 'object', properties: {} }, handler: () => 'ok' }); } };`);
  external(plugins, 'hangs', `export default { name: 'hangs', start() { return new Promise(() => {}); } };`);
  mkdirSync(join(plugins, 'bad-lua'), { recursive: true });
  writeFileSync(join(plugins, 'bad-lua', 'main.lua'), 'function start( this is not lua');

  // The time limits come from config, as a user would set them.
  const cfg = new ConfigRegistry({ dbPath: join(home, 'config.db'), logger: { warn() {} } });
  cfg.open();
  cfg.register(coreConfigDefaults());
  await cfg.set('core.plugins.ready_wait_ms', 200);
  await cfg.set('core.plugins.start_timeout_ms', 2500);
  cfg.close();

  // Unsettled: what this test checks is the daemon before its plugins have settled.
  const d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, HOME: process.env.HOME, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false, unsettled: true });
  const c = new DaemonClient(d.socketPath);
  try {
    // Ready means only that ready_wait_ms (200 ms here) is over: on a loaded machine the CLI plugin
    // itself may still be starting then, so the socket is used once it runs.
    assert.equal(await startEnded(d, 'cli'), 'running');
    await c.connect();
    const status = await c.request<{ plugins: { name: string; state: string }[] }>('status');
    const at = (list: { name: string; state: string }[], n: string) => list.find((p) => p.name === n)?.state;
    assert.equal(at(status.plugins, 'hangs'), 'starting', 'ready while the hanging plugin is still starting');
    assert.equal(at(status.plugins, 'cli'), 'running');
    assert.equal(at(status.plugins, 'broken-0'), 'failed');
    assert.equal(at(status.plugins, 'broken-1'), 'failed');

    // `waiter plugins` shows the states as they are now (human output, one row per plugin).
    let out = '';
    assert.equal(await waiterMain(['node', 'waiter', '--home', home, 'plugins'], { out: (t) => void (out += t), err: () => {} }), 0);
    assert.match(out, /^hangs\s.*\bstarting\b/m);
    assert.match(out, /^broken-3\s.*\bfailed\b/m);

    // Once every start has ended (the hanging one by its time limit), the list shows where each settled.
    await d.registry.settled();
    const list = await c.request<PluginInfo[]>('plugins.list');
    assert.deepEqual(list.filter((p) => p.state === 'starting'), []);
    const get = (n: string) => list.find((p) => p.name === n)!;
    assert.equal(get('hangs').state, 'failed');
    assert.match(get('hangs').lastError ?? '', /did not finish within 2500 ms/);
    for (let i = 0; i < 3; i++) assert.equal(get(`throws-${i}`).state, 'failed', JSON.stringify(get(`throws-${i}`)));
    assert.match(get('throws-0').lastError ?? '', /broken on purpose/);
    assert.equal(get('dies').state, 'failed');
    assert.equal(get('bad-lua').state, 'failed');
    assert.equal(get('slow').state, 'running', JSON.stringify(get('slow')));
    assert.deepEqual(get('slow').tools, ['slow_tool']);
    assert.match(get('broken-0').lastError ?? '', /outside|entry|escape/i);
    // The daemon still serves: the agent answers status and a new plugin list.
    assert.equal((await c.request<{ busy: boolean }>('status')).busy, false);
  } finally {
    c.close();
    await d.stop();
    rmSync(home, { recursive: true, force: true });
  }
});

test('stopping the daemon does not wait for a plugin that hangs in start', async () => {
  const home = mkdtempSync(join(tmpdir(), 'ha-ready-'));
  external(join(home, 'plugins'), 'hangs', `export default { name: 'hangs', start() { return new Promise(() => {}); } };`);
  // Unsettled: the hanging plugin never settles before its 30 s limit, and the stop is what is checked.
  const d = await startTestDaemon({ homeDir: home, env: { PATH: process.env.PATH, HOME: process.env.HOME, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false, unsettled: true });
  try {
    assert.equal(d.registry.get('hangs')?.state, 'starting');
  } finally {
    // With the default 30 s start limit, a stop that waited for it would outlast the test's timeout.
    await d.stop();
    rmSync(home, { recursive: true, force: true });
  }
  assert.equal(d.registry.get('hangs')?.state, 'stopped');
  assert.match(d.registry.get('hangs')?.lastError ?? '', /abandoned: the daemon is stopping/);
});
