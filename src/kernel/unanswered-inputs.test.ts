import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Cap, type SessionEvent } from '../spec/index.js';
import { SessionStore } from '../sessions/index.js';
import { harness, until, type KernelHarness } from './__fixtures__/kernel-harness.js';
import { NOT_ANSWERED } from './unanswered-inputs.js';

// Decision 0390: an input the session log acknowledged but no turn answered (the daemon was
// killed before or while it ran) is answered after the restart — or visibly marked.

const HOUR = 3_600_000;
const ANN = { id: 'telegram:42', name: 'Ann', platform: 'telegram' };
const CHAT = { kind: 'private' as const, id: 'telegram:chat:42', platform: 'telegram' };

/** "Restarts" over the same session folder: a new store reads the logs from disk, a new agent resumes. */
async function restart(t: { after: (fn: () => Promise<void> | void) => void }, dir: string): Promise<{ h: KernelHarness; store: SessionStore; replies: { sessionId: string; payload: string }[] }> {
  const store = new SessionStore({ dir, logger: { warn: () => {} } });
  await store.open();
  t.after(() => store.close());
  const h = await harness(t, { sessions: store });
  const replies: { sessionId: string; payload: string }[] = [];
  h.agent.channels.register('telegram', 'telegram', Cap.Text, 'test telegram', (m) => void replies.push({ sessionId: m.sessionId, payload: String(m.payload) }));
  return { h, store, replies };
}

const kinds = (events: SessionEvent[]) => events.map((e) => e.kind);

test('decision 0390: an input acknowledged but not run before a kill is answered after the restart — same turn, speaker, conversation, channel and meta, in the order logged', async (t) => {
  // The first run records the inputs (what a channel's 202 means) and never runs them: the kill.
  const first = await harness(t, { noStart: true });
  const a = first.agent.injectInput({ sessionId: 'telegram:chat:42', source: 'telegram', text: 'what is on my calendar?', speaker: ANN, conversation: CHAT, meta: { messageId: 7 } });
  await a.accepted;
  const b = first.agent.injectInput({ sessionId: 'webui:x', source: 'webui', text: 'and the weather?' });
  await b.accepted;
  const dir = path.join(first.home, 'sessions');

  const { h, store, replies } = await restart(t, dir);
  h.fake.enqueue({ text: 'Dentist at 3.' }, { text: 'Sunny.' });
  const out = await h.agent.resumeUnanswered();
  assert.deepEqual(out, { resumed: [a.turnId, b.turnId], marked: [] });
  await until(() => h.events('turn_end').length === 2, 'both resumed turns');
  const starts = h.events('turn_start');
  assert.deepEqual(starts.map((s) => s.turnId), [a.turnId, b.turnId], 'the original turn ids, oldest first');
  const s0 = starts[0].input;
  assert.deepEqual([s0.sessionId, s0.source, s0.channel, s0.trigger, s0.text], ['telegram:chat:42', 'telegram', 'telegram', 'user', 'what is on my calendar?']);
  assert.deepEqual(s0.speaker, ANN);
  assert.deepEqual(s0.conversation, CHAT);
  assert.equal(s0.meta?.messageId, 7);
  assert.equal(s0.meta?.resumed, true);
  assert.deepEqual(replies, [{ sessionId: 'telegram:chat:42', payload: 'Dentist at 3.' }], 'the reply goes out on its chat channel');
  const log = await store.events('telegram:chat:42');
  assert.deepEqual(kinds(log), ['user', 'marker', 'assistant']);
  assert.ok(log.every((e) => e.turnId === a.turnId));
  assert.equal(log[1].data?.op, 'resume');

  // A third start finds nothing left to answer: nothing runs twice.
  const again = await restart(t, dir);
  assert.deepEqual(again.store.unanswered(), []);
  assert.deepEqual(await again.h.agent.resumeUnanswered(), { resumed: [], marked: [] });
  assert.equal(again.h.fake.requests.length, 0);
});

test('decision 0390: an unanswered input older than a day is not answered late; the chat shows it was not answered', async (t) => {
  const dir = path.join((await harness(t, { noStart: true })).home, 'sessions');
  const seed = new SessionStore({ dir, now: () => Date.now() - 25 * HOUR, logger: { warn: () => {} } });
  await seed.open();
  await seed.ensure('webui:old', 'webui');
  await seed.append('webui:old', { turnId: 'webui:old#1', kind: 'user', text: 'remind me about yesterday', data: { source: 'webui', trigger: 'user', outcome: 'logged' } });
  await seed.close();
  // Older than a week (a log from before this decision may end a turn with no outcome): left alone.
  const ancient = new SessionStore({ dir, now: () => Date.now() - 8 * 24 * HOUR, logger: { warn: () => {} } });
  await ancient.open();
  await ancient.ensure('webui:ancient', 'webui');
  await ancient.append('webui:ancient', { turnId: 'webui:ancient#1', kind: 'user', text: 'an old turn with an empty reply', data: { source: 'webui', trigger: 'user', outcome: 'logged' } });
  await ancient.close();
  // Recent, but logged before outcomes were always logged (no `outcome` flag: an empty reply then
  // left nothing after the message): neither run nor marked (review finding 2).
  const legacy = new SessionStore({ dir, now: () => Date.now() - 2 * HOUR, logger: { warn: () => {} } });
  await legacy.open();
  await legacy.ensure('webui:legacy', 'webui');
  await legacy.append('webui:legacy', { turnId: 'webui:legacy#1', kind: 'user', text: 'answered with nothing, before 0390', data: { source: 'webui', trigger: 'user' } });
  await legacy.close();

  const { h, store } = await restart(t, dir);
  assert.deepEqual(await h.agent.resumeUnanswered(), { resumed: [], marked: ['webui:old#1'] });
  const log = await store.events('webui:old');
  assert.deepEqual(kinds(log), ['user', 'error']);
  assert.equal(log[1].data?.code, NOT_ANSWERED);
  assert.match(log[1].text, /^Not answered: HomeAgent stopped before it could/);
  assert.equal(h.fake.requests.length, 0, 'no LLM call for it');
  assert.deepEqual(kinds(await store.events('webui:ancient')), ['user'], 'a week-old one is neither run nor marked');
  assert.deepEqual(kinds(await store.events('webui:legacy')), ['user'], 'nor one logged before outcomes were');
});

