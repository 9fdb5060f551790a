import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createTestHost, ScriptedLlm, type TestHost } from '../../sdk/testing/index.js';
import { fixtureHome, waitFor } from '../__fixtures__/fixture-home.js';
import { join } from 'node:path';
import { ConfigRegistry, coreConfigDefaults } from '../../config/index.js';
import { MemorySystem } from '../../memory/index.js';
import { ManualScheduler } from '../../memory/heartbeat/index.js';

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


test('P-3: the restricted SDK has no publish, no social write, no services; raw requests for them are refused', async (t) => {
  process.env.HOMEAGENT_FAKE_API_KEY = 'sk-must-not-leak';
  t.after(() => delete process.env.HOMEAGENT_FAKE_API_KEY);
  const h = await host(t, 'ext-echo');
  const probe = JSON.parse(await h.callTool('ext_probe'));
  assert.equal(probe.publish, 'undefined');
  assert.equal(probe.provide, 'undefined');
  assert.equal(probe.registerRoute, 'undefined');
  assert.deepEqual(probe.socialKeys, ['getNetwork', 'getPerson', 'getRelations', 'getTrait', 'listPersons']);
  assert.match(probe.memory, /PLUGIN_FORBIDDEN: .*"memory" permission/);
  assert.equal(probe.sessions, true);
  // The daemon's environment (API keys …) does not reach the plugin process.
  assert.equal(probe.envKeys.includes('HOMEAGENT_FAKE_API_KEY'), false);
  assert.ok(probe.envKeys.includes('HOMEAGENT_PLUGIN'));
  assert.ok(probe.envKeys.every((k: string) => !/KEY|TOKEN|SECRET/i.test(k)), probe.envKeys.join(','));
  // `homeagent/sdk` resolves inside the child (definePlugin, Cap, error classes) without node_modules.
  await assert.rejects(h.callTool('ext_missing'), /NOT_FOUND\]: thing not found: abc/);
  let published = 0;
  h.agent.bus.on('custom:x', () => void published++);
  for (const op of ['publish', 'social.setTrait', 'social.relate', 'provide', 'registerRoute']) {
    assert.match(await h.callTool('ext_sneak', { op }), /^refused: PLUGIN_FORBIDDEN: .*not available to external plugins/, op);
  }
  assert.equal(published, 0);
});

test('P-3: stage handlers run in the child and change the shared context; settings reach the child', async (t) => {
  const h = await host(t, 'ext-echo');
  const ctx = await h.runStage('before_output', { text: 'final' });
  assert.equal(ctx.text, 'final [ext]');
  await h.config.set('plugin.ext-echo.prefix', 'ECHO');
  await waitFor(async () => (await h.callTool('ext_echo', { text: 'z' })).startsWith('ECHO:z'), 5000, 'setting pushed');
  // Secrets are masked in list(), but the plugin itself reads the real value.
  await h.config.set('plugin.ext-echo.token', 'tok-123456789');
  await waitFor(async () => (await h.callTool('ext_token')) === 'tok-123456789', 5000, 'secret pushed in clear');
  const outcome = await h.send('hello');
  assert.equal(outcome.text, 'ok [ext]');
});

test('P-6: an external plugin registers an output channel over the bridge; output_send__ reaches it, split by its limit', async (t) => {
  const h = await host(t, 'ext-echo');
  assert.match(await h.callTool('output_send__extout', { payload: 'first line. second line', meta: '{"to":"x"}' }), /sent to extout in 3 parts/);
  assert.match(await h.callTool('output_send__extout_help'), /text, structured/);
  const got = JSON.parse(await h.callTool('ext_outbox'));
  assert.equal(got.length, 3);
  assert.ok(got.every((m: { payload: string }) => m.payload.length <= 10));
  assert.equal(got.map((m: { payload: string }) => m.payload).join('').replace(/\s/g, ''), 'firstline.secondline');
  assert.deepEqual(got[0].meta, { to: 'x', part: 1, parts: 3 });
  await assert.rejects(h.callTool('output_send__extout', { payload: 'p', type: 'image' }), /cannot send image/);
  assert.match(h.agent.channels.rules() ?? '', /extout \(text\/structured\): Test channel of ext-echo/);
  await h.registry.disable('ext-echo');
  await assert.rejects(h.callTool('output_send__extout', { payload: 'x' }), /no tool/);
});

