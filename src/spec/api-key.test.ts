import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyProblem } from './api-key.js';

test('an API key is visible ASCII; spaces around it are allowed, inside or not ASCII are not', () => {
  for (const ok of ['', 'sk-abc123', 'sk-proj_A.b/c+d=', ' sk-abc\n']) assert.equal(apiKeyProblem(ok), undefined, JSON.stringify(ok));
  for (const bad of ['sk-test-密钥', 'sk-abc\u3000', 'sk abc', 'sk-\u00e9', '   ']) assert.match(apiKeyProblem(bad) ?? '', /ASCII/, JSON.stringify(bad));
});
