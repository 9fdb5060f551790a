import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocateBudget, clip, memoryText, renderBlock, BLOCK_HEADER, BLOCK_FOOTER, type BudgetCandidate } from './injection-budget.js';

const c = (text: string, id = text.slice(0, 3)): BudgetCandidate => ({ id, heading: `# ${id}`, text });
const limits = (pinChars: number, memoryChars: number, totalChars: number) => ({ pinChars, memoryChars, totalChars });

test('clip: exactly at the limit is kept, one over is cut with … (counted), code points not UTF-16 units', () => {
  assert.deepEqual(clip('一二三', 3), { text: '一二三', truncated: false });
  assert.deepEqual(clip('一二三四', 3), { text: '一二…', truncated: true });
  assert.deepEqual(clip('😀😀😀', 2), { text: '😀…', truncated: true });
  assert.deepEqual(clip('ab', 0), { text: '', truncated: true });
  assert.deepEqual(clip('ab', 1), { text: '…', truncated: true });
});

test('M-6 budget: pinned within min(pinChars, totalChars)', () => {
  // pinChars smaller than totalChars: pins share pinChars.
  let r = allocateBudget({ pinned: [c('aaaaa', 'p1'), c('bbbbb', 'p2'), c('ccccc', 'p3')], memories: [], once: [], limits: limits(10, 100, 100) });
  assert.deepEqual(r.items.map((i) => [i.id, i.text]), [['p1', 'aaaaa'], ['p2', 'bbbbb']]);
  assert.deepEqual(r.dropped.map((d) => d.id), ['p3']);
  assert.equal(r.used.pinned, 10);
  // totalChars smaller than pinChars: the cap is totalChars.
  r = allocateBudget({ pinned: [c('aaaaa', 'p1'), c('bbbbb', 'p2')], memories: [c('m', 'm1')], once: [], limits: limits(100, 100, 7) });
  assert.equal(r.caps.pinned, 7);
  assert.deepEqual(r.items.map((i) => i.text), ['aaaaa', 'b…']);
  assert.deepEqual(r.dropped.map((d) => d.id), ['m1'], 'nothing left for memories');
  assert.equal(r.used.total, 7);
});

test('M-6 budget: each memory within memoryChars, all within totalChars minus pinned', () => {
  const r = allocateBudget({ pinned: [c('pppp', 'p1')], memories: [c('x'.repeat(6), 'm1'), c('y'.repeat(5), 'm2'), c('z'.repeat(9), 'm3'), c('w', 'm4')], once: [], limits: limits(4, 5, 15) });
  assert.deepEqual(
    r.items.map((i) => [i.id, i.chars, i.truncated]),
    [
      ['p1', 4, false],
      ['m1', 5, true], // 6 > memoryChars 5
      ['m2', 5, false], // exactly memoryChars
      ['m3', 1, true], // only 1 left of totalChars 15
    ],
  );
  assert.deepEqual(r.dropped.map((d) => d.id), ['m4']);
  assert.deepEqual(r.used, { pinned: 4, memories: 11, once: 0, total: 15 });
});

test('M-6 budget: the once queue takes what is left of totalChars, after memories', () => {
  let r = allocateBudget({ pinned: [], memories: [c('mmmm', 'm1')], once: [c('oooooo', 'o1'), c('q', 'o2')], limits: limits(0, 100, 10) });
  assert.deepEqual(r.items.map((i) => [i.id, i.text]), [['m1', 'mmmm'], ['o1', 'oooooo']]);
  assert.deepEqual(r.dropped.map((d) => d.id), ['o2']);
  r = allocateBudget({ pinned: [], memories: [], once: [c('oooooo', 'o1')], limits: limits(0, 0, 6) });
  assert.deepEqual(r.items.map((i) => i.text), ['oooooo'], 'exactly the remaining total fits');
  r = allocateBudget({ pinned: [], memories: [], once: [c('ooooooo', 'o1')], limits: limits(0, 0, 6) });
  assert.deepEqual(r.items.map((i) => i.text), ['ooooo…']);
});

test('M-6 budget: zero budgets inject nothing; empty texts are skipped, not dropped', () => {
  const r = allocateBudget({ pinned: [c('p')], memories: [c('m')], once: [c('o')], limits: limits(5, 5, 0) });
  assert.equal(r.items.length, 0);
  assert.equal(r.dropped.length, 3);
  assert.equal(renderBlock(r), undefined);
  const e = allocateBudget({ pinned: [c('', 'e')], memories: [], once: [], limits: limits(5, 5, 5) });
  assert.equal(e.dropped.length + e.items.length, 0);
});

test('M-6 block: wrapped exactly in the header and footer lines, sections in order', () => {
  const r = allocateBudget({ pinned: [c('固定内容', 'p1')], memories: [c('记忆内容', 'm1')], once: [c('一次', 'o1')], limits: limits(100, 100, 100) });
  const block = renderBlock(r) as string;
  const lines = block.split('\n');
  assert.equal(lines[0], BLOCK_HEADER);
  assert.equal(lines.at(-1), BLOCK_FOOTER);
  assert.equal(BLOCK_HEADER, '=== 记忆库上下文（用户指定，供参考；非当前对话的实时内容） ===');
  assert.equal(BLOCK_FOOTER, '=== 记忆库上下文结束 ===');
  assert.ok(block.indexOf('固定内容') < block.indexOf('记忆内容') && block.indexOf('记忆内容') < block.indexOf('一次'));
});

test('M-6 compact view: impressions + 300-char preview; full view: snapshot + notes', () => {
  const rec = { impressions: ['甲', '乙'], snapshot: '字'.repeat(500), notes: '批注' };
  const compact = memoryText(rec, 'compact');
  assert.ok(compact.startsWith('印象：甲、乙\n预览：'));
  assert.equal(Array.from(compact.split('预览：')[1]).length, 300);
  assert.ok(!compact.includes('批注'));
  const full = memoryText(rec, 'full');
  assert.ok(full.includes('字'.repeat(500)) && full.endsWith('批注'));
});
