import { test } from 'node:test';
import assert from 'node:assert/strict';
import { docToTriples, extractJson, parseLlmTriples, type LlmLike } from './doc-to-triples.js';

const doc = { id: 'd1', text: 'We talked. I live in Lisbon.' };
const stub = (answer: string | Error, available = true): LlmLike & { calls: number } => {
  const s = {
    calls: 0,
    available: () => available,
    chat: async () => {
      s.calls++;
      if (answer instanceof Error) throw answer;
      return { text: answer };
    },
  };
  return s;
};

test('extractJson handles plain, fenced and embedded JSON', () => {
  assert.deepEqual(extractJson('{"a":1}'), { a: 1 });
  assert.deepEqual(extractJson('Sure!\n```json\n[1,2]\n```'), [1, 2]);
  assert.deepEqual(extractJson('Here: {"triples": []} done'), { triples: [] });
  assert.equal(extractJson('no json'), undefined);
});

test('parseLlmTriples drops invalid items and adds refs and sentence', () => {
  const t = parseLlmTriples('{"triples":[{"subject":"user","predicate":"lives in","object":"Lisbon"},{"subject":"","predicate":"x","object":"y"},{"subject":"a","predicate":"p","object":"a"}]}', doc);
  assert.deepEqual(t, [{ subject: 'user', predicate: 'lives_in', object: 'Lisbon', sentence: doc.text, refs: ['d1'] }]);
  assert.equal(parseLlmTriples('{"facts": 3}'), undefined);
});

test('docToTriples uses the LLM when available', async () => {
  const llm = stub('```json\n{"triples":[{"subject":"user","predicate":"visited","object":"Porto","confidence":0.9}]}\n```');
  const t = await docToTriples(doc, { llm });
  assert.equal(llm.calls, 1);
  assert.deepEqual(t.map((x) => `${x.predicate}:${x.object}:${x.confidence}`), ['visited:Porto:0.9']);
});

test('docToTriples falls back to the rules: no LLM, unavailable, malformed JSON, failing call', async () => {
  const expected = ['lives_in:Lisbon'];
  const f = (t: { predicate: string; object: string }[]) => t.map((x) => `${x.predicate}:${x.object}`);
  assert.deepEqual(f(await docToTriples(doc)), expected);
  const off = stub('{"triples":[]}', false);
  assert.deepEqual(f(await docToTriples(doc, { llm: off })), expected);
  assert.equal(off.calls, 0);
  assert.deepEqual(f(await docToTriples(doc, { llm: stub('{"triples": [ {"subject": ') })), expected);
  assert.deepEqual(f(await docToTriples(doc, { llm: stub(new Error('boom')) })), expected);
  assert.deepEqual((await docToTriples(doc))[0].refs, ['d1']);
});
