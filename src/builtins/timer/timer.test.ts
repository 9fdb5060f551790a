import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWhen, TimerScheduler, TimerStore, createTimerPlugin, type TimerRecord } from './index.js';
import { startFake } from '../__fixtures__/fake-sdk.js';
import { ConfigRegistry, coreConfigDefaults } from '../../config/index.js';
import { configAdmin } from '../../daemon/host-services.js';
import { TIME_ZONE_KEY } from '../../spec/index.js';

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

function rig(t: { after(fn: () => void): void }, dir?: string, zone = 'UTC') {
  const d = dir ?? mkdtempSync(join(tmpdir(), 'ha-timer-'));
  if (!dir) t.after(() => rmSync(d, { recursive: true, force: true }));
  const clock = { now: T0 };
  const fired: { t: TimerRecord; note?: string }[] = [];
  const s = new TimerScheduler({ store: new TimerStore(d), now: () => clock.now, deliver: (x, note) => fired.push({ t: x, note }), timeZone: () => zone });
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
  // "restart" 3 hours later: a new scheduler over the same folder (the person in Shanghai)
  const b = rig(t, a.d, 'Asia/Shanghai');
  b.clock.now = T0 + 3 * 3_600_000 + 60_000;
  assert.equal(await b.s.open(), 1);
  assert.equal(b.fired.length, 1);
  assert.equal(b.fired[0].t.text, 'call mum');
  assert.equal(b.fired[0].t.delivery, 'interrupt');
  assert.match(b.fired[0].note!, /missed while HomeAgent was not running; it was due at 2026-03-01 08:05 UTC\+08:00/);
  const left = b.s.list();
  assert.deepEqual(left.map((x) => x.text).sort(), ['hourly', 'later']);
  assert.equal(new Date(left.find((x) => x.text === 'hourly')!.nextAt).toISOString(), '2026-03-01T04:00:00.000Z');
  // and a third start, once the delivery was recorded, does not fire the one-shot again
  await b.s.settled();
  const c = rig(t, a.d);
  c.clock.now = b.clock.now;
  assert.equal(await c.s.open(), 0);
  assert.equal(c.fired.length, 0);
});

