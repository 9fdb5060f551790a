import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { setupManager } from './__fixtures__/setup.js';
import { API_OPS } from './api-ops.js';
import { BODY_LIMIT } from './http-api.js';

const SPEC_OPS = [
  'state.get', 'state.setEnabled', 'state.setMode', 'diag.log', 'config.get', 'config.set', 'memory.list', 'memory.get', 'memory.search', 'memory.save',
  'memory.updateNotes', 'memory.updateMeta', 'memory.delete', 'memory.compose', 'memory.related', 'memory.graph', 'plan.get', 'plan.pin', 'plan.unpin',
  'plan.addMemory', 'plan.removeMemory', 'plan.setInjectOnce', 'plan.clear', 'plan.preview', 'once.push', 'session.list', 'session.turns',
  'session.summarize', 'turn.exclude', 'turn.restore',
];

test('M-11: the op table is exactly the 30 ops of the spec', () => {
  assert.deepEqual(Object.keys(API_OPS).sort(), [...SPEC_OPS].sort());
});

test('M-11: every op answers {ok, value}', async (t) => {
  const { fake } = setupManager(t, { settings: { autoInject: false } });
  const ok = async (op: string, args: Record<string, unknown> = {}, sessionId?: string) => {
    const r = await fake.op(op, args, sessionId);
    assert.equal(r.ok, true, `${op}: ${JSON.stringify(r.value)}`);
    return r.value;
  };
  assert.equal((await ok('state.get')).enabled, true);
  assert.equal((await ok('state.setMode', { mode: 'off' })).mode, 'off');
  assert.equal((await ok('state.setEnabled', { enabled: true })).enabled, true);
  assert.deepEqual(await ok('diag.log', { level: 'info', message: 'hello' }), { written: 1, dropped: 0 });
  assert.equal((await ok('config.get')).view, 'full');
  assert.equal((await ok('config.set', { patch: { view: 'compact' } })).view, 'compact');

  const a = await ok('memory.save', { id: 'api-a', title: '甲', snapshot: '甲的快照', impressions: ['甲'] });
  assert.equal(a.id, 'api-a');
  await ok('memory.save', { id: 'api-b', title: '乙', snapshot: '乙的快照', links: ['api-a'] });
  assert.equal((await ok('memory.list')).total, 2);
  assert.deepEqual((await ok('memory.get', { id: 'api-a' })).backlinks, ['api-b']);
  assert.equal((await ok('memory.search', { query: '甲' }))[0].id, 'api-a');
  assert.equal((await ok('memory.updateNotes', { id: 'api-a', notes: '注' })).notes, '注');
  assert.equal((await ok('memory.updateMeta', { id: 'api-a', patch: { title: '甲甲' } })).title, '甲甲');
  const comp = await ok('memory.compose', { ids: ['api-a', 'api-b'], title: '合' });
  assert.deepEqual(comp.composedOf, ['api-a', 'api-b']);
  assert.deepEqual((await ok('memory.related', { id: 'api-a' })).map((r: { id: string }) => r.id), ['api-b']);
  const g = await ok('memory.graph');
  assert.equal(g.nodes.length, 3);
  assert.equal(g.nodes.find((n: { id: string }) => n.id === 'api-b').preview, '乙的快照', 'a node carries the start of its text for the hover');
  assert.ok(g.edges.some((e: { kind: string }) => e.kind === 'composedOf'));
  assert.equal((await ok('memory.graph', { focus: 'api-b', hops: 2 })).mode, 'focus');

  const pin = await ok('plan.pin', { role: 'assistant', text: '固定的回答' });
  assert.equal((await ok('plan.addMemory', { id: 'api-a' })).memories[0].title, '甲甲');
  assert.equal((await ok('plan.setInjectOnce', { value: true })).injectOnce, true);
  const plan = await ok('plan.get');
  assert.deepEqual(Object.keys(plan).sort(), ['excluded', 'injectOnce', 'memories', 'once', 'pinned']);
  assert.equal((await ok('once.push', { text: '一次性' })).text, '一次性');
  assert.equal((await ok('once.push', { memoryId: 'api-b' })).memoryId, 'api-b');
  const preview = await ok('plan.preview');
  assert.ok(preview.block.includes('固定的回答') && preview.block.includes('一次性') && preview.block.includes('乙的快照'));
  assert.equal(preview.active, true);
  assert.equal((await ok('plan.get')).once.length, 2, 'preview does not consume');
  assert.deepEqual((await ok('plan.unpin', { id: pin.id })).pinned, []);
  assert.deepEqual((await ok('plan.removeMemory', { id: 'api-a' })).memories, []);
  await ok('plan.addMemory', { id: 'api-a' });
  assert.deepEqual(await ok('memory.delete', { id: 'api-a' }), { id: 'api-a', deleted: true });
  assert.deepEqual((await ok('plan.get')).memories, [], 'deleting a memory removes it from the plan');
  const cleared = await ok('plan.clear');
  assert.deepEqual([cleared.pinned, cleared.memories, cleared.injectOnce], [[], [], false]);

  await fake.sessions.create({ channel: 'webui', id: 'webui:api', title: 'API' });
  const turnId = await fake.sessions.addTurn('webui:api', '问', '答');
  assert.equal((await ok('session.list'))[0].id, 'webui:api');
  assert.equal((await ok('session.turns', {}, 'webui:api'))[0].user, '问');
  assert.equal((await ok('session.turns', { sessionId: 'webui:api' }))[0].turnId, turnId, 'sessionId may come in args');
  assert.equal((await ok('turn.exclude', { turnId }, 'webui:api')).excluded, true);
  assert.equal((await ok('turn.restore', { turnId }, 'webui:api')).excluded, false);
  const sum = await fake.op('session.summarize', {}, 'webui:api');
  assert.equal(sum.value.code, 'NO_PROVIDER_CONFIGURED', 'covered with an LLM in summarizer.test.ts');
});

