import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StageName } from '../spec/index.js';
import { Cap } from '../spec/index.js';
import { harness, recordingTool } from './__fixtures__/kernel-harness.js';

// C-4: every stage's semantics observed through whole turns, LLM behaviour from the fake server.

test('C-4 on_input: a handler that sets response short-circuits before any LLM request', async (t) => {
  const h = await harness(t);
  const afterOutput: (string | undefined)[] = [];
  h.agent.stages.registerStage('on_input', (c) => void (c.input.text.includes('spam') && (c.response = 'blocked: spam')), 'guard');
  h.agent.stages.registerStage('after_output', (c) => void afterOutput.push(c.text), 'stats');
  const out = await h.send('buy spam now');
  assert.equal(out.status, 'short-circuit');
  assert.equal(out.text, 'blocked: spam');
  assert.equal(h.fake.requests.length, 0);
  assert.deepEqual(afterOutput, ['blocked: spam']);
  const log = await h.sessionLog();
  assert.deepEqual(
    log.map((e) => [e.kind, e.text]),
    [
      ['user', 'buy spam now'],
      ['assistant', 'blocked: spam'],
    ],
  );
  // a normal input still reaches the LLM
  h.fake.enqueue({ text: 'hello there' });
  assert.equal((await h.send('hello')).text, 'hello there');
  assert.equal(h.fake.requests.length, 1);
});

test('C-4 pre_action: an injected message reaches the LLM request and agent_llm_chain.injected', async (t) => {
  const h = await harness(t);
  h.agent.stages.registerStage('pre_action', (c) => void c.messages.push({ role: 'system', content: 'INJECTED: the user is called Ada.', source: 'profile-plugin' }), 'profile-plugin');
  h.fake.enqueue({ text: 'Hi Ada' });
  const out = await h.send('who am I?');
  assert.equal(out.text, 'Hi Ada');
  const msgs = h.requestMessages(0);
  assert.ok(
    msgs.some((m) => String(m.content).includes('INJECTED: the user is called Ada.')),
    JSON.stringify(msgs),
  );
  // System-first: strict chat templates (Mistral, Gemma) refuse a system message after the user's.
  assert.deepEqual(
    msgs.map((m) => m.role),
    ['system', 'user'],
  );
  assert.match(String(msgs[0].content), /INJECTED: the user is called Ada\.$/);
  const chain = h.events('agent_llm_chain');
  assert.equal(chain.length, 1);
  assert.deepEqual(chain[0].injected, [{ source: 'profile-plugin', text: 'INJECTED: the user is called Ada.' }]);
  assert.ok(h.events('stage_event').some((e) => e.stage === 'pre_action' && /profile-plugin/.test(e.note)));
});

test('C-4 post_action: drops tool calls and filters the text', async (t) => {
  const h = await harness(t);
  const danger = recordingTool('danger');
  h.agent.stages.registerTool(danger, 'tools');
  h.agent.stages.registerStage(
    'post_action',
    (c) => {
      c.toolCalls = (c.toolCalls ?? []).filter((tc) => tc.name !== 'danger');
      c.text = (c.text ?? '').replace('badword', '***');
    },
    'filter',
  );
  h.fake.enqueue({ text: 'I will say badword', toolCalls: [{ name: 'danger', arguments: { x: '1' } }] });
  const out = await h.send('do it');
  assert.equal(out.status, 'ok');
  assert.equal(out.text, 'I will say ***');
  assert.equal(danger.calls.length, 0);
  assert.equal(h.fake.requests.length, 1);
});

test('C-4 post_action: redirects a tool call to another tool', async (t) => {
  const h = await harness(t);
  const danger = recordingTool('danger');
  const safe = recordingTool('safe', (a) => `safe ran with ${a.x}`);
  h.agent.stages.registerTool(danger, 'tools');
  h.agent.stages.registerTool(safe, 'tools');
  h.agent.stages.registerStage('post_action', (c) => void (c.toolCalls = c.toolCalls?.map((tc) => (tc.name === 'danger' ? { ...tc, name: 'safe' } : tc))), 'redirect');
  h.fake.enqueue({ toolCalls: [{ name: 'danger', arguments: { x: 'abc' } }] }, { text: 'done' });
  const out = await h.send('go');
  assert.equal(out.text, 'done');
  assert.equal(danger.calls.length, 0);
  assert.deepEqual(safe.calls, [{ x: 'abc' }]);
  const toolMsg = h.requestMessages(1).find((m) => m.role === 'tool');
  assert.equal(toolMsg?.content, 'safe ran with abc');
});

