/**
 * Two daemons in one process (tests, an app embedding HomeAgent) each have their own WebUI
 * server: stopping one closes its server and leaves the other answering.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Daemon } from '../src/daemon/index.js';
import { startTestDaemon } from './fixtures/daemon.js';

const homes: string[] = [];
const running: Daemon[] = [];
after(async () => {
  for (const d of running) await d.stop();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

async function daemon(): Promise<Daemon> {
  const home = mkdtempSync(join(tmpdir(), 'ha-two-'));
  homes.push(home);
  const d = await startTestDaemon({ homeDir: home, env: { HOME: process.env.HOME, OLLAMA_HOST: 'http://127.0.0.1:9' }, webuiPort: 0, heartbeats: false });
  running.push(d);
  return d;
}

const status = (d: Daemon, url = d.url!) => fetch(`${url}/api/v1/status`, { headers: { authorization: `Bearer ${d.authToken}` } }).then((r) => r.status);

test('two daemons in one process: each its own WebUI server; stopping one leaves the other answering', async () => {
  const a = await daemon();
  const b = await daemon();
  assert.ok(a.url && b.url && a.url !== b.url, `${a.url} ${b.url}`);
  assert.equal(await status(a), 200);
  assert.equal(await status(b), 200);
  const aUrl = a.url!;
  await a.stop();
  running.splice(running.indexOf(a), 1);
  await assert.rejects(status(a, aUrl), 'the stopped daemon\'s server is closed');
  assert.equal(await status(b), 200, 'the other daemon still answers');
});
