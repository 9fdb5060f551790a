import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { PluginDefinition, PluginSDK } from '../spec/index.js';
import { createTestHost, ScriptedLlm } from '../sdk/testing/index.js';
import { PluginRegistry } from './plugin-registry.js';

function tool(name: string, out = name) {
  return { name, description: `tool ${name}`, parameters: { type: 'object', properties: {} }, handler: () => out };
}

test('P-2: built-ins start in dependency order, whatever the registration order', async (t) => {
  const started: string[] = [];
  const mk = (name: string, dependencies: string[] = []): PluginDefinition<PluginSDK> => ({ name, dependencies, start: () => void started.push(name) });
  const h = await createTestHost({ plugins: [mk('c', ['b']), mk('b', ['a']), mk('a'), mk('d', ['a', 'c'])] });
  t.after(() => h.close());
  assert.deepEqual(started.filter((n) => 'abcd'.includes(n)), ['a', 'b', 'c', 'd']);
  for (const n of ['a', 'b', 'c', 'd']) assert.equal(h.plugin(n)?.state, 'running');
});

test('P-2: a cycle or a missing dependency fails those plugins with a clear error; the others start', async (t) => {
  const started: string[] = [];
  const mk = (name: string, dependencies: string[] = []): PluginDefinition<PluginSDK> => ({ name, dependencies, start: () => void started.push(name) });
  const h = await createTestHost({ plugins: [mk('x', ['y']), mk('y', ['x']), mk('lonely', ['ghost']), mk('needs-lonely', ['lonely']), mk('fine')] });
  t.after(() => h.close());
  assert.equal(h.plugin('x')?.state, 'failed');
  assert.match(h.plugin('x')!.lastError!, /dependency cycle/);
  assert.equal(h.plugin('y')?.state, 'failed');
  assert.equal(h.plugin('lonely')?.state, 'failed');
  assert.match(h.plugin('lonely')!.lastError!, /missing dependency "ghost"/);
  assert.equal(h.plugin('needs-lonely')?.state, 'failed');
  assert.match(h.plugin('needs-lonely')!.lastError!, /lonely/);
  assert.equal(h.plugin('fine')?.state, 'running');
  assert.deepEqual(started.filter((n) => n !== 'skills'), ['fine']);
});

test('P-2: a plugin whose start throws is failed, its registrations undone; the rest start', async (t) => {
  const bad: PluginDefinition<PluginSDK> = {
    name: 'bad',
    start(sdk) {
      sdk.registerTool(tool('bad_tool'));
      throw new Error('boom at start');
    },
  };
  const good: PluginDefinition<PluginSDK> = { name: 'good', start: (sdk) => void sdk.registerTool(tool('good_tool')) };
  const h = await createTestHost({ plugins: [bad, good] });
  t.after(() => h.close());
  const info = h.plugin('bad')!;
  assert.equal(info.state, 'failed');
  assert.match(info.lastError!, /boom at start/);
  assert.deepEqual(info.tools, []);
  assert.equal(h.agent.stages.toolPlugin('bad_tool'), undefined);
  assert.equal(await h.callTool('good_tool'), 'good_tool');
  assert.deepEqual(h.plugin('good')!.tools, ['good_tool']);
});

test('P-2: a start that never finishes is failed after the timeout; what it registers later is disposed at once', async (t) => {
  let late: (() => void) | undefined;
  const stuck: PluginDefinition<PluginSDK> = {
    name: 'stuck',
    start(sdk) {
      late = () => void sdk.registerTool(tool('stuck_tool'));
      return new Promise(() => {});
    },
  };
  const h = await createTestHost({ plugins: [stuck, { name: 'after', dependencies: [], start: (sdk) => void sdk.registerTool(tool('after_tool')) }], startTimeoutMs: 200 });
  t.after(() => h.close());
  assert.equal(h.plugin('stuck')?.state, 'failed');
  assert.match(h.plugin('stuck')!.lastError!, /did not finish within 200 ms/);
  assert.equal(await h.callTool('after_tool'), 'after_tool');
  late!();
  assert.equal(h.agent.stages.toolPlugin('stuck_tool'), undefined);
});

test('P-1: unload runs disposers newest first, once, and stop() before them', async (t) => {
  const calls: string[] = [];
  const p: PluginDefinition<PluginSDK> = {
    name: 'order',
    start(sdk) {
      sdk.onDispose(() => void calls.push('first'));
      const early = sdk.onDispose(() => void calls.push('early'));
      sdk.registerTool(tool('order_tool'));
      sdk.onDispose(() => void calls.push('last'));
      early();
      early();
    },
    stop: () => void calls.push('stop'),
  };
  const h = await createTestHost({ plugins: [p] });
  t.after(() => h.close());
  assert.deepEqual(calls, ['early']);
  await h.host.stop('order');
  await h.host.stop('order');
  assert.deepEqual(calls, ['early', 'stop', 'last', 'first']);
  assert.equal(h.agent.stages.toolPlugin('order_tool'), undefined);
});

