import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { docToTriples, extractJson, parseLlmTriples } from './doc-to-triples.js';
import { startProviderLlm, type ProviderLlm } from '../../../test/fixtures/provider-llm.js';

const doc = { id: 'd1', text: 'We talked. I live in Lisbon.' };
// LLM behaviour comes from the scripted fake server over HTTP, through a real provider manager.
let on: ProviderLlm;
let off: ProviderLlm;
before(async () => {
  [on, off] = await Promise.all([startProviderLlm(), startProviderLlm({ available: false })]);
});
after(async () => {
  await Promise.all([on?.close(), off?.close()]);
});

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
  on.fake.enqueue({ text: '```json\n{"triples":[{"subject":"user","predicate":"visited","object":"Porto","confidence":0.9}]}\n```' });
  const before = on.fake.requests.length;
  const t = await docToTriples(doc, { llm: on.llm });
  assert.equal(on.fake.requests.length, before + 1);
  assert.match(JSON.stringify(on.fake.requests.at(-1)?.body), /I live in Lisbon/, 'the document travels to the model');
  assert.deepEqual(t.map((x) => `${x.predicate}:${x.object}:${x.confidence}`), ['visited:Porto:0.9']);
});

test('docToTriples falls back to the rules: no LLM, unavailable, malformed JSON, failing call', async () => {
  const expected = ['lives_in:Lisbon'];
  const f = (t: { predicate: string; object: string }[]) => t.map((x) => `${x.predicate}:${x.object}`);
  assert.deepEqual(f(await docToTriples(doc)), expected);
  assert.deepEqual(f(await docToTriples(doc, { llm: off.llm })), expected);
  assert.equal(off.fake.requests.length, 0, 'an unavailable LLM is not called');
  on.fake.enqueue({ text: '{"triples": [ {"subject": ' });
  assert.deepEqual(f(await docToTriples(doc, { llm: on.llm })), expected);
  on.fake.enqueue({ status: 400 });
  const before = on.fake.requests.length;
  assert.deepEqual(f(await docToTriples(doc, { llm: on.llm })), expected);
  assert.ok(on.fake.requests.length > before, 'the failing call reached the server');
  assert.deepEqual((await docToTriples(doc))[0].refs, ['d1']);
});

test('who said it: every fact carries the document’s speaker id, never one the model’s answer claims', async () => {
  const said = { ...doc, speaker: 'Bo', speakerId: 'qq:7' };
  assert.deepEqual((await docToTriples(said)).map((t) => [t.subject, t.speaker]), [['Bo', 'qq:7']]);
  on.fake.enqueue({ text: '{"triples":[{"subject":"Bo","predicate":"visited","object":"Porto","speaker":"user"}]}' });
  assert.deepEqual((await docToTriples(said, { llm: on.llm })).map((t) => t.speaker), ['qq:7']);
  on.fake.enqueue({ text: '{"triples":[{"subject":"user","predicate":"visited","object":"Porto","speaker":"qq:9"}]}' });
  assert.deepEqual((await docToTriples(doc, { llm: on.llm })).map((t) => t.speaker), [undefined], 'no speaker recorded: none invented');
});

test("a document's facts hold from when it was said (its time), not from when it was distilled", async () => {
  const at = Date.UTC(2025, 4, 1);
  const rules = await docToTriples({ id: 'd1', text: 'I live in Rome', at });
  assert.deepEqual(rules.map((t) => [t.object, t.validFrom]), [['Rome', at]]);
  const undated = await docToTriples({ id: 'd2', text: 'I live in Rome' });
  assert.equal(undated[0].validFrom, undefined, 'no time known: the graph uses the commit time');
});

test('the model\'s "me" / "我" is whoever said the document: the owner (`user`) in their own turns, the speaker in another person\'s', async () => {
  const answer = '{"triples":[{"subject":"me","predicate":"lives_in","object":"Porto"},{"subject":"我","predicate":"likes","object":"龙井茶"}]}';
  on.fake.enqueue({ text: answer });
  const own = await docToTriples({ id: 'o1', text: 'I live in Porto. 我喜欢龙井茶' }, { llm: on.llm });
  assert.deepEqual(own.map((t) => `${t.subject} ${t.predicate} ${t.object}`), ['user lives_in Porto', 'user likes 龙井茶']);
  on.fake.enqueue({ text: answer });
  const theirs = await docToTriples({ id: 'g1', text: 'Bob: I live in Porto', speaker: 'Bob', speakerId: 'telegram:7' }, { llm: on.llm });
  assert.deepEqual(theirs.map((t) => `${t.subject} ${t.predicate} ${t.object}`), ['Bob lives_in Porto', 'Bob likes 龙井茶'], "a stranger's words never become the owner's");
});
