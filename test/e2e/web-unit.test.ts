/**
 * Runs the SPA's Vitest unit and component tests (web/src/**\/*.test.ts(x)) as part of `npm test`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

test('web unit tests (vitest) pass', { timeout: 240_000 }, () => {
  const r = spawnSync(join(root, 'node_modules', '.bin', 'vitest'), ['run', '--config', 'web/vitest.config.ts', '--reporter=dot'], { cwd: root, encoding: 'utf8', env: { ...process.env, CI: '1', NO_COLOR: '1' } });
  const out = `${r.stdout}\n${r.stderr}`;
  assert.equal(r.status, 0, `vitest failed:\n${out.slice(-6000)}`);
  assert.match(out, /Tests\s+\d+ passed/);
});
