import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TransferError } from '../spec/index.js';
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, formatVersionFor, parseManifest, partOfEntry } from './manifest.js';
import { RefMap } from './ref-map.js';
import { emptyLedger } from './transfer-host.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TransferError, String(e));
    return e.code;
  }
  return 'none';
};

test('entry names: each place of the format maps to its part; traversal and strangers are refused', () => {
  assert.equal(partOfEntry('sessions/cli%3Atrip.jsonl'), 'sessions');
  assert.equal(partOfEntry('memory/graph.db'), 'graph');
  assert.equal(partOfEntry('library/memories/cat_1.md'), 'library');
  assert.equal(partOfEntry('library/pinned/plan.json'), 'library');
  assert.equal(partOfEntry('knowledge/recipes/content.md'), 'knowledge');
  assert.equal(partOfEntry('media/2026-01-01/a.pdf'), 'media');
  assert.equal(partOfEntry('adapters/my-vendor.lua'), 'adapters');
  assert.equal(partOfEntry('replacements.json'), 'replacements');
  for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'C:/x', 'knowledge/..\\x/content.md', 'memory/./graph.db', 'memory//graph.db', 'x\0y']) assert.equal(code(() => partOfEntry(bad)), 'TRANSFER_PATH_ESCAPE', bad);
  for (const odd of ['memory/other.db', 'sessions/x.txt', 'library/memories/../../x.md', 'library/memories/a.md.exe', 'media/.hidden', 'persona.md/x', 'README', 'adapters/x.txt', 'adapters/.x.lua', 'adapters/a/b.lua', 'adapters/-x.lua', 'replacements.json/x']) assert.notEqual(code(() => partOfEntry(odd)), 'none', odd);
});

test('manifest: a newer format says so before anything else is checked; a foreign one is not an export', () => {
  assert.equal(code(() => parseManifest(JSON.stringify({ format: EXPORT_FORMAT, formatVersion: 7, files: 'whatever' }))), 'TRANSFER_FORMAT_TOO_NEW');
  // Version 3 (decision 0540: Lua adapters) is written only when an adapter is in it, else 2
  // (decision 0320: pair tombstones); version 4 (decision 0620: replaced turns) only when some are
  // in it; version 1 still reads.
  const ok = (v: number) => parseManifest(JSON.stringify({ format: EXPORT_FORMAT, formatVersion: v, homeagentVersion: '1', createdAt: 'x', counts: {}, files: [] })).formatVersion;
  assert.equal(EXPORT_FORMAT_VERSION, 4);
  assert.deepEqual([ok(1), ok(2), ok(3), ok(4)], [1, 2, 3, 4]);
  assert.equal(code(() => ok(5)), 'TRANSFER_FORMAT_TOO_NEW');
  assert.equal(formatVersionFor([{ part: 'sessions' }, { part: 'settings' }]), 2);
  assert.equal(formatVersionFor([{ part: 'settings' }, { part: 'adapters' }]), 3);
  assert.equal(formatVersionFor([{ part: 'adapters' }, { part: 'replacements' }]), 4);
  assert.equal(code(() => parseManifest(JSON.stringify({ format: 'zip-of-cats', formatVersion: 1 }))), 'TRANSFER_NOT_AN_EXPORT');
  assert.equal(code(() => parseManifest('{not json')), 'TRANSFER_CORRUPT');
  assert.equal(code(() => parseManifest(JSON.stringify({ format: EXPORT_FORMAT, formatVersion: 1, homeagentVersion: '1', createdAt: 'x', counts: {}, files: [{ path: 'a', part: 'sessions', bytes: 1, sha256: 'nothex' }] }))), 'TRANSFER_CORRUPT');
});

test('RefMap: renamed sessions rename their turn refs; forgotten refs map to nothing', () => {
  const ledger = { ...emptyLedger(), isForgotten: (r: string) => r === 'cli:a#2' };
  const m = new RefMap(ledger, new Set(['cli:b#1']));
  assert.equal(m.ref('cli:a#1'), 'cli:a#1');
  assert.equal(m.ref('cli:a#2'), undefined);
  assert.equal(m.ref('cli:b#1'), undefined, 'a tombstone the archive carries');
  m.renameSession('cli:a', 'cli:a.imported-1');
  assert.equal(m.ref('cli:a#1/user'), 'cli:a.imported-1#1/user');
  assert.equal(m.ref('cli:a#2'), 'cli:a.imported-1#2', 'a renamed session is not ours: our tombstones do not apply');
  const id = m.newId('doc-1');
  assert.equal(m.ref('doc-1'), id);
  assert.equal(m.newId('doc-1'), id);
});
