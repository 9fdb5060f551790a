import { describe, expect, it } from 'vitest';
import { listSplitOf } from './list-control';
import { readableError } from './schema-field';

describe('listSplitOf', () => {
  it('types ids as words (their pattern holds no space) and paths or commands as lines', () => {
    expect(listSplitOf({ type: 'string', pattern: '^\\d{1,20}$' })).toBe('words');
    expect(listSplitOf({ type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}:[^\\s]{1,100}$' })).toBe('words');
    // No pattern (folders, programs: "C:\Program Files\Git\cmd\git.exe"), or one that admits a space.
    expect(listSplitOf({ type: 'string', minLength: 1 })).toBe('lines');
    expect(listSplitOf(undefined)).toBe('lines');
    expect(listSplitOf({ type: 'string', pattern: '^.+$' })).toBe('lines');
    expect(listSplitOf({ type: 'string', pattern: '^[a-z ]+$' })).toBe('lines');
    expect(listSplitOf({ type: 'string', pattern: '^\\S+\\s\\S+$' })).toBe('lines');
  });
});

describe('readableError', () => {
  it('names a refused list item by what was typed, not by the key and an index', () => {
    expect(readableError('invalid value for plugin.telegram.allowed_user_ids: 2: a Telegram user id is a number such as "123456789"', 'plugin.telegram.allowed_user_ids', ['4242', '6262', 'abc'])).toBe(
      '"abc": a Telegram user id is a number such as "123456789"',
    );
    expect(readableError('invalid value for core.agent.max_steps: must be at most 50', 'core.agent.max_steps', 99)).toBe('must be at most 50');
    expect(readableError('network down', 'x', 1)).toBe('network down');
  });
});
