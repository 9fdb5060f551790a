import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ForgetPlan } from '../spec/index.js';
import { forgetRequestOf, renderForgetPlan } from './memory-control-commands.js';

const plan: ForgetPlan = {
  turns: [{ turnId: 'cli:default#3', sessionId: 'cli:default', at: 0, text: 'my code is 4711', places: ['context'] }],
  facts: [],
  documents: [],
  memories: [
    { id: 'm-summary', title: 'Session summary', preview: 'told the code 4711', madeFrom: true },
    { id: 'm-mentions', title: 'Codes', preview: 'a list of codes' },
  ],
};

test('0430: waiter shows a memory made from the turns under its own heading and forgets it with them; one that only mentions it only with --memories', () => {
  const text = renderForgetPlan(plan, false);
  assert.match(text, /made from these turns \(1\)[^\n]*\n {2}m-summary/);
  assert.match(text, /mention it \(1\) — kept; pass --memories[^\n]*\n {2}m-mentions/);
  assert.deepEqual(forgetRequestOf(plan, false).memoryIds, ['m-summary']);
  assert.deepEqual(forgetRequestOf(plan, true).memoryIds, ['m-summary', 'm-mentions']);
  assert.equal(forgetRequestOf({ ...plan, memories: [plan.memories[1]] }, false).memoryIds, undefined);
});

test('0430: --keep keeps a memory of the preview out of the forget and says so beside it', () => {
  const keep = new Set(['m-summary']);
  assert.match(renderForgetPlan(plan, false, keep), /m-summary[^\n]*\(kept: --keep\)/);
  assert.equal(forgetRequestOf(plan, false, keep).memoryIds, undefined, 'nothing of the library goes');
  assert.deepEqual(forgetRequestOf(plan, true, keep).memoryIds, ['m-mentions']);
  assert.deepEqual(forgetRequestOf(plan, true, new Set(['m-mentions'])).memoryIds, ['m-summary']);
});