test('C-4 before_toolcall: rejects one call (not executed, model told) and rewrites another call\'s args', async (t) => {
  const h = await harness(t);
  const a = recordingTool('tool_a');
  const b = recordingTool('tool_b', (args) => `b got ${args.x}`);
  h.agent.stages.registerTool(a, 'p');
  h.agent.stages.registerTool(b, 'p');
  h.agent.stages.registerStage(
    'before_toolcall',
    (c) => {
      if (c.toolCall?.name === 'tool_a') c.rejected = 'tool_a is not allowed here';
      else c.args = { ...c.args, x: 'rewritten' };
    },
    'audit',
  );
  h.fake.enqueue({ toolCalls: [{ name: 'tool_a', arguments: { x: 'orig' } }, { name: 'tool_b', arguments: { x: 'orig' } }] }, { text: 'final' });
  const out = await h.send('run both');
  assert.equal(out.text, 'final');
  assert.equal(a.calls.length, 0);
  assert.deepEqual(b.calls, [{ x: 'rewritten' }]);
  const tools = h.requestMessages(1).filter((m) => m.role === 'tool');
  assert.deepEqual(
    tools.map((m) => m.content),
    ['Rejected: tool_a is not allowed here', 'b got rewritten'],
  );
  const ends = h.events('tool_end');
  assert.equal(ends.find((e) => e.call.name === 'tool_a')?.rejected, 'tool_a is not allowed here');
});

test('C-4 before_toolcall: when every call is rejected the tool loop exits', async (t) => {
  const h = await harness(t);
  const a = recordingTool('tool_a');
  h.agent.stages.registerTool(a, 'p');
  h.agent.stages.registerStage('before_toolcall', (c) => void (c.rejected = 'no'), 'audit');
  h.fake.setDefault(() => ({ text: 'trying', toolCalls: [{ name: 'tool_a', arguments: {} }] }));
  const out = await h.send('run');
  assert.equal(out.status, 'ok');
  assert.equal(out.rounds, 1);
  assert.equal(h.fake.requests.length, 1);
  assert.equal(out.text, 'trying');
  assert.equal(a.calls.length, 0);
});

test('C-4 after_toolcall: the rewritten result is what the model sees next round', async (t) => {
  const h = await harness(t);
  h.agent.stages.registerTool(
    recordingTool('lookup', () => 'card 4111-1111 secret'),
    'p',
  );
  h.agent.stages.registerStage('after_toolcall', (c) => void (c.result = (c.result ?? '').replace(/\d{4}-\d{4}/, '[redacted]')), 'redactor');
  h.fake.enqueue({ toolCalls: [{ name: 'lookup', arguments: {} }] }, { text: 'ok' });
  await h.send('look it up');
  const toolMsg = h.requestMessages(1).find((m) => m.role === 'tool');
  assert.equal(toolMsg?.content, 'card [redacted] secret');
  const log = await h.sessionLog();
  assert.equal(log.find((e) => e.kind === 'tool_result')?.text, 'card [redacted] secret');
});

test('C-4 before_output rewrites the final text (log, channel, outcome); after_output is read-only', async (t) => {
  const h = await harness(t);
  const sent: string[] = [];
  h.agent.channels.register('test-plugin', 'test', Cap.Text, 'test channel', (m) => void sent.push(m.payload));
  const seen: (string | undefined)[] = [];
  h.agent.stages.registerStage('before_output', (c) => void (c.text = `**${c.text}**`), 'format');
  h.agent.stages.registerStage(
    'after_output',
    (c) => {
      seen.push(c.text);
      c.text = 'tampered';
      c.response = 'tampered too';
    },
    'stats',
  );
  h.fake.enqueue({ text: 'plain answer' });
  const out = await h.send('q');
  assert.equal(out.text, '**plain answer**');
  assert.equal(out.status, 'ok');
  assert.deepEqual(seen, ['**plain answer**']);
  assert.deepEqual(sent, ['**plain answer**']);
  const log = await h.sessionLog();
  assert.equal(log.find((e) => e.kind === 'assistant')?.text, '**plain answer**');
});