test('C-3: a duplicate tool name is refused with ConflictError and fails the second plugin only', async (t) => {
  const a: PluginDefinition<PluginSDK> = { name: 'first', start: (sdk) => void sdk.registerTool(tool('same_name', 'from first')) };
  const b: PluginDefinition<PluginSDK> = { name: 'second', dependencies: ['first'], start: (sdk) => void sdk.registerTool(tool('same_name', 'from second')) };
  const h = await createTestHost({ plugins: [a, b] });
  t.after(() => h.close());
  assert.equal(h.plugin('second')?.state, 'failed');
  assert.match(h.plugin('second')!.lastError!, /already registered by plugin "first"/);
  assert.equal(await h.callTool('same_name'), 'from first');
});

test('P-2: disable/enable persist across registries; reload = dispose + start again', async (t) => {
  let starts = 0;
  const p: PluginDefinition<PluginSDK> = { name: 'toggle', start: (sdk) => void (starts++, sdk.registerTool(tool('toggle_tool', `gen ${starts}`))) };
  const h = await createTestHost({ plugins: [p] });
  t.after(() => h.close());
  const states: string[] = [];
  h.agent.bus.on('plugin_state', (e) => void (e.plugin === 'toggle' && states.push(e.state)));
  await h.registry.reload('toggle');
  assert.deepEqual(states, ['stopped', 'starting', 'running']);
  assert.equal(await h.callTool('toggle_tool'), 'gen 2');
  await h.registry.disable('toggle');
  assert.equal(h.plugin('toggle')?.state, 'disabled');
  assert.equal(h.plugin('toggle')?.enabled, false);
  await assert.rejects(h.callTool('toggle_tool'), /no tool/);
  assert.equal(existsSync(join(h.homeDir, 'plugins', '.state.json')), true);
  await h.registry.enable('toggle');
  assert.equal(h.plugin('toggle')?.state, 'running');
  assert.equal(await h.callTool('toggle_tool'), 'gen 3');
  await assert.rejects(h.registry.reload('nope'), /not found/);
  // The kernel's port sees the same.
  const port = h.registry.adminPort();
  assert.ok(port.list().some((p) => p.name === 'toggle' && p.state === 'running' && p.kind === 'builtin'));
  await port.reload('toggle');
  assert.equal(await h.callTool('toggle_tool'), 'gen 4');
  const late: { registry?: PluginRegistry } = {};
  const lazy = PluginRegistry.lazyAdminPort(() => late.registry);
  assert.deepEqual(lazy.list(), []);
  await assert.rejects(lazy.reload('toggle'), /not running yet/);
  late.registry = h.registry;
  await lazy.reload('toggle');
  assert.equal(await h.callTool('toggle_tool'), 'gen 5');
});

test('P-2: reloading or disabling a plugin takes its dependents down and back up with it', async (t) => {
  const log: string[] = [];
  let gen = 0;
  const base: PluginDefinition<PluginSDK> = {
    name: 'base',
    start(sdk) {
      gen++;
      const n = gen;
      log.push(`start base ${n}`);
      sdk.onDispose(() => void log.push(`stop base ${n}`));
    },
  };
  const mid: PluginDefinition<PluginSDK> = { name: 'mid', dependencies: ['base'], start: (sdk) => void (log.push('start mid'), sdk.onDispose(() => void log.push('stop mid'))) };
  const top: PluginDefinition<PluginSDK> = { name: 'top', dependencies: ['mid'], start: (sdk) => void (log.push('start top'), sdk.onDispose(() => void log.push('stop top'))) };
  const h = await createTestHost({ plugins: [top, mid, base] });
  t.after(() => h.close());
  log.length = 0;
  await h.registry.reload('base');
  assert.deepEqual(log, ['stop top', 'stop mid', 'stop base 1', 'start base 2', 'start mid', 'start top']);
  log.length = 0;
  await h.registry.disable('base');
  assert.deepEqual(log, ['stop top', 'stop mid', 'stop base 2']);
  assert.equal(h.plugin('mid')?.state, 'failed');
  assert.equal(h.plugin('mid')?.lastError, 'dependency "base" was disabled');
  log.length = 0;
  await h.registry.enable('base');
  assert.deepEqual(log, ['start base 3', 'start mid', 'start top']);
  assert.equal(h.plugin('top')?.state, 'running');
});

