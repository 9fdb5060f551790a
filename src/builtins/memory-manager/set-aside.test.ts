/**
 * Decision 0440: a library memory made from a turn the person excluded (a session summary of it, a
 * message saved as a memory) reaches no prompt while the turn stays excluded. It is not injected
 * (auto-injected summaries, the plan, one-off items), the agent's tools neither find nor read it,
 * and the API answers a model's client (MCP, `forModel`) the same. The person still sees it. Restored,
 * the turn brings it back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setupManager } from './__fixtures__/setup.js';

const injected = (ctx: { messages: { source?: string; content: string }[] }) =>
  ctx.messages
    .filter((m) => m.source === 'memory-manager')
    .map((m) => m.content)
    .join('\n');

test('0440: a summary made from an excluded turn is not injected, found or read by a model while the turn stays excluded; restored, it is back', async (t) => {
  const { fake } = setupManager(t, { settings: { mode: 'on' } });
  const SID = 'webui:aside';
  await fake.sessions.create({ channel: 'webui', id: SID });
  const t1 = await fake.sessions.addTurn(SID, 'my locker code is 8841', 'Noted.');
  const t2 = await fake.sessions.addTurn(SID, 'the weather is fine', 'Good.');
  const seqsOf = async (turnId: string) => (await fake.sessions.events(SID)).filter((e) => e.turnId === turnId).map((e) => e.seq);
  // A summary of both turns (auto-injected into new sessions), a message of the first saved as a
  // memory (in the plan: injected on every turn), and a memory of the second turn only.
  const save = async (args: Record<string, unknown>) => ((await fake.op('memory.save', args)).value as { id: string }).id;
  const summary = await save({ title: 'Summary', snapshot: 'told the locker code 8841; talked about the weather', tags: ['会话总结'], source: { sessionId: SID, seqs: [...(await seqsOf(t1)), ...(await seqsOf(t2))] } });
  const saved = await save({ title: 'Locker', snapshot: 'locker code 8841 (saved message)', source: { sessionId: SID, seqs: (await seqsOf(t1)).slice(0, 1) } });
  const weather = await save({ title: 'Weather', snapshot: 'the weather was fine 8841-free', source: { sessionId: SID, seqs: await seqsOf(t2) } });
  await fake.op('plan.addMemory', { id: saved });
  await fake.op('plan.addMemory', { id: weather });

  const before = injected(await fake.runPreAction({ sessionId: 'webui:new-1', text: 'hi' }));
  assert.match(before, /locker code 8841 \(saved message\)/);
  assert.match(before, /told the locker code 8841/);

  assert.equal((await fake.op('turn.exclude', { turnId: t1 }, SID)).ok, true);
  const after = injected(await fake.runPreAction({ sessionId: 'webui:new-2', text: 'hi' }));
  assert.doesNotMatch(after, /8841(?!-free)/, 'neither the summary nor the saved message reaches the prompt');
  assert.match(after, /the weather was fine/, 'a memory of a turn that stays is still injected');

  // The agent's tools.
  const hits = (await fake.callTool('library_search', { query: 'locker code 8841 weather' })) as { results: { id: string }[] };
  assert.deepEqual(hits.results.map((h) => h.id).sort(), [weather].sort());
  await assert.rejects(fake.callTool('library_read', { id: summary }), (e: Error & { code?: string }) => e.code === 'MM_SET_ASIDE' && /excluded/.test(e.message));
  // A model's client through the API (MCP) gets the same; the person's own view lists it.
  const forModel = (await fake.op('memory.search', { query: 'locker code 8841', forModel: true })).value as { id: string }[];
  assert.ok(!forModel.some((h) => h.id === summary || h.id === saved));
  const got = await fake.op('memory.get', { id: saved, forModel: true });
  assert.equal(got.ok, false);
  assert.equal((got.value as { code: string }).code, 'MM_SET_ASIDE');
  const own = (await fake.op('memory.search', { query: 'locker code 8841' })).value as { id: string }[];
  assert.ok(own.some((h) => h.id === summary) && own.some((h) => h.id === saved), 'the person still sees both');
  const opened = await fake.op('memory.get', { id: saved });
  assert.equal(opened.ok, true);
  assert.equal((opened.value as { setAside?: boolean }).setAside, true, 'marked, so the person sees why the model does not get it');
  const listed = ((await fake.op('memory.list', {})).value as { items: { id: string; setAside?: boolean }[] }).items;
  assert.deepEqual(listed.filter((i) => i.setAside).map((i) => i.id).sort(), [summary, saved].sort());
  assert.ok(own.filter((h) => (h as { setAside?: boolean }).setAside).length === 2);

  assert.equal((await fake.op('turn.restore', { turnId: t1 }, SID)).ok, true);
  const back = injected(await fake.runPreAction({ sessionId: 'webui:new-3', text: 'hi' }));
  assert.match(back, /locker code 8841 \(saved message\)/);
  assert.match(back, /told the locker code 8841/);
  assert.equal(((await fake.callTool('library_read', { id: summary })) as { id: string }).id, summary);
  assert.equal(((await fake.op('memory.get', { id: saved })).value as { setAside?: boolean }).setAside, undefined);
});

test('0440: when the log of a session with excluded turns cannot be read, its memories are set aside (the safe side); one without a source never is', async () => {
  const { setAsideByExclusion } = await import('./set-aside.js');
  const rec = (id: string, source?: { sessionId: string; seqs: number[] }) => ({ id, ...(source ? { source } : {}) }) as never;
  const inputs = {
    excluded: async () => ({ 'webui:a': ['webui:a#1'], 'webui:b': ['webui:b#2'] }),
    events: async (sid: string) => {
      if (sid === 'webui:b') throw new Error('EIO');
      return [
        { seq: 1, turnId: 'webui:a#1' },
        { seq: 2, turnId: 'webui:a#1' },
        { seq: 3, turnId: 'webui:a#2' },
      ];
    },
  };
  const aside = await setAsideByExclusion([rec('m1', { sessionId: 'webui:a', seqs: [2] }), rec('m2', { sessionId: 'webui:a', seqs: [3] }), rec('m3', { sessionId: 'webui:b', seqs: [1] }), rec('m4')], inputs);
  assert.deepEqual([...aside].sort(), ['m1', 'm3']);
});
