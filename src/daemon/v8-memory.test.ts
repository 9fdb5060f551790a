import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { applyDaemonV8Flags, DAEMON_V8_FLAGS } from './v8-memory.js';

test("every daemon V8 flag is one this Node's V8 knows (V8 ignores an unknown flag silently)", () => {
  const known = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
  for (const f of DAEMON_V8_FLAGS) {
    const name = f.replace(/^--/, '').replace(/=.*$/, '');
    assert.ok(known.includes(`--${name} `) || known.includes(`--${name}\n`), `${name} is not a V8 option of ${process.version}`);
  }
});

test('the daemon flags are applied only with HOMEAGENT_V8_HEAP_TUNING=1 (they cost query time)', () => {
  assert.deepEqual(applyDaemonV8Flags({}), []);
  assert.deepEqual(applyDaemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: '0' }), []);
  assert.deepEqual(applyDaemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: '1' }), [...DAEMON_V8_FLAGS]);
});
