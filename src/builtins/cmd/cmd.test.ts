import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideCommand, runCommand, cmdPlugin, DEFAULT_ALLOWLIST } from './index.js';
import { startFake } from '../__fixtures__/fake-sdk.js';

test('decideCommand: allowlist by exact name, a path never matches by base name, policies', () => {
  assert.deepEqual(decideCommand('ls', DEFAULT_ALLOWLIST, 'never'), { kind: 'run' });
  assert.equal(decideCommand('rm', DEFAULT_ALLOWLIST, 'never').kind, 'refuse');
  assert.equal(decideCommand('/tmp/x/ls', DEFAULT_ALLOWLIST, 'never').kind, 'refuse');
  assert.equal(decideCommand('rm', DEFAULT_ALLOWLIST, 'outside-allowlist').kind, 'confirm');
  assert.equal(decideCommand('ls', DEFAULT_ALLOWLIST, 'outside-allowlist').kind, 'run');
  assert.equal(decideCommand('ls', DEFAULT_ALLOWLIST, 'always').kind, 'confirm');
});

test('runCommand: no shell — metacharacters are plain arguments', async () => {
  const r = await runCommand('echo', ['$HOME', '; rm -rf /', '`id`', '|', '*'], { cwd: process.cwd(), timeoutMs: 10_000, maxOutputBytes: 10_000 });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, '$HOME ; rm -rf / `id` | *\n');
});

test('runCommand: timeout kills the whole process tree', async () => {
  // sh starts a background grandchild and waits; the timeout must kill both.
  const r = await runCommand('sh', ['-c', 'sleep 30 & echo $!; wait'], { cwd: process.cwd(), timeoutMs: 300, maxOutputBytes: 1000, killGraceMs: 200 });
  assert.equal(r.timedOut, true);
  const grandchild = Number(r.stdout.trim());
  assert.ok(grandchild > 0);
  // A killed orphan may linger as a zombie when PID 1 does not reap: that counts as dead.
  const running = () => {
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${grandchild}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  let alive = true;
  for (let i = 0; i < 100 && alive; i++) {
    alive = running();
    if (alive) await new Promise((res) => setTimeout(res, 20));
  }
  assert.equal(alive, false, 'grandchild was killed');
});

test('cmd_run: refuses commands outside the allowlist and says how to allow them', async (t) => {
  const h = await startFake(cmdPlugin, { settings: { confirm: 'never' } });
  t.after(() => h.cleanup());
  const out = await h.callTool('cmd_run', { command: 'rm', args: ['-rf', '/'] });
  assert.match(out, /refused to run "rm": "rm" is not in the allowlist/);
  assert.match(out, /plugin\.cmd\.allowlist/);
  await h.setSetting('confirm', 'outside-allowlist');
  assert.match(await h.callTool('cmd_run', { command: 'rm' }), /needs the user's confirmation/);
  await assert.rejects(h.callTool('cmd_run', { args: [] }), /invalid argument "command"/);
  await assert.rejects(h.setSetting('confirm', 'sometimes'), /invalid value/);
});

test('cmd_run: asks host.confirm when provided; runs only when approved', async (t) => {
  const asked: string[] = [];
  let answer = false;
  const h = await startFake(cmdPlugin, { settings: { confirm: 'always' }, services: { 'host.confirm': { ask: async (r) => (asked.push(r.detail), answer) } } });
  t.after(() => h.cleanup());
  assert.match(await h.callTool('cmd_run', { command: 'echo', args: ['hi'] }), /did not approve/);
  answer = true;
  const out = await h.callTool('cmd_run', { command: 'echo', args: ['hi'] });
  assert.match(out, /exit code: 0/);
  assert.match(out, /hi/);
  assert.deepEqual(asked, ['echo hi', 'echo hi']);
});

test('cmd_run: exit code, output cap, timeout, unknown command and bad cwd', async (t) => {
  const h = await startFake(cmdPlugin, { settings: { allowlist: ['node', 'sh', 'no-such-cmd-xyz'], max_output_bytes: 100, timeout_ms: 20_000 } });
  t.after(() => h.cleanup());
  const big = await h.callTool('cmd_run', { command: 'node', args: ['-e', "process.stdout.write('x'.repeat(5000))"] });
  assert.match(big, /exit code: 0/);
  assert.match(big, /\[output truncated: 4900 more bytes not shown\]/);
  assert.match(await h.callTool('cmd_run', { command: 'sh', args: ['-c', 'echo oops >&2; exit 3'] }), /exit code: 3[\s\S]*--- stderr ---\noops/);
  await h.setSetting('timeout_ms', 300);
  assert.match(await h.callTool('cmd_run', { command: 'sh', args: ['-c', 'sleep 20'] }), /timed out after 300 ms; process tree killed/);
  assert.match(await h.callTool('cmd_run', { command: 'no-such-cmd-xyz' }), /command not found/);
  await assert.rejects(h.callTool('cmd_run', { command: 'node', args: ['-v'], cwd: 'does/not/exist' }), /working folder does not exist/);
});

test('cmd_run: commands do not see credentials from the daemon environment', async (t) => {
  process.env.FAKE_PROVIDER_API_KEY = 'sk-should-not-leak';
  t.after(() => delete process.env.FAKE_PROVIDER_API_KEY);
  const h = await startFake(cmdPlugin, { settings: { allowlist: ['node'] } });
  t.after(() => h.cleanup());
  const out = await h.callTool('cmd_run', { command: 'node', args: ['-e', 'console.log(JSON.stringify(process.env))'] });
  assert.match(out, /exit code: 0/);
  assert.match(out, /"PATH"/);
  assert.equal(out.includes('sk-should-not-leak'), false);
});

test('SPEC §9: with the default settings a prompt-injected `git -c alias.x=!…` does not run (git is not allowlisted: it asks, and nothing runs unapproved)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ha-cmd-git-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const marker = join(dir, 'pwned');
  const forged = { command: 'git', args: ['-c', `alias.x=!touch ${marker}`, 'x'], cwd: dir };
  // No channel can ask the person: refused.
  const bare = await startFake(cmdPlugin);
  t.after(() => bare.cleanup());
  assert.equal(DEFAULT_ALLOWLIST.includes('git'), false);
  assert.match(await bare.callTool('cmd_run', forged), /refused to run "git"/);
  // The person is asked — and says no.
  const asked: string[] = [];
  const h = await startFake(cmdPlugin, { services: { 'host.confirm': { ask: async (r: { detail?: string }) => (asked.push(r.detail ?? ''), false) } } });
  t.after(() => h.cleanup());
  assert.match(await h.callTool('cmd_run', forged), /did not approve/);
  assert.deepEqual(asked, [`git -c alias.x=!touch ${marker} x`]);
  assert.equal(existsSync(marker), false);
  // What still runs unasked cannot start programs or write files through its own options.
  for (const c of DEFAULT_ALLOWLIST) assert.ok(!['git', 'find', 'env', 'xargs', 'sort', 'tar', 'date', 'sh', 'bash', 'node', 'python3', 'perl'].includes(c), c);
});
