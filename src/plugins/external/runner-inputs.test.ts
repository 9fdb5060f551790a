/**
 * The external plugin runner is bundled into one ES module (runner-script.ts) and cached under a
 * key made of its input files. Every module it reaches must be ours (no package from node_modules:
 * better-sqlite3 came in once through `fs/index.js`, before the SQLite helpers moved to `fs/sqlite`,
 * and the bundle died at start with "Dynamic require of fs"), and every one of ours must be in the
 * cache key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runnerInputs } from './runner-script.js';

const root = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..');

test('the bundled plugin runner reaches no package and no file outside its cache key', async () => {
  const esbuild = await import('esbuild');
  const r = await esbuild.build({ entryPoints: [join(root, 'src', 'plugins', 'external', 'external-runner.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', write: false, metafile: true, logLevel: 'silent', absWorkingDir: root });
  const inputs = Object.keys(r.metafile.inputs);
  assert.deepEqual(inputs.filter((f) => f.includes('node_modules')), [], 'no package is bundled into the runner');
  const keyed = new Set(runnerInputs().map((f) => relative(root, f)));
  assert.deepEqual(inputs.filter((f) => !f.includes('node_modules') && !keyed.has(f)), [], 'every bundled file is in the cache key');
});
