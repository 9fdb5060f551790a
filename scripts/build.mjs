#!/usr/bin/env node
// Builds the daemon (tsc → dist/) and the WebUI (vite → dist/web/), and copies runtime assets
// (Lua adapters, the word-neighbour table …). Runs on `npm install` through `prepare`, so a fresh clone is ready to start.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`build: ${cmd} ${args.join(' ')} failed`);
    process.exit(r.status ?? 1);
  }
}
if (!existsSync(bin('tsc'))) {
  // Installed as a dependency without dev tools: nothing to build (dist/ ships in the package).
  process.exit(0);
}
run(bin('tsc'), ['-p', 'tsconfig.build.json']);
// Copy non-TS runtime assets that live beside the code (e.g. *.lua, *.md templates).
function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (name !== '__fixtures__') copyAssets(p); continue; }
    if (/\.(lua|md|json|html|css|gz)$/.test(name)) {
      const out = join(root, 'dist', relative(root, p));
      mkdirSync(dirname(out), { recursive: true });
      cpSync(p, out);
    }
  }
}
copyAssets(join(root, 'src'));
if (existsSync(join(root, 'web', 'vite.config.ts')) && process.env.HOMEAGENT_SKIP_WEB !== '1') {
  run(bin('vite'), ['build', '--config', 'web/vite.config.ts', '--logLevel', 'warn']);
}
