import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentEvents } from '../spec/index.js';
import { harness, recordingTool, SESSION, until, type KernelHarness } from './__fixtures__/kernel-harness.js';
import { INTERRUPT_PREFIX } from './interrupts.js';

// C-1 event loop and C-2 interrupts, over the fake LLM server.

/** Resolves with the first bus event `name` that passes `pred`. */
function nextEvent<K extends keyof AgentEvents>(h: KernelHarness, name: K, pred: (e: AgentEvents[K]) => boolean = () => true): Promise<AgentEvents[K]> {
  return new Promise((resolve) => {
    const off = h.agent.bus.on(name, (e) => {
      if (!pred(e)) return;
      off();
      resolve(e);
    });
  });
}

const LONG = 'abcd'.repeat(60); // 60 stream chunks

test('C-2 (a)+(b): an interrupt aborts a streaming response mid-stream; the retried call carries the [打断消息]', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: LONG, chunkDelayMs: 25 }, { text: 'ok, switching to the new request' });
  const ticket = h.agent.injectInput({ sessionId: SESSION, source: 'test', text: 'write a long essay' });
  await nextEvent(h, 'turn_delta', (d) => d.text.length > 0);
  h.agent.injectInterrupt({ sessionId: SESSION, source: 'test', text: 'stop, tell me the time instead' });
  const out = await ticket.done;
  assert.equal(out.status, 'ok');
  assert.equal(out.text, 'ok, switching to the new request');
  // (a) the first HTTP response was cut off: far fewer text deltas than the full reply had
  const streamed = h
    .events('turn_delta')
    .map((d) => d.text)
    .join('');
  assert.ok(streamed.length < LONG.length, `streamed ${streamed.length} chars of ${LONG.length}`);
  assert.equal(h.fake.requests.length, 2);
  // (b) the retried request carries the interrupt as a user message after the original input
  const retried = h.requestMessages(1).filter((m) => m.role === 'user');
  assert.deepEqual(
    retried.map((m) => m.content),
    ['write a long essay', `${INTERRUPT_PREFIX} stop, tell me the time instead`],
  );
  assert.ok(!JSON.stringify(h.requestMessages(0)).includes(INTERRUPT_PREFIX));
  // one chain event (the aborted attempt produced none) reporting the injected interrupt
  const chain = h.events('agent_llm_chain');
  assert.equal(chain.length, 1);
  assert.deepEqual(chain[0].injected, [{ source: 'interrupt', text: `${INTERRUPT_PREFIX} stop, tell me the time instead` }]);
  assert.equal(h.events('interrupt')[0].delivery, 'abort+queue');
  const log = await h.sessionLog();
  assert.equal(log.find((e) => e.kind === 'interrupt')?.text, `${INTERRUPT_PREFIX} stop, tell me the time instead`);
});

test('C-2 (b): an interrupt while a tool runs is drained into the next LLM call of the same turn', async (t) => {
  const h = await harness(t);
  h.agent.stages.registerTool(
    recordingTool('slow_job', () => {
      h.agent.injectInterrupt({ sessionId: SESSION, source: 'timer', text: 'the oven timer rang' });
      return 'job done';
    }),
    'p',
  );
  h.fake.enqueue({ toolCalls: [{ name: 'slow_job', arguments: {} }] }, { text: 'done, and the oven timer rang' });
  const out = await h.send('run the job');
  assert.equal(out.text, 'done, and the oven timer rang');
  assert.equal(h.fake.requests.length, 2);
  const second = h.requestMessages(1);
  assert.equal(second.at(-1)?.content, `${INTERRUPT_PREFIX} the oven timer rang`);
  assert.equal(second.at(-2)?.role, 'tool');
  // not turned into a separate turn afterwards
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(h.events('turn_start').length, 1);
});

test('C-2 (a)+(b): an interrupt while a sub-agent thinks stops its LLM call; the main loop goes on with the interrupt', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ toolCalls: [{ name: 'subagent_spawn', arguments: { task: 'research for an hour' } }] }, { hang: true }, { text: 'ok, forget the research: it is 3 pm' });
  const ticket = h.agent.injectInput({ sessionId: SESSION, source: 'test', text: 'delegate some research' });
  await nextEvent(h, 'tool_start', (e) => e.call.name === 'subagent_spawn');
  // The sub-agent's own LLM request is in flight (and would never answer).
  await until(() => h.fake.requests.filter((r) => r.format !== 'embeddings').length >= 2, 'the sub-agent\'s LLM request');
  h.agent.injectInterrupt({ sessionId: SESSION, source: 'test', text: 'never mind, what time is it?' });
  const out = await ticket.done;
  assert.equal(out.status, 'ok');
  assert.equal(out.text, 'ok, forget the research: it is 3 pm');
  const end = h.events('tool_end').find((e) => e.call.name === 'subagent_spawn')!;
  assert.equal(end.error, 'interrupted');
  // The main loop's next request: the tool result says it was stopped, then the [打断消息].
  const third = h.requestMessages(2);
  assert.equal(third.at(-2)?.role, 'tool');
  assert.match(String(third.at(-2)?.content), /subagent_spawn was stopped because the user interrupted/);
  assert.equal(third.at(-1)?.content, `${INTERRUPT_PREFIX} never mind, what time is it?`);
  assert.equal(h.events('turn_start').length, 1, 'no extra turn for the interrupt');
});