test('M-11: protocol errors: malformed JSON 400, bad envelope 400, unknown op 400, oversized body 413 — all in the envelope', async (t) => {
  const { fake } = setupManager(t);
  const bad = await fake.request('POST', undefined, { raw: '{"op": ' });
  assert.equal(bad.status, 400);
  assert.deepEqual([bad.json.ok, bad.json.value.code], [false, 'PROTOCOL']);
  assert.match(bad.json.value.error, /malformed JSON/);
  const env = await fake.request('POST', { args: {} });
  assert.deepEqual([env.status, env.json.value.code], [400, 'PROTOCOL']);
  const arr = await fake.request('POST', [1, 2]);
  assert.equal(arr.status, 400);
  const unknown = await fake.request('POST', { op: 'memory.explode' });
  assert.deepEqual([unknown.status, unknown.json.ok, unknown.json.value.code], [400, false, 'UNKNOWN_OP']);
  const proto = await fake.request('POST', { op: '__proto__' });
  assert.equal(proto.status, 400);
  const big = await fake.request('POST', undefined, { raw: JSON.stringify({ op: 'memory.save', args: { snapshot: 'x'.repeat(BODY_LIMIT) } }) });
  assert.equal(big.status, 413);
  assert.deepEqual([big.json.ok, big.json.value.code], [false, 'PAYLOAD_TOO_LARGE']);
  const declared = await fake.request('POST', undefined, { raw: '{}', headers: { 'content-length': String(BODY_LIMIT + 1) } });
  assert.equal(declared.status, 413, 'a declared length over the limit is refused before reading');
});

