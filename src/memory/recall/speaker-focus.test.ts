import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asksQuestion } from '../documents/index.js';
import { namedWords, namesPerson, queryFocus, speakerIdOf, speaksOfSelf } from './speaker-focus.js';

const PEOPLE = [
  { id: 'locomo:Caroline', name: 'Caroline' },
  { id: 'telegram:42', name: 'Will Turner' },
  { id: 'qq:7', name: '王小明' },
  { id: 'assistant', name: 'Assistant' },
  { id: 'x:1', name: 'A' },
];
const owner = { ownerIds: ['telegram:1'] };
const focus = (q: string, asker: Parameters<typeof queryFocus>[2] = owner) => [...(queryFocus(q, PEOPLE, asker) ?? [])].sort();

test('a query that names a participant is about their statements (display name, first name, Chinese names)', () => {
  assert.deepEqual(focus('What pets does Caroline have?'), ['locomo:Caroline']);
  assert.deepEqual(focus('what pets does caroline have'), ['locomo:Caroline'], 'a query typed in lower case matches names in any case');
  assert.deepEqual(focus('Where does Will live?'), ['telegram:42'], 'first name of a longer display name');
  assert.deepEqual(focus('Where will they live?'), [], '"will" in a query with capitals is no name');
  assert.deepEqual(focus('王小明喜欢什么运动'), ['qq:7']);
  assert.deepEqual(focus('Carolineville is far'), [], 'whole words only');
  assert.deepEqual(focus('What did the Assistant say?'), [], 'the agent is never a focus');
  assert.deepEqual(focus('A is a letter'), [], 'names shorter than two characters never match');
});

test('I / me / my / 我 mean the person asking: the owner (all their ids), or a channel speaker', () => {
  assert.deepEqual(focus('What did I tell you about my sister?'), ['telegram:1', 'user']);
  assert.deepEqual(focus('我上周六去了哪里'), ['telegram:1', 'user']);
  assert.deepEqual(focus('我们上周去了哪里'), [], '我们 (we) is not the owner alone');
  assert.deepEqual(focus('What did I say?', { speaker: { id: 'telegram:1' }, ownerIds: ['telegram:1'] }), ['telegram:1', 'user'], 'the owner on a channel');
  assert.deepEqual(focus('What did I say to Caroline?', { speaker: { id: 'telegram:42', name: 'Will Turner' }, ownerIds: ['telegram:1'] }), ['locomo:Caroline', 'telegram:42'], 'someone else asking means them');
  assert.equal(speaksOfSelf("I'm going home"), true);
  assert.equal(speaksOfSelf('Is it ice cream?'), false, '"i" inside words is not I');
});

test('namesPerson escapes names and keeps word boundaries', () => {
  assert.equal(namesPerson('Did J.R. call?', 'J.R.'), true, 'a name with dots');
  assert.equal(namesPerson('Did Jr call?', 'J.R'), false, 'dots are not wildcards');
  assert.equal(namesPerson('Has Zoë come?', 'Zoë'), true);
});

test('who said a document: its speaker, the owner for user events without one, the agent for agent events', () => {
  assert.equal(speakerIdOf({ speaker: { id: 'qq:7' }, eventKind: 'user' }), 'qq:7');
  assert.equal(speakerIdOf({ eventKind: 'user' }), 'user');
  assert.equal(speakerIdOf({ eventKind: 'agent' }), 'assistant');
  assert.equal(speakerIdOf({}), undefined);
});

test('asksQuestion: question marks of either width, Chinese question particles without one', () => {
  assert.equal(asksQuestion('Which team do you support?'), true);
  assert.equal(asksQuestion('你支持哪个队？'), true);
  assert.equal(asksQuestion('你吃饭了吗'), true);
  assert.equal(asksQuestion('你呢。'), true);
  assert.equal(asksQuestion('The Wolves are solid.'), false);
  assert.equal(asksQuestion('我吃了'), false);
});

test('a large group: every participant is tested against the query’s words once', () => {
  const many = Array.from({ length: 3000 }, (_, i) => ({ id: `qq:${i}`, name: `Member${i} Lee` }));
  many.push({ id: 'qq:x', name: 'Ada Lovelace' });
  assert.deepEqual([...(queryFocus(`${'word '.repeat(1500)} what did Ada Lovelace say`, many, { ownerIds: [] }) ?? [])], ['qq:x']);
  assert.deepEqual([...(queryFocus('what did member2999 lee say', many, { ownerIds: [] }) ?? [])], ['qq:2999']);
});

test('the words of the names a query contains (never expanded by word neighbours, decision 0300)', () => {
  assert.deepEqual([...namedWords('What pets does Caroline have?', PEOPLE)], ['caroline']);
  assert.deepEqual([...namedWords('what did will turner say', PEOPLE)].sort(), ['turner', 'will'], 'every word of a matched full name, lower case');
  assert.deepEqual([...namedWords('Where will they live?', PEOPLE)], [], '"will" in a query with capitals is no name');
  assert.deepEqual([...namedWords('What did the Assistant say?', PEOPLE)], [], 'the agent is never a named person');
  assert.deepEqual([...namedWords('王小明喜欢什么', PEOPLE)], ['王小明']);
});
