import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DaemonClient } from '../src/waiter/daemon-client.js';
import { scaleQueries } from '../bench/scale/archive.bench.js';
const home = process.argv[2];
const main = path.resolve('dist/src/daemon/main.js');
const dir = fs.mkdtempSync('/tmp/snap-');
const child = spawn(process.execPath, ['--heapsnapshot-signal=SIGUSR1', main, 'run'], { cwd: dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, HOMEAGENT_HOME: home, HOMEAGENT_WEBUI_PORT: '0', OLLAMA_HOST: 'http://127.0.0.1:9' }, stdio: 'ignore' });
const client = new DaemonClient(path.join(home, 'homed.sock'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
for (let i = 0; i < 3000; i++) { try { await client.connect(); await client.request('status'); break; } catch { client.close(); await sleep(10); } }
await sleep(1000);
const qs = scaleQueries(300);
for (const q of [...qs.slice(0, 20), ...qs]) await client.request('memory.search', { query: q, limit: 10 });
child.kill('SIGUSR1');
for (let i = 0; i < 600; i++) { await sleep(100); const f = fs.readdirSync(dir).filter((x) => x.endsWith('.heapsnapshot')); if (f.length) { await sleep(3000); console.log(path.join(dir, f[0])); break; } }
client.close();
child.kill('SIGTERM');