test('P-2: disabled state is read back by a new registry', async (t) => {
  const p: PluginDefinition<PluginSDK> = { name: 'sticky', start: (sdk) => void sdk.registerTool(tool('sticky_tool')) };
  const homeDir = mkdtempSync(join(tmpdir(), 'ha-sticky-'));
  t.after(() => rmSync(homeDir, { recursive: true, force: true }));
  const h = await createTestHost({ plugins: [p], homeDir });
  await h.registry.disable('sticky');
  await h.close();
  const h2 = await createTestHost({ plugins: [p], homeDir });
  t.after(() => h2.close());
  assert.equal(h2.plugin('sticky')?.state, 'disabled');
  await assert.rejects(h2.callTool('sticky_tool'), /no tool/);
});

test('P-1: the SDK reaches settings, services, routes, the data folder, the LLM and stages', async (t) => {
  let seen: PluginSDK | undefined;
  const p: PluginDefinition<PluginSDK> = {
    name: 'full',
    settings: { greeting: { default: 'hi', description: 'greeting', schema: z.string() } },
    start(sdk) {
      seen = sdk;
      sdk.registerTool({ ...tool('full_greet'), handler: () => sdk.settings().get<string>('greeting') });
      sdk.registerRoute({ method: 'GET', path: '/api/full', handler: () => new Response('ok') });
      sdk.registerStage('before_output', (ctx) => void (ctx.text = `${ctx.text}!`));
      sdk.registerPromptSlot('extra', () => 'FULL-SLOT');
    },
  };
  const h = await createTestHost({ plugins: [p], llm: new ScriptedLlm([{ text: 'answer' }]) });
  t.after(() => h.close());
  const sdk = seen!;
  assert.equal(await h.callTool('full_greet'), 'hi');
  await sdk.settings().set('greeting', 'hello');
  assert.equal(await h.callTool('full_greet'), 'hello');
  assert.equal(h.config.get('plugin.full.greeting'), 'hello');
  const routes = sdk.use('host.routes')!;
  assert.deepEqual(routes.list().map((r) => `${r.plugin} ${r.method} ${r.path}`), ['full GET /api/full']);
  assert.equal(sdk.use('host.plugins')?.get('full')?.state, 'running');
  const dir = sdk.dataDir;
  assert.equal(dir, join(h.homeDir, 'plugins-data', 'full'));
  assert.equal(existsSync(dir), true);
  await assert.rejects(sdk.memory().recall(['x']), /memory subsystem not available/);
  await assert.rejects(sdk.social().setTrait('a', 'b', 'c'), /social subsystem not available/);
  assert.match(await h.systemPrompt(), /FULL-SLOT/);
  const outcome = await h.send('hello');
  assert.equal(outcome.status, 'ok');
  assert.equal(outcome.text, 'answer!');
  // Unload removes the route, the slot and the stage.
  await h.host.stop('full');
  assert.deepEqual(routes.list(), []);
  assert.doesNotMatch(await h.systemPrompt(), /FULL-SLOT/);
  assert.throws(() => sdk.registerStage('nope' as never, () => {}), /unknown stage/);
});

test('P-2: a folder added while running is started by a reload of its name or a rescan, never by the model\'s plugin_reload', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'ha-rescan-'));
  const h = await createTestHost({ homeDir: home });
  t.after(async () => {
    await h.close();
    rmSync(home, { recursive: true, force: true });
  });
  const lua = (name: string) => {
    mkdirSync(join(home, 'plugins', name), { recursive: true });
    writeFileSync(join(home, 'plugins', name, 'main.lua'), `function start() register_tool("${name}_tool", "t", { type = "object", properties = json.object() }, function(a) return "${name} ok" end) end`);
  };
  lua('dice');
  assert.equal(h.plugin('dice'), undefined);
  // The model cannot start code that appeared in the folder (the port behind the kernel's plugin_reload tool).
  await assert.rejects(h.registry.adminPort().reload('dice'), /not found/);
  assert.equal(h.plugin('dice'), undefined);

  await h.registry.reload('dice');
  assert.equal(h.plugin('dice')?.state, 'running');
  assert.equal(await h.callTool('dice_tool'), 'dice ok');

  lua('coin');
  mkdirSync(join(home, 'skills', 'haiku'), { recursive: true });
  writeFileSync(join(home, 'skills', 'haiku', 'SKILL.md'), '---\nname: haiku\ndescription: Write a haiku.\n---\nFive, seven, five.\n');
  assert.deepEqual(await h.registry.rescan(), ['coin', 'haiku']);
  assert.equal(h.plugin('coin')?.state, 'running');
  assert.equal(h.plugin('haiku')?.state, 'running');
  assert.equal(await h.callTool('coin_tool'), 'coin ok');
  assert.deepEqual(await h.registry.rescan(), []);
  await assert.rejects(h.registry.reload('nothing-here'), /not found/);
});
