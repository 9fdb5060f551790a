/**
 * Decision 0310: a config.db SQLite refuses is read back — real files written by the registry
 * (core settings, a secret, a plugin's many settings, people), damaged as disks and kills damage
 * them (a page overwritten, the file cut short, the header garbled, an empty file over its WAL, a
 * file that is not SQLite), then opened again.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { ConfigKeyDef, ConfigValue } from '../spec/index.js';
import { ConfigRegistry } from './config-registry.js';
import { coreConfigDefaults } from './core-defaults.js';
import { freePages, overwriteHeader, overwritePage, readPageBytes, tablePages, writeUint32 } from '../fs/sqlite/__fixtures__/sqlite-damage.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-config-salvage-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const T0 = Date.UTC(2026, 2, 1);
const SECRET = 'sk-live-SALVAGE-0123456789abcdef';
const PLUGIN_SECRET = 'tg-bot-SALVAGE-987654321';
const BULK = 400;

const def = <T extends ConfigValue>(schema: z.ZodType<T>, d: T, extra: Partial<ConfigKeyDef> = {}): ConfigKeyDef => ({ schema, default: d, description: 'test key', ...extra }) as unknown as ConfigKeyDef;
/** A plugin with many settings (its table spans many pages) and a secret. */
const bulkKeys = (): Record<string, ConfigKeyDef> => ({
  ...Object.fromEntries(Array.from({ length: BULK }, (_, i) => [`k${i}`, def(z.string(), '')])),
  token: def(z.string(), '', { secret: true }),
});
const bulkValue = (i: number) => `value ${i} `.padEnd(60, '.');

interface Opened {
  reg: ConfigRegistry;
  warnings: { msg: string; data?: Record<string, unknown> }[];
}

function registry(file: string, clock = T0): Opened {
  const warnings: Opened['warnings'] = [];
  const reg = new ConfigRegistry({ dbPath: file, env: {}, now: () => clock, logger: { warn: (msg, data) => warnings.push({ msg, data }) } });
  reg.open();
  reg.register(coreConfigDefaults());
  reg.registerPlugin('bulk', bulkKeys());
  return { reg, warnings };
}

/** A real config.db: core settings with a secret, 400 plugin settings and a plugin secret, 120 people with linked ids. */
async function build(): Promise<{ file: string; before: Map<string, string> }> {
  const dir = path.join(root, `c${n++}`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'config.db');
  const { reg } = registry(file);
  await reg.set('core.memory.embedding_api.api_key', SECRET);
  await reg.set('core.memory.embedding_api.base_url', 'http://127.0.0.1:9/v1');
  await reg.set('core.agent.max_tool_rounds', 13);
  await reg.set('core.agent.name', 'Jarvis');
  for (let i = 0; i < BULK; i++) await reg.set(`plugin.bulk.k${i}`, bulkValue(i));
  await reg.set('plugin.bulk.token', PLUGIN_SECRET);
  for (let i = 0; i < 120; i++) reg.people.link([`telegram:${1000 + i}`, `qq:${5000 + i}`], { name: `Person ${i}` });
  reg.people.rename('owner', 'Ada');
  const before = new Map<string, string>();
  for (const k of [...reg.list('core').map((i) => i.key), ...reg.list('plugin.bulk').map((i) => i.key)]) {
    const t = reg.storedText(k);
    if (t !== undefined) before.set(k, t);
  }
  reg.close();
  return { file, before };
}

const leaves = (file: string, name: string) => tablePages(file, name, 'leaf');

/** A leaf of `name` whose bytes hold `has` and not `hasNot` (which page a row is on is the file's business). */
function leafWith(file: string, name: string, has: string, hasNot: string): { pageno: number; ncell: number } {
  const bytes = fs.readFileSync(file);
  const page = leaves(file, name).find((p) => {
    const text = bytes.subarray((p.pageno - 1) * 4096, p.pageno * 4096).toString('latin1');
    return text.includes(has) && !text.includes(hasNot);
  });
  assert.ok(page, `a leaf of ${name} with ${has}`);
  return page;
}

/** No secret in any log line or its data. */
function assertNoSecret(o: Opened): void {
  const text = JSON.stringify(o.warnings);
  assert.doesNotMatch(text, new RegExp(SECRET), 'the core secret is never logged');
  assert.doesNotMatch(text, new RegExp(PLUGIN_SECRET), "the plugin's secret is never logged");
}

