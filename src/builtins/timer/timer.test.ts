import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWhen, TimerScheduler, TimerStore, createTimerPlugin, type TimerRecord } from './index.js';
import { startFake } from '../__fixtures__/fake-sdk.js';

const T0 = Date.parse('2026-03-01T00:00:00Z');

test('parseWhen: relative English/Chinese durations and ISO times; bad input is a ValidationError', () => {
  assert.equal(parseWhen('in 10 minutes', T0), T0 + 600_000);
  assert.equal(parseWhen('in 1 hour and 30 minutes', T0), T0 + 5_400_000);
  assert.equal(parseWhen('1h30m', T0), T0 + 5_400_000);
  assert.equal(parseWhen('10分钟后', T0), T0 + 600_000);
  assert.equal(parseWhen('2小时30分钟后', T0), T0 + 9_000_000);
  assert.equal(parseWhen('2026-03-01T09:00:00+08:00', T0), T0 + 3_600_000);
  for (const bad of ['tomorrow-ish', 'in 10 parsecs', '', '2020-01-01T00:00:00Z', 'in 0 minutes']) {
    assert.throws(() => parseWhen(bad, T0), (e: Error & { code?: string }) => e.code === 'VALIDATION', bad);
  }
});

function rig(t: { after(fn: () => void): void }, dir?: string) {
  const d = dir ?? mkdtempSync(join(tmpdir(), 'ha-timer-'));
  if (!dir) t.after(() => rmSync(d, { recursive: true, force: true }));
  const clock = { now: T0 };
  const fired: { t: TimerRecord; note?: string }[] = [];
  const s = new TimerScheduler({ store: new TimerStore(d), now: () => clock.now, deliver: (x, note) => fired.push({ t: x, note }) });
  return { d, clock, fired, s };
}

test('TimerScheduler: a one-shot fires once when the injected clock reaches it', async (t) => {
  const { clock, fired, s } = rig(t);
  await s.open();
  await s.create({ text: 'tea', sessionId: 's1', when: 'in 10 minutes' });
  clock.now = T0 + 599_999;
  assert.equal(await s.tick(), 0);
  clock.now = T0 + 600_000;
  assert.equal(await s.tick(), 1);
  assert.equal(fired[0].t.text, 'tea');
  assert.equal(fired[0].note, undefined);
  clock.now += 3_600_000;
  assert.equal(await s.tick(), 0);
  assert.equal(s.list().length, 0);
});

test('TimerScheduler: cron in a time zone fires at each run and moves to the next', async (t) => {
  const { clock, fired, s } = rig(t);
  await s.open();
  const rec = await s.create({ text: 'standup', sessionId: 's1', cron: '0 9 * * *', timezone: 'Asia/Shanghai' });
  assert.equal(new Date(rec.nextAt).toISOString(), '2026-03-01T01:00:00.000Z');
  clock.now = Date.parse('2026-03-01T01:00:00Z');
  await s.tick();
  clock.now = Date.parse('2026-03-02T01:00:30Z');
  await s.tick();
  assert.equal(fired.length, 2);
  assert.equal(new Date(s.list()[0].nextAt).toISOString(), '2026-03-03T01:00:00.000Z');
  await assert.rejects(s.create({ text: 'x', sessionId: 's', cron: 'bad pattern' }), /invalid cron pattern/);
  await assert.rejects(s.create({ text: 'x', sessionId: 's', cron: '* * * * *', timezone: 'Mars/Base' }), /unknown time zone/);
  await assert.rejects(s.create({ text: 'x', sessionId: 's' }), /exactly one of/);
  await s.cancel(rec.id);
  await assert.rejects(s.cancel(rec.id), (e: Error & { code?: string }) => e.code === 'NOT_FOUND');
});

test('TimerScheduler: timers survive a restart; a missed one-shot fires once with a note, a missed cron run is skipped', async (t) => {
  const a = rig(t);
  await a.s.open();
  await a.s.create({ text: 'call mum', sessionId: 's1', when: 'in 5 minutes', delivery: 'interrupt' });
  await a.s.create({ text: 'later', sessionId: 's1', when: 'in 2 days' });
  await a.s.create({ text: 'hourly', sessionId: 's1', cron: '0 * * * *', timezone: 'UTC' });
  // "restart" 3 hours later: a new scheduler over the same folder
  const b = rig(t, a.d);
  b.clock.now = T0 + 3 * 3_600_000 + 60_000;
  assert.equal(await b.s.open(), 1);
  assert.equal(b.fired.length, 1);
  assert.equal(b.fired[0].t.text, 'call mum');
  assert.equal(b.fired[0].t.delivery, 'interrupt');
  assert.match(b.fired[0].note!, /missed while HomeAgent was not running; it was due at 2026-03-01T00:05:00.000Z/);
  const left = b.s.list();
  assert.deepEqual(left.map((x) => x.text).sort(), ['hourly', 'later']);
  assert.equal(new Date(left.find((x) => x.text === 'hourly')!.nextAt).toISOString(), '2026-03-01T04:00:00.000Z');
  // and a third start does not fire the one-shot again
  const c = rig(t, a.d);
  c.clock.now = b.clock.now;
  assert.equal(await c.s.open(), 0);
  assert.equal(c.fired.length, 0);
});

test('TimerScheduler: a corrupt timers file is kept aside', async (t) => {
  const d = mkdtempSync(join(tmpdir(), 'ha-timer-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  writeFileSync(join(d, 'timers.json'), '{oops');
  const { s } = rig(t, d);
  await s.open();
  assert.equal(s.list().length, 0);
  assert.ok(readdirSync(d).some((f) => f.startsWith('timers.json.corrupt-')));
});

test('timer plugin: tools create/list/cancel; due timers are injected as system input or interrupt (source timer)', async (t) => {
  const clock = { now: T0 };
  const plugin = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const h = await startFake(plugin);
  t.after(() => h.cleanup());
  assert.match(await h.callTool('timer_create', { text: 'drink water', when: 'in 1 minute' }, 'webui:abc'), /created t.*→ input to webui:abc: drink water/);
  const out = await h.callTool('timer_create', { text: 'stop the build', when: 'in 2 minutes', delivery: 'interrupt' }, 'cli:x');
  const id = /created (\S+):/.exec(out)![1];
  await h.callTool('timer_create', { text: 'weekly', cron: '0 10 * * 1' });
  assert.equal((await h.callTool('timer_list')).split('\n').length, 3);
  await assert.rejects(h.callTool('timer_create', { text: 'x', when: 'someday' }), /cannot understand/);
  clock.now = T0 + 60_000;
  await plugin.scheduler()!.tick();
  assert.deepEqual(h.inputs.map((i) => [i.sessionId, i.source, i.trigger, i.text.replace(/^\[timer \S+\] /, '')]), [['webui:abc', 'timer', 'system', 'drink water']]);
  clock.now = T0 + 120_000;
  await plugin.scheduler()!.tick();
  assert.equal(h.interrupts.length, 1);
  assert.equal(h.interrupts[0].source, 'timer');
  assert.equal(h.interrupts[0].sessionId, 'cli:x');
  await assert.rejects(h.callTool('timer_cancel', { id }), /not found/);
  const weekly = /^(\S+):/.exec(await h.callTool('timer_list'))![1];
  assert.match(await h.callTool('timer_cancel', { id: weekly }), /cancelled/);
  assert.equal(await h.callTool('timer_list'), 'no timers');
});
