import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestHost, ScriptedLlm } from '../sdk/testing/index.js';
import { fixtureHome, waitFor } from './__fixtures__/fixture-home.js';

async function setup(t: { after: (fn: () => unknown) => void }, opts: { watch?: boolean; llm?: ScriptedLlm } = {}) {
  const homeDir = fixtureHome('lua-greeter');
  const h = await createTestHost({ homeDir, llm: opts.llm, registry: { watchLua: opts.watch ?? false, watchDebounceMs: 50, lua: { timeoutMs: 300 } } });
  t.after(async () => {
    await h.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  return h;
}

test('P-4: a Lua plugin registers tools from start(); they run in the sandbox', async (t) => {
  const h = await setup(t);
  const info = h.plugin('lua-greeter')!;
  assert.equal(info.kind, 'lua');
  assert.equal(info.state, 'running', info.lastError);
  assert.deepEqual(info.tools, ['lua_fail', 'lua_greet', 'lua_info', 'lua_spin']);
  assert.equal(await h.callTool('lua_greet', { name: 'Ada' }), 'hello, Ada');
  assert.deepEqual(JSON.parse(await h.callTool('lua_info')), { ok: true, count: 3, tags: ['a', 'b'] });
  await assert.rejects(h.callTool('lua_fail'), /lua tool failed on purpose/);
  await assert.rejects(h.callTool('lua_spin'), /timed out/);
  assert.equal(await h.callTool('lua_greet', { name: 'again' }), 'hello, again');
  const def = h.agent.tools.build().find((d) => d.name === 'lua_greet')!;
  assert.deepEqual(def.parameters, { type: 'object', properties: { name: { type: 'string', description: 'Who to greet' } }, required: ['name'] });
});

test('P-4: the agent calls a Lua tool in a whole turn', async (t) => {
  const llm = new ScriptedLlm([{ toolCalls: [{ name: 'lua_greet', arguments: { name: 'Bo' } }] }, { text: 'greeted' }]);
  const h = await setup(t, { llm });
  const outcome = await h.send('greet Bo');
  assert.equal(outcome.status, 'ok');
  assert.equal(outcome.text, 'greeted');
  const toolMsg = llm.requests[1].messages.find((m) => m.role === 'tool');
  assert.match(JSON.stringify(toolMsg), /hello, Bo/);
});

test('P-4: editing main.lua hot-reloads the plugin', async (t) => {
  const h = await setup(t, { watch: true });
  assert.equal(await h.callTool('lua_greet', { name: 'A' }), 'hello, A');
  const file = join(h.homeDir, 'plugins', 'lua-greeter', 'main.lua');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"hello, " .. args.name', '"bonjour, " .. args.name'));
  await waitFor(async () => {
    try {
      return (await h.callTool('lua_greet', { name: 'A' })) === 'bonjour, A';
    } catch {
      return false;
    }
  }, 8000, 'hot reload');
  // A syntax error fails the plugin with the Lua message; fixing the file brings it back.
  writeFileSync(file, 'function start( register_tool(');
  await waitFor(() => h.plugin('lua-greeter')!.state === 'failed', 8000, 'failed after a bad edit');
  assert.match(h.plugin('lua-greeter')!.lastError!, /main\.lua/);
  await assert.rejects(h.callTool('lua_greet', { name: 'A' }), /no tool/);
  writeFileSync(file, 'function start() register_tool("lua_greet", "g", json.object(), function(a) return "hi again" end) end');
  await waitFor(() => h.plugin('lua-greeter')!.state === 'running', 8000, 'running after the fix');
  assert.equal(await h.callTool('lua_greet'), 'hi again');
});

test('P-4: a tool that runs the VM out of memory leaves the other tools working (start() runs again on the rebuilt state)', async (t) => {
  const homeDir = fixtureHome();
  mkdirSync(join(homeDir, 'plugins', 'luamem'));
  writeFileSync(
    join(homeDir, 'plugins', 'luamem', 'main.lua'),
    `function start()
  register_tool("lua_hog", "eats memory", { type = "object", properties = json.object() }, function(args)
    local t = {}
    for i = 1, 1e8 do t[i] = string.rep("x", 64) .. i end
  end)
  register_tool("lua_ok", "fine", { type = "object", properties = json.object() }, function(args) return "still here" end)
end`,
  );
  const h = await createTestHost({ homeDir, registry: { watchLua: false, lua: { memoryBytes: 4 * 1024 * 1024 } } });
  t.after(async () => {
    await h.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  assert.equal(await h.callTool('lua_ok'), 'still here');
  for (let i = 0; i < 2; i++) {
    await assert.rejects(h.callTool('lua_hog'), /LUA_MEMORY|memory/);
    assert.equal(await h.callTool('lua_ok'), 'still here');
  }
  const info = h.plugin('luamem')!;
  assert.equal(info.state, 'running', info.lastError);
  assert.deepEqual(info.tools, ['lua_hog', 'lua_ok']);
});

test('P-4: a Lua plugin declares its settings in a plugin.json beside main.lua; settings_get reads what the person set (the docs\' dice example)', async (t) => {
  const homeDir = fixtureHome();
  const dir = join(homeDir, 'plugins', 'dice');
  mkdirSync(dir);
  writeFileSync(join(dir, 'plugin.json'), JSON.stringify({ name: 'dice', version: '1.0.0', entry: 'main.lua', settings: { default_sides: { default: 6, description: 'Sides when not given' } } }));
  // docs/plugins.md §3, verbatim.
  const docs = readFileSync(new URL('../../docs/plugins.md', import.meta.url), 'utf8');
  writeFileSync(join(dir, 'main.lua'), /```lua\n(-- main\.lua[\s\S]*?)```/.exec(docs)![1]);
  const h = await createTestHost({ homeDir, registry: { watchLua: false } });
  t.after(async () => {
    await h.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  const info = h.plugin('dice')!;
  assert.deepEqual([info.kind, info.state, info.version], ['lua', 'running', '1.0.0'], info.lastError);
  assert.equal(h.config.get('plugin.dice.default_sides'), 6);
  const roll = async () => (JSON.parse(await h.callTool('dice_roll', { n: 60 })) as { rolls: number[] }).rolls;
  assert.ok((await roll()).every((r) => r >= 1 && r <= 6));
  await h.config.set('plugin.dice.default_sides', 12);
  const rolls = await roll();
  assert.ok(rolls.every((r) => r >= 1 && r <= 12) && rolls.some((r) => r > 6), rolls.join(','));
  await assert.rejects(h.config.set('plugin.dice.default_sides', 'many'));
});
