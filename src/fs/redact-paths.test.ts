import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactPaths } from './redact-paths.js';

test('SPEC §9: absolute paths leave client-facing messages; known roots become labels; API URLs stay', () => {
  const roots = [{ path: '/home/ann/.homeagent', label: '<data>' }, { path: '/home/ann', label: '~' }];
  assert.equal(redactPaths("ENOENT: no such file or directory, open '/home/ann/.homeagent/sessions/x.jsonl'", roots), "ENOENT: no such file or directory, open '<data>/sessions/x.jsonl'");
  assert.equal(redactPaths('working folder does not exist: /home/ann/projects/a', roots), 'working folder does not exist: ~/projects/a');
  assert.equal(redactPaths("cannot read '/etc/passwd' or /var/lib/x/y.db", roots), "cannot read '<path>' or <path>");
  assert.equal(redactPaths('C:\\Users\\ann\\x.txt is missing'), '<path> is missing');
  assert.equal(redactPaths('no API route GET /api/v1/nothing and POST /v1/chat/completions at http://127.0.0.1:8765/api/v1/x'), 'no API route GET /api/v1/nothing and POST /v1/chat/completions at http://127.0.0.1:8765/api/v1/x');
  assert.equal(redactPaths('a/b relative and 3/4 stay'), 'a/b relative and 3/4 stay');
});
