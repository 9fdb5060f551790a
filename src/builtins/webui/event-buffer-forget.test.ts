import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseHub } from './sse-hub.js';
import { eventBufferParticipant, eventOfForgotten } from './event-buffer-forget.js';

test('0430: an event belongs to a forgotten turn by its turnId (or a sub-agent’s), not by a longer id that starts the same', () => {
  const turns = new Set(['webui:a#1']);
  const ev = (payload: unknown) => ({ id: 1, event: 'x', payload });
  assert.equal(eventOfForgotten(ev({ turnId: 'webui:a#1' }), turns, []), true);
  assert.equal(eventOfForgotten(ev({ chain: { turnId: 'webui:a#1/sub-2' } }), turns, []), true, 'a sub-agent of the turn');
  assert.equal(eventOfForgotten(ev({ turnId: 'webui:a#10' }), turns, []), false);
  assert.equal(eventOfForgotten(ev({ turnId: 'xwebui:a#1' }), turns, []), false);
  assert.equal(eventOfForgotten(ev({ detail: 'turn webui:a#1 [context]: my code is 47…' }), turns, []), true, 'a confirmation naming the turn');
  assert.equal(eventOfForgotten(ev({ text: 'the interrupt', turnId: 'webui:a#1', delivery: 'abort+queue' }), turns, []), true);
  assert.equal(eventOfForgotten(ev({ turnId: 'webui:b#2', text: 'the code is "ORCA-5150"' }), turns, ['the code is "ORCA-5150"']), true, 'a quote, as JSON writes it');
  assert.equal(eventOfForgotten(ev({ turnId: 'webui:b#2', text: 'hello' }), turns, ['ORCA-5150']), false);
});

test('0430: the WebUI event buffer drops a forgotten turn’s events; a reconnecting client is not sent them', async () => {
  const hub = new SseHub({ heartbeatMs: 60_000 });
  hub.publish('hello-world', {});
  hub.publish('turn_start', { turnId: 'webui:a#1', text: 'my code is ORCA-5150' });
  hub.publish('turn_start', { turnId: 'webui:a#2', text: 'hello' });
  hub.publish('output', { turnId: 'webui:a#1', payload: { text: 'noted' } });
  const p = eventBufferParticipant(hub);
  assert.equal(p.inMemoryOnly, true, 'nothing of it survives a restart: a forget finished at start owes it nothing');
  assert.equal(await p.scrub!([], ['webui:a#1']), 2);
  const res = hub.response('1');
  const reader = res.body!.getReader();
  const frames: string[] = [];
  // The connect comment, `hello`, then the replay of what is buffered after id 1 — enqueued at once.
  for (let i = 0; i < 3; i++) frames.push(new TextDecoder().decode((await reader.read()).value));
  await reader.cancel();
  hub.stop();
  assert.match(frames[2], /webui:a#2/, 'the one event left after id 1 is replayed');
  assert.doesNotMatch(frames.join(''), /ORCA-5150|webui:a#1"/);
});
