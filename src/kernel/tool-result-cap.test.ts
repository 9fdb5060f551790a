import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capToolResult } from './tool-result-cap.js';

test('a tool result over the cap keeps its start and names what was cut', () => {
  assert.equal(capToolResult('short', 10), 'short');
  const out = capToolResult('x'.repeat(25), 10);
  assert.ok(out.startsWith('x'.repeat(10) + '\n'));
  assert.match(out, /the first 10 of 25 characters are shown/);
  // A surrogate pair at the cut is not split.
  assert.ok(capToolResult(`${'a'.repeat(9)}😀tail`, 10).startsWith(`${'a'.repeat(9)}\n`));
});
