/**
 * `plugin.webui.web_root` and the data folder (decision 0350): static files are served without the
 * token, so the WebUI never serves one that is inside the data folder (the auth token, config.db)
 * nor any dotfile, and refuses a web root that is the data folder, inside it or above it — the
 * real daemon over loopback, restarted with the setting stored as an import or a hand edit would.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';
import { startFakeLlm, type FakeLlm } from './fixtures/fake-llm/index.js';

let fake: FakeLlm;
const dirs: string[] = [];
let running: Daemon | undefined;

before(async () => {
  fake = await startFakeLlm();
});

after(async () => {
  await running?.stop();
  await fake?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Starts a daemon on `home` with `web_root` stored (set, then a restart: the WebUI reads it at start). */
async function withWebRoot(home: string, webRoot: string): Promise<Daemon> {
  // One daemon at a time: the one a test left running is stopped (it kept the test process alive).
  await running?.stop();
  running = undefined;
  const env = { HOME: process.env.HOME, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${fake.url}/v1` };
  const first = await startTestDaemon({ homeDir: home, env, webuiPort: 0, heartbeats: false });
  await first.config.set('plugin.webui.web_root', webRoot);
  await first.stop();
  running = await startTestDaemon({ homeDir: home, env, webuiPort: 0, heartbeats: false });
  return running;
}

/** A GET without the token, as any page or process on this machine can send. */
const anonymous = (d: Daemon, path: string) => fetch(`${d.url}${path}`).then(async (r) => ({ status: r.status, body: await r.text() }));

test('0350: web_root set to the data folder serves the bundled WebUI, never the auth token or config.db', async () => {
  const home = mkdtempSync(join(tmpdir(), 'ha-webroot-home-'));
  dirs.push(home);
  const d = await withWebRoot(home, home);
  const token = readFileSync(join(home, 'auth-token'), 'utf8').trim();
  assert.ok(token.length > 10);
  for (const path of ['/auth-token', '/config.db', '/memory-control.db']) {
    const r = await anonymous(d, path);
    assert.ok(!r.body.includes(token), `${path} gave the auth token away`);
    assert.ok(!r.body.startsWith('SQLite format 3'), `${path} gave a database away`);
  }
  const warned = readFileSync(join(home, 'logs', 'homed.log'), 'utf8');
  assert.match(warned, /web_root .* is the data folder, inside it or holds it/);
});

test('0350: a web root above the data folder is refused too; in a web root of its own, dotfiles and links into the data folder are not served', async () => {
  const top = mkdtempSync(join(tmpdir(), 'ha-webroot-top-'));
  dirs.push(top);
  const home = join(top, 'data');
  mkdirSync(home);
  const above = await withWebRoot(home, top);
  const token = readFileSync(join(home, 'auth-token'), 'utf8').trim();
  assert.ok(!(await anonymous(above, '/data/auth-token')).body.includes(token), 'a web root above the data folder served the token');
  await above.stop();
  running = undefined;

  const site = join(top, 'site');
  mkdirSync(site);
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>own build</title>');
  writeFileSync(join(site, 'app.js'), 'console.log("app")');
  writeFileSync(join(site, '.env'), 'SECRET=1');
  mkdirSync(join(site, '.git'));
  writeFileSync(join(site, '.git', 'config'), '[core]');
  symlinkSync(join(home, 'auth-token'), join(site, 'token.txt'));
  const d = await withWebRoot(home, site);
  assert.equal((await anonymous(d, '/app.js')).body, 'console.log("app")', 'the web root of its own is served');
  for (const path of ['/.env', '/.git/config', '/%2Eenv']) {
    const r = await anonymous(d, path);
    assert.equal(r.status, 404, `${path}: ${r.status}`);
    assert.ok(!r.body.includes('SECRET') && !r.body.includes('[core]'));
  }
  const link = await anonymous(d, '/token.txt');
  assert.equal(link.status, 404);
  assert.ok(!link.body.includes(token), 'a link into the data folder gave the token away');
});
