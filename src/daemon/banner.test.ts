import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webuiLine, webuiStatusLine } from './banner.js';

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

test('the WebUI line says why there is no address: still starting, its start error without the prefix, or its state', () => {
  const o = { supervised: true, tty: false };
  const token = () => 'secret-token-123';
  assert.equal(webuiStatusLine({ url: 'http://127.0.0.1:8765', token }, o), webuiLine('http://127.0.0.1:8765', 'secret-token-123', o));
  assert.equal(webuiStatusLine({ token, webui: { state: 'starting' } }, o), '  WebUI:  not running: still starting');
  assert.equal(webuiStatusLine({ token, webui: { state: 'failed', lastError: 'webui: start failed: port 8765 is in use' } }, o), '  WebUI:  not running: port 8765 is in use');
  assert.equal(webuiStatusLine({ token, webui: { state: 'stopped' } }, o), '  WebUI:  not running: stopped');
  assert.equal(webuiStatusLine({ token }, o), '  WebUI:  not running: not installed');
});
