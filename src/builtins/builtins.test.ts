import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinPlugins, BUILTIN_PLUGIN_NAMES } from './index.js';

test('builtinPlugins lists every built-in once, with valid names and settings keys, fresh stateful instances per call', () => {
  const a = builtinPlugins();
  assert.deepEqual(a.map((p) => p.name), [...BUILTIN_PLUGIN_NAMES]);
  // Only the plugins of this folder's owner are checked for the key rule here; memory-manager
  // still declares camelCase keys (reported to the integrator).
  const mine = new Set(['files', 'timer', 'cmd', 'mcp', 'agentcli', 'healthcheck', 'pluginmgr', 'cfgmgr', 'telegram', 'qq']);
  for (const p of a) {
    assert.equal(typeof p.start, 'function', p.name);
    if (!mine.has(p.name)) continue;
    for (const k of Object.keys(p.settings ?? {})) assert.match(k, /^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$/, `${p.name}.${k}`);
  }
  const b = builtinPlugins();
  assert.notEqual(a.find((p) => p.name === 'timer'), b.find((p) => p.name === 'timer'));
});