test('0310: a page of a plugin’s settings overwritten — every other setting (the secrets byte for byte) and every person comes back; only that page’s rows are lost, and the report says so', async () => {
  const { file, before } = await build();
  const victim = leafWith(file, 'config_bulk', 'plugin.bulk.k2', 'plugin.bulk.token');
  overwritePage(file, victim.pageno);
  const bytes = fs.readFileSync(file);
  const o = registry(file, T0 + 5);
  const { reg } = o;
  const aside = reg.setAside!;
  assert.ok(aside, 'the damaged file was set aside');
  assert.equal(aside.file, `${file}.corrupt-${T0 + 5}`);
  assert.deepEqual(fs.readFileSync(aside.file), bytes, 'the damaged file is kept as it was');
  assert.equal(reg.storedText('core.memory.embedding_api.api_key'), before.get('core.memory.embedding_api.api_key'), 'the secret is exactly as stored');
  assert.equal(reg.get('core.memory.embedding_api.api_key'), SECRET);
  assert.equal(reg.get('plugin.bulk.token'), PLUGIN_SECRET);
  assert.equal(reg.get('core.agent.max_tool_rounds'), 13);
  assert.equal(reg.get('core.agent.name'), 'Jarvis');
  let lost = 0;
  for (let i = 0; i < BULK; i++) {
    const v = reg.get(`plugin.bulk.k${i}`);
    if (v === '') lost++;
    else assert.equal(v, bulkValue(i));
  }
  assert.equal(lost, victim.ncell, 'exactly the rows of the overwritten page are gone');
  assert.equal(reg.people.list().length, 121, 'the owner and 120 people');
  assert.equal(reg.people.find('owner')?.name, 'Ada', 'a renamed owner keeps the name');
  assert.deepEqual(reg.people.personOf('qq:5007')?.ids, ['qq:5007', 'telegram:1007']);
  const s = aside.salvaged;
  assert.equal(s.unreadablePages, 1);
  assert.deepEqual(s.tables.config_bulk, { read: BULK + 1 - victim.ncell, kept: BULK + 1 - victim.ncell, skipped: 0 });
  assert.equal(s.tables.config.kept, [...before.keys()].filter((k) => k.startsWith('core.')).length);
  assert.deepEqual([s.tables.people.kept, s.tables.person_ids.kept], [121, 240]);
  assert.match(o.warnings.map((w) => w.msg).join('\n'), /config database is corrupt.*kept aside as .*corrupt-\d+.*started a new one with what could be read back of it: \d+ of \d+ rows \(\d+ settings, 121 people, 240 linked ids\); 1 damaged page could not be read/s);
  assertNoSecret(o);
  // The new store is a sound one: a change lands and opens cleanly next time.
  await reg.set('core.agent.name', 'Friday');
  reg.close();
  const again = registry(file, T0 + 6);
  assert.equal(again.reg.setAside, undefined);
  assert.equal(again.reg.get('core.agent.name'), 'Friday');
  assert.equal(again.reg.get('core.memory.embedding_api.api_key'), SECRET);
  again.reg.close();
});

