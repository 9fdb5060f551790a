import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HISTORY_MAX_CHARS, parseChatCompletion, planTurn, sessionFor } from './chat-request.js';
import { OpenAiApiError } from './openai-error.js';

test('sessionFor: header (full id or bare name), then user, then the default session', () => {
  assert.equal(sessionFor('webui:abc123', 'alice'), 'webui:abc123');
  assert.equal(sessionFor('kitchen', null), 'openai:kitchen');
  assert.equal(sessionFor(null, 'alice'), 'openai:alice');
  assert.equal(sessionFor('  ', undefined), 'openai:default');
  const odd = sessionFor(null, 'alice@example.com');
  assert.match(odd, /^openai:alice_example\.com-[0-9a-f]{8}$/);
  assert.notEqual(odd, sessionFor(null, 'alice#example.com'), 'different users never share a session');
  assert.equal(sessionFor(null, '../../etc'), sessionFor(null, '../../etc'));
  assert.doesNotMatch(sessionFor(null, '../../etc'), /\.\./);
  for (const bad of ['../x:y', 'a b:c', 'x'.repeat(200)]) assert.throws(() => sessionFor(bad, null), (e: unknown) => e instanceof OpenAiApiError && e.status === 400 && e.param === 'x-homeagent-session');
  // The owner's own conversations only: not someone's Telegram or QQ chat, not the notices (found by a new-user walk).
  assert.equal(sessionFor('cli:default', null), 'cli:default');
  assert.equal(sessionFor('openai:kitchen', null), 'openai:kitchen');
  for (const other of ['telegram:123456789', 'qq:group-42', 'system:notices']) assert.throws(() => sessionFor(other, null), (e: unknown) => e instanceof OpenAiApiError && e.status === 400 && /names a (telegram|qq|system) conversation: the API continues only your own \(openai:…, webui:…, cli:…\)/.test(e.message));
});

test('planTurn: the newest user message is the input; system messages are instructions; images come inline', () => {
  const png = 'iVBORw0KGgo=';
  const plan = planTurn(
    parseChatCompletion({
      model: 'homeagent',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric units.' }] },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'reply' },
        { role: 'tool', content: 'client tool output', tool_call_id: 'x' },
        { role: 'user', content: [{ type: 'text', text: 'What is in this picture?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] },
      ],
    }).messages,
  );
  assert.equal(plan.text, 'What is in this picture?');
  assert.deepEqual(plan.attachments, [{ mimeType: 'image/png', data: png, name: 'image-2' }]);
  assert.equal(plan.instructions, 'Be brief.\n\nUse metric units.');
  assert.equal(plan.history, 'user: first\nassistant: reply');
});

test('planTurn: a long earlier conversation is cut to its newest part', () => {
  const messages = Array.from({ length: 400 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message number ${i} `.repeat(5) }));
  messages.push({ role: 'user', content: 'now' });
  const plan = planTurn(parseChatCompletion({ model: 'm', messages }).messages);
  assert.ok(plan.history.length <= HISTORY_MAX_CHARS + 1);
  assert.match(plan.history, /message number 399/);
  assert.doesNotMatch(plan.history, /message number 0 /);
});

test('parseChatCompletion: extra OpenAI parameters are accepted and ignored; types of the ones read are checked', () => {
  const body = parseChatCompletion({ model: 'homeagent', messages: [{ role: 'user', content: 'x' }], temperature: 0.2, tools: [], max_tokens: 10, stream: null });
  assert.equal(body.model, 'homeagent');
  assert.throws(() => parseChatCompletion(null), (e: unknown) => e instanceof OpenAiApiError && e.status === 400);
  assert.throws(() => parseChatCompletion([]), (e: unknown) => e instanceof OpenAiApiError && e.status === 400);
  assert.throws(() => planTurn(parseChatCompletion({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }).messages), (e: unknown) => e instanceof OpenAiApiError && e.apiCode === 'invalid_type');
  assert.throws(() => planTurn([{ role: 'user', content: [{ type: 'input_audio' }] }] as never), (e: unknown) => e instanceof OpenAiApiError && e.apiCode === 'unsupported_value');
});
