import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../spec/index.js';
import { durationSchema, isDuration, parseDuration } from './duration.js';
import { coreConfigDefaults } from './core-defaults.js';

test('parseDuration reads s, m, h, d, ms and combinations', () => {
  assert.equal(parseDuration('45s'), 45_000);
  assert.equal(parseDuration('30m'), 1_800_000);
  assert.equal(parseDuration('2h'), 7_200_000);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('1d'), 86_400_000);
  assert.equal(parseDuration('1.5h'), 5_400_000);
});

test('parseDuration rejects malformed input with a ValidationError', () => {
  for (const bad of ['', '30', 'm', '-5m', '5 m', '5w', '0s', 'abc', '1h30']) {
    assert.throws(() => parseDuration(bad), ValidationError, bad);
    assert.equal(isDuration(bad), false);
  }
  assert.equal(durationSchema().safeParse('10m').success, true);
  assert.equal(durationSchema().safeParse(10).success, false);
});

test('every core default passes its own schema; intervals parse', () => {
  const defs = coreConfigDefaults();
  for (const [key, def] of Object.entries(defs)) {
    assert.ok(def.schema.safeParse(def.default).success, key);
    assert.ok(def.description.length > 0, key);
  }
  assert.equal(parseDuration(defs['core.memory.distill_interval'].default as string), 30 * 60_000);
  assert.equal(defs['core.webui.token'], undefined, 'the WebUI token is plugin.webui.token only');
  assert.equal(defs['core.memory.embedding_api.api_key'].secret, true);
});
