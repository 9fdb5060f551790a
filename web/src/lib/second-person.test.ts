import { describe, expect, it } from 'vitest';
import { secondPerson } from './second-person';

describe('secondPerson', () => {
  it('turns the first verb of a predicate to follow "you"', () => {
    expect(secondPerson('lives in')).toBe('live in');
    expect(secondPerson('likes')).toBe('like');
    expect(secondPerson('works at')).toBe('work at');
    expect(secondPerson('watches')).toBe('watch');
    expect(secondPerson('goes to')).toBe('go to');
    expect(secondPerson('studies')).toBe('study');
    expect(secondPerson('is allergic to')).toBe('are allergic to');
    expect(secondPerson('has')).toBe('have');
  });
  it('leaves what it does not know as a verb in -s', () => {
    expect(secondPerson('name')).toBe('name');
    expect(secondPerson('birthday')).toBe('birthday');
    expect(secondPerson('status')).toBe('status');
    expect(secondPerson('address')).toBe('address');
    expect(secondPerson('plays')).toBe('play');
    for (const noun of ['pets', 'kids', 'hobbies', 'news', 'series', 'alias', 'shoes']) expect(secondPerson(noun)).toBe(noun);
    expect(secondPerson('focuses on')).toBe('focus on');
  });
});
