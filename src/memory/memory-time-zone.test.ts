/**
 * Decision 0270: recall counts days on the person's calendar (`core.agent.timezone`), not the
 * machine's or UTC — "what did I do on Tuesday" finds what was said on their Tuesday. The zone is
 * set through the setting; nothing here depends on the machine's TZ.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigRegistry, coreConfigDefaults } from '../config/index.js';
import { slotText, TIME_ZONE_KEY } from '../spec/index.js';
import { MemorySystem } from './memory-system.js';
import { ManualScheduler } from './heartbeat/index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-memtz-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;

async function setup(zone: string, settings: Record<string, number> = {}) {
  const home = path.join(root, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: { info() {}, warn() {}, error() {} } as never });
  config.open();
  config.register(coreConfigDefaults());
  await config.set(TIME_ZONE_KEY, zone);
  for (const [k, v] of Object.entries(settings)) await config.set(k, v);
  const clock = { t: 0 };
  const mem = new MemorySystem({ homeDir: home, config, scheduler: new ManualScheduler(0), now: () => clock.t });
  await mem.open();
  let i = 0;
  const say = async (at: number, text: string) => {
    clock.t = at;
    mem.context.append({ kind: 'user', source: 'webui', channel: 'webui', sessionId: 'webui:1', input: text, response: '', refs: [`webui:1#${++i}`] });
    await mem.context.prune(text);
  };
  return {
    mem,
    config,
    say,
    clock,
    async close() {
      await mem.close();
      config.close();
    },
  };
}

/** Monday 30 November 2026, 10:00 UTC = 18:00 in Shanghai (still Monday there). */
const MON_EVENING_SH = Date.UTC(2026, 10, 30, 10, 0);
/** Monday 30 November 2026, 23:30 UTC = Tuesday 1 December, 07:30 in Shanghai. */
const MON_2330_UTC = Date.UTC(2026, 10, 30, 23, 30);
/** Wednesday 2 December 2026, 01:00 UTC = 09:00 in Shanghai. */
const WED = Date.UTC(2026, 11, 2, 1, 0);

test('a turn said at 23:30 UTC on a Monday is found by a "Tuesday" question of a person in UTC+8', async () => {
  const s = await setup('Asia/Shanghai');
  try {
    await s.say(MON_EVENING_SH, 'I repaired the fence');
    await s.say(MON_2330_UTC, 'I repaired the kitchen tap with a new washer');
    const ask = async (q: string) => (await s.mem.recall.search(q, { k: 2, now: WED })).map((h) => h.text);
    assert.match((await ask('What did I repair on Tuesday?'))[0], /kitchen tap/, 'their Tuesday is 1 December in Shanghai');
    assert.match((await ask('我周二 repaired 了什么？'))[0], /kitchen tap/, '周二: their latest Tuesday');
    assert.match((await ask('What did I repair on Monday?'))[0], /fence/);
    // The same memory for a person in UTC: both turns were said on Monday, and "Tuesday" finds neither first.
    await s.config.set(TIME_ZONE_KEY, 'UTC');
    assert.match((await ask('What did I repair on Tuesday?'))[0], /fence/, 'in UTC both were Monday: no day boost, the shorter turn first');
  } finally {
    await s.close();
  }
});

test('days said inside a turn are resolved on the person’s calendar when the turn is stored (warm and cold tiers)', async () => {
  // A small window: older turns move on to the warm documents, where their days are stored.
  const s = await setup('Asia/Shanghai', { 'core.context.top_k': 1 });
  const utc = await setup('UTC', { 'core.context.top_k': 1 });
  try {
    for (const m of [s, utc]) {
      await m.say(Date.UTC(2026, 10, 29, 12, 0), 'the dentist appointment went fine');
      // Tuesday 07:00 in Shanghai (Monday 23:00 UTC): "tomorrow" is Wednesday 2 December there.
      await m.say(Date.UTC(2026, 10, 30, 23, 0), 'I have my dentist appointment tomorrow morning');
      // The window keeps its ten newest events: small talk pushes the two above out.
      for (let i = 0; i < 12; i++) await m.say(Date.UTC(2026, 11, 1, 2, i), `small talk number ${i} about the weather`);
    }
    const doc = (m: typeof s) => m.mem.docs.list().find((d) => d.content.includes('tomorrow morning'))!;
    assert.deepEqual(s.mem.docs.daysOf(doc(s).id), [20261202], 'Shanghai: tomorrow is Wednesday 2 December');
    assert.deepEqual(utc.mem.docs.daysOf(doc(utc).id), [20261201], 'UTC: tomorrow is Tuesday 1 December');
    const FRI = Date.UTC(2026, 11, 4, 2, 0);
    const top = async (m: typeof s) => (await m.mem.recall.search('Which dentist appointment did I have on Wednesday?', { k: 1, now: FRI, tiers: ['document'] }))[0]?.text ?? '';
    assert.match(await top(s), /tomorrow morning/);
    // The 【相关记忆文档】 slot dates each turn on the person's wall clock.
    const slot = slotText(await s.mem.promptSlots().related_documents!({ sessionId: 'webui:2', turnId: 'webui:2#1', input: 'dentist appointment', consolidation: false }));
    assert.match(slot ?? '', /\[2026-12-01 07:00 · document · user\] I have my dentist appointment tomorrow morning/, slot);
    // Ten days on, the archive loop moves the cold turns to the archive, with their days.
    const id = doc(s).id;
    s.clock.t = FRI + 10 * 86_400_000;
    assert.equal((await s.mem.heartbeats.runOnce('archive'))?.ok, true);
    assert.ok(s.mem.archive.size > 0 && !s.mem.docs.list().some((d) => d.id === id), 'archived');
    assert.deepEqual(s.mem.archive.daysOf(id), [20261202]);
  } finally {
    await s.close();
    await utc.close();
  }
});
