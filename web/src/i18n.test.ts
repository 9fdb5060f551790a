import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { dict } from './i18n-dict';
import { translate } from './i18n';

const placeholders = (s: string) => [...new Set([...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(n) && !/\.test\./.test(n) ? [p] : [];
  });
}

describe('i18n dictionary', () => {
  it('has every key in both languages, non-empty, with the same placeholders', () => {
    const en = Object.keys(dict.en).sort();
    const zh = Object.keys(dict.zh).sort();
    expect(zh).toEqual(en);
    for (const k of en as (keyof typeof dict.en)[]) {
      expect(dict.en[k].trim(), k).not.toBe('');
      expect(dict.zh[k].trim(), k).not.toBe('');
      expect(placeholders(dict.zh[k]), k).toEqual(placeholders(dict.en[k]));
    }
  });

  it('defines every literal key the components use', () => {
    const src = sources(join(__dirname));
    const used = new Set<string>();
    for (const f of src) for (const m of readFileSync(f, 'utf8').matchAll(/\bt\('([a-zA-Z0-9_.\u4e00-\u9fff-]+)'/g)) used.add(m[1]);
    const missing = [...used].filter((k) => !(k in dict.en));
    expect(missing).toEqual([]);
    expect(used.size).toBeGreaterThan(100);
  });

  it('fills placeholders and falls back to the key', () => {
    expect(translate('zh', 'chat.turnsCount', { n: 3 })).toBe('3 轮');
    expect(translate('en', 'chat.turnsCount', { n: 3 })).toBe('3 turns');
    expect(translate('en', 'nope' as never)).toBe('nope');
  });

  it('picks the plural form by count (one|other in English; Chinese has one form)', () => {
    expect(translate('en', 'chat.turnsCount', { n: 1 })).toBe('1 turn');
    expect(translate('en', 'chat.llmRounds', { n: 1 })).toBe('1 LLM round');
    expect(translate('en', 'chat.llmRounds', { n: 2 })).toBe('2 LLM rounds');
    expect(translate('en', 'chat.toolCalls', { n: 0 })).toBe('0 tool calls');
    expect(translate('zh', 'chat.llmRounds', { n: 1 })).toBe('1 轮 LLM');
    for (const [k, v] of Object.entries(dict.en)) if (v.includes('|')) expect(v.split('|'), k).toHaveLength(2);
    for (const [k, v] of Object.entries(dict.zh)) expect(v.includes('|'), k).toBe(false);
  });
});
