import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeldAdapters } from './held-adapters.js';

const code = (e: unknown) => (e as { code?: string }).code;

test('held adapters (decision 0620): a link or a non-text file in imported/ is not offered or taken; the same code as yours replaces nothing', () => {
  const root = mkdtempSync(join(tmpdir(), 'ha-held-'));
  try {
    const dir = join(root, 'adapters');
    const shipped = join(root, 'shipped');
    mkdirSync(join(dir, 'imported'), { recursive: true });
    mkdirSync(shipped);
    writeFileSync(join(root, 'secret.txt'), 'not an adapter');
    symlinkSync(join(root, 'secret.txt'), join(dir, 'imported', 'linked.lua'));
    writeFileSync(join(dir, 'imported', 'binary.lua'), Buffer.from([0x1b, 0x4c, 0x75, 0x61, 0x00]));
    writeFileSync(join(dir, 'imported', 'mine.lua'), '-- mine\n');
    writeFileSync(join(dir, 'mine.lua'), '-- mine\n');
    const held = new HeldAdapters(dir, shipped, () => [{ name: 'src', adapter: 'mine', enabled: true }]);
    assert.deepEqual(held.list().map((h) => [h.name, h.replaces, h.usedBy]), [['mine', undefined, [{ name: 'src', enabled: true }]]]);
    assert.throws(() => held.get('linked'), (e) => code(e) === 'NOT_FOUND');
    assert.throws(() => held.take('linked', { sha256: '0'.repeat(64) }), (e) => code(e) === 'NOT_FOUND');
    assert.equal(readFileSync(join(root, 'secret.txt'), 'utf8'), 'not an adapter');
    assert.throws(() => held.take('binary', { sha256: '0'.repeat(64) }), (e) => code(e) === 'VALIDATION');
    assert.throws(() => held.take('x/../../y', { sha256: '0'.repeat(64) }), (e) => code(e) === 'VALIDATION');
    assert.deepEqual(held.take('mine', { sha256: held.get('mine').sha256 }), { name: 'mine' });
    assert.equal(existsSync(join(dir, 'imported', 'mine.lua')), false);
    assert.equal(readFileSync(join(dir, 'mine.lua'), 'utf8'), '-- mine\n');
    assert.equal(existsSync(join(dir, 'replaced')), false, 'nothing was replaced, nothing kept aside');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
