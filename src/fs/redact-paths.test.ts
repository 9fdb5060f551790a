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

test('0280: paths after a JSON escape, in file: URLs and after any punctuation are redacted too; relative paths, labels and URLs stay', () => {
  // The webui redacts error bodies as JSON text: a newline before a path is `\n` there.
  assert.equal(redactPaths(JSON.stringify({ error: 'upstream failed:\n/srv/proxy/cfg.json missing\t/etc/x/y' })), JSON.stringify({ error: 'upstream failed:\n<path> missing\t<path>' }));
  assert.equal(redactPaths('see file:///home/ann/logs/x.log and FILE://localhost/etc/x/y'), 'see file://<path> and file://<path>');
  assert.equal(redactPaths('a|/home/ann/x and →/home/ann/y and {/home/ann/z}'), 'a|<path> and →<path> and {<path>}');
  assert.equal(redactPaths(JSON.stringify('C:\\Users\\ann\\x.txt')), JSON.stringify('<path>'));
  assert.equal(redactPaths('<data>/sessions/x.jsonl, ~/notes/a.md, sessions/a/b, http://127.0.0.1:8765/api/v1/x, localhost:80/a/b'), '<data>/sessions/x.jsonl, ~/notes/a.md, sessions/a/b, http://127.0.0.1:8765/api/v1/x, localhost:80/a/b');
  assert.equal(redactPaths('2026/01/02 and and/or'), '2026/01/02 and and/or');
});

test('a file: URL inside a JSON text is redacted without eating the escaped quote that ends its string', () => {
  const body = JSON.stringify({ error: 'bad value "file:///home/ann/secret.txt": must match' });
  const out = redactPaths(body);
  assert.doesNotMatch(out, /ann|secret/);
  assert.equal((JSON.parse(out) as { error: string }).error, 'bad value "file://<path>": must match');
});
