import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstVisibleMessageTitle, forgetInLogBytes } from './forget-in-log.js';

const line = (r: Record<string, unknown>) => `${JSON.stringify(r)}\n`;
const log = (...records: Record<string, unknown>[]) => Buffer.from(records.map(line).join(''));
const ev = (seq: number, turn: number, kind: string, text: string, data?: Record<string, unknown>) => ({ type: 'event', seq, turnId: `cli:x#${turn}`, kind, at: 1000 + seq, text, ...(data ? { data } : {}) });

test('a forgotten turn becomes [forgotten] in place, and a title made from it is replaced by the first message still there', () => {
  const buf = log({ type: 'session', id: 'cli:x', title: 'My PIN is 4471' }, ev(1, 1, 'user', 'My PIN is 4471'), ev(2, 1, 'assistant', 'Noted.'), ev(3, 2, 'user', 'I live in Paris.'), ev(4, 2, 'assistant', 'Paris.'));
  const r = forgetInLogBytes(buf, 'cli:x', (e) => e.turnId === 'cli:x#1');
  assert.equal(r.n, 2);
  assert.deepEqual([...r.turnIds], ['cli:x#1']);
  assert.equal(r.retitled, true);
  const lines = r.bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines[0].title, 'I live in Paris.');
  assert.deepEqual(lines[1], { type: 'event', seq: 1, turnId: 'cli:x#1', kind: 'user', at: 1001, text: '[forgotten]', data: { redacted: true } });
  assert.doesNotMatch(r.bytes.toString('utf8'), /4471/);
});

test('an event already [forgotten] is never offered again, and a log with nothing to forget comes back as it was', () => {
  const buf = log({ type: 'session', id: 'cli:x', title: 'I live in Paris.' }, ev(1, 1, 'user', '[forgotten]', { redacted: true }), ev(2, 2, 'user', 'I live in Paris.'));
  const offered: number[] = [];
  const r = forgetInLogBytes(buf, 'cli:x', (e) => {
    offered.push(e.seq);
    return e.turnId === 'cli:x#1';
  });
  assert.deepEqual(offered, [2]);
  assert.equal(r.n, 0);
  assert.equal(r.bytes, buf);
});

test('the new title skips messages that are deleted (hidden) in the log', () => {
  const buf = log(ev(1, 1, 'user', 'Deleted one'), ev(2, 2, 'user', 'Kept one'), { ...ev(3, 1, 'marker', ''), data: { op: 'delete', scope: 'turn', turnIds: ['cli:x#1'] } });
  assert.equal(firstVisibleMessageTitle(buf, 'cli:x'), 'Kept one');
  assert.equal(firstVisibleMessageTitle(log(ev(1, 1, 'user', 'Gone'), { type: 'deleted', at: 5, throughSeq: 1 }), 'cli:x'), '');
});
