import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PluginDefinition, PluginSDK, SocialAPI } from '../spec/index.js';
import { createTestHost } from '../sdk/testing/index.js';
import { restrictSdk } from './restricted-sdk.js';
import { RouteTable } from './route-table.js';

test('P-3: restrictSdk drops publish, services, routes and social writes', async (t) => {
  let full: PluginSDK | undefined;
  const calls: string[] = [];
  const social: SocialAPI = {
    getPerson: async (n) => (calls.push(`get ${n}`), { name: n, traits: {} }),
    getTrait: async () => undefined,
    getRelations: async () => [],
    getNetwork: async () => ({ people: [], relations: [] }),
    listPersons: async () => ['ann'],
    setTrait: async () => void calls.push('setTrait'),
    relate: async () => void calls.push('relate'),
  };
  const p: PluginDefinition<PluginSDK> = { name: 'r', start: (sdk) => void (full = sdk) };
  const h = await createTestHost({ plugins: [p], memory: { memoryAPI: () => ({}) as never, knowledgeAPI: () => ({}) as never, socialAPI: () => social, socialReadAPI: () => social } });
  t.after(() => h.close());
  const r = restrictSdk(full!, () => h.host.socialRead()) as unknown as Record<string, unknown>;
  for (const gone of ['publish', 'provide', 'use', 'registerRoute']) assert.equal(r[gone], undefined, gone);
  const s = (r.social as () => Record<string, unknown>)();
  assert.deepEqual(Object.keys(s).sort(), ['getNetwork', 'getPerson', 'getRelations', 'getTrait', 'listPersons']);
  assert.deepEqual(await (s.getPerson as (n: string) => Promise<unknown>)('ann'), { name: 'ann', traits: {} });
  assert.deepEqual(calls, ['get ann']);
  assert.equal(Object.isFrozen(r), true);
  // The restricted object still registers through the plugin's scope.
  (r.registerTool as PluginSDK['registerTool'])({ name: 'r_tool', description: 'x', parameters: {}, handler: () => 'r' });
  assert.equal(await h.callTool('r_tool'), 'r');
  await h.host.stop('r');
  assert.equal(h.agent.stages.toolPlugin('r_tool'), undefined);
});

test('RouteTable refuses a second handler for the same method and path and notifies changes', () => {
  const rt = new RouteTable();
  let changes = 0;
  rt.onChange(() => void changes++);
  const d = rt.add('a', { method: 'GET', path: '/api/x', handler: () => new Response('a') });
  assert.throws(() => rt.add('b', { method: 'GET', path: '/api/x', handler: () => new Response('b') }), /already registered by plugin "a"/);
  assert.doesNotThrow(() => rt.add('b', { method: 'POST', path: '/api/x', handler: () => new Response('b') }));
  assert.throws(() => rt.add('b', { method: 'GET', path: 'no-slash', handler: () => new Response('b') }), /starting with "\/"/);
  // Every plugin route is under an API root (/api/, /v1/, /mcp), so it passes the API's token and same-origin checks.
  for (const path of ['/public-page', '/api/../x', '/v1x/models', '/mcpx', '/apix', '/index.html', '/v1/../assets/x.js']) {
    assert.throws(() => rt.add('b', { method: 'GET', path, handler: () => new Response('b') }), /must lie under \/api\/, \/v1\/, \/mcp/, path);
  }
  d();
  d();
  assert.deepEqual(rt.list().map((r) => `${r.plugin} ${r.method}`), ['b POST']);
  assert.equal(changes, 3);
  for (const path of ['/v1/models', '/mcp']) rt.add('c', { method: 'GET', path, handler: () => new Response('c') })();
});
