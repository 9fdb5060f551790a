import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { applyDaemonV8Flags, DAEMON_V8_FLAGS, daemonV8Flags, TIGHT_V8_FLAGS } from './v8-memory.js';

test("every daemon V8 flag is one this Node's V8 knows (V8 ignores an unknown flag silently)", () => {
  const known = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
  for (const f of [...DAEMON_V8_FLAGS, ...TIGHT_V8_FLAGS]) {
    const name = f.replace(/^--/, '').replace(/=.*$/, '');
    assert.ok(known.includes(`--${name} `) || known.includes(`--${name}\n`), `${name} is not a V8 option of ${process.version}`);
  }
});

test('HOMEAGENT_V8_HEAP_TUNING: unset or unknown → the default flags, 1/tight → the tight ones, 0/off → none', () => {
  assert.deepEqual(daemonV8Flags({}), DAEMON_V8_FLAGS);
  assert.deepEqual(daemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: '' }), DAEMON_V8_FLAGS);
  assert.deepEqual(daemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: 'yes please' }), DAEMON_V8_FLAGS);
  assert.deepEqual(daemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: '1' }), TIGHT_V8_FLAGS);
  assert.deepEqual(daemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: ' Tight ' }), TIGHT_V8_FLAGS);
  assert.deepEqual(daemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: '0' }), []);
  assert.deepEqual(daemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: 'off' }), []);
  assert.notDeepEqual(DAEMON_V8_FLAGS, TIGHT_V8_FLAGS);
  // Off sets nothing (this process's V8 is left as it is).
  assert.deepEqual(applyDaemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: 'off' }), []);
});

test('the default flags take effect when set at run time: the committed heap stays nearer what is live', () => {
  // A child keeps a ring of the last 8,192 arrays of 8 KiB (≈ 64 MiB live) while it allocates
  // 50,000 of them: each lives long enough to be promoted, then dies — the recall's pattern. Once
  // with V8's own factor, once with the daemon's default flags set after start as
  // applyDaemonV8Flags does; the committed heap's peak is well below V8's own with the flags.
  const script = `
    const v8 = await import('node:v8');
    for (const f of JSON.parse(process.argv[1])) v8.setFlagsFromString(f);
    const ring = new Array(8192);
    let peak = 0;
    for (let i = 0; i < 60000; i++) {
      ring[i % 8192] = new Array(1024).fill(i + 0.5);
      if (i % 512 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    process.stdout.write(String(peak));
  `;
  const total = (flags: readonly string[]) => Number(spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(flags)], { encoding: 'utf8' }).stdout);
  const own = total(daemonV8Flags({ HOMEAGENT_V8_HEAP_TUNING: 'off' }));
  const tuned = total(daemonV8Flags({}));
  assert.ok(Number.isFinite(own) && Number.isFinite(tuned) && tuned > 0, `${own} ${tuned}`);
  assert.ok(tuned < own * 0.8, `peak heapTotal with the default flags ${tuned} is not well below V8's own ${own}`);
});

test('capYoungGeneration stops the new space growing past the cap, in a process whose new space starts small', () => {
  // A fresh child (new space 1 MiB) caps at 4 MiB, then keeps 2 MiB of objects alive across
  // scavenges while it allocates: without the cap V8 grows the new space to its maximum (32 MiB).
  const mod = new URL('./v8-memory.ts', import.meta.url).href;
  const script = `
    const { capYoungGeneration } = await import(${JSON.stringify(mod)});
    const v8 = await import('node:v8');
    const ns = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    if (process.argv[1] === 'cap') capYoungGeneration(4 * 1024 * 1024);
    const ring = new Array(20000);
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 200000; i++) ring[i % 20000] = { i, s: 'x' + i };
      await new Promise((r) => setImmediate(r));
    }
    process.stdout.write(String(ns()));
  `;
  const run = (mode: string) => Number(spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, mode], { encoding: 'utf8' }).stdout);
  const free = run('free');
  const capped = run('cap');
  assert.ok(free > 8 * 1024 * 1024, `without the cap the new space stayed at ${free}`);
  assert.ok(capped > 0 && capped <= 4 * 1024 * 1024, `with a 4 MiB cap the new space is ${capped}`);
});
