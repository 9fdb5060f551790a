import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfirmService, ForgetPlan, ForgetRequest, MemoryControlService } from '../../spec/index.js';
import { confirmedForget } from './confirmed-forget.js';

const plan: ForgetPlan = {
  turns: [{ turnId: 'webui:1#2', sessionId: 'webui:1', at: 0, text: 'my code is 4711', places: ['context'] }],
  facts: [],
  documents: [],
  memories: [
    { id: 'm-summary', title: 'Session summary', preview: 'told the code 4711', madeFrom: true },
    { id: 'm-mentions', title: 'Codes', preview: 'a list of codes' },
  ],
};

/** The memory control's two calls a confirmed forget makes: what was asked is recorded. */
function control(preview: ForgetPlan = plan) {
  const asked: Omit<ForgetRequest, 'query'>[] = [];
  const mc = {
    forgetPreview: async () => preview,
    forget: async (req: Omit<ForgetRequest, 'query'>) => {
      asked.push(req);
      return { turns: 1 };
    },
  } as unknown as MemoryControlService;
  return { mc, asked };
}

test('0430: the confirmation names a memory made from the turns and the forget takes it; a memory that only mentions it goes only withMemories', async () => {
  const details: string[] = [];
  const confirm = { ask: async (q: { detail?: string }) => (details.push(q.detail ?? ''), true) } as unknown as ConfirmService;
  const a = control();
  await confirmedForget(a.mc, confirm, { turnIds: ['webui:1#2'] }, { plugin: 'mcp', sessionId: 's', who: 'An MCP client', meta: {} });
  assert.match(details[0], /library memory m-summary "Session summary" \(made from what is forgotten\)/);
  assert.doesNotMatch(details[0], /m-mentions/);
  assert.deepEqual(a.asked[0].memoryIds, ['m-summary']);
  const b = control();
  await confirmedForget(b.mc, confirm, { query: 'code' }, { plugin: 'mcp', sessionId: 's', who: 'An MCP client', withMemories: true, meta: {} });
  assert.deepEqual(b.asked[0].memoryIds, ['m-summary', 'm-mentions']);
});

test('0450: the confirmation lists the other turns that quote what was said, counts them, and the forget takes them', async () => {
  const asks: { title: string; detail?: string }[] = [];
  const confirm = { ask: async (q: { title: string; detail?: string }) => (asks.push(q), true) } as unknown as ConfirmService;
  const quoting: ForgetPlan = { ...plan, memories: [], quoting: [{ turnId: 'webui:1#5', sessionId: 'webui:1', at: 0, text: 'as I said, my code is 4711', places: ['document'] }] };
  const a = control(quoting);
  await confirmedForget(a.mc, confirm, { turnIds: ['webui:1#2'] }, { plugin: 'memory-manager', sessionId: 's', who: 'The assistant', meta: {} });
  assert.match(asks[0].detail ?? '', /turn webui:1#5 \(quotes what was said\) \[document\]: as I said, my code is 4711/);
  assert.match(asks[0].title, /forget 2 item\(s\)/);
  assert.deepEqual(a.asked[0].turnIds, ['webui:1#2', 'webui:1#5']);
});
