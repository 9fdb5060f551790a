import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OutputRing, stripAnsi, createAgentcliPlugin, TerminalManager } from './index.js';
import { startFake } from '../__fixtures__/fake-sdk.js';

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('OutputRing keeps the newest output and reports what a slow reader missed', () => {
  const r = new OutputRing(10);
  r.append('abcdef');
  assert.deepEqual(r.since(0), { text: 'abcdef', next: 6, dropped: 0 });
  r.append('ghijklmn');
  assert.deepEqual(r.since(6), { text: 'ghijklmn', next: 14, dropped: 0 });
  assert.deepEqual(r.since(0), { text: 'efghijklmn', next: 14, dropped: 4 });
});

test('stripAnsi removes colour, title and cursor sequences and normalizes line ends', () => {
  assert.equal(stripAnsi('\x1b[1;31mred\x1b[0m\r\n\x1b]0;title\x07ok\x1b[2K\r\n'), 'red\nok\n');
});

test('terminal tools: open a shell in a PTY, write, read, close; limits and program allowlist', async (t) => {
  const plugin = createAgentcliPlugin();
  const h = await startFake(plugin, { settings: { confirm_open: false, programs: ['sh'], max_sessions: 1 } });
  t.after(() => h.cleanup());
  const opened = await h.callTool('terminal_open', {});
  const id = /opened (term-\w+)/.exec(opened)![1];
  const out = await h.callTool('terminal_write', { id, input: 'echo hello-$((6*7)); tty >/dev/null && echo is-a-tty' });
  let all = out;
  for (let i = 0; i < 20 && !(all.includes('hello-42') && all.includes('is-a-tty')); i++) all += await h.callTool('terminal_read', { id, wait_ms: 500 });
  assert.match(all, /hello-42/);
  assert.match(all, /is-a-tty/);
  assert.equal(all.includes('\x1b'), false);
  await assert.rejects(h.callTool('terminal_open', {}), /too many terminal sessions/);
  await assert.rejects(h.callTool('terminal_open', { program: 'bash' }), /not allowed/);
  assert.match(await h.callTool('terminal_list'), new RegExp(`${id}: sh .* running`));
  assert.match(await h.callTool('terminal_close', { id }), /closed/);
  await assert.rejects(h.callTool('terminal_read', { id }), /not found/);
  assert.ok(h.tools.get('terminal_read')!.noMemory);
});

test('a session that exits by itself is reported as a system input with source agentcli', async (t) => {
  const plugin = createAgentcliPlugin();
  const h = await startFake(plugin, { settings: { confirm_open: false, programs: ['sh'], notify_on_exit: true } });
  t.after(() => h.cleanup());
  const id = /opened (term-\w+)/.exec(await h.callTool('terminal_open', { args: ['-c', 'echo bye; exit 3'] }, 'cli:me'))![1];
  await until(() => h.inputs.length > 0, 'exit notice');
  assert.equal(h.inputs[0].source, 'agentcli');
  assert.equal(h.inputs[0].sessionId, 'cli:me');
  assert.equal(h.inputs[0].trigger, 'system');
  assert.match(h.inputs[0].text, new RegExp(`terminal ${id} \\(sh\\) exited with code 3[\\s\\S]*bye`));
  assert.match(await h.callTool('terminal_read', { id }), /exited with code 3/);
  await assert.rejects(h.callTool('terminal_write', { id, input: 'x' }), /has exited/);
});

test('TerminalManager.sweep closes sessions idle for longer than the limit (injected clock)', async (t) => {
  const clock = { now: 1_000_000 };
  const m = new TerminalManager(() => ({ maxSessions: 4, bufferChars: 10_000, programs: ['sh'] }), undefined, () => clock.now);
  t.after(() => m.closeAll());
  const a = m.open({ cwd: process.cwd(), ownerSession: 's' });
  const b = m.open({ cwd: process.cwd(), ownerSession: 's' });
  clock.now += 60_000;
  m.write(b.id, 'true\r');
  clock.now += 60_000;
  assert.deepEqual(m.sweep(90_000), [a.id]);
  assert.deepEqual(m.list().map((x) => x.id), [b.id]);
});

test('SPEC §9: each new terminal asks the person first (default); refused without a channel to ask or when denied', async (t) => {
  const asked: string[] = [];
  let answer = false;
  const plugin = createAgentcliPlugin();
  const h = await startFake(plugin, { settings: { programs: ['sh'] }, services: { 'host.confirm': { ask: async (r: { title: string }) => (asked.push(r.title), answer) } } });
  t.after(() => h.cleanup());
  assert.match(await h.callTool('terminal_open', {}), /did not approve/);
  assert.deepEqual(asked, ['Open a terminal (sh)?']);
  assert.equal(plugin.manager()!.list().length, 0);
  answer = true;
  assert.match(await h.callTool('terminal_open', {}), /opened term-/);
  assert.equal(plugin.manager()!.list().length, 1);

  const bare = createAgentcliPlugin();
  const h2 = await startFake(bare, { settings: { programs: ['sh'] } });
  t.after(() => h2.cleanup());
  assert.match(await h2.callTool('terminal_open', {}), /refused: a new terminal needs the user's approval/);
  assert.equal(bare.manager()!.list().length, 0);

  // A confirmation service nobody can answer now (no WebUI page open): refused, and said so.
  const headless = createAgentcliPlugin();
  const h3 = await startFake(headless, { settings: { programs: ['sh'] }, services: { 'host.confirm': { ask: async () => false, reachable: () => false } } });
  t.after(() => h3.cleanup());
  const refused = await h3.callTool('terminal_open', {});
  assert.match(refused, /refused: a new terminal needs the user's approval, and no WebUI page is open/);
  assert.doesNotMatch(refused, /did not approve/);
  assert.equal(headless.manager()!.list().length, 0);
});
