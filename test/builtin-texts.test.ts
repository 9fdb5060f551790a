/** The WebUI says every built-in plugin's description in Chinese too (web/src/lib/builtin-texts.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_PLUGIN_NAMES, builtinPlugins } from '../src/builtins/index.js';
import { PLUGIN_ZH, pluginDescription } from '../web/src/lib/builtin-texts.js';

test('every built-in plugin has a Chinese description in the WebUI; English is the server’s own', () => {
  const missing = BUILTIN_PLUGIN_NAMES.filter((n) => !PLUGIN_ZH[n]);
  assert.deepEqual(missing, []);
  for (const p of builtinPlugins()) {
    assert.equal(pluginDescription('en', p.name, p.description), p.description);
    if (p.description) assert.notEqual(pluginDescription('zh', p.name, p.description), p.description, p.name);
  }
});
