import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, existsSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PathGuard, ChangeJournal, filesPlugin } from './index.js';
import { startFake } from '../__fixtures__/fake-sdk.js';

function tmp(t: { after(fn: () => void): void }): string {
  const d = mkdtempSync(join(tmpdir(), 'ha-files-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

test('PathGuard accepts paths inside a root and refuses .., absolute and symlink escapes', async (t) => {
  const d = tmp(t);
  const root = join(d, 'root');
  const outside = join(d, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  const g = new PathGuard([root]);
  await g.open();
  mkdirSync(join(root, 'sub'));
  symlinkSync(outside, join(root, 'escape'));
  symlinkSync(join(outside, 'nowhere'), join(root, 'dangling'));
  assert.equal((await g.resolve('sub/new/file.txt')).exists, false);
  assert.equal((await g.resolve('sub')).exists, true);
  assert.ok((await g.resolve(join(root, 'a.txt'))).abs.endsWith('a.txt'));
  for (const bad of ['../outside/secret.txt', 'sub/../../outside', join(outside, 'secret.txt'), 'escape/secret.txt', 'escape/new-file', 'escape', 'dangling', '/etc/passwd']) {
    await assert.rejects(g.resolve(bad), (e: Error & { code?: string }) => e.code === 'FORBIDDEN', bad);
  }
  await assert.rejects(g.resolve(''), /non-empty/);
  await assert.rejects(g.resolve('a\0b'), /NUL/);
});

test('ChangeJournal undo restores exact bytes of a write and a delete, and removes a created file', async (t) => {
  const d = tmp(t);
  const j = new ChangeJournal(join(d, 'data'));
  await j.open();
  const f = join(d, 'f.bin');
  const original = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0x80]);
  writeFileSync(f, original);
  const w = await j.record({ op: 'write', path: f, before: readFileSync(f), sizeAfter: 3 });
  writeFileSync(f, 'new');
  await j.undo(w.id);
  assert.deepEqual(readFileSync(f), original);
  await assert.rejects(j.undo(w.id), (e: Error & { code?: string }) => e.code === 'CONFLICT');
  const del = await j.record({ op: 'delete', path: f, before: readFileSync(f) });
  rmSync(f);
  await j.undo(del.id);
  assert.deepEqual(readFileSync(f), original);
  const g = join(d, 'new.txt');
  const c = await j.record({ op: 'create', path: g, sizeAfter: 2 });
  writeFileSync(g, 'hi');
  await j.undo(c.id);
  assert.equal(existsSync(g), false);
  await assert.rejects(j.undo('nope'), (e: Error & { code?: string }) => e.code === 'NOT_FOUND');
  // persisted: a new journal over the same folder lists the same changes
  const j2 = new ChangeJournal(join(d, 'data'));
  await j2.open();
  assert.deepEqual(j2.list().map((x) => [x.op, x.undone]), [['create', true], ['delete', true], ['write', true]]);
});

test('ChangeJournal refuses to undo an older change while a newer one of the same file is in effect', async (t) => {
  const d = tmp(t);
  const j = new ChangeJournal(join(d, 'data'));
  await j.open();
  const f = join(d, 'x.txt');
  const c1 = await j.record({ op: 'create', path: f });
  writeFileSync(f, 'one');
  const c2 = await j.record({ op: 'write', path: f, before: readFileSync(f) });
  writeFileSync(f, 'two');
  await assert.rejects(j.undo(c1.id), /newer change/);
  await j.undo(c2.id);
  assert.equal(readFileSync(f, 'utf8'), 'one');
  await j.undo(c1.id);
  assert.equal(existsSync(f), false);
});

test('ChangeJournal keeps a corrupt index aside and starts empty', async (t) => {
  const d = tmp(t);
  mkdirSync(join(d, 'data'));
  writeFileSync(join(d, 'data', 'changes.json'), '{not json');
  const moved: string[] = [];
  const j = new ChangeJournal(join(d, 'data'), { onCorrupt: (m) => moved.push(m) });
  await j.open();
  assert.equal(j.list().length, 0);
  assert.equal(moved.length, 1);
  assert.ok(existsSync(moved[0]));
});

test('files plugin: tools write/read/list/search/delete inside roots, journal every change, undo over HTTP', async (t) => {
  const h = await startFake(filesPlugin);
  t.after(() => h.cleanup());
  const root = join(h.home, 'files');
  assert.match(await h.callTool('files_write', { path: 'notes/a.txt', content: 'hello 世界\nline two' }), /created/);
  assert.equal(readFileSync(join(root, 'notes/a.txt'), 'utf8'), 'hello 世界\nline two');
  // A file made for the user has the usual permissions (0666 less the umask), not the daemon's private 0600.
  const umask = process.umask(0o022);
  process.umask(umask);
  assert.equal(statSync(join(root, 'notes/a.txt')).mode & 0o777, 0o666 & ~umask);
  assert.match(await h.callTool('files_read', { path: 'notes/a.txt' }), /hello 世界/);
  assert.match(await h.callTool('files_list', { recursive: true }), /notes\/a\.txt/);
  assert.match(await h.callTool('files_search', { query: 'TWO' }), /a\.txt:2: line two/);
  await h.callTool('files_write', { path: 'notes/a.txt', content: 'replaced' });
  await h.callTool('files_delete', { path: 'notes/a.txt' });
  assert.equal(existsSync(join(root, 'notes/a.txt')), false);
  await assert.rejects(h.callTool('files_read', { path: '../../etc/passwd' }), /outside the allowed roots/);
  await assert.rejects(h.callTool('files_write', { path: '/tmp/evil.txt', content: 'x' }), /outside the allowed roots/);
  await assert.rejects(h.callTool('files_write', { path: 'x' }), /invalid argument "content"/);

  const list = await h.request('GET', '/api/v1/changes');
  assert.equal(list.status, 200);
  const changes = list.json.value as { id: string; op: string }[];
  assert.deepEqual(changes.map((c) => c.op), ['delete', 'write', 'create']);
  // undo the delete → "replaced" back; undo the write → original bytes back; undo create → gone
  assert.equal((await h.request('POST', `/api/v1/changes/${changes[0].id}/undo`)).status, 200);
  assert.equal(readFileSync(join(root, 'notes/a.txt'), 'utf8'), 'replaced');
  await h.request('POST', `/api/v1/changes/${changes[1].id}/undo`);
  assert.equal(readFileSync(join(root, 'notes/a.txt'), 'utf8'), 'hello 世界\nline two');
  await h.request('POST', `/api/v1/changes/${changes[2].id}/undo`);
  assert.equal(existsSync(join(root, 'notes/a.txt')), false);
  const again = await h.request('POST', `/api/v1/changes/${changes[2].id}/undo`);
  assert.equal(again.status, 409);
  assert.equal((again.json.error as { code: string }).code, 'CONFLICT');
  const missing = await h.request('POST', '/api/v1/changes/nope/undo');
  assert.equal(missing.status, 404);
  assert.ok(h.services.get('changes'), 'provides the changes service');
  assert.match(await h.callTool('files_changes'), /create .*a\.txt .*\(undone\)/);
  await h.callTool('files_write', { path: 'b.txt', content: 'bee' });
  const id = /^(\S+): create/.exec(await h.callTool('files_changes', { limit: 1 }))![1];
  assert.match(await h.callTool('files_undo', { id }), /undone create/);
  assert.equal(existsSync(join(root, 'b.txt')), false);
});

test('files plugin: size caps on write and read, symlink escape refused', async (t) => {
  const h = await startFake(filesPlugin, { settings: { max_write_bytes: 10, max_read_bytes: 1024, max_journal_file_bytes: 2000 } });
  t.after(() => h.cleanup());
  await assert.rejects(h.callTool('files_write', { path: 'big.txt', content: 'x'.repeat(11) }), /larger than 10 bytes/);
  writeFileSync(join(h.home, 'files', 'long.txt'), 'y'.repeat(3000));
  const out = await h.callTool('files_read', { path: 'long.txt' });
  assert.match(out, /truncated: showed bytes 0-1024 of 3000; read again with offset=1024/);
  // too big to keep an undo copy of: neither overwritten nor deleted
  await assert.rejects(h.callTool('files_delete', { path: 'long.txt' }), /too large to keep an undo copy/);
  await assert.rejects(h.callTool('files_write', { path: 'long.txt', content: 'x' }), /too large to keep an undo copy/);
  assert.equal(readFileSync(join(h.home, 'files', 'long.txt'), 'utf8').length, 3000);
  const outside = mkdtempSync(join(tmpdir(), 'ha-out-'));
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(join(outside, 's.txt'), 'secret');
  symlinkSync(outside, join(h.home, 'files', 'link'));
  await assert.rejects(h.callTool('files_read', { path: 'link/s.txt' }), /outside the allowed roots/);
  await assert.rejects(h.callTool('files_write', { path: 'link/new.txt', content: 'x' }), /outside the allowed roots/);
  assert.equal(existsSync(join(outside, 'new.txt')), false);
});

test('files plugin: changing roots applies to the next tool call', async (t) => {
  const h = await startFake(filesPlugin);
  t.after(() => h.cleanup());
  const other = mkdtempSync(join(tmpdir(), 'ha-root2-'));
  t.after(() => rmSync(other, { recursive: true, force: true }));
  await h.callTool('files_write', { path: 'old.txt', content: 'x' });
  await h.setSetting('roots', [other]);
  await h.callTool('files_write', { path: 'new.txt', content: 'y' });
  assert.equal(readFileSync(join(other, 'new.txt'), 'utf8'), 'y');
  await assert.rejects(h.callTool('files_read', { path: join(h.home, 'files', 'old.txt') }), /outside the allowed roots/);
});
