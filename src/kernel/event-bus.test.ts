import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from './event-bus.js';

const ev = { sessionId: 's', seq: 1, kind: 'user' };

test('C-7: listeners get events in registration order; onAny sees every event with its name', () => {
  const bus = new EventBus();
  const got: string[] = [];
  bus.on('session_event', (p) => void got.push(`a${p.seq}`));
  bus.on('session_event', (p) => void got.push(`b${p.seq}`));
  bus.onAny((name) => void got.push(`any:${name}`));
  bus.emit('session_event', ev);
  bus.emit('config_changed', { key: 'k', value: 1 });
  assert.deepEqual(got, ['a1', 'b1', 'any:session_event', 'any:config_changed']);
  assert.equal(bus.listenerCount('session_event'), 2);
});

test('C-7: a throwing listener is reported and does not stop the others or the publisher', () => {
  const errors: [string, unknown][] = [];
  const bus = new EventBus((event, e) => void errors.push([event, e]));
  const got: number[] = [];
  bus.on('session_event', () => {
    throw new Error('listener broke');
  });
  bus.on('session_event', (p) => void got.push(p.seq));
  bus.onAny(() => {
    throw new Error('any broke');
  });
  assert.doesNotThrow(() => bus.emit('session_event', ev));
  assert.deepEqual(got, [1]);
  assert.equal(errors.length, 2);
  assert.equal(errors[0][0], 'session_event');
  assert.match((errors[0][1] as Error).message, /listener broke/);
});

test('C-7: disposers unsubscribe (twice is safe), also during an emit', () => {
  const bus = new EventBus();
  const got: string[] = [];
  const offA = bus.on('session_event', () => {
    got.push('a');
    offA();
  });
  bus.on('session_event', () => void got.push('b'));
  const offAny = bus.onAny(() => void got.push('any'));
  bus.emit('session_event', ev);
  bus.emit('session_event', ev);
  offAny();
  offAny();
  bus.emit('session_event', ev);
  assert.deepEqual(got, ['a', 'b', 'any', 'b', 'any', 'b']);
  assert.equal(bus.listenerCount('session_event'), 1);
});
