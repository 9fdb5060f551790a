import { describe, expect, it } from 'vitest';
import { LinkNotFound, resolveLinks, type LinkLookup } from './resolve-links';
import type { MemorySummary } from './types';

const memory = (id: string, title: string) => ({ id, title }) as MemorySummary;
const library = [memory('m-1', '杭州生活'), memory('m-2', 'Tea'), memory('m-3', 'tea'), memory('hangzhou', 'Another')];
const lookup: LinkLookup = {
  search: async (q) => library.filter((m) => m.title.toLowerCase().includes(q.toLowerCase()) || m.id === q),
  exists: async (id) => library.some((m) => m.id === id),
};

describe('resolveLinks', () => {
  it('a title names its memory; an id an existing memory; a link it has stays by the title shown for it', async () => {
    expect(await resolveLinks(['杭州生活', 'hangzhou'], new Map(), lookup)).toEqual(['m-1', 'hangzhou']);
    // "Tea" is two memories' title, but the one already linked is the one meant.
    expect(await resolveLinks(['Tea'], new Map([['Tea', 'm-2']]), lookup)).toEqual(['m-2']);
    expect(await resolveLinks(['m-3', 'm-3'], new Map(), lookup)).toEqual(['m-3']);
  });
  it('a title of no memory, or of several, is refused with what was typed', async () => {
    await expect(resolveLinks(['上海生活'], new Map(), lookup)).rejects.toMatchObject({ typed: '上海生活', reason: 'none' });
    await expect(resolveLinks(['TEA'], new Map(), lookup)).rejects.toBeInstanceOf(LinkNotFound);
    await expect(resolveLinks(['TEA'], new Map(), lookup)).rejects.toMatchObject({ reason: 'several' });
  });
});
