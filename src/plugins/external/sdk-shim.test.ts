import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sdkShimSource } from './sdk-shim.js';
import * as sdk from '../../sdk/index.js';

test('the homeagent/sdk shim of external plugins offers the same utilities (definePlugin, writeJsonAtomic)', async (t) => {
  const mod = await import(`data:text/javascript;base64,${Buffer.from(sdkShimSource()).toString('base64')}`);
  const dir = mkdtempSync(join(tmpdir(), 'ha-shim-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(mod.definePlugin({ name: 'x' }).name, 'x');
  await mod.writeJsonAtomic(join(dir, 'state.json'), { ok: 1 });
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')), { ok: 1 });
  assert.deepEqual(readdirSync(dir), ['state.json'], 'no temp file left behind');
  assert.equal(new mod.NotFoundError('plugin', 'p').code, 'NOT_FOUND');
  assert.equal(mod.cosine([1, 1], [2, 2]), sdk.cosine([1, 1], [2, 2]));
  // The same runtime exports as the in-process SDK: a plugin works in or out of process.
  assert.deepEqual(Object.keys(mod).sort(), Object.keys(sdk).sort());
});
