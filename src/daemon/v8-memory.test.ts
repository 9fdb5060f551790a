import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { applyDaemonV8Flags, DAEMON_V8_FLAGS, daemonV8Flags, TIGHT_V8_FLAGS, YOUNG_GENERATION_BOUND, youngGenerationBound } from './v8-memory.js';

test("every daemon V8 flag is one this Node's V8 knows (V8 ignores an unknown flag silently)", () => {
  const known = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
  for (const f of [...DAEMON_V8_FLAGS, ...TIGHT_V8_FLAGS, '--semi-space-growth-factor=1']) {
    const name = f.replace(/^--(no-)?/, '').replace(/=.*$/, '');
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

test('HOMEAGENT_V8_YOUNG_MIB picks the young generation bound (a power of two from 2 to 32); HOMEAGENT_V8_HEAP_TUNING=0 leaves V8 its own', () => {
  const MiB = 1024 * 1024;
  assert.equal(YOUNG_GENERATION_BOUND, 8 * MiB);
  assert.equal(youngGenerationBound({}), 8 * MiB);
  assert.equal(youngGenerationBound({ HOMEAGENT_V8_HEAP_TUNING: 'tight' }), 8 * MiB);
  assert.equal(youngGenerationBound({ HOMEAGENT_V8_YOUNG_MIB: '4' }), 4 * MiB);
  assert.equal(youngGenerationBound({ HOMEAGENT_V8_YOUNG_MIB: ' 32 ' }), 32 * MiB);
  for (const odd of ['1', '3', '64', '-8', 'lots', '']) assert.equal(youngGenerationBound({ HOMEAGENT_V8_YOUNG_MIB: odd }), 8 * MiB, odd);
  assert.equal(youngGenerationBound({ HOMEAGENT_V8_HEAP_TUNING: 'off', HOMEAGENT_V8_YOUNG_MIB: '4' }), undefined);
});

test('freeze, then hold: the new space keeps its first size while a load allocates, then is grown to the bound exactly and held there', () => {
  // A fresh child (new space 2–4 MiB) freezes it as the entry does, allocates what survives (a
  // module load's pattern), holds it at the bound as homed run does once started, then churns
  // objects that live across scavenges. Without the freeze and the hold V8 grows it to 32 MiB.
  const mod = new URL('./v8-memory.ts', import.meta.url).href;
  const script = `
    const m = await import(${JSON.stringify(mod)});
    const v8 = await import('node:v8');
    const ns = () => m.v8MemoryStatus().newSpaceBytes;
    const mode = process.argv[1];
    const first = ns();
    if (mode !== 'free') m.freezeYoungGeneration({ HOMEAGENT_V8_YOUNG_MIB: mode });
    const kept = [];
    for (let i = 0; i < 300000; i++) kept.push({ i, s: 'x' + i });
    const afterLoad = ns();
    if (mode !== 'free') m.holdYoungGeneration();
    const afterHold = ns();
    const ring = new Array(20000);
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 100000; i++) ring[i % 20000] = { i, s: 'x' + i };
      await new Promise((r) => setImmediate(r));
    }
    process.stdout.write(JSON.stringify([first, afterLoad, afterHold, ns(), m.v8MemoryStatus().youngGenerationBound]));
  `;
  const run = (mode: string) => JSON.parse(spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, mode], { encoding: 'utf8' }).stdout) as [number, number, number, number, number | null];
  const MiB = 1024 * 1024;
  const free = run('free');
  assert.ok(free[3] > 8 * MiB, `without the hold the new space stayed at ${free[3]}`);
  assert.equal(free[4], null);
  for (const bound of [4, 8]) {
    const [first, afterLoad, afterHold, end, reported] = run(String(bound));
    // The first size is 2 MiB in a bare node; tsx's own loading may have grown it to 4 before the freeze.
    assert.ok(first <= 4 * MiB && afterLoad === first, `frozen at its first size (${first}) while loading: ${afterLoad}`);
    assert.equal(afterHold, bound * MiB, `grown to the bound at once: ${afterHold}`);
    assert.equal(end, bound * MiB, `held at the bound: ${end}`);
    assert.equal(reported, bound * MiB);
  }
});
