import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { removeStaleTempFiles } from './index.js';

test('temp files of interrupted atomic writes are removed at any depth; live writers, look-alikes and node_modules are left alone', () => {
  const root = mkdtempSync(join(tmpdir(), 'stale-tmp-'));
  try {
    // A pid that no longer runs: a finished child's.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout.trim();
    mkdirSync(join(root, 'memory', 'memories'), { recursive: true });
    mkdirSync(join(root, 'plugins', 'x', 'node_modules'), { recursive: true });
    const stale = [join(root, `.context.json.${dead}.0123456789ab.tmp`), join(root, 'memory', 'memories', `.note.md.${dead}.abcdefabcdef.tmp`)];
    const mine = join(root, `.config.json.${process.pid}.aaaaaaaaaaaa.tmp`);
    const live = join(root, `.other.json.${process.ppid}.bbbbbbbbbbbb.tmp`);
    const keep = [live, join(root, 'notes.tmp'), join(root, '.hidden.tmp'), join(root, 'plugins', 'x', 'node_modules', `.pkg.json.${dead}.cccccccccccc.tmp`), join(root, 'context.json')];
    for (const f of [...stale, mine, ...keep]) writeFileSync(f, 'x');
    const removed = removeStaleTempFiles(root).sort();
    assert.deepEqual(removed, [...stale, mine].sort());
    for (const f of keep) assert.ok(existsSync(f), f);
    assert.deepEqual(removeStaleTempFiles(join(root, 'missing')), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
