import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanSources } from './injected-sources.js';
import { SystemPromptBuilder } from './system-prompt.js';

const q = { sessionId: 'webui:a', turnId: 'webui:a#3', input: 'where do I live?', consolidation: false };

test('issue 12 part 6: a slot that names its sources keeps them beside its text; a plain-text slot names none; the prompt is the same either way', async () => {
  const b = new SystemPromptBuilder({ persona: () => 'P', now: () => 0 });
  b.register('memory_index', () => ({ text: '- user —lives_in→ 杭州', sources: [{ tier: 'graph', id: 'relation:7', text: 'user —lives_in→ 杭州', at: 1_700_000_000_000, turnId: 'webui:old#2', sessionId: 'webui:old' }] }));
  b.register('related_documents', () => '- [2026-01-01 10:00 · document] plain text slot');
  const { prompt, injected } = await b.buildWithSources(q);
  assert.equal(prompt, await b.build(q));
  assert.match(prompt, /【记忆索引】\n- user —lives_in→ 杭州\n\n【相关记忆文档】\n- \[2026-01-01 10:00 · document\] plain text slot/);
  assert.deepEqual(injected, [
    { slot: 'memory_index', title: '【记忆索引】', text: '- user —lives_in→ 杭州', sources: [{ tier: 'graph', id: 'relation:7', text: 'user —lives_in→ 杭州', at: 1_700_000_000_000, turnId: 'webui:old#2', sessionId: 'webui:old' }] },
  ]);
});

test('issue 12 part 6: sources a plugin returns are bounded and only well-formed ones are kept (a turn id must look like one)', () => {
  const many = Array.from({ length: 500 }, (_, i) => ({ tier: 'document', id: `d${i}`, text: 'x' }));
  assert.equal(cleanSources(many).length, 40, 'at most 40 per slot');
  assert.deepEqual(cleanSources('nope'), []);
  const out = cleanSources([
    null,
    42,
    { tier: 'secret-tier', id: 'a', text: 'unknown tier' },
    { tier: 'graph', id: 5, text: 'id not a string' },
    { tier: 'document', id: 'd1', text: `${'long '.repeat(200)}`, turnId: 'javascript:alert(1)', seq: -1, at: 'yesterday', speaker: { id: 'qq:1', name: 'Bo', extra: 'dropped' } },
    { tier: 'archive', id: 'a1', text: 'said\n\nover   lines', turnId: 'telegram:42#17', seq: 3, sessionId: 'telegram:42', conversation: { kind: 'group', id: 'qq:group:5', title: 'Team', evil: 1 } },
  ]);
  assert.equal(out.length, 2);
  assert.equal(out[0].turnId, undefined, 'a turn id that is not <session>#<n> is dropped');
  assert.equal(out[0].seq, undefined);
  assert.equal(out[0].at, undefined);
  assert.ok(out[0].text.length <= 401 && out[0].text.endsWith('…'));
  assert.deepEqual(out[0].speaker, { id: 'qq:1', name: 'Bo' });
  assert.deepEqual(out[1], { tier: 'archive', id: 'a1', text: 'said over lines', sessionId: 'telegram:42', turnId: 'telegram:42#17', seq: 3, conversation: { kind: 'group', id: 'qq:group:5', title: 'Team' } });
});

test('issue 12 part 6: a slot provider that returns garbage sources still fills its slot', async () => {
  const b = new SystemPromptBuilder({ persona: () => 'P', now: () => 0 });
  b.register('knowledge', () => ({ text: '- printer: TN-2420', sources: { not: 'a list' } as never }));
  const { prompt, injected } = await b.buildWithSources(q);
  assert.match(prompt, /【知识库】\n- printer: TN-2420/);
  assert.deepEqual(injected, [], 'no sources named, nothing to log');
});