test('C-2: after an interrupt the round\'s other interruptible calls are not started; the interrupt is answered at once', async (t) => {
  const h = await harness(t);
  const audit: string[] = [];
  h.agent.stages.registerStage('before_toolcall', (c) => void audit.push(`before ${c.toolCall?.name}`), 'audit');
  h.agent.stages.registerStage('after_toolcall', (c) => void audit.push(`after ${c.toolCall?.name}`), 'audit');
  h.fake.enqueue(
    { toolCalls: [{ name: 'subagent_spawn', arguments: { task: 'first long job' } }, { name: 'subagent_spawn', arguments: { task: 'second long job' } }] },
    { hang: true },
    { text: 'stopped both; here is the answer' },
  );
  const ticket = h.agent.injectInput({ sessionId: SESSION, source: 'test', text: 'do two long jobs' });
  await nextEvent(h, 'tool_start', (e) => e.call.name === 'subagent_spawn');
  await until(() => h.fake.requests.filter((r) => r.format !== 'embeddings').length >= 2, 'the sub-agent\'s LLM request');
  h.agent.injectInterrupt({ sessionId: SESSION, source: 'test', text: 'stop everything' });
  const out = await ticket.done;
  assert.equal(out.text, 'stopped both; here is the answer');
  // main round 1, the first sub-agent, main round 2: the second sub-agent never asked the LLM
  assert.equal(h.fake.requests.filter((r) => r.format !== 'embeddings').length, 3);
  const tools = h.requestMessages(2).filter((m) => m.role === 'tool').map((m) => String(m.content));
  assert.equal(tools.length, 2);
  assert.match(tools[0], /was stopped because the user interrupted/);
  assert.match(tools[1], /was not started because the user interrupted/);
  assert.equal(h.requestMessages(2).at(-1)?.content, `${INTERRUPT_PREFIX} stop everything`);
  assert.deepEqual(audit, ['before subagent_spawn', 'after subagent_spawn', 'before subagent_spawn', 'after subagent_spawn'], 'every before_toolcall has its after_toolcall');
});

test('C-2/C-10: an interrupt lets a sub-agent\'s running tool finish, but never past the sub-agent timeout', async (t) => {
  const h = await harness(t, { config: { 'core.subagent.timeout_ms': 1500 } });
  let toolSignal: AbortSignal | undefined;
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  h.agent.stages.registerTool(
    {
      name: 'inner_job',
      description: 'waits until released or aborted',
      parameters: { type: 'object' },
      handler: (_a, call) => {
        toolSignal = call.signal;
        return new Promise((resolve) => {
          call.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
          void done.then(() => resolve('finished'));
        });
      },
    },
    'p',
  );
  h.fake.enqueue(
    { toolCalls: [{ name: 'subagent_spawn', arguments: { task: 'use the inner job', tools: ['inner_job'] } }] },
    { toolCalls: [{ name: 'inner_job', arguments: {} }] }, // the sub-agent starts its tool
    { text: 'answering the interrupt' },
  );
  const ticket = h.agent.injectInput({ sessionId: SESSION, source: 'test', text: 'delegate' });
  await until(() => toolSignal !== undefined, 'the inner tool to start');
  assert.ok(toolSignal);
  h.agent.injectInterrupt({ sessionId: SESSION, source: 'test', text: 'something else' });
  assert.equal((await ticket.done).text, 'answering the interrupt');
  assert.equal(toolSignal.aborted, false, 'the interrupt does not cancel the sub-agent\'s tool');
  // …but the sub-agent's timeout still bounds it.
  await until(() => toolSignal!.aborted, 'the sub-agent timeout to stop its tool');
  assert.equal(toolSignal.aborted, true);
  release();
});

test('C-2 (c): an interrupt while idle starts a new turn with its text', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: 'reacting to the reminder' });
  const ended = nextEvent(h, 'turn_end');
  h.agent.injectInterrupt({ sessionId: 'timer:kitchen', source: 'timer', text: 'reminder: water the plants' });
  const end = await ended;
  assert.equal(end.sessionId, 'timer:kitchen');
  assert.equal(end.text, 'reacting to the reminder');
  assert.equal(h.events('interrupt')[0].delivery, 'new-turn');
  const users = h.requestMessages(0).filter((m) => m.role === 'user');
  assert.deepEqual(
    users.map((m) => m.content),
    ['reminder: water the plants'],
  );
  assert.equal((await h.sessionLog('timer:kitchen'))[0].text, 'reminder: water the plants');
});

