import { describe, expect, it } from 'vitest';
import { translate } from '../i18n';
import { tagFromInput, tagLabel } from './tag-label';

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
  it('the name the page shows for a known tag, typed, is that tag; a tag the memory has keeps its spelling', () => {
    expect(tagFromInput(zh, '规约')).toBe('convention');
    expect(tagFromInput(en, 'session SUMMARY')).toBe('会话总结');
    expect(tagFromInput(zh, '旅行')).toBe('旅行');
    // A person's own "Convention" (decision 0480: not the reserved tag) stays theirs when they edit the memory.
    expect(tagFromInput(en, 'Convention', ['Convention'])).toBe('Convention');
    expect(tagFromInput(en, 'Convention', [])).toBe('convention');
  });
});