test('0310: settings deleted long ago stay deleted — a stale inner page of a plugin’s table pointing at a freed page that still holds them is skipped, the rest comes back', async () => {
  const { file } = await build();
  // A config.db written before the registry turned secure_delete on (or by another tool): with
  // SQLite's default, deleting rows one by one merges leaves, and a freed leaf keeps the cells it
  // held — copies of settings that were moved to its siblings.
  const raw = (keys: number[]) => {
    const w = new Database(file);
    w.pragma('secure_delete = OFF');
    const del = w.prepare('DELETE FROM config_bulk WHERE key = ?');
    for (const i of keys) del.run(`plugin.bulk.k${i}`);
    w.close();
  };
  raw(Array.from({ length: 100 }, (_, i) => 100 + i));
  const keysOn = (page: number) => [...readPageBytes(file, page, 0, 4096).toString('latin1').matchAll(/plugin\.bulk\.k(\d+)/g)].map((m) => Number(m[1]));
  const freed = freePages(file).find((p) => readPageBytes(file, p, 0, 1)[0] === 0x0a && keysOn(p).length > 0);
  assert.ok(freed, 'a freed leaf still holds settings');
  const copied = [...new Set(keysOn(freed))];
  // Then those settings are deleted too (a removed secret): their only bytes left are the freed page's.
  raw(copied);
  assert.ok(freePages(file).includes(freed), 'the page is still free');
  assert.deepEqual([...new Set(keysOn(freed))], copied, 'and still holds the deleted settings');
  const deleted = new Set([...Array.from({ length: 100 }, (_, i) => 100 + i), ...copied]);
  // The lost write: the root of config_bulk names the freed page as its first child.
  const db = new Database(file, { readonly: true });
  const rootPage = db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'config_bulk'").pluck().get() as number;
  db.close();
  const head = readPageBytes(file, rootPage, 0, 14);
  assert.equal(head[0], 0x02, 'the root is an interior index page (a WITHOUT ROWID table)');
  const cell = head.readUInt16BE(12);
  const child = readPageBytes(file, rootPage, cell, 4).readUInt32BE(0);
  const lostLeaf = leaves(file, 'config_bulk').find((p) => p.pageno === child)!;
  assert.ok(lostLeaf, 'the first child is a live leaf');
  writeUint32(file, rootPage, cell, freed);

  const o = registry(file, T0 + 9);
  const aside = o.reg.setAside;
  assert.ok(aside, 'SQLite refuses the file (a page both free and in a tree)');
  const back: number[] = [];
  let lost = 0;
  for (let i = 0; i < BULK; i++) {
    const v = o.reg.get(`plugin.bulk.k${i}`);
    if (deleted.has(i)) {
      if (v !== '') back.push(i);
    } else if (v === '') lost++;
    else assert.equal(v, bulkValue(i));
  }
  assert.deepEqual(back, [], 'no deleted setting comes back');
  assert.equal(lost, lostLeaf.ncell, 'only the rows of the leaf the stale pointer replaced are lost');
  assert.equal(o.reg.get('plugin.bulk.token'), PLUGIN_SECRET);
  assert.equal(o.reg.get('core.memory.embedding_api.api_key'), SECRET);
  assert.equal(aside.salvaged.freePagesSkipped, 1);
  assert.match(o.warnings.map((w) => w.msg).join('\n'), /1 free page a stale page pointed to skipped \(deleted rows stay deleted\)/);
  assertNoSecret(o);
  o.reg.close();
});

test('0310: a page of people overwritten — a linked id whose person was lost keeps its link (the person re-created, named after the id)', async () => {
  const { file } = await build();
  const pages = leaves(file, 'people');
  assert.ok(pages.length >= 2, `people span ${pages.length} pages`);
  overwritePage(file, pages[pages.length - 1].pageno);
  const o = registry(file);
  const people = o.reg.people.list();
  const recreated = people.filter((p) => /^(telegram|qq):\d+$/.test(p.name));
  assert.ok(recreated.length > 0 && recreated.length <= pages[pages.length - 1].ncell, `${recreated.length} re-created`);
  for (const p of recreated) assert.equal(p.ids.length, 2, `${p.name} keeps both its ids`);
  assert.equal(people.length, 121, 'nobody lost: every person had linked ids');
  assert.match(o.warnings.map((w) => w.msg).join('\n'), /people re-created from their linked ids/);
  o.reg.close();
});

test('0310: a garbage header (the first 100 bytes) or a garbage first page (the schema) loses no setting', async () => {
  for (const damage of ['header', 'page 1'] as const) {
    const { file, before } = await build();
    if (damage === 'header') {
      overwriteHeader(file);
    } else overwritePage(file, 1);
    const o = registry(file);
    assert.ok(o.reg.setAside, damage);
    for (const [k, text] of before) {
      // A garbage first page leaves the plugin's table unknown (created on demand: no fixed place); core keys are where a new file has them.
      if (damage === 'page 1' && k.startsWith('plugin.')) continue;
      assert.equal(o.reg.storedText(k), text, `${damage}: ${k}`);
    }
    if (damage === 'header') assert.equal(o.reg.setAside!.salvaged.kept, o.reg.setAside!.salvaged.read);
    assertNoSecret(o);
    o.reg.close();
  }
});

test('0310: a file cut short, an empty file, a file that is not SQLite — nothing throws, the store opens, what was before the cut is back', async () => {
  const { file, before } = await build();
  fs.truncateSync(file, Math.floor(fs.statSync(file).size / 4096 / 2) * 4096);
  let o = registry(file);
  assert.ok(o.reg.setAside, 'cut short: set aside');
  assert.equal(o.reg.get('core.memory.embedding_api.api_key'), SECRET, 'the core settings are near the front');
  assert.ok(o.reg.setAside!.salvaged.kept > 10 && o.reg.setAside!.salvaged.kept < before.size + 361, `some rows: ${o.reg.setAside!.salvaged.kept}`);
  o.reg.close();

  const g = (await build()).file;
  fs.writeFileSync(g, 'this is not a database '.repeat(500));
  o = registry(g);
  assert.ok(o.reg.setAside);
  assert.deepEqual([o.reg.setAside!.salvaged.read, o.reg.setAside!.salvaged.kept], [0, 0], 'nothing to read back');
  assert.equal(o.reg.get('core.agent.max_tool_rounds'), 8, 'defaults');
  await o.reg.set('core.agent.max_tool_rounds', 9);
  o.reg.close();
  assert.equal(registry(g).reg.get('core.agent.max_tool_rounds'), 9, 'the new store works');
});

