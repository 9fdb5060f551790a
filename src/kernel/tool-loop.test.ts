import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, recordingTool } from './__fixtures__/kernel-harness.js';
import { ValidationError } from '../spec/index.js';

// C-4 tool loop exits and error reporting, C-5 aggregation per cycle, C-7 agent_llm_chain.

test('C-4 exit 1: no tool calls → one round, the text is the answer', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: 'just text' });
  const out = await h.send('hi');
  assert.deepEqual([out.status, out.text, out.rounds], ['ok', 'just text', 1]);
  assert.equal(h.fake.requests.length, 1);
});

test('C-4 exit 3: the round limit comes from core.agent.max_tool_rounds', async (t) => {
  const h = await harness(t, { config: { 'core.agent.max_tool_rounds': 3 } });
  const loop = recordingTool('again');
  h.agent.stages.registerTool(loop, 'p');
  h.fake.setDefault(() => ({ toolCalls: [{ name: 'again', arguments: {} }] }));
  const out = await h.send('loop forever');
  assert.equal(out.status, 'ok');
  assert.equal(out.rounds, 3);
  assert.equal(h.fake.requests.length, 3);
  assert.equal(loop.calls.length, 3);
  assert.match(out.text, /3 tool rounds/);
  // the limit is read live: lowering it takes effect on the next turn
  await h.config.set('core.agent.max_tool_rounds', 1);
  const before = h.fake.requests.length;
  const out2 = await h.send('again');
  assert.equal(out2.rounds, 1);
  assert.equal(h.fake.requests.length - before, 1);
});

test('C-4: an unknown tool and invalid JSON arguments are reported to the model, which can recover', async (t) => {
  const h = await harness(t);
  const real = recordingTool('real_tool');
  h.agent.stages.registerTool(real, 'p');
  h.fake.enqueue(
    { toolCalls: [{ name: 'no_such_tool', arguments: {} }] },
    { toolCalls: [{ name: 'real_tool', arguments: '{"x": oops' }] },
    { toolCalls: [{ name: 'real_tool', arguments: '[1,2]' }] },
    { toolCalls: [{ name: 'real_tool', arguments: { x: 'fine' } }] },
    { text: 'recovered' },
  );
  const out = await h.send('use tools');
  assert.equal(out.text, 'recovered');
  assert.equal(out.rounds, 5);
  const lastTool = (n: number) => h.requestMessages(n).filter((m) => m.role === 'tool').at(-1)?.content ?? '';
  assert.equal(lastTool(1), 'Error: unknown tool "no_such_tool"');
  assert.match(lastTool(2), /^Error: tool arguments are not valid JSON: \{"x": oops/);
  assert.match(lastTool(3), /^Error: tool arguments must be a JSON object/);
  assert.equal(lastTool(4), 'real_tool done');
  assert.deepEqual(real.calls, [{ x: 'fine' }]);
  const errors = h.events('tool_end').map((e) => e.error);
  assert.deepEqual(errors.slice(0, 3).map(Boolean), [true, true, true]);
});

test('C-3/C-4: a throwing tool is reported to the model with its error; the turn goes on', async (t) => {
  const h = await harness(t);
  h.agent.stages.registerTool(
    {
      name: 'flaky',
      description: 'fails',
      parameters: { type: 'object' },
      handler: () => {
        throw new Error('disk full');
      },
    },
    'flaky-plugin',
  );
  h.fake.enqueue({ toolCalls: [{ name: 'flaky', arguments: {} }] }, { text: 'sorry, the disk is full' });
  const out = await h.send('save it');
  assert.equal(out.status, 'ok');
  assert.equal(out.text, 'sorry, the disk is full');
  const toolMsg = h.requestMessages(1).find((m) => m.role === 'tool');
  assert.equal(toolMsg?.content, 'Error: disk full');
  const end = h.events('tool_end')[0];
  assert.equal(end.error, 'disk full');
  assert.equal(h.events('tool_start')[0].plugin, 'flaky-plugin');
  assert.ok(h.log.some((l) => l.level === 'error' && /flaky failed: disk full/.test(l.msg) && /tool-loop\.test\.ts/.test(String(l.data?.stack))));
});

test('a tool call with bad arguments: the model gets a clear error, the log one line without a stack (issue 14)', async (t) => {
  const h = await harness(t);
  h.agent.stages.registerTool(
    {
      name: 'set_alarm',
      description: 'sets an alarm',
      parameters: { type: 'object', properties: { at: { type: 'string' } }, required: ['at'] },
      handler: (args) => {
        if (typeof args.at !== 'string') throw new ValidationError('set_alarm: invalid argument "at": expected a string');
        return 'ok';
      },
    },
    'alarm-plugin',
  );
  h.fake.enqueue({ toolCalls: [{ name: 'set_alarm', arguments: { at: 7 } }] }, { toolCalls: [{ name: 'set_alarm', arguments: '{"at": ' }] }, { text: 'I could not set it' });
  const out = await h.send('wake me at 7');
  assert.equal(out.status, 'ok');
  const toolMsgs = h.requestMessages(2).filter((m) => m.role === 'tool');
  assert.match(String(toolMsgs[0]?.content), /^Error \[VALIDATION\]: set_alarm: invalid argument "at"/);
  assert.match(String(toolMsgs[1]?.content), /^Error: tool arguments are not valid JSON/);
  const lines = h.log.filter((l) => /set_alarm/.test(l.msg));
  assert.equal(lines.length, 2, 'one line per bad call');
  assert.ok(lines.every((l) => l.level !== 'error' && l.data?.stack === undefined), JSON.stringify(lines));
});

test('C-7: agent_llm_chain once per LLM round with text, tool calls, reasoning, usage, provider, latency', async (t) => {
  const h = await harness(t);
  h.agent.stages.registerTool(recordingTool('step'), 'p');
  h.fake.enqueue(
    { text: 'thinking aloud', reasoning: 'I should call step', toolCalls: [{ name: 'step', arguments: { x: '1' } }], usage: { inputTokens: 11, outputTokens: 7 } },
    { text: 'all done', usage: { inputTokens: 20, outputTokens: 3 } },
  );
  const out = await h.send('go');
  const chain = h.events('agent_llm_chain');
  assert.equal(chain.length, 2);
  assert.deepEqual(
    chain.map((c) => c.round),
    [1, 2],
  );
  for (const c of chain) {
    assert.equal(c.turnId, out.turnId);
    assert.equal(c.sessionId, 'test:main');
    assert.equal(c.provider, 'openai');
    assert.ok(typeof c.model === 'string' && c.model.length > 0);
    assert.ok(c.latencyMs >= 0 && Number.isFinite(c.latencyMs));
    assert.equal(c.consolidation, false);
  }
  assert.equal(chain[0].text, 'thinking aloud');
  assert.equal(chain[0].reasoning, 'I should call step');
  assert.deepEqual(
    chain[0].toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]),
    [['step', { x: '1' }]],
  );
  assert.deepEqual(chain[0].usage, { inputTokens: 11, outputTokens: 7 });
  assert.equal(chain[1].text, 'all done');
  assert.deepEqual(chain[1].toolCalls, []);
  assert.deepEqual(chain[1].usage, { inputTokens: 20, outputTokens: 3 });
  // reasoning is kept in the session log
  const log = await h.sessionLog();
  assert.equal(log.find((e) => e.kind === 'reasoning')?.text, 'I should call step');
  // streamed deltas reached the bus
  assert.equal(
    h
      .events('turn_delta')
      .filter((d) => d.kind === 'text')
      .map((d) => d.text)
      .join(''),
    'thinking aloudall done',
  );
});

