import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StageContext, ToolDef } from '../spec/index.js';
import { ConflictError, ValidationError } from '../spec/index.js';
import { StageHost, type StageFailure } from './stage-host.js';

function tool(name: string, handler: ToolDef['handler'] = () => `${name} ran`): ToolDef {
  return { name, description: name, parameters: { type: 'object', properties: {} }, handler };
}

function ctx(stage: StageContext['stage'], extra: Partial<StageContext> = {}): StageContext {
  return {
    stage,
    input: { sessionId: 'test:1', source: 'test', channel: 'test', text: 'hi', trigger: 'user' },
    turnId: 'test:1#1',
    round: 0,
    messages: [],
    state: {},
    ...extra,
  };
}

/** The host's timers are unref'd (a daemon never waits on them); keep the test process alive meanwhile. */
async function keepAlive<T>(fn: () => Promise<T>): Promise<T> {
  const t = setInterval(() => {}, 1000);
  try {
    return await fn();
  } finally {
    clearInterval(t);
  }
}

const call = { sessionId: 'test:1', turnId: 'test:1#1', callId: 'c1', signal: new AbortController().signal };

test('C-3: registerTool rejects a duplicate name and keeps the first owner', () => {
  const host = new StageHost();
  host.registerTool(tool('alpha'), 'plugin-a');
  assert.throws(() => host.registerTool(tool('alpha'), 'plugin-b'), (e: unknown) => e instanceof ConflictError && /plugin-a/.test(e.message));
  assert.equal(host.toolPlugin('alpha'), 'plugin-a');
  assert.equal(host.tools().length, 1);
});

test('C-3: an invalid tool name is a ValidationError', () => {
  const host = new StageHost();
  assert.throws(() => host.registerTool(tool('bad name!'), 'p'), ValidationError);
  assert.throws(() => host.registerTool(tool(''), 'p'), ValidationError);
  assert.equal(host.tools().length, 0);
});

test('C-3: a tool whose parameters are not an object schema is refused (LLM APIs would refuse every request carrying it); none or {} is no arguments', () => {
  const host = new StageHost();
  for (const parameters of [{ type: 'array' }, { type: 'string' }, [{ type: 'object' }], 'x', null]) {
    assert.throws(() => host.registerTool({ ...tool('schema_bad'), parameters: parameters as never }, 'p'), (e: unknown) => e instanceof ValidationError && /JSON Schema of an object/.test(e.message), JSON.stringify(parameters));
  }
  for (const [i, parameters] of [{}, [], { type: 'object', properties: {} }, { properties: { a: { type: 'string' } } }].entries()) host.registerTool({ ...tool(`ok_${i}`), parameters: parameters as never }, 'p');
  assert.equal(host.tools().length, 4);
});

test('C-3: tool → plugin map, disposer, and unregisterPluginTools removes only that plugin', () => {
  const host = new StageHost();
  host.registerTool(tool('a1'), 'a');
  host.registerTool(tool('a2'), 'a');
  const disposeB = host.registerTool(tool('b1'), 'b');
  assert.deepEqual(
    [...host.toolPlugins()].sort(),
    [
      ['a1', 'a'],
      ['a2', 'a'],
      ['b1', 'b'],
    ],
  );
  assert.equal(host.unregisterPluginTools('a'), 2);
  assert.deepEqual(
    host.tools().map((t) => t.name),
    ['b1'],
  );
  assert.equal(host.toolPlugin('a1'), undefined);
  // a name freed by unload can be registered again by another plugin
  host.registerTool(tool('a1'), 'c');
  assert.equal(host.toolPlugin('a1'), 'c');
  disposeB();
  disposeB();
  assert.deepEqual(
    host.tools().map((t) => t.name),
    ['a1'],
  );
});

test('C-3: a stale disposer does not remove a tool re-registered under the same name', () => {
  const host = new StageHost();
  const dispose = host.registerTool(tool('x'), 'a');
  host.unregisterPluginTools('a');
  host.registerTool(tool('x'), 'b');
  dispose();
  assert.equal(host.toolPlugin('x'), 'b');
});