test('C-3 through a turn: a throwing handler beside a good one → stage_error with plugin and stack, turn goes on', async (t) => {
  const h = await harness(t);
  h.agent.stages.registerStage(
    'pre_action',
    () => {
      throw new Error('plugin bug');
    },
    'buggy',
  );
  h.agent.stages.registerStage('pre_action', (c) => void c.messages.push({ role: 'system', content: 'GOOD INJECTION', source: 'good' }), 'good');
  h.fake.enqueue({ text: 'fine' });
  const out = await h.send('hello');
  assert.equal(out.status, 'ok');
  assert.equal(out.text, 'fine');
  assert.match(String(h.requestMessages(0)[0].content), /GOOD INJECTION$/);
  const errs = h.events('stage_error');
  assert.equal(errs.length, 1);
  assert.equal(errs[0].plugin, 'buggy');
  assert.equal(errs[0].stage, 'pre_action');
  assert.match(errs[0].stack ?? '', /turn-stages\.test\.ts/);
});

const SHORT_CIRCUIT_STAGES: StageName[] = ['on_input', 'pre_action', 'post_action', 'before_toolcall', 'after_toolcall', 'before_output'];

for (const stage of SHORT_CIRCUIT_STAGES) {
  test(`C-4 short-circuit from ${stage} jumps to after_output`, async (t) => {
    const h = await harness(t);
    const tool = recordingTool('probe');
    h.agent.stages.registerTool(tool, 'p');
    const ran: StageName[] = [];
    for (const s of ['on_input', 'pre_action', 'post_action', 'before_toolcall', 'after_toolcall', 'before_output', 'after_output'] as StageName[]) {
      h.agent.stages.registerStage(
        s,
        (c) => {
          ran.push(s);
          if (s === stage) c.response = `stopped at ${stage}`;
        },
        'watch',
      );
    }
    h.fake.enqueue({ toolCalls: [{ name: 'probe', arguments: {} }] }, { text: 'second round' });
    const out = await h.send('go');
    assert.equal(out.status, 'short-circuit');
    assert.equal(out.text, `stopped at ${stage}`);
    const order: StageName[] = ['on_input', 'pre_action', 'post_action', 'before_toolcall', 'after_toolcall'];
    const upTo = stage === 'before_output' ? [...order, 'post_action' as StageName, 'before_output' as StageName] : order.slice(0, order.indexOf(stage) + 1);
    assert.deepEqual(ran, [...upTo, 'after_output']);
    // the tool ran only if the short-circuit came after before_toolcall
    assert.equal(tool.calls.length, ['after_toolcall', 'before_output'].includes(stage) ? 1 : 0);
    const expectedRequests = { on_input: 0, pre_action: 0, post_action: 1, before_toolcall: 1, after_toolcall: 1, before_output: 2 }[stage as Exclude<StageName, 'after_output'>];
    assert.equal(h.fake.requests.length, expectedRequests);
    assert.ok(h.events('stage_event').some((e) => e.stage === stage && /short-circuit/.test(e.note)));
  });
}

test('C-4 while a before_output handler is registered, the reply is not streamed: no surface shows words the handler removes', async (t) => {
  const h = await harness(t);
  h.fake.enqueue({ text: 'the password is hunter2 ok' });
  await h.send('first');
  // Without a handler the reply streams.
  assert.ok(h.events('turn_delta').some((e) => e.kind === 'text'));
  const before = h.events('turn_delta').length;
  const off = h.agent.stages.registerStage('before_output', (c) => void (c.text = c.text?.replaceAll('hunter2', '[redacted]')), 'redact');
  h.fake.enqueue({ text: 'the password is hunter2 ok', reasoning: 'thinking about hunter2' });
  const out = await h.send('pw?');
  assert.equal(out.text, 'the password is [redacted] ok');
  const later = h.events('turn_delta').slice(before);
  assert.deepEqual(later.filter((e) => e.kind === 'text'), [], 'no text delta while a handler may rewrite the reply');
  assert.ok(later.some((e) => e.kind === 'reasoning'), 'reasoning still streams');
  off();
  h.fake.enqueue({ text: 'streams again' });
  await h.send('third');
  assert.match(h.events('turn_delta').slice(before).filter((e) => e.kind === 'text').map((e) => e.text).join(''), /streams again/);
});
