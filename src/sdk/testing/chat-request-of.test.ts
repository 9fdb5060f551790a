import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chatRequestOf } from './chat-request-of.js';
import type { RecordedRequest } from './fake-llm/index.js';

const rec = (body: unknown, format: RecordedRequest['format'] = 'openai-chat'): RecordedRequest => ({ path: '/v1/chat/completions', method: 'POST', headers: {}, body, format });

test('chatRequestOf maps an OpenAI chat body back to the normalized request', () => {
  const r = chatRequestOf(
    rec({
      model: 'gpt-x',
      max_completion_tokens: 99,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
        { role: 'assistant', content: null, reasoning_content: 'hmm', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'result' },
      ],
      tools: [{ type: 'function', function: { name: 'f', description: 'does f', parameters: { type: 'object' } } }],
    }),
  );
  assert.deepEqual(r, {
    model: 'gpt-x',
    maxTokens: 99,
    temperature: 0.2,
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'look', attachments: [{ mimeType: 'image/png', data: 'AAAA' }] },
      { role: 'assistant', content: '', reasoning: 'hmm', toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":1}' }] },
      { role: 'tool', content: 'result', toolCallId: 'c1' },
    ],
    tools: [{ name: 'f', description: 'does f', parameters: { type: 'object' } }],
  });
});

test('chatRequestOf: other wire formats are not translated; a junk body gives an empty request', () => {
  assert.equal(chatRequestOf(rec({ messages: [] }, 'anthropic')), undefined);
  assert.equal(chatRequestOf(rec({ input: ['x'] }, 'embeddings')), undefined);
  assert.deepEqual(chatRequestOf(rec('not json')), { messages: [] });
  assert.deepEqual(chatRequestOf(rec({ messages: [null, { role: 'weird', content: 3 }] })), {
    messages: [
      { role: 'user', content: '' },
      { role: 'user', content: '' },
    ],
  });
});
