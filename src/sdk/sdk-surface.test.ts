import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as sdk from './index.js';
import * as testing from './testing/index.js';

// The SDK is a designed boundary: changing what it exports must be a deliberate edit of this list.
test('P-1: homeagent/sdk runtime exports', () => {
  assert.deepEqual(Object.keys(sdk).sort(), ['Cap', 'ConflictError', 'HomeAgentError', 'NotFoundError', 'PayloadTooLargeError', 'PluginError', 'STAGES', 'ValidationError', 'cosine', 'definePlugin', 'redactPaths', 'writeFileAtomic', 'writeJsonAtomic']);
  assert.equal(sdk.cosine([1, 0], [1, 0]), 1);
  assert.equal(sdk.cosine([1, 0], [1, 0, 0]), 0, 'different dimensions are never compared');
  const def = { name: 'x', start() {} };
  assert.equal(sdk.definePlugin(def), def);
  assert.deepEqual(sdk.Cap, { Text: 1, File: 2, Image: 4, Audio: 8, Structured: 16 });
});

test('P-1: homeagent/sdk/testing runtime exports', () => {
  assert.deepEqual(Object.keys(testing).sort(), ['MemorySessions', 'ScriptedLlm', 'createTestHost', 'hashEmbedding', 'startFakeLlm']);
});
