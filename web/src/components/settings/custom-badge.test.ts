import { describe, expect, it } from 'vitest';
import { isCustomSetting } from './custom-badge';

describe('isCustomSetting', () => {
  it('a stored value other than the default is custom', () => {
    expect(isCustomSetting({ origin: 'stored', value: ['qq:10001'], default: [] })).toBe(true);
    expect(isCustomSetting({ origin: 'stored', value: 12, default: 8 })).toBe(true);
    expect(isCustomSetting({ origin: 'stored', value: { a: 1, b: 2 }, default: { a: 1 } })).toBe(true);
  });

  it('a list cleared back to empty, or any value saved equal to its default, is not (it stayed "custom")', () => {
    expect(isCustomSetting({ origin: 'stored', value: [], default: [] })).toBe(false);
    expect(isCustomSetting({ origin: 'stored', value: ['deepseek', 'openai'], default: ['deepseek', 'openai'] })).toBe(false);
    expect(isCustomSetting({ origin: 'stored', value: { b: 2, a: 1 }, default: { a: 1, b: 2 } })).toBe(false);
  });

  it('a value not stored is never custom', () => {
    expect(isCustomSetting({ origin: 'default', value: [], default: [] })).toBe(false);
    expect(isCustomSetting({ origin: 'env', value: 'x', default: '' })).toBe(false);
    expect(isCustomSetting({ origin: 'override', value: 9, default: 8 })).toBe(false);
  });
});
