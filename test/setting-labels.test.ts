/**
 * Every core setting the daemon has carries a label in the WebUI's table (W-4): a missing one shows
 * its English key name in the Chinese UI. Here, not beside the table: the WebUI's own code imports
 * nothing of the daemon's but spec types (architecture.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { coreConfigDefaults } from '../src/config/core-defaults.js';

test('the WebUI labels every core setting of the daemon', async () => {
  // Loaded by path: the WebUI is built by its own bundler config, not this project's compiler.
  const table = pathToFileURL(join(resolve(import.meta.dirname, '..'), 'web', 'src', 'components', 'settings', 'setting-labels.ts')).href;
  const { knownSetting } = (await import(table)) as { knownSetting(key: string): boolean };
  assert.deepEqual(Object.keys(coreConfigDefaults()).filter((k) => !knownSetting(k)), []);
});