test('C-3: handlers of one stage run concurrently on the same ctx', async () => {
  const host = new StageHost({ handlerTimeoutMs: () => 2000 });
  // Each handler sets its flag, then waits for the other's: only possible if both run at once on one ctx.
  const waitFor = async (c: StageContext, key: string): Promise<void> => {
    for (let i = 0; i < 200 && !c.state[key]; i++) await new Promise((r) => setTimeout(r, 5));
    if (!c.state[key]) throw new Error(`never saw ${key}`);
  };
  host.registerStage(
    'pre_action',
    async (c) => {
      c.state.a = true;
      await waitFor(c, 'b');
      c.state.aSawB = true;
    },
    'pa',
  );
  host.registerStage(
    'pre_action',
    async (c) => {
      c.state.b = true;
      await waitFor(c, 'a');
      c.state.bSawA = true;
    },
    'pb',
  );
  const c = ctx('pre_action');
  const failures = await host.runStage('pre_action', c);
  assert.deepEqual(failures, []);
  assert.equal(c.state.aSawB, true);
  assert.equal(c.state.bSawA, true);
});

test('C-3: a throwing handler beside a good one: the good effect is kept, the failure carries plugin and stack', async () => {
  const seen: (StageFailure & { turnId: string })[] = [];
  const host = new StageHost({ onFailure: (f) => seen.push(f) });
  host.registerStage(
    'before_output',
    () => {
      throw new Error('boom in handler');
    },
    'bad-plugin',
  );
  host.registerStage('before_output', (c) => void (c.text = 'rewritten'), 'good-plugin');
  const c = ctx('before_output', { text: 'original' });
  const failures = await host.runStage('before_output', c);
  assert.equal(c.text, 'rewritten');
  assert.equal(failures.length, 1);
  assert.equal(failures[0].plugin, 'bad-plugin');
  assert.equal(failures[0].stage, 'before_output');
  assert.match(failures[0].message, /boom in handler/);
  assert.match(failures[0].stack ?? '', /stage-host\.test\.ts/);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].turnId, 'test:1#1');
});

test('C-3: a handler that throws a non-Error value is reported too', async () => {
  const host = new StageHost();
  host.registerStage(
    'on_input',
    () => {
      throw 'a string';
    },
    'p',
  );
  const failures = await host.runStage('on_input', ctx('on_input'));
  assert.equal(failures.length, 1);
  assert.equal(failures[0].message, 'a string');
});

test('C-3: a hanging handler times out and the others still finish', async () => {
  const host = new StageHost({ handlerTimeoutMs: () => 50 });
  host.registerStage('pre_action', () => new Promise<void>(() => {}), 'hangs');
  host.registerStage('pre_action', (c) => void c.messages.push({ role: 'system', content: 'injected', source: 'ok' }), 'ok');
  const c = ctx('pre_action');
  const failures = await keepAlive(() => host.runStage('pre_action', c));
  assert.equal(failures.length, 1);
  assert.equal(failures[0].plugin, 'hangs');
  assert.match(failures[0].message, /timed out/);
  assert.equal(c.messages.length, 1);
});

test('C-4: scope "own" runs only for the plugin\'s own tools; global runs for all', async () => {
  const host = new StageHost();
  host.registerTool(tool('mine'), 'owner');
  host.registerTool(tool('theirs'), 'other');
  const ran: string[] = [];
  host.registerStage('before_toolcall', (c) => void ran.push(`own:${c.toolCall?.name}`), 'owner', 'own');
  host.registerStage('before_toolcall', (c) => void ran.push(`global:${c.toolCall?.name}`), 'watcher');
  for (const name of ['mine', 'theirs']) await host.runStage('before_toolcall', ctx('before_toolcall', { toolCall: { id: '1', name, arguments: '{}' } }), name);
  assert.deepEqual(ran.sort(), ['global:mine', 'global:theirs', 'own:mine']);
  // an own-scoped handler never runs for non-tool stages
  ran.length = 0;
  host.registerStage('pre_action', () => void ran.push('own-pre'), 'owner', 'own');
  await host.runStage('pre_action', ctx('pre_action'));
  assert.deepEqual(ran, []);
});

