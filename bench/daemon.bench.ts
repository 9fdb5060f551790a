/**
 * Daemon cold start (process spawn → socket answers `status`) and idle RSS, measured on the built
 * daemon (`dist/`, what `npm start` runs). Same-run baseline: spawning `node -e 0` to exit, so the
 * figure reads as "how much slower than starting Node itself". Targets (issue 2): cold start
 * < 1 s, idle RSS < 120 MB.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DaemonClient } from '../src/waiter/daemon-client.js';
import type { BenchRow } from './run.js';
import { percentile as pct } from './stats.js';

const root = resolve(import.meta.dirname, '..');
const main = join(root, 'dist', 'src', 'daemon', 'main.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function once(): Promise<{ startMs: number; rss: number }> {
  const home = mkdtempSync(join(tmpdir(), 'ha-bench-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [main, 'run'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, HOMEAGENT_HOME: home, HOMEAGENT_WEBUI_PORT: '0', OLLAMA_HOST: 'http://127.0.0.1:9' }, stdio: 'ignore' });
  try {
    let startMs = NaN;
    for (let i = 0; i < 600; i++) {
      const c = new DaemonClient(join(home, 'homed.sock'));
      try {
        await c.connect();
        await c.request('status');
        startMs = performance.now() - t0;
        break;
      } catch {
        await sleep(5);
      } finally {
        c.close();
      }
    }
    await sleep(2000);
    return { startMs, rss: rssMiB(child.pid!) };
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
  const base: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    base.push(performance.now() - t);
  }
  const starts: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await once();
    starts.push(r.startMs);
    rss.push(r.rss);
  }
  return [
    { name: 'node -e 0 (baseline)', unit: 'ms', p50: pct(base, 50), p95: pct(base, 95), n: base.length },
    { name: 'homed cold start → socket ready', unit: 'ms', p50: pct(starts, 50), p95: pct(starts, 95), n: starts.length, baseline: 'node -e 0 (baseline)' },
    { name: 'homed idle RSS (2 s after ready)', unit: 'MiB', p50: pct(rss, 50), p95: pct(rss, 95), n: rss.length },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((rows) => console.table(rows));
}
