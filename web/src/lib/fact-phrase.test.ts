import { describe, expect, it } from 'vitest';
import { factPhrase, phraseLine, predicateLabel } from './fact-phrase';

const say = (p: ReturnType<typeof factPhrase>) => [p.subject, p.verb, p.object, p.after].filter(Boolean).join(' ');

describe('a fact as the page says it', () => {
  it('reads the rule distiller’s predicates as sentences about you, in English', () => {
    expect(say(factPhrase('en', 'you', 'name', 'Alice', true))).toBe('your name is Alice');
    expect(say(factPhrase('en', 'you', 'lives_in', '杭州', true))).toBe('you live in 杭州');
    expect(say(factPhrase('en', 'you', 'age', '30', true))).toBe('you are 30');
    expect(say(factPhrase('en', 'you', 'works_at', 'ACME', true))).toBe('you work at ACME');
  });

  it('about someone named, in the third person', () => {
    expect(say(factPhrase('en', 'Sam', 'lives_in', 'Lyon', false))).toBe('Sam lives in Lyon');
    expect(say(factPhrase('en', 'Sam', 'name', 'Samuel', false))).toBe('Sam’s name is Samuel');
  });

  it('in Chinese, the same facts in Chinese words (the predicate is English whatever was said)', () => {
    expect(say(factPhrase('zh', '你', 'name', '小明', true))).toBe('你 的名字是 小明');
    expect(say(factPhrase('zh', '你', 'lives_in', '杭州', true))).toBe('你 住在 杭州');
    expect(say(factPhrase('zh', 'Alice', 'works_at', 'ACME', false))).toBe('Alice 在 ACME 工作');
    expect(say(factPhrase('zh', '你', 'no_longer_works_as', '护士', true))).toBe('你 不再从事 护士');
    expect(say(factPhrase('en', 'you', 'no_longer_works_as', 'nurse', true))).toBe('you no longer work as nurse');
  });

  it('any other predicate stays as the model named it, with the verb form that fits "you"', () => {
    expect(say(factPhrase('en', 'you', 'plays', 'chess', true))).toBe('you play chess');
    expect(say(factPhrase('en', 'you', 'pets', 'a cat', true))).toBe('you pets a cat');
    expect(say(factPhrase('en', 'Alice', 'has_pet', 'Rex', false))).toBe('Alice has pet Rex');
    expect(say(factPhrase('zh', '你', 'plays', 'chess', true))).toBe('你 plays chess');
  });
});

describe('a predicate as an edge of the knowledge graph', () => {
  it('is a word of the page\'s language for the distiller\'s predicates, spaced words otherwise', () => {
    expect(predicateLabel('zh', 'lives_in')).toBe('住在');
    expect(predicateLabel('zh', 'name')).toBe('名字');
    expect(predicateLabel('zh', 'has_child_named')).toBe('has child named');
    expect(predicateLabel('en', 'lives_in')).toBe('lives in');
  });
});

describe('a fact as one line', () => {
  it('says family and partner predicates in Chinese words (has_sister, sister_of, married_to)', () => {
    expect(phraseLine(factPhrase('zh', '你', 'has_sister', 'Ana', true))).toBe('你的姐妹是 Ana');
    expect(phraseLine(factPhrase('zh', '你', 'sister_of', 'Ana', true))).toBe('你是 Ana 的姐妹');
    expect(phraseLine(factPhrase('zh', 'Bo', 'married_to', '小美', false))).toBe('Bo 和小美结婚了');
    expect(phraseLine(factPhrase('zh', '你', 'has_pet', 'Mochi', true))).toBe('你的宠物是 Mochi');
    expect(phraseLine(factPhrase('en', 'you', 'has_sister', 'Ana', true))).toBe('you have sister Ana');
    expect(predicateLabel('zh', 'has_sister')).toBe('姐妹');
    expect(predicateLabel('zh', 'mother_of')).toBe('母亲');
    expect(predicateLabel('zh', 'plays_with')).toBe('plays with');
  });
  it('runs Chinese on without spaces and keeps a space beside a Latin word', () => {
    expect(phraseLine(factPhrase('zh', '你', 'lives_in', '杭州', true))).toBe('你住在杭州');
    expect(phraseLine(factPhrase('zh', '你', 'plays', 'chess', true))).toBe('你 plays chess');
    expect(phraseLine(factPhrase('zh', 'Alice', 'works_at', 'ACME', false))).toBe('Alice 在 ACME 工作');
    expect(phraseLine(factPhrase('en', 'Alice', 'likes', 'green tea', false))).toBe('Alice likes green tea');
    expect(phraseLine(factPhrase('zh', '你', 'no_longer_lives_in', '杭州', true))).toBe('你不再住在杭州');
    expect(phraseLine(factPhrase('en', 'you', 'no_longer_lives_in', 'Berlin', true))).toBe('you no longer live in Berlin');
    expect(phraseLine(factPhrase('zh', '你', 'no_longer_works_at', '腾讯', true))).toBe('你不再在腾讯工作');
  });
});