test('C-2/C-6: an interrupt during a consolidation turn is not retried; it becomes a new turn afterwards', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: LONG, chunkDelayMs: 25 }, { text: 'answering the user' });
  const ticket = h.agent.injectSelfInput('consolidate memories');
  await nextEvent(h, 'turn_delta', (d) => d.text.length > 0);
  const userTurn = nextEvent(h, 'turn_end', (e) => e.sessionId === SESSION);
  h.agent.injectInterrupt({ sessionId: SESSION, source: 'test', text: 'are you there?' });
  const out = await ticket.done;
  assert.notEqual(out.status, 'ok');
  assert.equal(out.sessionId, 'system:consolidation');
  const end = await userTurn;
  assert.equal(end.text, 'answering the user');
  assert.equal(h.fake.requests.length, 2);
  // the consolidation call was not retried with the interrupt; the user turn got it as its input
  assert.ok(!JSON.stringify(h.fake.requests.map((r) => r.body)).includes(INTERRUPT_PREFIX));
  assert.deepEqual(
    h
      .requestMessages(1)
      .filter((m) => m.role === 'user')
      .map((m) => m.content),
    ['are you there?'],
  );
});

test('C-1: self-input takes the consolidation path (own session, no tools, flagged chain)', async (t) => {
  const h = await harness(t, { config: { 'core.agent.consolidation_max_rounds': 2, 'core.agent.max_tool_rounds': 5 } });
  const merge = recordingTool('merge');
  h.agent.stages.registerTool(merge, 'memory');
  h.fake.setDefault(() => ({ toolCalls: [{ name: 'merge', arguments: {} }] }));
  const out = await h.agent.injectSelfInput('merge duplicates', { job: 'dedupe' }).done;
  assert.equal(out.sessionId, 'system:consolidation');
  // Its tool call is refused (a memory-upkeep turn answers in text), so it ends after one round.
  assert.equal(out.rounds, 1);
  assert.equal(merge.calls.length, 0);
  const chain = h.events('agent_llm_chain');
  assert.equal(chain.length, 1);
  assert.ok(chain.every((c) => c.consolidation));
  const start = h.events('turn_start')[0];
  assert.equal(start.input.source, '_consolidation_');
  assert.equal(start.input.trigger, 'system');
  assert.deepEqual(start.input.meta, { job: 'dedupe' });
});

test('C-1: external input is processed before queued self-input; inputs run one at a time in order', async (t) => {
  const h = await harness(t, { noStart: true });
  h.fake.setDefault((req) => ({ text: `re: ${req.body.messages.filter((m: { role: string }) => m.role === 'user').at(-1).content}`, delayMs: 15 }));
  const self = h.agent.injectSelfInput('self job');
  const a = h.agent.injectInput({ sessionId: SESSION, source: 'test', text: 'first' });
  const b = h.agent.injectInput({ sessionId: SESSION, source: 'test', text: 'second' });
  const c = h.agent.injectInput({ sessionId: 'test:other', source: 'test', text: 'third' });
  assert.equal(h.agent.queued, 4);
  h.agent.start();
  const outs = await Promise.all([a.done, b.done, c.done, self.done]);
  assert.deepEqual(
    outs.map((o) => o.text),
    ['re: first', 're: second', 're: third', 're: self job'],
  );
  // strictly sequential: every turn ends before the next starts
  const seq = h.bus.filter((e) => e.name === 'turn_start' || e.name === 'turn_end').map((e) => `${e.name}:${(e.payload as { turnId: string }).turnId}`);
  assert.deepEqual(seq, [
    `turn_start:${a.turnId}`,
    `turn_end:${a.turnId}`,
    `turn_start:${b.turnId}`,
    `turn_end:${b.turnId}`,
    `turn_start:${c.turnId}`,
    `turn_end:${c.turnId}`,
    `turn_start:${self.turnId}`,
    `turn_end:${self.turnId}`,
  ]);
  // turn ids increase per session; a new session starts at #1
  assert.deepEqual([a.turnId, b.turnId, c.turnId], [`${SESSION}#1`, `${SESSION}#2`, 'test:other#1']);
});

test('C-1: external input that arrives during a self-input turn waits for it, then runs before later self-input', async (t) => {
  const h = await harness(t);
  h.fake.setDefault((req) => ({ text: `re: ${req.body.messages.filter((m: { role: string }) => m.role === 'user').at(-1).content}`, delayMs: 20 }));
  const s1 = h.agent.injectSelfInput('self 1');
  await nextEvent(h, 'turn_start');
  const s2 = h.agent.injectSelfInput('self 2');
  const e1 = h.agent.injectInput({ sessionId: SESSION, source: 'test', text: 'user 1' });
  await Promise.all([s1.done, s2.done, e1.done]);
  const order = h.events('turn_start').map((e) => e.input.text);
  assert.deepEqual(order, ['self 1', 'user 1', 'self 2']);
});

