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
import type { ReindexProgress } from './index.js';

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
  assert.deepEqual(summary(first), ['cli:a#1 user my cat is called Mochi', 'cli:a#1 agent noted'], 'no context.json yet: the last day of the log is replayed');
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
  await m.open(); // no context.json: the last day of the log is replayed
  assert.deepEqual(summary(m), ['webui:d#1 user keep this one', 'webui:d#1 agent kept', 'webui:d#3 user what about lunch']);
  const r = await m.reindex();
  assert.equal(r.added, 0, 'nothing deleted is archived');
  for (const q of ['PIN 4321', 'noodles', 'deleted chat']) assert.deepEqual((await m.recall.search(q, { k: 5 })).filter((h) => /4321|noodles|deleted chat/.test(h.text)), [], q);
  await m.close();
  s.config.close();
});
