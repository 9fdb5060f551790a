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
  assert.match(text, /made from what is forgotten \(1\)[^\n]*\n {2}m-summary/);
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

test('0450: waiter lists the other turns that quote what was said and forgets them too, unless --keep names one', () => {
  const quoting: ForgetPlan = {
    ...plan,
    quoting: [
      { turnId: 'cli:default#7', sessionId: 'cli:default', at: 0, text: 'as I said, my code is 4711', places: ['document', 'session-log'] },
      { turnId: 'webui:a#2', sessionId: 'webui:a', at: 0, text: 'You told me: my code is 4711', places: ['context'] },
    ],
  };
  const text = renderForgetPlan(quoting, false);
  assert.match(text, /Other turns that quote what was said \(2\) — removed too \(to keep one, pass --keep <turn id>\):\n {2}cli:default#7[^\n]*as I said/);
  assert.deepEqual(forgetRequestOf(quoting, false).turnIds, ['cli:default#3', 'cli:default#7', 'webui:a#2']);
  const keep = new Set(['webui:a#2']);
  assert.match(renderForgetPlan(quoting, false, keep), /webui:a#2[^\n]*\(kept: --keep\)/);
  assert.deepEqual(forgetRequestOf(quoting, false, keep).turnIds, ['cli:default#3', 'cli:default#7']);
  assert.deepEqual(forgetRequestOf(quoting, false, keep).keepTurnIds, ['webui:a#2'], 'kept: its log events are not redacted for the quote');
  assert.equal(forgetRequestOf(quoting, false).keepTurnIds, undefined);
  assert.deepEqual(forgetRequestOf(plan, false).turnIds, ['cli:default#3'], 'none listed, none added');
});

test('0520: --keep-fact keeps a fact of the preview — one made from the turns as keepRelationIds, any other by not naming it — and the plan says so beside it', () => {
  const withFacts: ForgetPlan = {
    ...plan,
    facts: [
      { id: 7, text: 'user name 小林', reason: 'matches', withTurns: true },
      { id: 8, text: 'user lives in 杭州', reason: 'only-source', withTurns: true },
      { id: 9, text: '杭州 is_in 浙江', reason: 'matches' },
    ],
  };
  const none = forgetRequestOf(withFacts, false);
  assert.deepEqual(none.relationIds, [7, 8, 9]);
  assert.equal(none.keepRelationIds, undefined);
  const kept = forgetRequestOf(withFacts, false, new Set(), new Set([7, 9]));
  assert.deepEqual(kept.relationIds, [8]);
  assert.deepEqual(kept.keepRelationIds, [7], 'only a fact made from the turns is kept without them; the other is just not named');
  const shown = renderForgetPlan(withFacts, false, new Set(), new Set([7]));
  assert.match(shown, /to keep one, pass --keep-fact/);
  assert.match(shown, /#7 {2}user name 小林 {2}\(matches\) {2}\(kept: --keep-fact, without its turn\)/);
  assert.doesNotMatch(shown, /#8 .*kept/);
});