test('decision 0390: a fired one-shot stays in timers.json as fired-not-delivered until its input is recorded; killed before that, the restart delivers it exactly once', async (t) => {
  const d = mkdtempSync(join(tmpdir(), 'ha-timer-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  const clock = { now: T0 };
  let record!: () => void;
  const calls: { text: string; restarted: boolean; key: string }[] = [];
  const s = new TimerScheduler({
    store: new TimerStore(d),
    now: () => clock.now,
    deliver: (x, _note, fire) => {
      calls.push({ text: x.text, restarted: fire.restarted, key: fire.key });
      return new Promise<void>((r) => (record = r)); // recorded when the test says so
    },
  });
  await s.open();
  await s.create({ text: 'take the pills', sessionId: 's1', when: 'in 5 minutes' });
  clock.now = T0 + 5 * 60_000;
  assert.equal(await s.tick(), 1);
  assert.equal(calls.length, 1);
  // The reminder is out, its input not yet recorded: what a kill -9 now leaves on disk.
  const onDisk = JSON.parse(readFileSync(join(d, 'timers.json'), 'utf8')) as { timers: TimerRecord[]; undelivered?: { key: string; timer: TimerRecord }[] };
  assert.deepEqual(onDisk.timers, [], 'the one-shot left the list');
  assert.deepEqual(onDisk.undelivered?.map((f) => [f.key, f.timer.text]), [[calls[0].key, 'take the pills']]);
  const killed = mkdtempSync(join(tmpdir(), 'ha-timer-killed-'));
  t.after(() => rmSync(killed, { recursive: true, force: true }));
  cpSync(join(d, 'timers.json'), join(killed, 'timers.json'));
  // Recorded: it leaves timers.json.
  record();
  await s.settled();
  assert.equal(JSON.parse(readFileSync(join(d, 'timers.json'), 'utf8')).undelivered, undefined);

  // The restart after the kill delivers it (once), and once recorded, never again.
  const fired: { text: string; restarted: boolean }[] = [];
  const open = async () => {
    const r = new TimerScheduler({ store: new TimerStore(killed), now: () => clock.now + 60_000, deliver: (x, _n, f) => void fired.push({ text: x.text, restarted: f.restarted }) });
    await r.open();
    await r.settled();
    return r;
  };
  await open();
  assert.deepEqual(fired, [{ text: 'take the pills', restarted: true }]);
  const third = await open();
  assert.equal(fired.length, 1);
  assert.deepEqual(third.pending(), []);
});

test('decision 0270: an ISO time without an offset is the wall clock of the person’s zone', () => {
  // 21:00 on 1 March in Shanghai (UTC+8) is 13:00 UTC; in Berlin (UTC+1) 20:00 UTC.
  assert.equal(parseWhen('2026-03-01T21:00', T0, 'Asia/Shanghai'), Date.parse('2026-03-01T13:00:00Z'));
  assert.equal(parseWhen('2026-03-01 21:00:30', T0, 'Europe/Berlin'), Date.parse('2026-03-01T20:00:30Z'));
  assert.equal(parseWhen('2026-03-02', T0, 'Asia/Shanghai'), Date.parse('2026-03-01T16:00:00Z'));
  // An offset or Z says its own zone.
  assert.equal(parseWhen('2026-03-01T21:00:00Z', T0, 'Asia/Shanghai'), Date.parse('2026-03-01T21:00:00Z'));
  // 07:00 in Shanghai is before now (00:00 UTC = 08:00 there): in the past.
  assert.throws(() => parseWhen('2026-03-01T07:00', T0, 'Asia/Shanghai'), /in the past/);
  for (const bad of ['2026-02-30T09:00', '2026-03-01T25:00', '2026-13-01']) assert.throws(() => parseWhen(bad, T0, 'Asia/Shanghai'), (e: Error & { code?: string }) => e.code === 'VALIDATION', bad);
});

test('decision 0270: the timer plugin reads and shows times in core.agent.timezone; zone-less cron timers follow it when it changes', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'ha-timer-tz-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const config = new ConfigRegistry({ dbPath: join(home, 'config.db'), logger: { warn: () => {} } });
  config.open();
  t.after(() => config.close());
  config.register(coreConfigDefaults());
  await config.set(TIME_ZONE_KEY, 'Asia/Shanghai');
  const clock = { now: T0 }; // 08:00 on Sunday 1 March in Shanghai
  const plugin = createTimerPlugin({ now: () => clock.now, manualTick: true });
  const h = await startFake(plugin, { services: { 'host.config': configAdmin(config) } });
  t.after(() => h.cleanup());
  // "remind me at 9 tonight": the model writes the person's wall clock.
  assert.match(await h.callTool('timer_create', { text: 'call mum', when: '2026-03-01T21:00' }), /at 2026-03-01 21:00 UTC\+08:00 → input/);
  assert.match(await h.callTool('timer_create', { text: 'standup', cron: '0 9 * * *' }), /cron "0 9 \* \* \*" \(Asia\/Shanghai, the default zone\), next 2026-03-01 09:00 UTC\+08:00/);
  await h.callTool('timer_create', { text: 'utc check', cron: '0 9 * * *', timezone: 'UTC' });
  const at = (text: string) => plugin.scheduler()!.list().find((x) => x.text === text)!.nextAt;
  assert.equal(at('call mum'), Date.parse('2026-03-01T13:00:00Z'));
  assert.equal(at('standup'), Date.parse('2026-03-01T01:00:00Z'));
  // The person moves to Berlin: 9:00 is now Berlin's 9:00 (08:00 UTC); a timer with its own zone stays.
  await config.set(TIME_ZONE_KEY, 'Europe/Berlin');
  await plugin.scheduler()!.tick();
  assert.equal(at('standup'), Date.parse('2026-03-01T08:00:00Z'));
  assert.equal(at('utc check'), Date.parse('2026-03-01T09:00:00Z'));
  assert.match(await h.callTool('timer_list'), /cron "0 9 \* \* \*" \(Europe\/Berlin, the default zone\), next 2026-03-01 09:00 UTC\+01:00 → input to \S+: standup/);
  // An invalid zone is refused by the setting itself, and the timers keep the last good one.
  await assert.rejects(config.set(TIME_ZONE_KEY, 'Mars/Olympus'), /unknown time zone/);
  assert.equal(config.get(TIME_ZONE_KEY), 'Europe/Berlin');
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

test('decision 0400: a forget drops a reminder set in its turn and a fire still waiting for its save — that fire is never delivered; one already handed over is not counted', async (t) => {
  const d = mkdtempSync(join(tmpdir(), 'ha-timer-drop-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  const clock = { now: T0 };
  const store = new TimerStore(d);
  let hold: Promise<void> | undefined;
  const save = store.save.bind(store);
  // A save that waits until the test lets it go: the window between a fire and its delivery.
  store.save = async (...a) => {
    await hold;
    return save(...a);
  };
  const delivered: string[] = [];
  const s = new TimerScheduler({ store, now: () => clock.now, deliver: (x) => void delivered.push(x.text), timeZone: () => 'UTC' });
  await s.open();
  await s.create({ text: 'the code is 8642', sessionId: 's1', when: 'in 1 minute', creator: { owner: true, turnId: 's1#4' } });
  await s.create({ text: 'water the plants', sessionId: 's1', when: 'in 1 minute' });
  await s.create({ text: 'later: the code is 8642', sessionId: 's1', when: 'in 2 hours', creator: { owner: true, turnId: 's1#4' } });
  clock.now = T0 + 60_000;
  let release!: () => void;
  hold = new Promise<void>((r) => (release = r));
  const ticking = s.tick();
  // Both fired, both waiting for the save; the forget of turn s1#4 comes now.
  const dropping = s.drop((x) => x.creator?.turnId === 's1#4');
  release();
  assert.equal(await ticking, 2);
  assert.equal(await dropping, 2, 'the waiting fire and the later timer');
  await s.settled();
  assert.deepEqual(delivered, ['water the plants']);
  assert.deepEqual(s.list().map((x) => x.text), []);
  // A fire already handed over is on its way to the log: not dropped, not counted.
  hold = undefined;
  let record!: () => void;
  const s2 = new TimerScheduler({ store: new TimerStore(mkdtempSync(join(d, 'b-'))), now: () => clock.now, deliver: () => new Promise<void>((r) => (record = r)), timeZone: () => 'UTC' });
  await s2.open();
  await s2.create({ text: 'the code is 8642', sessionId: 's1', when: 'in 1 minute', creator: { owner: true, turnId: 's1#4' } });
  clock.now = T0 + 2 * 60_000;
  await s2.tick();
  assert.equal(await s2.drop((x) => x.creator?.turnId === 's1#4'), 0);
  record();
  await s2.settled();
  assert.deepEqual(s2.pending(), [], "recorded, it left the list");
});

test('0420: what a forget finished at start owes the timers is dropped after they load and before any missed one is delivered', async (t) => {
  const a = rig(t);
  await a.s.open();
  await a.s.create({ text: 'alarm code is ORCA-5150', sessionId: 's1', when: 'in 5 minutes', creator: { owner: true, turnId: 's1#3' } });
  await a.s.create({ text: 'call mum', sessionId: 's1', when: 'in 6 minutes' });
  const b = rig(t, a.d);
  b.clock.now = T0 + 3_600_000;
  let dropped = 0;
  const missed = await b.s.open(async () => {
    // What the timers' forget participant does with the debt (the turn id, the quote).
    dropped = await b.s.drop((x) => x.creator?.turnId === 's1#3');
  });
  assert.equal(dropped, 1, 'the loaded timers were there to drop');
  assert.equal(missed, 1);
  assert.deepEqual(b.fired.map((f) => f.t.text), ['call mum'], 'the forgotten reminder is not delivered as missed');
});
