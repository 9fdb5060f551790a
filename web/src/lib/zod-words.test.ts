import { describe, expect, it } from 'vitest';
import { zodInWords } from './zod-words';

describe("zod's messages in words", () => {
  it('numbers, text, lists and types, in English and Chinese', () => {
    expect(zodInWords('Too small: expected number to be >=1000', 'zh')).toBe('太小：至少为 1000');
    expect(zodInWords('Too small: expected number to be >=1000', 'en')).toBe('too small: at least 1000');
    expect(zodInWords('Too big: expected number to be <=10', 'zh')).toBe('太大：至多为 10');
    expect(zodInWords('Too small: expected string to have >=1 characters', 'en')).toBe('too short: at least 1 character');
    expect(zodInWords('Too big: expected string to have <=3 characters', 'zh')).toBe('太长：最多 3 个字符');
    expect(zodInWords('Too big: expected array to have <=2 items', 'en')).toBe('too many: at most 2');
    expect(zodInWords('Invalid input: expected number, received string', 'zh')).toBe('这里应为数字');
    expect(zodInWords('Invalid input: expected int, received number', 'en')).toBe('a whole number is expected here');
  });
  it("leaves the daemon's own reasons as they are", () => {
    expect(zodInWords('"abc": a Telegram user id is a number such as "123456789"', 'zh')).toBe('"abc": a Telegram user id is a number such as "123456789"');
  });
});
