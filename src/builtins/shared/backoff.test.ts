import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, sleep } from './backoff.js';

test('Backoff doubles up to its cap, honours a server retry-after, and resets', () => {
  const b = new Backoff(1000, 8000, () => 0.5);
  assert.deepEqual([b.next(), b.next(), b.next(), b.next(), b.next()], [1000, 2000, 4000, 8000, 8000]);
  assert.equal(b.next(5000), 5000, 'retry_after wins');
  assert.equal(b.attempts, 6);
  b.reset();
  assert.equal(b.next(), 1000);
  const jittered = new Backoff(1000, 60_000, () => 1);
  assert.equal(jittered.next(), 1200);
});

test('sleep ends early and quietly when its signal aborts', async () => {
  const ac = new AbortController();
  const p = sleep(60_000, ac.signal);
  ac.abort();
  await p;
  await sleep(1);
});
