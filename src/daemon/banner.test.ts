import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webuiLine } from './banner.js';

test('the sign-in link (it carries the token) is printed to a terminal only — never when stdout is a file, a journal or the supervisor log', () => {
  const url = 'http://127.0.0.1:8765';
  const token = 'secret-token-123';
  assert.match(webuiLine(url, token, { supervised: false, tty: true }), /\?token=secret-token-123/);
  for (const o of [{ supervised: false, tty: false }, { supervised: true, tty: true }, { supervised: true, tty: false }]) {
    const line = webuiLine(url, token, o);
    assert.doesNotMatch(line, /secret-token/, JSON.stringify(o));
    assert.match(line, /WebUI: {2}http:\/\/127\.0\.0\.1:8765 {2}\(sign-in link: .*waiter webui\)/);
  }
});
