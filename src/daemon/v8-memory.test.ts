import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs a child that applies (or not) the daemon's flags, makes young garbage, and reports the young generation's size in MiB. */
function youngGeneration(env: Record<string, string>): number {
  const script = `
    import v8 from 'node:v8';
    import { applyDaemonV8Flags } from ${JSON.stringify(path.join(here, 'v8-memory.ts'))};
    const set = applyDaemonV8Flags(process.env);
    const keep = [];
    for (let i = 0; i < 2_000_000; i++) { keep.push({ i, a: [i] }); if (keep.length > 200_000) keep.length = 0; }
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(JSON.stringify({ set, mib: young.space_size / 1048576 }));`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { set: string[]; mib: number };
  return env.HOMEAGENT_V8_OPTIMIZE_FOR_SIZE === '0' ? (assert.deepEqual(out.set, []), out.mib) : (assert.deepEqual(out.set, ['--optimize-for-size']), out.mib);
}

test('the daemon flags keep V8 young generation at most half its default size under the same garbage; HOMEAGENT_V8_OPTIMIZE_FOR_SIZE=0 opts out', () => {
  const withFlags = youngGeneration({});
  const without = youngGeneration({ HOMEAGENT_V8_OPTIMIZE_FOR_SIZE: '0' });
  assert.ok(without >= 16, `default young generation grew to ${without} MiB`);
  assert.ok(withFlags <= without / 2, `with the flags: ${withFlags} MiB, without: ${without} MiB`);
});
