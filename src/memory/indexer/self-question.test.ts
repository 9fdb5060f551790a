import { test } from 'node:test';
import assert from 'node:assert/strict';
import { predicateHasRole, selfQuestion } from './self-question.js';

test('questions about oneself name the predicates of one’s own facts, in English and Chinese', () => {
  const asks: [string, string[]][] = [
    ['where do I live?', ['lives_in', 'no_longer_lives_in']],
    ['Where am I living now?', ['lives_in', 'no_longer_lives_in']],
    ['我现在住在哪里？', ['lives_in', 'no_longer_lives_in']],
    ['我住哪儿', ['lives_in', 'no_longer_lives_in']],
    ['我家在哪', ['lives_in', 'no_longer_lives_in']],
    ["what's my name?", ['name']],
    ['Do you remember my name', ['name']],
    ['Who am I?', ['name']],
    ['我叫什么名字？', ['name']],
    ['where do I work', ['works_at', 'works_as', 'no_longer_works_at', 'no_longer_works_as']],
    ['tell me about my job', ['works_at', 'works_as', 'no_longer_works_at', 'no_longer_works_as']],
    ['我在哪里上班？', ['works_at', 'works_as', 'no_longer_works_at', 'no_longer_works_as']],
    ['我是做什么工作的', ['works_at', 'works_as', 'no_longer_works_at', 'no_longer_works_as']],
    ['how old am I', ['age']],
    ['我今年多大了', ['age']],
    ['where am I from?', ['from']],
    ['我是哪里人', ['from']],
  ];
  for (const [q, predicates] of asks) assert.deepEqual(selfQuestion(q), { predicates, roles: [] }, q);
  assert.deepEqual(selfQuestion('what does my sister like?'), { predicates: [], roles: ['sister'] });
  assert.deepEqual(selfQuestion('我老婆叫什么？')?.roles, ['wife', 'spouse', 'married']);
  assert.deepEqual(selfQuestion('我的妈妈住在哪'), { predicates: [], roles: ['mother', 'mom', 'mum'] }, 'where the mother lives, not the asker');
});

test('"what do you know about me?" asks for every fact of the asker, in English and Chinese', () => {
  for (const q of [
    'What do you know about me?',
    'what do you remember about me',
    'What else do you know about me?',
    'What have you learned about me so far?',
    'Tell me about myself',
    'tell me what you know about me',
    'How well do you know me?',
    'Do you know anything about me?',
    '你知道我什么？',
    '你都知道我哪些事？',
    '你记得关于我的什么',
    '关于我，你知道什么？',
    '你对我有多少了解？',
    '你对我了解多少',
    '说说我自己',
  ]) {
    assert.equal(selfQuestion(q)?.all, true, q);
  }
  // With a named part as well: both.
  assert.deepEqual(selfQuestion('What do you know about me and my sister?'), { predicates: [], roles: ['sister'], all: true });
  for (const t of ['Tell me about meals in Rome', 'what do you know about Mars', '说说我们明天去哪', 'do you know about me being late?'.replace('about me', 'about men')]) {
    assert.equal(selfQuestion(t)?.all, undefined, t);
  }
});

test('statements, other people and unrelated text ask about nothing of the asker', () => {
  for (const t of [
    'I live in Paris.',
    'I moved to Berlin',
    '我搬到上海了',
    '我住在杭州。',
    'my name is Bob',
    'where does Alice live?',
    'Who am I kidding, this is hard',
    'what is the name of that river',
    '我爱人工智能',
    '我在做什么呢',
    'how old is the Eiffel tower',
    '',
  ]) {
    assert.equal(selfQuestion(t), undefined, t);
  }
});

test('a role is a word of the predicate', () => {
  assert.ok(predicateHasRole('has_sister', ['sister']));
  assert.ok(predicateHasRole('sister_of', ['sister']));
  assert.ok(predicateHasRole('married_to', ['wife', 'married']));
  assert.ok(!predicateHasRole('likes', ['sister']));
  assert.ok(!predicateHasRole('sisterhood_member', ['sister']));
});
