import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, rotateIfLarge } from './index.js';
import { PluginLogFile, PLUGIN_LOG_BYTES } from '../builtins/memory-manager/plugin-log-file.js';

const dir = () => mkdtempSync(join(tmpdir(), 'ha-log-'));

test('the daemon log rotates at the size its setting says, keeping as many old files as it says (applied while running)', (t) => {
  const d = dir();
  t.after(() => rmSync(d, { recursive: true, force: true }));
  const file = join(d, 'homed.log');
  const log = createLogger({ file });
  log.setRotation({ rotateBytes: 400, keep: 2 });
  for (let i = 0; i < 40; i++) log.info(`line ${i} ${'x'.repeat(40)}`);
  assert.ok(statSync(file).size <= 400);
  assert.ok(existsSync(`${file}.1`) && existsSync(`${file}.2`));
  assert.ok(!existsSync(`${file}.3`), 'only two old files kept');
  assert.match(readFileSync(file, 'utf8'), /line 39/);
  // Nonsense is ignored (the settings' schema refuses it anyway).
  log.setRotation({ rotateBytes: -1, keep: 0 });
  log.info('still writes');
  assert.match(readFileSync(file, 'utf8'), /still writes/);
});

test('a log another process appends to (supervisor.log) is moved aside once it is large; a small one stays', (t) => {
  const d = dir();
  t.after(() => rmSync(d, { recursive: true, force: true }));
  const file = join(d, 'supervisor.log');
  writeFileSync(file, 'small\n');
  assert.equal(rotateIfLarge(file, 100), false);
  writeFileSync(file, 'x'.repeat(200));
  assert.equal(rotateIfLarge(file, 100), true);
  assert.ok(!existsSync(file) && statSync(`${file}.1`).size === 200);
  assert.equal(rotateIfLarge(join(d, 'missing.log'), 100), false);
});

test('a plugin log (the client diag.log) is moved to .1 at its limit instead of growing for ever', (t) => {
  const d = dir();
  t.after(() => rmSync(d, { recursive: true, force: true }));
  const file = join(d, 'memory-manager-client.log');
  writeFileSync(file, 'x'.repeat(PLUGIN_LOG_BYTES));
  const log = new PluginLogFile(file);
  log.write('error', 'a client error');
  assert.equal(statSync(`${file}.1`).size, PLUGIN_LOG_BYTES);
  assert.match(readFileSync(file, 'utf8'), /ERROR a client error/);
});