test('decision 0390: a turn killed mid-run is run again once; one that died with the daemon on two resumed runs is marked, not looped', async (t) => {
  const dir = path.join((await harness(t, { noStart: true })).home, 'sessions');
  const seed = new SessionStore({ dir, logger: { warn: () => {} } });
  await seed.open();
  // Killed while its tool ran: the input, a tool call, no outcome.
  await seed.ensure('webui:a', 'webui');
  await seed.append('webui:a', { turnId: 'webui:a#1', kind: 'user', text: 'look it up', data: { source: 'webui', trigger: 'user', outcome: 'logged' } });
  await seed.append('webui:a', { turnId: 'webui:a#1', kind: 'tool_call', text: 'search', data: { call: { id: 'c1', name: 'search', arguments: '{}' } } });
  // Resumed twice already, and killed during each run.
  await seed.ensure('webui:b', 'webui');
  await seed.append('webui:b', { turnId: 'webui:b#1', kind: 'user', text: 'the one that crashes', data: { source: 'webui', trigger: 'user', outcome: 'logged' } });
  for (const attempt of [1, 2]) await seed.append('webui:b', { turnId: 'webui:b#1', kind: 'marker', text: '[resumed after a restart]', data: { op: 'resume', attempt } });
  // Consolidation (internal) turns are not run again.
  await seed.ensure('system:consolidation', '_consolidation_');
  await seed.append('system:consolidation', { turnId: 'system:consolidation#1', kind: 'user', text: 'consolidate', data: { source: '_consolidation_', trigger: 'system' } });
  await seed.close();

  const { h, store } = await restart(t, dir);
  h.fake.enqueue({ text: 'Found it.' });
  assert.deepEqual(await h.agent.resumeUnanswered(), { resumed: ['webui:a#1'], marked: ['webui:b#1'] });
  await until(() => h.events('turn_end').length === 1, 'the resumed turn');
  assert.deepEqual(kinds(await store.events('webui:a')), ['user', 'tool_call', 'marker', 'assistant']);
  const b = await store.events('webui:b');
  assert.deepEqual(kinds(b), ['user', 'marker', 'marker', 'error']);
  assert.match(b[3].text, /more than once/);
  assert.deepEqual(kinds(await store.events('system:consolidation')), ['user']);
  assert.equal(h.fake.requests.length, 1);
  // A resumed run that a kill cuts short again counts: its marker was logged before it ran.
  assert.deepEqual(store.unanswered().map((u) => [u.event.turnId, u.resumes]), [['system:consolidation#1', 0]]);
});

test('decision 0390: a turn that ends with nothing to say is closed in the log, so a restart does not run it again', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: '' });
  const out = await h.send('say nothing');
  assert.equal(out.text, '');
  assert.deepEqual(kinds(await h.sessionLog()), ['user', 'marker']);
  assert.deepEqual(h.sessions.unanswered(), []);
});

test('decision 0390 (review fixes): a resumed input reads an attachment only from <data>/media, and one dated in the future is not run', async (t) => {
  const dir = path.join((await harness(t, { noStart: true })).home, 'sessions');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-outside-'));
  t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOP-SECRET-OUTSIDE');
  const seed = new SessionStore({ dir, logger: { warn: () => {} } });
  await seed.open();
  await seed.ensure('webui:p', 'webui');
  // A path that climbs out of the data folder, whatever its depth (extra ".." stop at the root).
  const climb = `${'../'.repeat(30)}${outside.replace(/^\//, '')}/secret.txt`;
  await seed.append('webui:p', { turnId: 'webui:p#1', kind: 'user', text: 'look at this', data: { source: 'webui', trigger: 'user', outcome: 'logged', attachments: [{ name: 'secret.txt', mimeType: 'text/plain', bytes: 18, kind: 'text', path: climb }] } });
  await seed.close();
  const future = new SessionStore({ dir, now: () => Date.now() + 48 * HOUR, logger: { warn: () => {} } });
  await future.open();
  await future.ensure('webui:f', 'webui');
  await future.append('webui:f', { turnId: 'webui:f#1', kind: 'user', text: 'from the future', data: { source: 'webui', trigger: 'user', outcome: 'logged' } });
  await future.close();

  const { h } = await restart(t, dir);
  h.fake.enqueue({ text: 'ok' });
  const out = await h.agent.resumeUnanswered();
  assert.deepEqual(out, { resumed: ['webui:p#1'], marked: [] }, 'the future-dated one is neither run nor marked');
  await until(() => h.fake.requests.length >= 1, 'the resumed turn');
  const sent = JSON.stringify(h.fake.requests.map((r) => r.body));
  assert.doesNotMatch(sent, /TOP-SECRET-OUTSIDE/, 'a file outside the media folder is not read');
  assert.doesNotMatch(sent, /from the future/);
});
