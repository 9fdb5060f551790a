/**
 * Daemon cold start (process spawn → socket answers `status`; → the WebUI answers over HTTP) and
 * idle RSS, measured on the built daemon (`dist/`, what `npm start` runs). Same-run baseline:
 * spawning `node -e 0` to exit, so the figure reads as "how much slower than starting Node
 * itself". Targets (issue 14): cold start ≤ 6× node, idle RSS < 100 MiB, and ready within 5 s
 * whatever the plugins in the plugins folder do (here: 200 broken ones, 8 that throw in start, one
 * that never finishes starting).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DaemonClient } from '../src/waiter/daemon-client.js';
import { readAuthToken } from '../src/paths/index.js';
import type { BenchRow } from './run.js';
import { percentile as pct } from './stats.js';

const root = resolve(import.meta.dirname, '..');
const main = join(root, 'dist', 'src', 'daemon', 'main.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** A plugins folder full of trouble: broken manifests, plugins whose start throws, one that hangs. */
function troublePlugins(home: string): void {
  const dir = join(home, 'plugins');
  const put = (name: string, manifest: unknown, code?: string) => {
    mkdirSync(join(dir, name), { recursive: true });
    writeFileSync(join(dir, name, 'plugin.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
    if (code) writeFileSync(join(dir, name, 'index.js'), code);
  };
  for (let i = 0; i < 200; i++) put(`broken-${i}`, i % 2 ? '{ not json' : { name: `broken-${i}`, entry: '../outside.js' });
  for (let i = 0; i < 8; i++) put(`throws-${i}`, { name: `throws-${i}`, version: '0.1.0', entry: 'index.js', permissions: [] }, `export default { name: 'throws-${i}', start() { throw new Error('broken on purpose'); } };`);
  put('hangs', { name: 'hangs', version: '0.1.0', entry: 'index.js', permissions: [] }, `export default { name: 'hangs', start() { return new Promise(() => {}); } };`);
}

async function once(opts: { trouble?: boolean } = {}): Promise<{ startMs: number; webuiMs: number; rss: number }> {
  const home = mkdtempSync(join(tmpdir(), 'ha-bench-'));
  if (opts.trouble) troublePlugins(home);
  const t0 = performance.now();
  const child = spawn(process.execPath, [main, 'run'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, HOMEAGENT_HOME: home, HOMEAGENT_WEBUI_PORT: '0', OLLAMA_HOST: 'http://127.0.0.1:9' }, stdio: 'ignore' });
  try {
    let startMs = NaN;
    let webuiMs = NaN;
    let webui: string | undefined;
    for (let i = 0; i < 2000 && Number.isNaN(webuiMs); i++) {
      const c = new DaemonClient(join(home, 'homed.sock'));
      try {
        if (!webui) {
          await c.connect();
          const s = await c.request<{ endpoints?: { webui?: string } }>('status');
          if (Number.isNaN(startMs)) startMs = performance.now() - t0;
          webui = s.endpoints?.webui;
        }
        if (webui) {
          const r = await fetch(`${webui}/api/v1/status`, { headers: { authorization: `Bearer ${readAuthToken(home) ?? ''}` } });
          await r.body?.cancel();
          if (!r.ok) throw new Error(`WebUI answered ${r.status}`);
          webuiMs = performance.now() - t0;
        }
      } catch {
        await sleep(5);
      } finally {
        c.close();
      }
    }
    await sleep(2000);
    return { startMs, webuiMs, rss: rssMiB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(home, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(main)) {
    console.log('- bench/daemon.bench.ts: dist/ not built (run npm run build); skipped');
    return [];
  }
  // The baseline is measured right before each daemon start, so both see the same load on a
  // shared machine (a burst of baselines up front made the ratio swing with the load between).
  const base: number[] = [];
  const nodeOnce = () => {
    const t = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    base.push(performance.now() - t);
  };
  const starts: number[] = [];
  const webuis: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < 7; i++) {
    nodeOnce();
    const r = await once();
    starts.push(r.startMs);
    webuis.push(r.webuiMs);
    rss.push(r.rss);
  }
  const trouble: number[] = [];
  for (let i = 0; i < 3; i++) {
    nodeOnce();
    trouble.push((await once({ trouble: true })).startMs);
  }
  return [
    { name: 'node -e 0 (baseline)', unit: 'ms', p50: pct(base, 50), p95: pct(base, 95), n: base.length },
    { name: 'homed cold start → socket ready', unit: 'ms', p50: pct(starts, 50), p95: pct(starts, 95), n: starts.length, baseline: 'node -e 0 (baseline)' },
    { name: 'homed cold start → WebUI answers', unit: 'ms', p50: pct(webuis, 50), p95: pct(webuis, 95), n: webuis.length, baseline: 'node -e 0 (baseline)' },
    { name: 'homed cold start → socket ready, 209 broken/hanging plugins', unit: 'ms', p50: pct(trouble, 50), p95: pct(trouble, 95), n: trouble.length, baseline: 'node -e 0 (baseline)' },
    { name: 'homed idle RSS (2 s after ready)', unit: 'MiB', p50: pct(rss, 50), p95: pct(rss, 95), n: rss.length },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((rows) => console.table(rows));
}
