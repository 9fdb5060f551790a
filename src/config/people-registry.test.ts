import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConflictError, NotFoundError, ValidationError } from '../spec/index.js';
import { ConfigRegistry } from './config-registry.js';
import { coreConfigDefaults } from './core-defaults.js';
import { PersonIdFromConfigError } from './people-registry.js';

const dirs: string[] = [];
const open: ConfigRegistry[] = [];
afterEach(() => {
  for (const r of open.splice(0)) r.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function registry(dbPath?: string): { reg: ConfigRegistry; dbPath: string } {
  const p = dbPath ?? path.join((dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'ha-people-'))), dirs[dirs.length - 1]), 'config.db');
  const reg = new ConfigRegistry({ dbPath: p, env: {}, logger: { warn: () => {} } });
  reg.open();
  reg.register(coreConfigDefaults());
  open.push(reg);
  return { reg, dbPath: p };
}

const alice = { id: 'telegram:42', name: 'Al', platform: 'telegram', userId: '42' };
const aliceQq = { id: 'qq:10001', name: 'A', platform: 'qq', userId: '10001' };
const bob = { id: 'qq:20002', name: 'Bob', platform: 'qq', userId: '20002' };

test('link, rename, unlink persist in the config database; the owner always exists', () => {
  const { reg, dbPath } = registry();
  assert.deepEqual(reg.people.list().map((p) => p.id), ['owner']);
  const a = reg.people.link(['telegram:42', 'qq:10001'], { name: 'Alice' });
  assert.match(a.id, /^p-[0-9a-f]+$/);
  assert.deepEqual(a.ids, ['qq:10001', 'telegram:42']);
  assert.equal(reg.people.personOf('qq:10001')?.name, 'Alice');
  assert.equal(reg.people.find('alice')?.id, a.id);
  reg.people.rename(a.id, 'Alice Liddell');
  reg.close();
  const again = registry(dbPath).reg;
  assert.equal(again.people.personOf('telegram:42')?.name, 'Alice Liddell');
  assert.equal(again.people.unlink('telegram:42').removed, false);
  assert.equal(again.people.unlink('qq:10001').removed, true);
  assert.deepEqual(again.people.list().map((p) => p.id), ['owner']);
  const db = new Database(dbPath, { readonly: true });
  assert.equal(db.pragma('user_version', { simple: true }), 4);
  db.close();
});

test('ids linked to another person conflict; bad ids and names are refused', () => {
  const { reg } = registry();
  const a = reg.people.link(['telegram:42'], { name: 'Alice' });
  reg.people.link(['qq:20002'], { name: 'Bob' });
  assert.throws(() => reg.people.link(['telegram:42', 'qq:20002']), ConflictError);
  assert.throws(() => reg.people.link(['qq:20002'], { to: a.id }), ConflictError);
  assert.throws(() => reg.people.link(['no-colon']), ValidationError);
  assert.throws(() => reg.people.link(['qq:1 2']), ValidationError);
  assert.throws(() => reg.people.link([]), ValidationError);
  assert.throws(() => reg.people.rename(a.id, '\u0000x'), ValidationError);
  assert.throws(() => reg.people.rename('../etc', 'x'), NotFoundError);
  assert.throws(() => reg.people.unlink('qq:999'), NotFoundError);
  // Adding to an existing person by one of their ids.
  assert.deepEqual(reg.people.link(['telegram:42', 'qq:10001']).ids, ['qq:10001', 'telegram:42']);
  // "New person" with an id someone has: refused with who has it — not the name put onto them.
  assert.throws(() => reg.people.link(['telegram:42', 'qq:30003'], { name: 'Carol', newPerson: true }), (e: Error) => e instanceof ConflictError && /telegram:42 already belongs to Alice/.test(e.message));
  assert.equal(reg.people.find('Alice')?.name, 'Alice');
  assert.equal(reg.people.find('Carol'), undefined);
  assert.equal(reg.people.personOf('qq:30003'), undefined, 'nothing of the refused link was kept');
  assert.throws(() => reg.people.link(['qq:30003'], { name: 'Carol', newPerson: true, to: a.id }), ValidationError);
  assert.equal(reg.people.link(['qq:30003'], { name: 'Carol', newPerson: true }).name, 'Carol');
});

test('core.identity.owner_ids keeps working: those ids are the owner, and cannot be unlinked here', async () => {
  const { reg } = registry();
  await reg.set('core.identity.owner_ids', ['telegram:7']);
  assert.equal(reg.people.personOf('telegram:7')?.owner, true);
  assert.equal(reg.people.personOf('user')?.owner, true);
  reg.people.link(['qq:7'], { to: 'owner' });
  const owner = reg.people.find('me')!;
  assert.deepEqual(owner.ids, ['qq:7', 'telegram:7']);
  assert.deepEqual(owner.configIds, ['telegram:7']);
  // A new person with one of your own ids: refused, and your name stays yours.
  assert.throws(() => reg.people.link(['telegram:7'], { name: 'Carol', newPerson: true }), /telegram:7 already belongs to you \(the owner\)/);
  assert.equal(reg.people.find('me')!.name, owner.name);
  assert.throws(() => reg.people.unlink('telegram:7'), PersonIdFromConfigError);
  assert.equal(reg.people.scopeOf({ id: 'qq:7' }, { kind: 'private', id: 'qq:private:7' }), undefined);
});

test('scope: a group sees itself; a linked person sees their private chats on every platform, nobody else’s', () => {
  const { reg } = registry();
  reg.people.notePrivateChat(alice.id, 'telegram:42');
  reg.people.notePrivateChat(aliceQq.id, 'qq:private:10001');
  reg.people.notePrivateChat(bob.id, 'qq:private:20002');
  // A private chat is its first speaker's for ever.
  reg.people.notePrivateChat(bob.id, 'telegram:42');
  const group = { kind: 'group' as const, id: 'qq:group:5' };
  assert.deepEqual(reg.people.scopeOf(alice, group), ['qq:group:5']);
  assert.deepEqual(reg.people.scopeOf(aliceQq, { kind: 'private', id: 'qq:private:10001' }), ['qq:private:10001']);
  reg.people.link([alice.id, aliceQq.id], { name: 'Alice' });
  assert.deepEqual([...reg.people.scopeOf(aliceQq, { kind: 'private', id: 'qq:private:10001' })!].sort(), ['qq:private:10001', 'telegram:42']);
  assert.deepEqual(reg.people.scopeOf(bob, { kind: 'private', id: 'qq:private:20002' }), ['qq:private:20002']);
  assert.deepEqual(reg.people.scopeOf(alice, group), ['qq:group:5']);
  assert.equal(reg.people.scopeOf(undefined, undefined), undefined);
});

test('an id of Telegram or QQ that could be no one (telegram:abc) is refused with why; another app\'s id is taken as written (found by a new-user walk)', async () => {
  const reg = registry().reg.people;
  assert.throws(() => reg.link(['telegram:abc'], { name: 'A' }), { code: 'VALIDATION', message: 'telegram:abc is not a Telegram user: a Telegram user id is a number, such as telegram:123456789' });
  assert.throws(() => reg.link(['qq:bob'], { name: 'B' }), { code: 'VALIDATION', message: /qq:bob is not a QQ user/ });
  assert.equal(reg.link(['telegram:42', 'qq:10001', 'matrix:@bob:example.org'], { name: 'C' }).ids.length, 3);
  // Your own ids, the same rule.
  const cfg = registry().reg;
  await assert.rejects(async () => cfg.set('core.identity.owner_ids', ['telegram:me']), /telegram:me is not a Telegram user/);
});
