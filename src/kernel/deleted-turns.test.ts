import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, SESSION } from './__fixtures__/kernel-harness.js';

test('decision 0050: what the person deleted leaves the model timeline — a whole turn, or only its reply — and a deleted session takes its turns with it', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: 'noted: the code is 1234' }, { text: 'noted: blue' }, { text: 'noted: Lisbon' }, { text: 'ok' }, { text: 'ok' });
  const a = await h.send('remember the door code 1234');
  await h.send('my favourite colour is blue');
  await h.send('I was born in Lisbon', { sessionId: 'webui:other' });
  await h.sessions.deleteTurns(SESSION, [a.turnId], 'turn');
  const second = (await h.sessions.events(SESSION)).find((e) => e.kind === 'assistant')!;
  await h.sessions.deleteTurns(SESSION, [second.turnId], 'reply');
  await h.send('what do you know?');
  const system = String(h.requestMessages(3)[0].content);
  assert.doesNotMatch(system, /1234/, 'a deleted turn: neither the question nor the answer');
  assert.match(system, /favourite colour is blue/, 'a deleted reply keeps the question');
  assert.doesNotMatch(system, /noted: blue/, '…but not the reply');
  assert.match(system, /Lisbon/);
  await h.sessions.remove('webui:other');
  await h.send('and now?');
  const after = String(h.requestMessages(4)[0].content);
  assert.doesNotMatch(after, /Lisbon/, 'a deleted session leaves the timeline with all its turns');
  assert.match(after, /what do you know\?/);
});

test('the reply event records how many LLM requests the turn made', async (t) => {
  const h = await harness(t);
  h.agent.stages.registerTool({ name: 'lookup', description: 'look up', parameters: { type: 'object', properties: {} }, handler: () => 'found' }, 'test');
  h.fake.enqueue({ toolCalls: [{ name: 'lookup', arguments: {} }] }, { text: 'done' });
  await h.send('look it up');
  const reply = (await h.sessionLog()).find((e) => e.kind === 'assistant')!;
  assert.equal(reply.data?.rounds, 2);
});
