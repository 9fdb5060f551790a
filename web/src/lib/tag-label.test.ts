import { describe, expect, it } from 'vitest';
import { translate } from '../i18n';
import { tagLabel } from './tag-label';

describe('tagLabel', () => {
  const en = (k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate('en', k, v);
  const zh = (k: Parameters<typeof translate>[1], v?: Record<string, string | number>) => translate('zh', k, v);
  it('names the seed’s tags in the page’s language and keeps a person’s own tags as typed', () => {
    expect(tagLabel(en, '会话总结')).toBe('Session summary');
    expect(tagLabel(zh, 'convention')).toBe('规约');
    expect(tagLabel(en, 'boats')).toBe('boats');
  });
  it('a tag that is an object property name is a person’s own tag', () => {
    for (const x of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(tagLabel(en, x)).toBe(x);
  });
});
