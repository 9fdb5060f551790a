/**
 * The daemon's young generation (decision 0180), as `homed` runs it: a real `homed run` process
 * started through its entry (`src/daemon/main.ts`, what `npm start`, the bin, the supervisor and the
 * service run), asked over its socket. Its `status` reports the V8 settings and the new space: held
 * at 8 MiB after start and never past it after recalls (English and Chinese), while with
 * `HOMEAGENT_V8_HEAP_TUNING=0` V8 keeps its own (the new space grows past the bound while the
 * daemon loads and opens).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DaemonClient } from '../src/waiter/daemon-client.js';

const root = resolve(import.meta.dirname, '..');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = 1024 * 1024;
const homes: string[] = [];
after(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

interface V8Status {
  flags: string[];
  youngGenerationBound: number | null;
  newSpaceBytes: number;
  heapTotalBytes: number;
}

/** Starts `homed run` on a fresh folder, runs `fn` with a connected client, stops it. */
async function withDaemon<T>(env: Record<string, string>, fn: (c: DaemonClient) => Promise<T>): Promise<T> {
  const home = mkdtempSync(join(tmpdir(), 'ha-young-'));
  homes.push(home);
  const child = spawn(tsx, [join(root, 'src', 'daemon', 'main.ts'), 'run', '--port', '0'], { env: { ...process.env, HOMEAGENT_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9', ...env }, stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  const c = new DaemonClient(join(home, 'homed.sock'));
  try {
    for (let i = 0; ; i++) {
      try {
        await c.connect();
        await c.request('status');
        break;
      } catch {
        c.close();
        if (i > 600) throw new Error('homed did not answer on its socket within 60 s');
        await sleep(100);
      }
    }
    return await fn(c);
  } finally {
    c.close();
    child.kill('SIGTERM');
    await exited;
  }
}

test('homed holds its young generation at 8 MiB by default and reports it in status; HOMEAGENT_V8_HEAP_TUNING=0 leaves V8 its own', async () => {
  const held = await withDaemon({}, async (c) => {
    // The socket answers while the daemon is still starting; the hold comes once it has started.
    let atStart = (await c.request<{ v8: V8Status }>('status')).v8;
    for (let i = 0; i < 100 && atStart.newSpaceBytes !== 8 * MiB; i++) {
      await sleep(100);
      atStart = (await c.request<{ v8: V8Status }>('status')).v8;
    }
    for (let i = 0; i < 40; i++) await c.request('memory.search', { query: i % 4 === 0 ? `我上周六和小王去杭州西湖散步 ${i}` : `where did we go hiking last weekend ${i}`, limit: 10 });
    return { atStart, afterRecalls: (await c.request<{ v8: V8Status }>('status')).v8 };
  });
  assert.deepEqual(held.atStart.flags, ['--heap-growing-percent=100', '--no-allocation-site-pretenuring']);
  assert.equal(held.atStart.youngGenerationBound, 8 * MiB);
  assert.equal(held.atStart.newSpaceBytes, 8 * MiB);
  // Never past the bound; V8 may have shrunk it after a full collection (little is allocated here).
  assert.ok(held.afterRecalls.newSpaceBytes <= 8 * MiB, `after recalls: ${held.afterRecalls.newSpaceBytes / MiB} MiB`);
  assert.ok(held.afterRecalls.heapTotalBytes > 0);

  const own = await withDaemon({ HOMEAGENT_V8_HEAP_TUNING: '0' }, async (c) => (await c.request<{ v8: V8Status }>('status')).v8);
  assert.deepEqual(own.flags, []);
  assert.equal(own.youngGenerationBound, null);
  assert.ok(own.newSpaceBytes > 8 * MiB, `V8's own young generation after start: ${own.newSpaceBytes / MiB} MiB`);
});
