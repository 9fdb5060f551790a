import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsyncPaths, fsyncPathsSync, writeFileAtomic, writeJsonAtomic, writeFileAtomicSync } from './index.js';

const root = mkdtempSync(join(tmpdir(), 'ha-fs-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const dir = () => {
  const d = join(root, String(n++));
  mkdirSync(d);
  return d;
};

test('writeFileAtomic writes the complete content and leaves no temp file', async () => {
  const d = dir();
  const big = 'x'.repeat(3 * 1024 * 1024) + 'END';
  await writeFileAtomic(join(d, 'a.txt'), 'old');
  await writeFileAtomic(join(d, 'a.txt'), big);
  assert.equal(readFileSync(join(d, 'a.txt'), 'utf8'), big);
  await writeFileAtomic(join(d, 'b.bin'), new Uint8Array([1, 2, 3]));
  assert.deepEqual([...readFileSync(join(d, 'b.bin'))], [1, 2, 3]);
  assert.deepEqual(readdirSync(d).sort(), ['a.txt', 'b.bin']);
});

test('writeFileAtomic creates missing folders', async () => {
  const f = join(dir(), 'x', 'y', 'z.txt');
  await writeFileAtomic(f, 'deep');
  assert.equal(readFileSync(f, 'utf8'), 'deep');
});

test('a failing write leaves the old file intact and removes the temp file', async () => {
  const d = dir();
  const f = join(d, 'state.json');
  writeFileSync(f, 'OLD');
  async function* failing() {
    yield 'partial new content ';
    throw new Error('source broke');
  }
  await assert.rejects(writeFileAtomic(f, failing()), /source broke/);
  assert.equal(readFileSync(f, 'utf8'), 'OLD');
  assert.deepEqual(readdirSync(d), ['state.json']);
});

test('a failing rename (target is a non-empty folder) removes the temp file', async () => {
  const d = dir();
  mkdirSync(join(d, 'taken'));
  writeFileSync(join(d, 'taken', 'keep'), 'k');
  await assert.rejects(writeFileAtomic(join(d, 'taken'), 'new'));
  assert.deepEqual(readdirSync(d), ['taken']);
  assert.equal(readFileSync(join(d, 'taken', 'keep'), 'utf8'), 'k');
  assert.throws(() => writeFileAtomicSync(join(d, 'taken'), 'new'));
  assert.deepEqual(readdirSync(d), ['taken']);
});

test("mode 'umask': a new file gets 0666 less the umask, a replaced file keeps its mode", async () => {
  const d = mkdtempSync(join(tmpdir(), 'atomic-umask-'));
  const old = process.umask(0o022);
  try {
    await writeFileAtomic(join(d, 'script.sh'), '#!/bin/sh\n', { mode: 'umask' });
    assert.equal(statSync(join(d, 'script.sh')).mode & 0o777, 0o644);
    chmodSync(join(d, 'script.sh'), 0o755);
    await writeFileAtomic(join(d, 'script.sh'), '#!/bin/sh\necho hi\n', { mode: 'umask' });
    assert.equal(statSync(join(d, 'script.sh')).mode & 0o777, 0o755, 'an edit keeps the executable bit');
    writeFileAtomicSync(join(d, 'sync.txt'), 'x', { mode: 'umask' });
    assert.equal(statSync(join(d, 'sync.txt')).mode & 0o777, 0o644);
  } finally {
    process.umask(old);
    rmSync(d, { recursive: true, force: true });
  }
});

test('mode: new files are 0600 by default, an explicit mode is exact, a replaced file keeps its mode', async () => {
  const d = dir();
  await writeFileAtomic(join(d, 'new'), 'n');
  assert.equal(statSync(join(d, 'new')).mode & 0o777, 0o600);
  await writeFileAtomic(join(d, 'shared'), 's', { mode: 0o644 });
  assert.equal(statSync(join(d, 'shared')).mode & 0o777, 0o644);
  chmodSync(join(d, 'shared'), 0o640);
  await writeFileAtomic(join(d, 'shared'), 's2');
  assert.equal(statSync(join(d, 'shared')).mode & 0o777, 0o640);
  writeFileAtomicSync(join(d, 'sync'), 'y', { mode: 0o604 });
  assert.equal(statSync(join(d, 'sync')).mode & 0o777, 0o604);
});

test('writeJsonAtomic round-trips a value; writeFileAtomicSync replaces content', async () => {
  const d = dir();
  await writeJsonAtomic(join(d, 'v.json'), { a: [1, 'two'], b: null }, { indent: 1 });
  assert.deepEqual(JSON.parse(readFileSync(join(d, 'v.json'), 'utf8')), { a: [1, 'two'], b: null });
  assert.match(readFileSync(join(d, 'v.json'), 'utf8'), /\n "a"/);
  writeFileAtomicSync(join(d, 'pid'), '1\n');
  writeFileAtomicSync(join(d, 'pid'), '42\n');
  assert.equal(readFileSync(join(d, 'pid'), 'utf8'), '42\n');
  assert.deepEqual(readdirSync(d).sort(), ['pid', 'v.json']);
});

test('fsyncPaths(Sync) flush files and folders; a missing file is an error (an import stops before its swap), a folder that is gone is skipped', async () => {
  const d = mkdtempSync(join(root, 'sync-'));
  writeFileSync(join(d, 'merged.db'), 'x');
  assert.doesNotThrow(() => fsyncPathsSync([join(d, 'merged.db')], [d, join(d, 'gone')]));
  assert.throws(() => fsyncPathsSync([join(d, 'missing.db')]), /ENOENT/);
  await fsyncPaths([join(d, 'merged.db')], [d, join(d, 'gone')]);
  await assert.rejects(fsyncPaths([join(d, 'missing.db')]), /ENOENT/);
});
