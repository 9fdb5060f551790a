import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NdjsonParser, SseParser, decodePayload } from './stream-framing.js';

test('SSE parser joins data lines, keeps event names, skips comments, survives split input', () => {
  const p = new SseParser();
  const input = ': hello\r\nevent: a\r\ndata: {"x":\r\ndata: 1}\r\n\r\ndata: [DONE]\n\ndata: tail';
  const events = [...input].flatMap((ch) => p.push(ch));
  events.push(...p.end());
  assert.deepEqual(events, [{ data: '{"x":\n1}', event: 'a' }, { data: '[DONE]', event: undefined }, { data: 'tail', event: undefined }]);
});

test('NDJSON parser yields whole lines only', () => {
  const p = new NdjsonParser();
  assert.deepEqual(p.push('{"a":1}\n{"b"'), [{ data: '{"a":1}' }]);
  assert.deepEqual(p.push(':2}\n\n'), [{ data: '{"b":2}' }]);
  assert.deepEqual(p.push('{"c":3}'), []);
  assert.deepEqual(p.end(), [{ data: '{"c":3}' }]);
});

test('decodePayload: JSON when it parses, the string otherwise', () => {
  assert.deepEqual(decodePayload('{"a":1}'), { a: 1 });
  assert.equal(decodePayload('[DONE]'), '[DONE]');
  assert.equal(decodePayload('{broken'), '{broken');
});