test('C-1/T-2: a consolidation turn stays out of the context window and the user timeline', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: 'MERGE-ANSWER {"merge": true}' }, { text: 'USER-ANSWER' });
  await h.agent.injectSelfInput('CONSOLIDATION-INSTRUCTION: judge these pairs').done;
  await h.send('USER-QUESTION');
  await h.send('second question');
  assert.ok(!h.agent.context.events().some((e) => e.source === '_consolidation_'));
  const timeline = String(h.requestMessages(2)[0].content);
  assert.match(timeline, /USER-QUESTION/);
  assert.doesNotMatch(timeline, /CONSOLIDATION-INSTRUCTION|MERGE-ANSWER/);
  // still logged in its own session
  assert.deepEqual(
    (await h.sessionLog('system:consolidation')).map((e) => e.kind),
    ['user', 'assistant'],
  );
});

test("decision 0360 (review fix): the owner's interrupt does not join a group member's running turn — it waits as a turn of its own; one for that group's session still joins", async (t) => {
  const h = await harness(t);
  const group = { kind: 'group' as const, id: 'qq:group:9', platform: 'qq' };
  const mallory = { id: 'qq:666', name: 'Mallory' };
  h.agent.stages.registerTool(
    {
      // For anyone: the group member's turn runs it (decision 0360).
      audience: 'anyone',
      ...recordingTool('slow_job', () => {
        h.agent.injectInterrupt({ source: 'waiter', text: 'my bank PIN is 4321, remind me later' });
        h.agent.injectInterrupt({ sessionId: group.id, source: 'timer', text: 'the picnic starts now' });
        return 'job done';
      }),
    },
    'p',
  );
  h.fake.enqueue({ toolCalls: [{ name: 'slow_job', arguments: {} }] }, { text: 'done' }, { text: 'noted, owner' });
  const out = await h.send('run the job', { sessionId: group.id, source: 'qq', speaker: mallory, conversation: group });
  assert.equal(out.status, 'ok');
  const groupCall = JSON.stringify(h.requestMessages(1));
  assert.ok(groupCall.includes('the picnic starts now'), "an interrupt for the group's own session joins its turn");
  assert.ok(!groupCall.includes('4321'), "the owner's words are not answered inside the group member's turn");
  for (let i = 0; i < 200 && h.fake.requests.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  const ownerTurn = JSON.stringify(h.requestMessages(2));
  assert.ok(ownerTurn.includes('4321'), 'it became a turn of its own');
});

test('decision 0390: injectInterrupt settles once the interrupt is in the session log (joined to a running turn, or a new turn when idle); one a stop drops never settles', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: LONG, chunkDelayMs: 25 }, { text: 'noted' }, { text: 'idle answer' });
  const ticket = h.agent.injectInput({ sessionId: SESSION, source: 'test', text: 'write a long essay' });
  await nextEvent(h, 'turn_delta', (d) => d.text.length > 0);
  let joined = false;
  const p = h.agent.injectInterrupt({ sessionId: SESSION, source: 'timer', text: 'the oven timer rang' });
  void p.then(() => (joined = true));
  await p;
  assert.ok((await h.sessionLog()).some((e) => e.kind === 'interrupt' && e.text.includes('the oven timer rang')), 'logged before it settled');
  assert.ok(joined);
  await ticket.done;
  // Idle: it becomes a turn of its own, and settles once that input is recorded.
  await h.agent.injectInterrupt({ sessionId: 'test:idle', source: 'timer', text: 'tea is ready' });
  assert.deepEqual((await h.sessionLog('test:idle')).filter((e) => e.kind === 'user').map((e) => e.text), ['tea is ready']);
  await until(() => !h.agent.busy && h.agent.queued === 0, 'the idle turn');
  // Dropped by a stop before any LLM call drained it: never settles (a reminder keeps it for the next start).
  h.fake.enqueue({ hang: true });
  const running = h.agent.injectInput({ sessionId: SESSION, source: 'test', text: 'slow one' });
  await until(() => h.agent.busy, 'the slow turn');
  await until(() => h.fake.requests.length === 4, 'its LLM call');
  let dropped = false;
  void h.agent.injectInterrupt({ sessionId: SESSION, source: 'timer', text: 'too late' }).then(() => (dropped = true));
  await h.agent.stop();
  await running.done;
  assert.equal(dropped, false);
  assert.ok(!(await h.sessionLog()).some((e) => e.text.includes('too late')));
});
