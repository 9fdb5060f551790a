import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DaemonClient } from '../src/waiter/daemon-client.js';
import { scaleQueries } from '../bench/scale/archive.bench.js';
const home = process.argv[2];
const main = path.resolve(process.argv[3] ?? 'dist/src/daemon/main.js');
const child = spawn(process.execPath, [main, 'run'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, HOMEAGENT_HOME: home, HOMEAGENT_WEBUI_PORT: '0', OLLAMA_HOST: 'http://127.0.0.1:9' }, stdio: 'ignore' });
const client = new DaemonClient(path.join(home, 'homed.sock'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
for (let i = 0; i < 3000; i++) { try { await client.connect(); await client.request('status'); break; } catch { client.close(); await sleep(10); } }
await sleep(1000);
const qs = scaleQueries(300);
for (const q of [...qs.slice(0, 20), ...qs]) await client.request('memory.search', { query: q, limit: 10 });
const smaps = fs.readFileSync(`/proc/${child.pid}/smaps`, 'utf8');
const groups = new Map<string, { n: number; rss: number; anon: number }>();
let cur = '';
let size = 0;
for (const line of smaps.split('\n')) {
  const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
  if (m) { size = (parseInt(m[2], 16) - parseInt(m[1], 16)) / 1024; cur = m[3] || `anon ${size >= 65536 ? '>=64M' : size >= 1024 ? `${Math.round(size / 1024)}M` : 'small'}`; continue; }
  const r = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
  if (r) { const g = groups.get(cur) ?? { n: 0, rss: 0, anon: 0 }; if (r[1] === 'Rss') { g.rss += +r[2]; g.n++; } else g.anon += +r[2]; groups.set(cur, g); }
}
const rows = [...groups].filter(([, g]) => g.anon > 512).sort((a, b) => b[1].anon - a[1].anon);
for (const [k, g] of rows) console.log(`${(g.anon / 1024).toFixed(1).padStart(7)} MiB anon  ${String(g.n).padStart(4)} maps  ${k.slice(-60)}`);
console.log('status', fs.readFileSync(`/proc/${child.pid}/status`, 'utf8').split('\n').filter((l) => /Rss/.test(l)).join(' | '));
client.close();
child.kill('SIGTERM');