test('M-11: business errors are ok:false with value.error, a code and a 4xx status (decision 0280); bad ids never touch the disk', async (t) => {
  const { fake } = setupManager(t);
  const status = async (op: string, args: Record<string, unknown>) => (await fake.request('POST', { op, args })).status;
  for (const [op, args] of [
    ['memory.get', { id: '../x' }],
    ['memory.get', { id: '../../etc/passwd' }],
    ['memory.save', { id: '../x', snapshot: 'a' }],
    ['memory.delete', { id: 'a/b' }],
    ['memory.updateNotes', { id: '..', notes: 'x' }],
    ['memory.graph', { focus: '../x' }],
    ['plan.addMemory', { id: '../x' }],
    ['once.push', { memoryId: '../x' }],
    ['memory.search', {}],
    ['plan.pin', { text: '' }],
    ['once.push', {}],
  ] as const) {
    const { status: code, json: r } = await fake.request('POST', { op, args });
    assert.equal(r.ok, false, op);
    assert.equal(r.value.code, 'VALIDATION', `${op} ${JSON.stringify(args)}`);
    assert.equal(code, 400, op);
    assert.equal(typeof r.value.error, 'string');
  }
  assert.equal((await fake.op('memory.get', { id: 'missing-1' })).value.code, 'NOT_FOUND');
  assert.equal(await status('memory.get', { id: 'missing-1' }), 404);
  await fake.op('memory.save', { id: 'imm-1', snapshot: '原文' });
  assert.equal(await status('memory.updateMeta', { id: 'imm-1', patch: { snapshot: '改' } }), 409);
  assert.equal((await fake.op('memory.updateMeta', { id: 'imm-1', patch: { snapshot: '改' } })).value.code, 'CONFLICT');
  assert.equal((await fake.op('memory.updateMeta', { id: 'imm-1', snapshot: '改' })).value.code, 'CONFLICT');
  assert.equal((await fake.op('memory.updateNotes', { id: 'imm-1', notes: 'n', snapshot: '改' })).value.code, 'CONFLICT');
  assert.equal((await fake.op('memory.save', { id: 'imm-1', snapshot: '改' })).value.code, 'CONFLICT');
  assert.equal((await fake.op('memory.get', { id: 'imm-1' })).value.snapshot, '原文');
  await fake.op('memory.updateMeta', { id: 'imm-1', patch: { enabled: false } });
  assert.equal((await fake.op('plan.addMemory', { id: 'imm-1' })).value.code, 'CONFLICT', 'disabled memories cannot join the plan');
});

test('M-11: over real loopback HTTP: GET probe, POST op, 413', async (t) => {
  const { fake } = setupManager(t);
  const server = serve({
    fetch: (req: Request) => {
      const route = fake.routes.find((r) => r.method === req.method && new URL(req.url).pathname === r.path);
      return route ? route.handler(req, {}) : new Response('not found', { status: 404 });
    },
    port: 0,
    hostname: '127.0.0.1',
  });
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/memory-manager`;
  const probe = (await (await fetch(base)).json()) as Record<string, unknown>;
  // SPEC M-11: the fields at the top level; the old envelope's value still carries them.
  assert.equal(probe.ok, true);
  assert.equal(probe.service, 'memory-manager');
  assert.equal(probe.enabled, true);
  assert.deepEqual(probe.value, { ok: true, service: 'memory-manager', enabled: true });
  const saved = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ op: 'memory.save', args: { id: 'http-1', snapshot: '经由 HTTP' } }) });
  assert.equal(((await saved.json()) as { value: { snapshot: string } }).value.snapshot, '经由 HTTP');
  const big = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(BODY_LIMIT + 10) });
  assert.equal(big.status, 413);
  assert.equal(((await big.json()) as { ok: boolean }).ok, false);
});

test('memory.get names the links and sources that are gone (deleted, forgotten) as missing', async (t) => {
  const { fake } = setupManager(t, { settings: { autoInject: false } });
  const ok = async (op: string, args: Record<string, unknown> = {}) => {
    const r = await fake.op(op, args);
    assert.equal(r.ok, true, `${op}: ${JSON.stringify(r.value)}`);
    return r.value as Record<string, unknown>;
  };
  await ok('memory.save', { id: 'gone-a', title: 'A', snapshot: 'a' });
  await ok('memory.save', { id: 'gone-b', title: 'B', snapshot: 'b' });
  const c = await ok('memory.compose', { ids: ['gone-a', 'gone-b'], title: 'C' });
  await ok('memory.updateMeta', { id: c.id, links: ['gone-a', 'gone-b'] });
  assert.equal((await ok('memory.get', { id: c.id })).missing, undefined, 'nothing gone yet');
  await ok('memory.delete', { id: 'gone-a' });
  assert.deepEqual((await ok('memory.get', { id: c.id })).missing, ['gone-a']);
});
