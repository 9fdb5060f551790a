#!/usr/bin/env node
// Runs every *.test.ts beside the code and in test/ with node's test runner (through tsx).
// Usage: npm test [-- path-filter ...]
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.test\.ts$/.test(name) && !p.includes(`${join(root, 'web')}/`)) files.push(relative(root, p));
  }
}
walk(join(root, 'src'));
walk(join(root, 'test'));
const selected = filters.length ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// Files run in their own processes; most of their time is waiting on child processes, sockets and
// timers, so two at a time roughly halves the wall time on a 2-core machine.
const concurrency = process.env.HOMEAGENT_TEST_CONCURRENCY ?? '2';
const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...selected];
const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, HOMEAGENT_TEST: '1' } });
process.exit(r.status ?? 1);
