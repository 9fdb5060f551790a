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