test('P-3: the agent calls an external tool in a whole turn; an external plugin injects input and gets the outcome', async (t) => {
  const homeDir = fixtureHome('ext-echo');
  const llm = new ScriptedLlm([{ toolCalls: [{ name: 'ext_echo', arguments: { text: 'via llm' } }] }, { text: 'done' }]);
  const h = await createTestHost({ homeDir, llm, registry: { external: fast } });
  t.after(async () => {
    await h.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  const outcome = await h.send('use the echo tool');
  assert.equal(outcome.text, 'done [ext]');
  assert.match(JSON.stringify(llm.requests[1].messages), /echo:via llm pid:/);
  const turnId = await h.callTool('ext_ask', { text: 'from the plugin' });
  assert.match(turnId, /^ext:1#1$/);
  await waitFor(async () => JSON.parse(await h.callTool('ext_answers')).length === 1, 5000, 'outcome in the child');
  assert.deepEqual(JSON.parse(await h.callTool('ext_answers')), [{ turnId: 'ext:1#1', text: 'ok [ext]', status: 'ok', seenEnd: true }]);
  assert.equal((await h.sessions.events('ext:1'))[0].text, 'from the plugin');
});

test('decision 0360: an external tool declared for anyone is offered in a group member\'s turn and gets the turn\'s owner flag, scope, speaker and place; an undeclared one stays the owner\'s', async (t) => {
  const homeDir = fixtureHome('ext-echo');
  const llm = new ScriptedLlm();
  const h = await createTestHost({ homeDir, llm, registry: { external: fast } });
  t.after(async () => {
    await h.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  const alice = { id: 'qq:10001', name: 'Alice', platform: 'qq', userId: '10001' };
  const group = { kind: 'group' as const, id: 'qq:group:555', platform: 'qq', title: 'Family' };
  llm.enqueue({ toolCalls: [{ name: 'ext_whoami' }, { name: 'ext_echo', arguments: { text: 'x' } }] }, { text: 'done' });
  await h.send('@bot who am I', { sessionId: group.id, source: 'qq', speaker: alice, conversation: group });
  const offered = (llm.requests[0].tools ?? []).map((x) => x.name);
  assert.ok(offered.includes('ext_whoami'), `offered: ${offered.join(', ')}`);
  assert.ok(!offered.includes('ext_echo'), 'a tool that declares nothing is the owner\'s, in an external plugin too');
  const results = llm.requests[1].messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
  assert.deepEqual(JSON.parse(results[0]), { owner: false, scope: [group.id], speaker: alice.id, conversation: group.id, sessionId: group.id });
  assert.match(results[1], /FORBIDDEN/);
  // The owner's own turn: owner true, no scope (everything).
  llm.enqueue({ toolCalls: [{ name: 'ext_whoami' }] }, { text: 'done' });
  await h.send('and me?');
  const mine = JSON.parse(String(llm.requests[3].messages.filter((m) => m.role === 'tool').at(-1)?.content));
  assert.equal(mine.owner, true);
  assert.equal(mine.scope, undefined);
  assert.equal(mine.speaker, undefined);
});

test('P-3: a broken manifest fails that plugin with the validation message before any of its code runs', async (t) => {
  const h = await host(t, 'broken-manifest', 'ext-echo');
  const info = h.plugin('broken-manifest')!;
  assert.equal(info.state, 'failed');
  assert.match(info.lastError!, /invalid plugin\.json/);
  assert.match(info.lastError!, /version/);
  assert.match(info.lastError!, /entry/);
  assert.equal(h.plugin('ext-echo')!.state, 'running');
});

test('K-3: what an external tool writes to memory over the bridge is recorded as the agent\'s, with the tool and its turn (decision 0290)', async (t) => {
  const homeDir = fixtureHome('ext-mem');
  const config = new ConfigRegistry({ dbPath: join(homeDir, 'memory-config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  config.open();
  config.register(coreConfigDefaults());
  const memory = new MemorySystem({ homeDir, config, log: { debug() {}, info() {}, warn() {}, error() {} }, scheduler: new ManualScheduler(Date.now()) });
  await memory.open();
  const llm = new ScriptedLlm([{ toolCalls: [{ name: 'ext_remember', arguments: { what: 'kayaking' } }] }, { text: 'done' }]);
  // The daemon's tool scope (daemon.ts), on a real memory system.
  const h = await createTestHost({ homeDir, llm, memory, registry: { external: fast }, toolScope: (c, run) => memory.control.runAs({ actor: 'agent', tool: c.tool, turnId: c.turnId }, run) });
  t.after(async () => {
    await h.close();
    await memory.close();
    config.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  const outcome = await h.send('remember that I like kayaking');
  assert.equal(outcome.status, 'ok');
  assert.match(JSON.stringify(llm.requests[1].messages), /committed 1/);
  const change = memory.control.history({ kind: 'relation' }).find((c) => /kayaking/.test(c.summary));
  assert.ok(change, JSON.stringify(memory.control.history({ limit: 20 })));
  assert.deepEqual([change.actor, change.tool, change.turnId], ['agent', 'ext_remember', outcome.turnId]);
  // A request of the child's own while no tool of it runs keeps the host's actor.
  await memory.memoryAPI().commit([{ subject: 'user', predicate: 'likes', object: 'tea' }]);
  assert.equal(memory.control.history({ kind: 'relation' }).find((c) => /tea/.test(c.summary))?.actor, 'user');
});