test('C-5: tools are rebuilt every cycle — a tool registered during a turn is offered in the next round', async (t) => {
  const h = await harness(t);
  const late = recordingTool('late_tool');
  h.agent.stages.registerTool(
    recordingTool('install', () => {
      h.agent.stages.registerTool(late, 'late-plugin');
      return 'installed';
    }),
    'p',
  );
  h.fake.enqueue({ toolCalls: [{ name: 'install', arguments: {} }] }, { toolCalls: [{ name: 'late_tool', arguments: {} }] }, { text: 'done' });
  const out = await h.send('install then use');
  assert.equal(out.text, 'done');
  assert.ok(!h.requestTools(0).includes('late_tool'));
  assert.ok(h.requestTools(1).includes('late_tool'));
  assert.equal(late.calls.length, 1);
  // and a tool removed is gone next turn
  h.agent.stages.unregisterPluginTools('late-plugin');
  h.fake.enqueue({ text: 'x' });
  await h.send('again');
  assert.ok(!h.requestTools(3).includes('late_tool'));
  assert.ok(h.requestTools(3).includes('subagent_spawn'));
});

test('C-3: noMemory keeps the output verbatim out of memory; cleaner filters only the memory copy', async (t) => {
  const h = await harness(t);
  h.agent.stages.registerTool({ ...recordingTool('secret_dump', () => 'RAW SECRET'), noMemory: true }, 'p');
  h.agent.stages.registerTool({ ...recordingTool('json_tool', () => '{"content":"useful part","noise":1}'), cleaner: (s) => JSON.parse(s).content }, 'p');
  h.fake.enqueue({ toolCalls: [{ name: 'secret_dump', arguments: {} }, { name: 'json_tool', arguments: {} }] }, { text: 'ok' });
  await h.send('go');
  const tools = h.requestMessages(1).filter((m) => m.role === 'tool');
  assert.deepEqual(
    tools.map((m) => m.content),
    ['RAW SECRET', '{"content":"useful part","noise":1}'],
  );
  const agentEvent = h.agent.context.events().find((e) => e.kind === 'agent');
  assert.deepEqual(agentEvent?.toolOutputs, [
    { tool: 'secret_dump', text: 'RAW SECRET', noMemory: true },
    { tool: 'json_tool', text: 'useful part' },
  ]);
});

test('C-5/L-3: the llm_sources tool exists only with a provider admin; it lists sources and switches the order', async (t) => {
  const plain = await harness(t);
  plain.fake.enqueue({ text: 'x' });
  await plain.send('hi');
  assert.ok(!plain.requestTools(0).includes('llm_sources'));

  const h = await harness(t, { providerAdmin: true });
  h.fake.enqueue(
    { toolCalls: [{ name: 'llm_sources', arguments: { action: 'list' } }] },
    { toolCalls: [{ name: 'llm_sources', arguments: { action: 'use', name: 'no-such-source' } }] },
    { toolCalls: [{ name: 'llm_sources', arguments: { action: 'use', name: 'openai' } }] },
    { text: 'switched' },
  );
  const out = await h.send('which models do you have?');
  assert.equal(out.text, 'switched');
  assert.ok(h.requestTools(0).includes('llm_sources'));
  const lastTool = (n: number) => String(h.requestMessages(n).filter((m) => m.role === 'tool').at(-1)?.content);
  const listed = JSON.parse(lastTool(1)) as { name: string; state: string; configured: boolean }[];
  assert.deepEqual(
    listed.filter((s) => s.configured).map((s) => [s.name, s.state]),
    [['openai', 'ready']],
  );
  assert.match(lastTool(2), /^Error \[VALIDATION\w*\]: unknown LLM source "no-such-source"/);
  assert.match(lastTool(3), /^LLM source order is now: openai,/);
  assert.equal((h.config.get('core.llm.order') as string[])[0], 'openai');
});
