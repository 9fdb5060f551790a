import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OpenAiApiError } from './openai-error.js';
import { ReplayTable } from './replay-table.js';

const ident = (id: string) => () => ({ id, created: 1, model: 'homeagent', headers: {} });
const ok = (content: string) => ({ ok: true as const, content, reasoning: '', usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
const req = (headers: Record<string, string> = {}) => new Request('http://x/', { method: 'POST', headers });

test('the first request claims its key; a retry with the same body gets that request and its result', async () => {
  const t = new ReplayTable({ maxEntries: 10, ttlMs: 1000 });
  const fp = ReplayTable.fingerprint(new TextEncoder().encode('{"a":1}'), null);
  const first = t.claim('k1', fp, ident('first'));
  assert.equal(first.prior, undefined);
  const again = t.claim('k1', fp, ident('second')).prior;
  assert.equal(again?.id, 'first', 'the retry sees the first request, not a new one');
  first.settle(ok('hello'));
  assert.deepEqual(await again!.result, ok('hello'));
  first.settle(ok('ignored'));
  assert.deepEqual(await t.claim('k1', fp, ident('third')).prior!.result, ok('hello'), 'a result is settled once');
});

test('the same key with another body or another session is refused with 422', () => {
  const t = new ReplayTable({ maxEntries: 10, ttlMs: 1000 });
  const body = new TextEncoder().encode('{"a":1}');
  t.claim('k', ReplayTable.fingerprint(body, null), ident('x'));
  for (const fp of [ReplayTable.fingerprint(new TextEncoder().encode('{"a":2}'), null), ReplayTable.fingerprint(body, 'other-session')]) {
    assert.throws(
      () => t.claim('k', fp, ident('y')),
      (e: unknown) => e instanceof OpenAiApiError && e.status === 422 && e.apiCode === 'idempotency_key_reused',
    );
  }
});

test('release frees a key whose request started no turn; ended entries expire, running ones do not', () => {
  let now = 0;
  const t = new ReplayTable({ maxEntries: 10, ttlMs: 100, now: () => now });
  t.claim('refused', 'f', ident('a')).release();
  const again = t.claim('refused', 'f', ident('b'));
  assert.equal(again.prior, undefined, 'a refused request can be sent again as new');
  t.claim('running', 'f', ident('r'));
  again.settle(ok(''));
  now = 500;
  assert.equal(t.claim('refused', 'f', ident('c')).prior, undefined, 'expired after ttl');
  assert.equal(t.claim('running', 'f', ident('r2')).prior?.id, 'r', 'a running request is kept however long it runs');
});

test('a replacing claim takes the key; the replaced request settles only its own waiters and cannot release the new one', async () => {
  const t = new ReplayTable({ maxEntries: 10, ttlMs: 1000 });
  const a = t.claim('body:f', 'f', ident('a'));
  const waiterOfA = t.claim('body:f', 'f', ident('x')).prior!;
  const b = t.claim('body:f', 'f', ident('b'), { replace: true });
  assert.equal(b.prior, undefined, 'the same words again as a first attempt are a new request');
  a.settle(ok('A'));
  a.release();
  assert.deepEqual(await waiterOfA.result, ok('A'));
  const waiterOfB = t.claim('body:f', 'f', ident('y')).prior!;
  assert.equal(waiterOfB.id, 'b', "a's release did not drop b's slot");
  b.settle(ok('B'));
  assert.deepEqual(await waiterOfB.result, ok('B'));
});

test('past the bound the oldest ended entries go first; running ones stay', () => {
  const t = new ReplayTable({ maxEntries: 3, ttlMs: 1e9 });
  t.claim('run', 'f', ident('run'));
  for (const k of ['a', 'b', 'c']) t.claim(k, 'f', ident(k)).settle(ok(k));
  assert.equal(t.size, 3);
  assert.equal(t.claim('run', 'f', ident('x')).prior?.id, 'run');
  assert.equal(t.claim('a', 'f', ident('a2')).prior, undefined, 'the oldest ended entry was evicted');
});

test('slots: an Idempotency-Key is its own slot; without one, only an attempt the SDK numbers as a retry matches the same body', () => {
  assert.deepEqual(ReplayTable.slotOf(req({ 'idempotency-key': 'abc' }), 'f'), { key: 'key:abc', replace: false });
  assert.deepEqual(ReplayTable.slotOf(req(), 'f'), { key: 'body:f', replace: true });
  assert.deepEqual(ReplayTable.slotOf(req({ 'x-stainless-retry-count': '0' }), 'f'), { key: 'body:f', replace: true });
  assert.deepEqual(ReplayTable.slotOf(req({ 'x-stainless-retry-count': '2' }), 'f'), { key: 'body:f', replace: false });
  assert.deepEqual(ReplayTable.slotOf(req({ 'x-stainless-retry-count': 'junk' }), 'f'), { key: 'body:f', replace: true });
});

test('keys must be printable ASCII of at most 255 characters', () => {
  assert.equal(ReplayTable.keyOf(req()), undefined);
  assert.equal(ReplayTable.keyOf(req({ 'idempotency-key': 'stainless-node-retry-0b3c' })), 'stainless-node-retry-0b3c');
  for (const bad of ['', 'a b', 'x'.repeat(256)]) {
    assert.throws(
      () => ReplayTable.keyOf(req({ 'idempotency-key': bad })),
      (e: unknown) => e instanceof OpenAiApiError && e.status === 400 && e.apiCode === 'invalid_idempotency_key',
      JSON.stringify(bad.slice(0, 10)),
    );
  }
});

test('0430: a forget drops the kept answers of its turns and those quoting what was said; the others stay', () => {
  const t = new ReplayTable({ maxEntries: 10, ttlMs: 60_000 });
  const fp = (s: string) => ReplayTable.fingerprint(new TextEncoder().encode(s), null);
  const a = t.claim('a', fp('a'), ident('a'));
  a.started('openai:default#1');
  a.settle(ok('your code is ORCA-5150'));
  const b = t.claim('b', fp('b'), ident('b'));
  b.started('openai:default#10');
  b.settle(ok('the weather is fine'));
  const c = t.claim('c', fp('c'), ident('c'));
  c.started('openai:other#3');
  c.settle(ok('I remember ORCA-5150 too'));
  assert.equal(t.dropForgotten(new Set(['openai:default#1']), ['ORCA-5150']), 2);
  assert.equal(t.claim('a', fp('a'), ident('a2')).prior, undefined, 'the forgotten turn’s answer is gone: a retry is new');
  assert.equal(t.claim('b', fp('b'), ident('b2')).prior?.id, 'b', '#10 is not #1');
  assert.equal(t.claim('c', fp('c'), ident('c2')).prior, undefined, 'an answer quoting what was said goes too');
});