test('0310: a main file of zero bytes over a WAL that holds settings (the file’s content lost in a crash) — what the WAL holds is read back, not wiped by SQLite', async () => {
  const { file } = await build();
  // Settings written after the last checkpoint live only in the WAL; then the main file loses its content.
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.prepare("UPDATE config SET value = ? WHERE key = 'core.agent.name'").run(JSON.stringify('Walter'));
  const copy = path.join(fs.mkdtempSync(path.join(root, 'zero-')), 'config.db');
  fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
  fs.writeFileSync(copy, '');
  db.close();
  const o = registry(copy);
  assert.ok(o.reg.setAside, 'an empty file over a WAL with frames is damaged, not new');
  assert.equal(o.reg.get('core.agent.name'), 'Walter', 'the setting in the WAL came back');
  assert.equal(o.reg.get('core.memory.embedding_api.api_key'), SECRET, 'its page holds the other core settings too');
  assert.ok(fs.existsSync(`${o.reg.setAside!.file}-wal`), 'the WAL is kept with the file it belongs to');
  o.reg.close();
});

test('0310: a salvaged setting that no longer fits its key is dropped when the key is registered — named by key, its value never logged', async () => {
  const { file } = await build();
  // A value the key's schema refuses (stored by an older version, or bytes changed on a readable page).
  const raw = new Database(file);
  raw.prepare("UPDATE config SET value = ? WHERE key = 'core.agent.max_tool_rounds'").run(JSON.stringify('lots-SECRETISH'));
  raw.prepare('UPDATE config_bulk SET value = ? WHERE key = ?').run('{not json', 'plugin.bulk.k1');
  raw.close();
  overwritePage(file, leafWith(file, 'config_bulk', 'plugin.bulk.k5', 'plugin.bulk.k1"').pageno);
  const o = registry(file);
  assert.equal(o.reg.get('core.agent.max_tool_rounds'), 8, 'the default applies');
  assert.equal(o.reg.storedText('core.agent.max_tool_rounds'), undefined, 'and the row is gone');
  assert.equal(o.reg.get('plugin.bulk.k1'), '');
  const s = o.reg.setAside!.salvaged;
  assert.deepEqual(s.droppedKeys?.sort(), ['core.agent.max_tool_rounds', 'plugin.bulk.k1'], 'one does not fit its schema, one does not decode');
  assert.equal(s.kept + s.skipped, s.read);
  const lines = o.warnings.map((w) => `${w.msg} ${JSON.stringify(w.data)}`).join('\n');
  assert.match(lines, /core\.agent\.max_tool_rounds read back from the damaged config\.db no longer fits its key; dropped/);
  assert.doesNotMatch(lines, /lots-SECRETISH|not json/, 'values are not logged');
  o.reg.close();
  const again = registry(file);
  assert.equal(again.reg.storedText('core.agent.max_tool_rounds'), undefined, 'dropped for good');
  again.reg.close();
});

test('0310: a kill during the salvage — a staged file beside the damaged one is thrown away and the salvage redone; a staged file alone is moved in', async () => {
  const { file, before } = await build();
  overwritePage(file, leaves(file, 'config_bulk')[0].pageno);
  // Killed while staging (the damaged file still in place): the leftover is not trusted.
  fs.writeFileSync(`${file}.salvaged`, 'half-written');
  let o = registry(file);
  assert.ok(o.reg.setAside, 'salvaged again');
  assert.equal(o.reg.get('core.memory.embedding_api.api_key'), SECRET);
  assert.equal(fs.existsSync(`${file}.salvaged`), false);
  o.reg.close();
  // Killed after the damaged file was set aside, before the staged one was renamed in.
  const { file: f2 } = await build();
  fs.renameSync(f2, `${f2}.salvaged`);
  fs.writeFileSync(`${f2}.corrupt-${T0}`, 'the damaged one, set aside');
  o = registry(f2);
  assert.equal(o.reg.setAside, undefined, 'the complete staged store is moved in and opens cleanly');
  for (const [k, text] of before) if (k.startsWith('core.')) assert.equal(o.reg.storedText(k), text, k);
  assert.equal(o.reg.get('plugin.bulk.token'), PLUGIN_SECRET);
  o.reg.close();
});