test('C-3: stage disposer and unregisterPluginStages remove handlers', async () => {
  const host = new StageHost();
  const dispose = host.registerStage('after_output', () => {}, 'a');
  host.registerStage('after_output', () => {}, 'b');
  host.registerStage('on_input', () => {}, 'b');
  assert.equal(host.handlerCount('after_output'), 2);
  dispose();
  dispose();
  assert.equal(host.handlerCount('after_output'), 1);
  host.unregisterPluginStages('b');
  assert.equal(host.handlerCount('after_output'), 0);
  assert.equal(host.handlerCount('on_input'), 0);
});

test('C-3: executeTool returns strings as is, JSON-encodes objects, reports errors with code and stack', async () => {
  const host = new StageHost({ toolTimeoutMs: () => 50 });
  assert.deepEqual(await host.executeTool(tool('s', () => 'plain'), {}, call), { output: 'plain' });
  assert.equal((await host.executeTool(tool('o', (a) => ({ echo: a.x })), { x: 1 }, call)).output, '{"echo":1}');
  const err = await host.executeTool(
    tool('t', () => {
      throw new ValidationError('bad arg');
    }),
    {},
    call,
  );
  assert.match(err.output, /^Error \[VALIDATION\w*\]: bad arg/);
  assert.equal(err.error, 'bad arg');
  assert.match(err.stack ?? '', /stage-host\.test\.ts/);
  const slow = await keepAlive(() => host.executeTool(tool('slow', () => new Promise(() => {})), {}, call));
  assert.match(slow.output, /timed out/);
});

test('C-1/C-3: executeTool gives up on a tool that ignores its aborted signal', async () => {
  const host = new StageHost();
  const ac = new AbortController();
  const pending = host.executeTool(tool('stuck', () => new Promise(() => {})), {}, { ...call, signal: ac.signal });
  ac.abort();
  const r = await pending;
  assert.match(r.output, /^Error: tool stuck was cancelled/);
  const already = await host.executeTool(tool('never', () => new Promise(() => {})), {}, { ...call, signal: ac.signal });
  assert.match(already.output, /cancelled/);
});

test('C-3: a tool call given up at its time limit aborts the tool\'s signal, so its work stops; the turn\'s abort reaches it too', async () => {
  const host = new StageHost({ toolTimeoutMs: () => 50 });
  // A tool that works until it is told to stop, as web_fetch's read in the HTML reader does.
  const untilStopped = (seen: { reason?: unknown }) =>
    tool('reads', (_a, c) =>
      new Promise((_, reject) => {
        const stop = () => reject((seen.reason = c.signal.reason));
        if (c.signal.aborted) stop();
        else c.signal.addEventListener('abort', stop, { once: true });
      }),
    );
  const late: { reason?: unknown } = {};
  const r = await keepAlive(() => host.executeTool(untilStopped(late), {}, call));
  assert.match(r.output, /^Error: tool reads timed out after 50 ms$/);
  assert.match(String((late.reason as Error)?.message), /timed out after 50 ms/, 'the tool was told its call was given up');
  assert.equal(call.signal.aborted, false, 'the turn goes on');
  const ac = new AbortController();
  const stopped: { reason?: unknown } = {};
  const pending = new StageHost().executeTool(untilStopped(stopped), {}, { ...call, signal: ac.signal });
  ac.abort(new Error('turn stopped'));
  assert.match((await pending).output, /cancelled/);
  assert.equal((stopped.reason as Error)?.message, 'turn stopped');
});

test('K-3: every tool call runs inside the host\'s tool scope, with its tool and turn, async work included', async () => {
  const { AsyncLocalStorage } = await import('node:async_hooks');
  const who = new AsyncLocalStorage<string>();
  const seen: string[] = [];
  const host = new StageHost({ toolScope: (c, run) => who.run(`${c.tool}@${c.turnId}`, run) });
  const out = await host.executeTool(
    tool('later', async () => {
      await new Promise((r) => setTimeout(r, 1));
      seen.push(who.getStore() ?? 'none');
      return 'done';
    }),
    {},
    call,
  );
  assert.equal(out.output, 'done');
  assert.deepEqual(seen, [`later@${call.turnId}`]);
  // A throwing tool inside the scope is still the tool's error result.
  assert.match((await host.executeTool(tool('bad', () => { throw new ValidationError('nope'); }), {}, call)).output, /nope/);
});
