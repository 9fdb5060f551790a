import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../spec/index.js';
import { keyMatchesPrefix, locateConfigKey, pluginTableName } from './config-key.js';
import { maskSecret } from './mask-secret.js';

test('locateConfigKey maps namespaces to tables', () => {
  assert.deepEqual(locateConfigKey('core.agent.name'), { key: 'core.agent.name', namespace: 'core', table: 'config' });
  assert.deepEqual(locateConfigKey('plugin.memory-manager.enabled'), {
    key: 'plugin.memory-manager.enabled',
    namespace: 'plugin.memory-manager',
    plugin: 'memory-manager',
    table: 'config_memory_manager',
  });
  for (const bad of ['', 'core', 'core.', 'plugin.x', 'plugin..x', 'plugin.-x.y', 'plugin.x"; DROP TABLE config;--.y', 'Core.x', 'core.A', 'x.y', 'core.a..b']) {
    assert.throws(() => locateConfigKey(bad), ValidationError, bad);
  }
  assert.throws(() => pluginTableName('a/b'), ValidationError);
  assert.equal(pluginTableName('a-b'), 'config_a_b');
});

test('keyMatchesPrefix respects segment boundaries', () => {
  assert.equal(keyMatchesPrefix('core.agent.name', 'core.agent'), true);
  assert.equal(keyMatchesPrefix('core.agentx.name', 'core.agent'), false);
  assert.equal(keyMatchesPrefix('core.agent.name', 'core.agent.'), true);
  assert.equal(keyMatchesPrefix('core.agent.name', 'core.agent.name'), true);
  assert.equal(keyMatchesPrefix('core.agent.name', undefined), true);
});

test('maskSecret hides all but the last 4 characters of long secrets', () => {
  assert.equal(maskSecret('sk-abcdefghijklmnop1234'), '••••1234');
  assert.equal(maskSecret('short'), '(set)');
  assert.equal(maskSecret(''), '');
  assert.equal(maskSecret(null), null);
  assert.equal(maskSecret({ a: 'b' }), '(set)');
});
