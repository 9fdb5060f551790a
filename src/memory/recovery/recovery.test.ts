import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ConfigRegistry, coreConfigDefaults } from '../../config/index.js';
import { SessionStore } from '../../sessions/index.js';
import type { PluginLogger } from '../../spec/index.js';
import { MemorySystem } from '../memory-system.js';
import { ManualScheduler } from '../heartbeat/index.js';
import { REPLAY_BATCH, type ReindexProgress } from './index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-recovery-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const DAY = 86_400_000;
const quiet: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };

async function setup(now = Date.now()) {
  const home = path.join(root, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  const config = new ConfigRegistry({ dbPath: path.join(home, 'config.db'), env: {}, logger: quiet as never });
  config.open();
  config.register(coreConfigDefaults());
  const sessions = new SessionStore({ dir: path.join(home, 'sessions'), logger: { warn() {} } });
  await sessions.open();
  const clock = { t: now };
  const mk = () => new MemorySystem({ homeDir: home, config, log: quiet, sessions, scheduler: new ManualScheduler(clock.t), now: () => clock.t });
  /** One acknowledged turn as the kernel logs it: the user message, then the reply. */
  const turn = async (sid: string, k: number, user: string, reply: string, at: number, status = 'ok', who?: Record<string, unknown>) => {
    await sessions.ensure(sid, sid.split(':')[0]);
    await sessions.append(sid, { turnId: `${sid}#${k}`, kind: 'user', text: user, at, data: { source: 'cli', trigger: 'user', ...who } });
    await sessions.append(sid, { turnId: `${sid}#${k}`, kind: 'tool_result', text: 'tool output', at: at + 1 });
    await sessions.append(sid, { turnId: `${sid}#${k}`, kind: 'assistant', text: reply, at: at + 2, data: { status } });
  };
  return { home, config, sessions, clock, mk, turn };
}

const summary = (m: MemorySystem) => m.context.events().map((e) => `${e.refs?.[0]} ${e.kind} ${e.kind === 'agent' ? e.response : e.input}`);

test('acknowledged turns missing from the saved window are replayed from the session log once, at their logged time', async () => {
  const t0 = Date.now();
  const s = await setup(t0);
  await s.turn('cli:a', 1, 'my cat is called Mochi', 'noted', t0);
  const first = s.mk();
  await first.open();
  assert.deepEqual(summary(first), ['cli:a#1 user my cat is called Mochi', 'cli:a#1 agent noted'], 'no context.json yet: the log is replayed');
  // What the live path appends (the kernel) — then the daemon stops cleanly and saves the window with its marks.
  await first.close();
  // A kill later: two more acknowledged turns reached the session log, not context.json.
  await s.turn('cli:a', 2, 'I moved to Hangzhou', 'nice city', t0 + 10_000);
  await s.turn('cli:b', 1, 'remember the door code', 'will do', t0 + 20_000, 'ok', { speaker: { id: 'qq:7', name: 'Bo' }, conversation: { kind: 'group', id: 'qq:group:1' } });
  await s.turn('cli:a', 3, 'this one failed', 'Sorry, this turn failed: boom', t0 + 30_000, 'error');
  const second = s.mk();
  await second.open();
  assert.deepEqual(second.recovered, { sessions: 2, replayed: 5 });
  assert.deepEqual(summary(second), [
    'cli:a#1 user my cat is called Mochi',
    'cli:a#1 agent noted',
    'cli:a#2 user I moved to Hangzhou',
    'cli:a#2 agent nice city',
    'cli:b#1 user remember the door code',
    'cli:b#1 agent will do',
    'cli:a#3 user this one failed',
  ]);
  assert.equal(second.context.events().find((e) => e.refs?.[0] === 'cli:a#2')?.timestamp, t0 + 10_000);
  const door = second.context.events().filter((e) => e.refs?.[0] === 'cli:b#1');
  assert.deepEqual(door.map((e) => [e.kind, e.speaker?.id, e.conversation?.id]), [['user', 'qq:7', 'qq:group:1'], ['agent', undefined, 'qq:group:1']], 'speaker and place come back from the log');
  assert.equal(second.context.events()[0].speaker, undefined, 'the owner is not named');
  await second.close();
  const third = s.mk();
  await third.open();
  assert.deepEqual(third.recovered, { sessions: 0, replayed: 0 }, 'marks are current: nothing is read again');
  assert.equal(third.context.events().length, 7);
  await third.close();
  s.config.close();
});

test('a turn pruned into the documents (or archived) before the kill is not replayed twice; a stale window copy is dropped', async () => {
  const t0 = Date.now();
  const s = await setup(t0);
  const m = s.mk();
  await m.open();
  await m.close();
  await s.turn('cli:a', 1, 'I like green tea', 'ok', t0);
  // The kernel appended the turn and pruning moved it to the documents before the window was saved again.
  const m2 = s.mk();
  await m2.open();
  const [u] = m2.context.events();
  m2.docs.archiveEvents([u]);
  await m2.context.flush();
  await m2.close();
  const m3 = s.mk();
  await m3.open();
  assert.equal(m3.context.events().filter((e) => e.id === u.id).length, 0, 'the copy in the window went: the documents hold it');
  assert.equal(m3.context.events().filter((e) => e.refs?.[0] === 'cli:a#1' && e.kind === 'user').length, 0, 'not replayed either');
  assert.ok(m3.docs.get(u.id));
  await m3.close();
  s.config.close();
});

test('reindex rebuilds the cold archive from the session logs: what no tier holds is archived, with progress; a second run adds nothing', async () => {
  const t0 = Date.now();
  const s = await setup(t0);
  // Old turns (beyond the window recovery looks at) whose documents an older version deleted.
  for (let k = 1; k <= 3; k++) await s.turn('webui:old', k, k === 2 ? 'I live in Bergen and I love kayaking' : `old message ${k} about kayaking${k === 3 ? ' yesterday' : ''}`, `reply ${k}`, t0 - 30 * DAY + k * 1000);
  await s.turn('webui:new', 1, 'recent message', 'recent reply', t0 - 1000);
  await s.sessions.ensure('system:consolidation', '_consolidation_');
  await s.sessions.append('system:consolidation', { turnId: 'system:consolidation#1', kind: 'user', text: 'merge these entities', data: { source: '_consolidation_' } });
  // The older version's window had taken the old turns (its mark says so) and deleted their documents.
  fs.writeFileSync(path.join(s.home, 'context.json'), JSON.stringify({ version: 1, events: [], savedAt: t0 - 20 * DAY, turns: { 'webui:old': { turn: 3, done: true } } }));
  const m = s.mk();
  await m.open();
  assert.equal(m.archive.size, 0);
  // The old loop had committed one fact of turn 2 before it deleted the text.
  m.graph.commit([{ subject: 'user', predicate: 'lives_in', object: 'Bergen', refs: ['webui:old#2'] }]);
  const confidence = m.graph.relationsOf('user', 'lives_in')[0].confidence;
  const progress: ReindexProgress[] = [];
  const r = await m.reindex((p) => progress.push(p));
  assert.equal(r.facts! >= 1, true, JSON.stringify(r));
  assert.deepEqual({ ...r, facts: undefined }, { sessions: 3, totalSessions: 3, scanned: 8, added: 6, facts: undefined }, 'the recent turn is in the window already; consolidation is not memory');
  // What came back is distilled by today's rules, citing the turn it was said in; the fact the
  // old loop had already taken from that turn is not committed again.
  const liked = m.graph.relationsOf('user', 'likes').find((x) => /kayaking/i.test(x.object));
  assert.ok(liked, JSON.stringify(m.graph.relations({ limit: 20 }).items.map((x) => `${x.subject} ${x.predicate} ${x.object}`)));
  assert.ok(m.graph.sourcesOf(liked.id).some((x) => x.ref === 'webui:old#2'));
  assert.equal(m.graph.relationsOf('user', 'lives_in')[0].confidence, confidence, 'a fact already citing the turn is not raised');
  assert.deepEqual(progress.map((p) => p.sessions), [1, 2, 3]);
  const hit = (await m.recall.search('kayaking', { k: 3 }))[0];
  const logged = t0 - 30 * DAY + 1000 * Number(hit.turnId?.split('#')[1]) + (hit.kind === 'agent' ? 2 : 0);
  assert.deepEqual([hit.tier, hit.sessionId, hit.createdAt], ['archive', 'webui:old', logged], 'archived with the time it was said');
  // The days said in a turn brought back are resolved as it is archived (decision 0160).
  const at = new Date(t0 - 30 * DAY + 3000);
  const y = new Date(at.getFullYear(), at.getMonth(), at.getDate() - 1);
  const said = m.archive.rowsOfTurn('webui:old#3').find((r) => r.doc.content.includes('yesterday'))!;
  assert.deepEqual(m.archive.daysOf(said.doc.id), [y.getFullYear() * 10_000 + (y.getMonth() + 1) * 100 + y.getDate()]);
  assert.deepEqual(await m.reindex(), { sessions: 3, totalSessions: 3, scanned: 8, added: 0, facts: 0 }, 'idempotent');
  await m.close();
  s.config.close();
});

test('a context.json of the previous version (no marks): events logged from an hour before it was written are checked', async () => {
  const t0 = Date.now();
  const s = await setup(t0);
  await s.turn('cli:a', 1, 'long ago', 'yes', t0 - 3 * 3_600_000);
  await s.turn('cli:a', 2, 'after the last save', 'yes', t0 - 60_000);
  fs.writeFileSync(path.join(s.home, 'context.json'), JSON.stringify({ version: 1, events: [] }));
  fs.utimesSync(path.join(s.home, 'context.json'), new Date(t0 - 2 * 60_000), new Date(t0 - 2 * 60_000));
  const m = s.mk();
  await m.open();
  assert.deepEqual(summary(m), ['cli:a#2 user after the last save', 'cli:a#2 agent yes']);
  await m.close();
  s.config.close();
});

test('what the person deleted in a chat is neither replayed after a kill nor archived by a reindex (decision 0050)', async () => {
  const t0 = Date.now();
  const s = await setup(t0);
  await s.turn('webui:d', 1, 'keep this one', 'kept', t0);
  await s.turn('webui:d', 2, 'my PIN is 4321', 'noted the PIN', t0 + 1000);
  await s.turn('webui:d', 3, 'what about lunch', 'noodles', t0 + 2000);
  await s.turn('webui:gone', 1, 'a whole deleted chat', 'gone too', t0 + 3000);
  await s.sessions.deleteTurns('webui:d', ['webui:d#2'], 'turn');
  await s.sessions.deleteTurns('webui:d', ['webui:d#3'], 'reply');
  await s.sessions.remove('webui:gone');
  const m = s.mk();
  await m.open(); // no context.json: every log is replayed
  assert.deepEqual(summary(m), ['webui:d#1 user keep this one', 'webui:d#1 agent kept', 'webui:d#3 user what about lunch']);
  const r = await m.reindex();
  assert.equal(r.added, 0, 'nothing deleted is archived');
  for (const q of ['PIN 4321', 'noodles', 'deleted chat']) assert.deepEqual((await m.recall.search(q, { k: 5 })).filter((h) => /4321|noodles|deleted chat/.test(h.text)), [], q);
  await m.close();
  s.config.close();
});

const HOUR = 3_600_000;

test('D3: events of context.json with a wrong field type are kept aside and their turns replayed from the session logs, not lost at the next save', async () => {
  const t0 = Date.now();
  const s = await setup(t0);
  await s.turn('cli:a', 1, 'my sister is called Lena', 'noted', t0 - 5 * HOUR);
  await s.turn('cli:a', 2, 'she lives in Graz', 'ok', t0 - 4 * HOUR);
  await s.turn('cli:b', 1, 'the boiler was serviced in May', 'noted', t0 - 3 * HOUR);
  const first = s.mk();
  await first.open();
  await first.close();
  const file = path.join(s.home, 'context.json');
  const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { events: { timestamp: unknown; refs?: string[] }[]; turns: Record<string, unknown> };
  assert.equal(saved.events.length, 6);
  assert.ok(saved.turns['cli:a'], 'the marks say every turn was ingested');
  // Every timestamp a string (a hand edit, another tool): the schema refuses each event.
  for (const e of saved.events) e.timestamp = String(e.timestamp);
  const broken = JSON.stringify(saved);
  fs.writeFileSync(file, broken);
  const second = s.mk();
  await second.open();
  assert.deepEqual(second.recovered, { sessions: 2, replayed: 6 });
  assert.deepEqual(summary(second).sort(), ['cli:a#1 agent noted', 'cli:a#1 user my sister is called Lena', 'cli:a#2 agent ok', 'cli:a#2 user she lives in Graz', 'cli:b#1 agent noted', 'cli:b#1 user the boiler was serviced in May']);
  const aside = fs.readdirSync(s.home).filter((f) => f.startsWith('context.json.corrupt-'));
  assert.equal(aside.length, 1, 'the file as it was is kept aside');
  assert.equal(fs.readFileSync(path.join(s.home, aside[0]), 'utf8'), broken);
  assert.deepEqual(second.setAside().map((x) => x.store), ['context']);
  await second.close();
  // The save after the replay holds the turns: a third start finds them without reading the logs.
  const third = s.mk();
  await third.open();
  assert.deepEqual(third.recovered, { sessions: 0, replayed: 0 });
  assert.equal(third.context.events().length, 6);
  assert.deepEqual(third.setAside(), [], 'nothing was set aside at this start');
  await third.close();
  s.config.close();
});

test('D4: a corrupt context.json replays every session, not only the last day; older turns move on to the documents by the window\'s own pruning', async () => {
  const t0 = Date.now();
  const s = await setup(t0);
  // The last chat was two days ago: 30 turns (60 events, more than the window's 40).
  const start = t0 - 48 * HOUR - 31 * 60_000;
  for (let k = 1; k <= 30; k++) await s.turn('webui:old', k, k === 30 ? 'my last words: the spare key is under the blue flowerpot' : `chatting about topic number ${k}`, `reply ${k}`, start + k * 60_000);
  // The daemon ran then (simulated clock): the window took the turns, its pruning moved the older ones on.
  s.clock.t = start + 32 * 60_000;
  const first = s.mk();
  await first.open();
  await first.close();
  const file = path.join(s.home, 'context.json');
  assert.equal((JSON.parse(fs.readFileSync(file, 'utf8')) as { events: unknown[] }).events.length, 40);
  // Two days later the file is found cut short.
  s.clock.t = t0;
  fs.truncateSync(file, 1500);
  const second = s.mk();
  await second.open();
  assert.equal(second.recovered?.replayed, 40, 'every turn of the session the documents do not hold is replayed');
  const top = (second.context as unknown as { topK(): number }).topK();
  assert.equal(second.context.events().length, top, 'the window keeps its bound');
  assert.equal(second.docs.size, 60 - top, 'the rest went on to the documents');
  for (let k = 1; k <= 30; k++) {
    for (const kind of ['user', 'agent'] as const) {
      const n = second.context.events().filter((e) => e.refs?.[0] === `webui:old#${k}` && e.kind === kind).length + (second.docs.hasTurn(`webui:old#${k}`, kind) ? 1 : 0);
      assert.equal(n, 1, `turn ${k} ${kind} is in exactly one tier`);
    }
  }
  const hits = (await second.recall.search('spare key blue flowerpot', { k: 3 })).filter((h) => /flowerpot/.test(h.text));
  assert.ok(hits.length > 0, 'the last turns are found again');
  assert.equal(second.context.events().at(-1)?.refs?.[0], 'webui:old#30', 'the newest turns stay in the window');
  await second.close();
  s.config.close();
});

test('a missing context.json (deleted, lost) beside older session logs replays every log: turns older than a day that no tier held come back', async () => {
  const t0 = Date.now();
  const s = await setup(t0);
  // A chat three days ago, and the daemon ran then: the window took its turns and saved them.
  const start = t0 - 72 * HOUR;
  await s.turn('webui:old', 1, 'the boat is moored at pier seven', 'noted', start);
  await s.turn('webui:old', 2, 'and its key hangs by the door', 'ok', start + 60_000);
  s.clock.t = start + 2 * 60_000;
  const first = s.mk();
  await first.open();
  await first.close();
  const file = path.join(s.home, 'context.json');
  assert.ok(fs.existsSync(file));
  // The file is gone when the daemon starts again today (deleted by hand, lost with a disk).
  fs.rmSync(file);
  s.clock.t = t0;
  const second = s.mk();
  await second.open();
  assert.equal(second.context.loadedFrom.replayAll, true);
  assert.equal(second.recovered?.replayed, 4, 'both turns, though older than a day');
  assert.ok((await second.recall.search('boat pier', { k: 3 })).some((h) => /pier seven/.test(h.text)));
  await second.close();
  // Replayed once: a clean start after that finds the turns in the window and replays nothing.
  const third = s.mk();
  await third.open();
  assert.equal(third.recovered?.replayed, 0);
  await third.close();
  s.config.close();
});

test('D4: the replay of a long history after a corrupt context.json is pruned in batches: the window stays bounded, every turn lands in one tier', async () => {
  const t0 = Date.now();
  const s = await setup(t0);
  const turns = Math.ceil(REPLAY_BATCH / 2) + 22;
  for (let k = 1; k <= turns; k++) await s.turn('webui:long', k, `long history message ${k}`, `answer ${k}`, t0 - 10 * 24 * HOUR + k * 60_000);
  fs.writeFileSync(path.join(s.home, 'context.json'), '{"version":1,"events":[{"id":');
  const m = s.mk();
  let most = 0;
  const append = m.context.append.bind(m.context);
  m.context.append = (e) => {
    const r = append(e);
    most = Math.max(most, m.context.events().length);
    return r;
  };
  await m.open();
  const top = (m.context as unknown as { topK(): number }).topK();
  assert.equal(m.recovered?.replayed, 2 * turns);
  assert.ok(most <= top + REPLAY_BATCH && most < 2 * turns, `the window held at most ${most} events during the replay`);
  assert.equal(m.context.events().length, top);
  assert.equal(m.docs.size, 2 * turns - top);
  assert.equal(m.context.events().at(-1)?.refs?.[0], `webui:long#${turns}`);
  await m.close();
  s.config.close();
});
