import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContextEvent } from '../spec/index.js';
import { captureLogger } from './__fixtures__/capture-logger.js';
import { DEFAULT_PERSONA, SystemPromptBuilder, renderTimeline } from './system-prompt.js';

const T0 = Date.UTC(2026, 10, 29, 8, 30);
const q = { sessionId: 'webui:a', turnId: 'webui:a#1', input: 'hello', consolidation: false };

function ev(kind: ContextEvent['kind'], input: string, response = '', extra: Partial<ContextEvent> = {}): ContextEvent {
  return { id: Math.random().toString(36), timestamp: T0, kind, source: 'webui', channel: 'webui', sessionId: 'webui:a', input, response, ...extra };
}

test('C-8: persona first, then filled slots under their seed titles in slot order, then the time', async () => {
  const b = new SystemPromptBuilder({ persona: () => 'I am the test persona.', now: () => T0, timeZone: () => 'UTC' });
  b.register('related_documents', () => 'doc about cats');
  b.register('memory_index', () => 'user likes tea');
  b.register('knowledge', () => '   '); // blank: slot omitted
  b.register('extra', () => undefined);
  const text = await b.build(q);
  assert.ok(text.startsWith('I am the test persona.'));
  const idx = text.indexOf('【记忆索引】\nuser likes tea');
  const docs = text.indexOf('【相关记忆文档】\ndoc about cats');
  assert.ok(idx > 0 && docs > idx, text);
  assert.doesNotMatch(text, /【知识库】/);
  assert.match(text, /Current time: 2026-11-29 08:30 \(Sunday\), UTC \(UTC\+00:00\)$/);
});

test('C-8: an empty persona falls back to the default; a failing slot provider leaves its slot empty', async () => {
  const log = captureLogger();
  const b = new SystemPromptBuilder({ persona: () => '  ', log, now: () => T0 });
  b.register('knowledge', () => {
    throw new Error('index offline');
  }, 'knowledge-plugin');
  b.register('knowledge', async () => 'second provider still counts');
  const text = await b.build(q);
  assert.ok(text.startsWith(DEFAULT_PERSONA));
  assert.match(text, /【知识库】\nsecond provider still counts/);
  assert.ok(log.lines.some((l) => l.level === 'warn' && /knowledge-plugin/.test(l.msg) && /index offline/.test(l.msg)));
});

test('C-8: slot providers receive the query; a disposed provider is gone', async () => {
  const b = new SystemPromptBuilder({ persona: () => 'p' });
  const seen: unknown[] = [];
  const dispose = b.register('memory_library', (qq) => {
    seen.push(qq);
    return 'LIB';
  });
  assert.deepEqual(await b.slots(q), { memory_library: 'LIB' });
  assert.deepEqual(seen, [q]);
  dispose();
  assert.deepEqual(await b.slots(q), {});
});

test('C-8: renderTimeline renders user / assistant / recalled lines in time order', () => {
  const text = renderTimeline([ev('user', 'what is\n  the  weather'), ev('agent', 'what is the weather', 'sunny'), ev('cold_storage', 'old question', 'old answer')], 10_000, 'UTC');
  assert.deepEqual(text.split('\n'), [
    '[2026-11-29 08:30] (webui:a) user: what is the weather',
    '[2026-11-29 08:30] (webui:a) assistant: sunny',
    '[2026-11-29 08:30] (webui:a) recalled: old question → old answer',
  ]);
});

test('decision 0270: the current time and the timeline are the wall clock of the person’s zone, the zone named', async () => {
  // 08:30 UTC on Sunday 29 November is 16:30 in Shanghai and 03:30 in New York (EST, UTC-5).
  let zone = 'Asia/Shanghai';
  const b = new SystemPromptBuilder({ persona: () => 'p', now: () => T0, timeZone: () => zone });
  assert.match(await b.build(q), /Current time: 2026-11-29 16:30 \(Sunday\), Asia\/Shanghai \(UTC\+08:00\)$/);
  zone = 'America/New_York';
  assert.match(await b.build(q), /Current time: 2026-11-29 03:30 \(Sunday\), America\/New_York \(UTC-05:00\)$/);
  // A late-evening event in UTC is the next morning in Shanghai; the cached line follows a zone change.
  const e = ev('user', 'remind me at 9 tonight', '', { timestamp: Date.UTC(2026, 11, 1, 23, 0) });
  assert.equal(renderTimeline([e], 1000, 'Asia/Shanghai'), '[2026-12-02 07:00] (webui:a) user: remind me at 9 tonight');
  assert.equal(renderTimeline([e], 1000, 'UTC'), '[2026-12-01 23:00] (webui:a) user: remind me at 9 tonight');
});

test('C-8: renderTimeline keeps the newest lines within the budget', () => {
  const events = Array.from({ length: 50 }, (_, i) => ev('user', `message number ${i}`));
  const text = renderTimeline(events, 200);
  assert.ok(text.length <= 200);
  const lines = text.split('\n');
  assert.ok(lines.length >= 2);
  assert.match(lines.at(-1)!, /message number 49$/);
  assert.doesNotMatch(text, /message number 0\b/);
  // a single line longer than the budget is cut rather than dropped
  const one = renderTimeline([ev('user', 'x'.repeat(500))], 100);
  assert.equal(one.length, 100);
  assert.equal(renderTimeline([], 100), '');
});

test('C-8: renderTimeline reflects an event whose text changed since the last render', () => {
  const e = ev('agent', 'q', 'first answer');
  assert.match(renderTimeline([e], 1000), /assistant: first answer$/);
  e.response = 'edited answer';
  assert.match(renderTimeline([e], 1000), /assistant: edited answer$/);
  e.sessionId = 'cli:x';
  assert.match(renderTimeline([e], 1000), /\(cli:x\) assistant: edited answer$/);
});

test('C-8: a long line that fits stays whole (a review of 0480)', () => {
  const reply = `here is the letter: ${'y'.repeat(4000)} — the end`;
  const text = renderTimeline([ev('user', 'write me a letter'), ev('agent', 'write me a letter', reply)], 12_000, 'UTC');
  assert.match(text, /— the end$/);
  assert.equal(text.split('\n').length, 2);
});

test('C-8: one very long line is cut short, and the turns before it stay in the timeline (found by a new-user walk)', () => {
  const events = [ev('user', 'I live in Paris'), ev('agent', 'I live in Paris', 'Noted.'), ev('user', 'x'.repeat(100_000)), ev('user', 'Where do I live?')];
  const text = renderTimeline(events, 12_000, 'UTC');
  assert.ok(text.length <= 12_000, String(text.length));
  const lines = text.split('\n');
  assert.equal(lines.length, 4);
  assert.match(lines[0], /user: I live in Paris$/);
  assert.match(lines[2], /user: x+…$/);
  assert.ok(lines[2].length <= 3000);
  assert.match(lines[3], /Where do I live\?$/);
  // A cut never splits a character made of two UTF-16 units.
  const emoji = renderTimeline([ev('user', '😀'.repeat(5000))], 1000, 'UTC');
  assert.doesNotMatch(emoji, /[\ud800-\udbff]…$/);
});
