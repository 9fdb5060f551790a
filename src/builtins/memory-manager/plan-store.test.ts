import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlanStore } from './plan-store.js';

function temp(t: { after(fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'mm-plan-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('M-5: plan, excluded and once files are written and read back', async (t) => {
  const dir = temp(t);
  const a = new PlanStore(dir);
  const pin = await a.pin('user', '固定这句');
  await a.addMemory({ id: 'mem-1', title: '标题', impressions: ['甲'], tags: [] });
  await a.setInjectOnce(true);
  await a.exclude('webui:1', 'webui:1#2');
  await a.pushOnce({ text: '只一次' });
  const plan = JSON.parse(readFileSync(join(dir, 'pinned', 'plan.json'), 'utf8'));
  assert.deepEqual(Object.keys(plan).sort(), ['injectOnce', 'memories', 'pinned']);
  assert.deepEqual(plan.pinned[0], pin);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'pinned', 'excluded.json'), 'utf8')), { 'webui:1': ['webui:1#2'] });
  const b = new PlanStore(dir);
  assert.equal((await b.get()).injectOnce, true);
  assert.deepEqual((await b.get()).memories.map((m) => m.id), ['mem-1']);
  assert.ok(b.isExcluded('webui:1', 'webui:1#2'));
  assert.deepEqual((await b.takeOnce()).map((o) => o.text), ['只一次']);
  assert.deepEqual(await b.takeOnce(), [], 'the once queue is cleared after it was taken');
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'pinned', 'once.json'), 'utf8')), []);
  assert.equal(await b.restore('webui:1', 'webui:1#2'), true);
  assert.equal(await b.restore('webui:1', 'webui:1#2'), false);
  await assert.rejects(b.unpin('nope'), { code: 'NOT_FOUND' });
  await assert.rejects(b.pin('user', '  '), { code: 'VALIDATION' });
});

test('M-5: a corrupt plan file is kept aside, defaults are used and it is logged', async (t) => {
  const dir = temp(t);
  mkdirSync(join(dir, 'pinned'), { recursive: true });
  writeFileSync(join(dir, 'pinned', 'plan.json'), '{"pinned": [oops');
  writeFileSync(join(dir, 'pinned', 'excluded.json'), '["not", "a", "record"]');
  const logs: string[] = [];
  const s = new PlanStore(dir, (msg, data) => logs.push(`${msg} ${String(data?.file)}`));
  assert.deepEqual(await s.get(), { pinned: [], memories: [], injectOnce: false });
  assert.deepEqual(await s.excluded(), {});
  const files = readdirSync(join(dir, 'pinned'));
  assert.ok(files.some((f) => f.startsWith('plan.json.corrupt-')), 'corrupt plan kept aside');
  assert.ok(files.some((f) => f.startsWith('excluded.json.corrupt-')));
  assert.equal(logs.filter((l) => l.startsWith('corrupt plan file')).length, 2);
  await s.pin('user', 'x');
  assert.equal(JSON.parse(readFileSync(join(dir, 'pinned', 'plan.json'), 'utf8')).pinned.length, 1);
});
