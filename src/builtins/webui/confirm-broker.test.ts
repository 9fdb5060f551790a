import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfirmBroker } from './confirm-broker.js';
import { NotFoundError } from '../../spec/index.js';

const req = { plugin: 'cmd', sessionId: 'webui:x', title: 'Run rm?', detail: 'rm -rf x' };

function broker(clients: number, timeoutMs = 60_000) {
  const events: { event: string; payload: Record<string, unknown> }[] = [];
  const b = new ConfirmBroker({ clients: () => clients, publish: (event, payload) => events.push({ event, payload: payload as Record<string, unknown> }) }, () => timeoutMs);
  return { b, events };
}

describe('ConfirmBroker (host.confirm)', () => {
  it('denies at once without a connected client', async () => {
    const { b, events } = broker(0);
    assert.equal(await b.ask(req), false);
    assert.equal(events.length, 0);
  });

  it('publishes the request and resolves with the answer', async () => {
    const { b, events } = broker(1);
    const p = b.ask(req);
    assert.equal(events[0].event, 'confirm_request');
    assert.equal(events[0].payload.detail, 'rm -rf x');
    assert.equal(b.list().length, 1);
    b.answer(String(events[0].payload.id), true);
    assert.equal(await p, true);
    assert.deepEqual(events[1], { event: 'confirm_resolved', payload: { id: events[0].payload.id, approved: true, reason: 'user' } });
    assert.throws(() => b.answer(String(events[0].payload.id), true), NotFoundError);
  });

  it('times out as denied, and stop() denies what is left', async (t) => {
    // The broker's timer is unref'd (it must not keep a stopping daemon alive); in this bare test
    // process nothing else would keep the event loop running until it fires.
    const keepAlive = setInterval(() => {}, 1000);
    t.after(() => clearInterval(keepAlive));
    const { b, events } = broker(1, 30);
    assert.equal(await b.ask(req), false);
    assert.equal(events.at(-1)?.payload.reason, 'timeout');
    const slow = broker(1);
    const p = slow.b.ask(req);
    slow.b.stop();
    slow.b.stop();
    assert.equal(await p, false);
    assert.equal(slow.events.at(-1)?.payload.reason, 'stopped');
    assert.deepEqual(slow.b.list(), []);
  });
});
