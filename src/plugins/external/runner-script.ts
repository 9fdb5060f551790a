import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const RUNNER = join(here, '..', here.endsWith('.ts') ? 'external-runner.ts' : 'external-runner.js');
let devRunner: Promise<{ script: string; execArgv: string[] }> | undefined;
/**
 * The runner script and the flags to run it. From `dist/` it is plain JS. Under tsx (tests, dev)
 * the runner is TypeScript: it is bundled once with esbuild (a dev dependency of tsx) into a
 * cached temp file, so each child starts as fast as plain node; without esbuild the child loads
 * tsx by absolute URL.
 */
/**
 * The files the bundled runner is made of, for the cache key: a change to any of them makes a new
 * bundle (the key once covered only the runner's own three files, and a stale bundle outlived a
 * change of what they import). `runner-inputs.test.ts` checks the list against esbuild's own.
 */
export function runnerInputs(): string[] {
  const dir = join(RUNNER, '..');
  const src = join(dir, '..', '..');
  // The contracts (spec, every folder) and the file helpers (fs, its top level: fs/sqlite is not
  // reachable from fs/index.ts — `runner-inputs.test.ts` fails if that changes).
  const sources = (d: string, deep: boolean): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (deep && e.name !== '__fixtures__' ? sources(join(d, e.name), deep) : []) : /\.ts$/.test(e.name) && !e.name.endsWith('.test.ts') ? [join(d, e.name)] : []));
  return [...['external-runner.ts', 'rpc-protocol.ts', 'sdk-shim.ts'].map((f) => join(dir, f)), ...sources(join(src, 'fs'), false).sort(), ...sources(join(src, 'spec'), true).sort()];
}

export function runnerScript(): Promise<{ script: string; execArgv: string[] }> {
  if (!RUNNER.endsWith('.ts')) return Promise.resolve({ script: RUNNER, execArgv: [] });
  devRunner ??= (async () => {
    try {
      const src = runnerInputs().map((f) => readFileSync(f, 'utf8')).join('');
      const out = join(tmpdir(), `homeagent-plugin-runner-${createHash('sha256').update(src).digest('hex').slice(0, 16)}.mjs`);
      if (!existsSync(out)) {
        const esbuild = await import('esbuild');
        const tmp = `${out}.${process.pid}.tmp`;
        await esbuild.build({ entryPoints: [RUNNER], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: tmp, logLevel: 'silent' });
        renameSync(tmp, out);
      }
      return { script: out, execArgv: [] };
    } catch {
      return { script: RUNNER, execArgv: ['--import', import.meta.resolve('tsx')] };
    }
  })();
  return devRunner;
}

