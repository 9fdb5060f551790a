import { describe, expect, it } from 'vitest';
import { entityTip, memoryTip, TIP_FACTS } from './node-tip';

const now = Date.parse('2026-12-03T12:00:00Z');

describe('memoryTip', () => {
  it("says a memory's kind, when it changed, its first words and who said it, in the page's language", () => {
    const tip = memoryTip('zh', { title: '爱喝绿茶', tags: ['convention', '饮食'], enabled: true, updatedAt: '2026-11-30T12:00:00Z', preview: 'Alice 每天早上喝绿茶。', speaker: { id: 'telegram:42', name: 'Alice' } }, now);
    expect(tip.title).toBe('爱喝绿茶');
    expect(tip.kind).toBe('规约 · 3 天前更新');
    expect(tip.lines).toEqual(['Alice 每天早上喝绿茶。', 'Alice 说的']);
    expect(tip.notes).toEqual(['点击：在记忆库中打开，并显示与它相连的记忆']);
  });

  it('says a memory is off, and falls back to its impressions when it has no text', () => {
    const tip = memoryTip('en', { title: 'Tea', tags: [], enabled: false, updatedAt: '2026-12-03T11:59:50Z', preview: '', impressions: ['tea', 'mornings'] }, now);
    expect(tip.kind).toBe('Memory · updated just now');
    expect(tip.lines).toEqual(['tea, mornings']);
    expect(tip.notes[0]).toBe('Switched off: never injected into a conversation');
  });
});

describe('entityTip', () => {
  const edges = [
    { from: 'user', to: '杭州', label: 'lives_in' },
    { from: 'Alice', to: 'green tea', label: 'likes' },
    { from: 'user', to: 'Alice', label: 'knows' },
  ];

  it("says the entity's type and its facts as sentences, the owner as you", () => {
    expect(entityTip('zh', { id: 'user', type: 'person' }, edges)).toEqual({ title: '你', kind: '人 · 2 条事实', lines: ['你住在杭州', '你 knows Alice'], notes: ['点击：显示它的事实和相连的实体'] });
    expect(entityTip('en', { id: 'Alice', type: 'entity' }, edges).lines).toEqual(['Alice likes green tea', 'you know Alice']);
    expect(entityTip('en', { id: 'Alice', type: 'entity' }, edges).kind).toBe('thing · 2 facts');
  });

  it('counts the facts it does not say, and keeps a type it has no word for', () => {
    const many = Array.from({ length: TIP_FACTS + 2 }, (_, i) => ({ from: 'Bob', to: `place ${i}`, label: 'visited' }));
    const tip = entityTip('zh', { id: 'Bob', type: 'organisation' }, many);
    expect(tip.lines).toHaveLength(TIP_FACTS);
    expect(tip.kind).toBe(`organisation · ${TIP_FACTS + 2} 条事实`);
    expect(tip.notes[0]).toBe('还有 2 条');
  });

  it('says a replaced fact with the day it ended, after what holds now', () => {
    const moved = [
      { from: 'user', to: 'Berlin', label: 'lives_in', until: '2026-12-01' },
      { from: 'user', to: '杭州', label: 'lives_in' },
    ];
    expect(entityTip('en', { id: 'user', type: 'person' }, moved).lines).toEqual(['you live in 杭州', 'you live in Berlin (until 2026-12-01)']);
    expect(entityTip('zh', { id: 'user', type: 'person' }, moved).lines).toEqual(['你住在杭州', '你住在 Berlin（至 2026-12-01）']);
  });
});
