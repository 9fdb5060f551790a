import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError, type ConfigKeyDef, type ConfigValue } from '../spec/index.js';
import { ConfigRegistry } from './config-registry.js';
import { coreConfigDefaults } from './core-defaults.js';

const dirs: string[] = [];
const open: ConfigRegistry[] = [];
afterEach(() => {
  for (const r of open.splice(0)) r.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmpDb(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-config-'));
  dirs.push(dir);
  return path.join(dir, 'config.db');
}

function makeRegistry(dbPath: string, env: Record<string, string> = {}) {
  const warnings: { msg: string; data?: Record<string, unknown> }[] = [];
  const reg = new ConfigRegistry({ dbPath, env, logger: { warn: (msg, data) => warnings.push({ msg, data }) } });
  reg.open();
  open.push(reg);
  return { reg, warnings };
}

const def = <T extends ConfigValue>(schema: z.ZodType<T>, d: T, extra: Partial<ConfigKeyDef> = {}): ConfigKeyDef =>
  ({ schema, default: d, description: 'test key', ...extra }) as unknown as ConfigKeyDef;

const SECRET = 'sk-live-0123456789abcdef';

describe('ConfigRegistry', () => {
  test('a replaced or removed API key is overwritten on disk (secure_delete), not left in a freed cell', () => {
    const db = tmpDb();
    const { reg } = makeRegistry(db);
    reg.register({ 'core.memory.embedding_api.api_key': coreConfigDefaults()['core.memory.embedding_api.api_key'] });
    const first = 'sk-first-key-aaaaaaaaaaaaaaaaaaaa';
    const second = 'sk-second-key-bbbbbbbbbbbbbbbbbbb';
    reg.set('core.memory.embedding_api.api_key', first);
    reg.set('core.memory.embedding_api.api_key', second);
    reg.reset('core.memory.embedding_api.api_key');
    reg.close();
    open.splice(open.indexOf(reg), 1);
    // Closing checkpoints the WAL into the file and removes it: the file is all there is.
    const bytes = fs.readFileSync(db);
    for (const f of fs.readdirSync(path.dirname(db))) assert.ok(!f.endsWith('-wal') || fs.statSync(path.join(path.dirname(db), f)).size === 0, f);
    assert.equal(bytes.includes(first), false, 'the replaced key is not in the file');
    assert.equal(bytes.includes(second), false, 'the removed key is not in the file');
  });

  test('default, set, get, and persistence across close/open', async () => {
    const db = tmpDb();
    const { reg } = makeRegistry(db);
    reg.register(coreConfigDefaults());
    assert.equal(reg.get('core.agent.max_tool_rounds'), 8);
    await reg.set('core.agent.max_tool_rounds', 12);
    await assert.rejects(reg.set('plugin.web-ui.port', 1), NotFoundError);
    reg.registerPlugin('web-ui', { origins: def(z.array(z.string()), []) });
    await reg.set('plugin.web-ui.origins', ['http://a', 'http://b']);
    assert.equal(reg.get('core.agent.max_tool_rounds'), 12);
    reg.close();
    reg.close(); // idempotent

    const { reg: again } = makeRegistry(db);
    again.register(coreConfigDefaults());
    again.registerPlugin('web-ui', { origins: def(z.array(z.string()), []) });
    assert.equal(again.get('core.agent.max_tool_rounds'), 12);
    assert.deepEqual(again.get('plugin.web-ui.origins'), ['http://a', 'http://b']);
    assert.equal(again.info('core.agent.max_tool_rounds').origin, 'stored');
    await again.reset('core.agent.max_tool_rounds');
    assert.equal(again.get('core.agent.max_tool_rounds'), 8);
    assert.equal(again.info('core.agent.max_tool_rounds').origin, 'default');
  });

  test('bad values are rejected with the key and the reason; nothing is stored', async () => {
    const db = tmpDb();
    const { reg } = makeRegistry(db);
    reg.register(coreConfigDefaults());
    await assert.rejects(reg.set('core.agent.max_tool_rounds', 'many'), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.match(e.message, /core\.agent\.max_tool_rounds/);
      assert.match(e.message, /expected number/);
      assert.equal(e.details.key, 'core.agent.max_tool_rounds');
      return true;
    });
    await assert.rejects(reg.set('core.memory.distill_interval', '30 minutes'), /core\.memory\.distill_interval.*duration/);
    await assert.rejects(reg.set('core.log.level', 'loud'), /core\.log\.level/);
    assert.equal(reg.get('core.agent.max_tool_rounds'), 8);
    reg.close();
    const rows = new Database(db, { readonly: true });
    try {
      assert.equal((rows.prepare('SELECT COUNT(*) AS n FROM config').get() as { n: number }).n, 0);
    } finally {
      rows.close();
    }
  });

  test('unknown keys, malformed keys, duplicates and invalid defaults', () => {
    const { reg } = makeRegistry(tmpDb());
    reg.register({ 'core.a.b': def(z.number(), 1) });
    assert.throws(() => reg.get('core.nope'), NotFoundError);
    assert.throws(() => reg.register({ 'core.a.b': def(z.number(), 2) }), ConflictError);
    assert.throws(() => reg.register({ 'plugin.../x': def(z.number(), 2) }), ValidationError);
    assert.throws(() => reg.register({ 'other.x': def(z.number(), 2) }), ValidationError);
    assert.throws(() => reg.register({ 'plugin.Bad.x': def(z.number(), 2) }), ValidationError);
    assert.throws(() => reg.register({ 'core.c': def(z.number(), 'x' as unknown as number) }), /core\.c: default is invalid/);
    // all or nothing: the valid key of a failed batch is not registered
    assert.throws(() => reg.register({ 'core.ok': def(z.number(), 1), 'core.a.b': def(z.number(), 1) }), ConflictError);
    assert.equal(reg.has('core.ok'), false);
  });

  test('disposer unregisters; re-register picks the stored value up again', async () => {
    const { reg } = makeRegistry(tmpDb());
    const dispose = reg.register({ 'plugin.timer.tick': def(z.number(), 1) });
    await reg.set('plugin.timer.tick', 5);
    dispose();
    dispose();
    assert.throws(() => reg.get('plugin.timer.tick'), NotFoundError);
    reg.register({ 'plugin.timer.tick': def(z.number(), 1) });
    assert.equal(reg.get('plugin.timer.tick'), 5);
  });

  test('change events: prefix filter, unsubscribe, listener errors isolated', async () => {
    const { reg, warnings } = makeRegistry(tmpDb());
    reg.register(coreConfigDefaults());
    const all: [string, ConfigValue][] = [];
    const memory: string[] = [];
    reg.onChange(() => {
      throw new Error('boom');
    });
    const off = reg.onChange((k, v) => all.push([k, v]));
    reg.onChange((k) => memory.push(k), 'core.memory');
    await reg.set('core.memory.recall_depth', 3);
    await reg.set('core.agent.stream', false);
    await reg.reset('core.memory.recall_depth');
    off();
    await reg.set('core.agent.stream', true);
    assert.deepEqual(all, [
      ['core.memory.recall_depth', 3],
      ['core.agent.stream', false],
      ['core.memory.recall_depth', 2],
    ]);
    assert.deepEqual(memory, ['core.memory.recall_depth', 'core.memory.recall_depth']);
    assert.ok(warnings.some((w) => /listener failed/.test(w.msg)));
    assert.equal(reg.get('core.agent.stream'), true);
  });

  test('env secrets: used, masked in list/getMasked, never persisted; stored value wins', async () => {
    const db = tmpDb();
    const tokenKey = { 'plugin.webui.token': def(z.string(), '', { secret: true, env: 'HOMEAGENT_WEBUI_TOKEN' }) };
    const { reg, warnings } = makeRegistry(db, { HOMEAGENT_WEBUI_TOKEN: SECRET });
    reg.register({ ...coreConfigDefaults(), ...tokenKey });
    assert.equal(reg.get('plugin.webui.token'), SECRET);
    const info = reg.list('plugin.webui').find((i) => i.key === 'plugin.webui.token');
    assert.ok(info);
    assert.equal(info.origin, 'env');
    assert.equal(info.secret, true);
    assert.equal(info.env, 'HOMEAGENT_WEBUI_TOKEN');
    assert.equal(info.value, '••••cdef');
    assert.equal(reg.getMasked('plugin.webui.token'), '••••cdef');
    assert.ok(!JSON.stringify(reg.list()).includes(SECRET));
    await reg.set('core.agent.name', 'Kiki');
    reg.close();

    const raw = fs.readFileSync(db).toString('latin1') + (fs.existsSync(`${db}-wal`) ? fs.readFileSync(`${db}-wal`).toString('latin1') : '');
    assert.ok(!raw.includes(SECRET), 'env secret must not reach the database');

    const { reg: r2 } = makeRegistry(db, { HOMEAGENT_WEBUI_TOKEN: SECRET });
    r2.register({ ...coreConfigDefaults(), ...tokenKey });
    await r2.set('plugin.webui.token', 'short');
    assert.equal(r2.get('plugin.webui.token'), 'short');
    assert.equal(r2.getMasked('plugin.webui.token'), '(set)');
    assert.equal(r2.info('plugin.webui.token').origin, 'stored');
    assert.ok(!JSON.stringify(warnings).includes(SECRET));
  });

  test('a corrupt or outdated stored value falls back to the default with a warning', async () => {
    const db = tmpDb();
    const { reg } = makeRegistry(db);
    reg.register({ 'core.x.count': def(z.number(), 1), 'core.x.mode': def(z.string(), 'a') });
    await reg.set('core.x.count', 4);
    await reg.set('core.x.mode', 'b');
    reg.close();
    const h = new Database(db);
    h.prepare('UPDATE config SET value = ? WHERE key = ?').run('{not json', 'core.x.count');
    h.close();

    const { reg: r2, warnings } = makeRegistry(db);
    // schema changed: mode is now an enum that no longer includes 'b'
    r2.register({ 'core.x.count': def(z.number(), 1), 'core.x.mode': def(z.enum(['a', 'c']), 'a') });
    assert.equal(r2.get('core.x.count'), 1);
    assert.equal(r2.get('core.x.mode'), 'a');
    assert.ok(warnings.some((w) => /core\.x\.count.*not valid JSON/.test(w.msg)));
    assert.ok(warnings.some((w) => /core\.x\.mode.*schema/.test(w.msg)));
    await r2.set('core.x.mode', 'c');
    assert.equal(r2.get('core.x.mode'), 'c');
  });

  test('a corrupt database file is moved aside and the registry starts with defaults', () => {
    const db = tmpDb();
    fs.writeFileSync(db, 'this is not a sqlite database at all, just some text '.repeat(100));
    const { reg, warnings } = makeRegistry(db);
    reg.register({ 'core.x': def(z.number(), 7) });
    assert.equal(reg.get('core.x'), 7);
    assert.ok(warnings.some((w) => /corrupt/.test(w.msg)));
    assert.ok(fs.readdirSync(path.dirname(db)).some((f) => f.startsWith('config.db.corrupt-')));
  });

  test('one table per plugin namespace, values stored as JSON text, versioned schema', async () => {
    const db = tmpDb();
    const { reg } = makeRegistry(db);
    reg.register(coreConfigDefaults());
    reg.registerPlugin('memory-manager', { enabled: def(z.boolean(), true) });
    reg.registerPlugin('cmd', { allow: def(z.array(z.string()), ['ls']) });
    await reg.set('plugin.cmd.allow', ['ls', 'cat']);
    await reg.set('core.agent.name', 'Kiki');
    assert.deepEqual(reg.namespaces(), ['core', 'plugin.cmd', 'plugin.memory-manager']);
    reg.close();
    const h = new Database(db, { readonly: true });
    try {
      const tables = (h.prepare("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
      assert.deepEqual(tables, ['config', 'config_cmd', 'config_memory_manager', 'people', 'person_ids', 'private_chats']);
      assert.equal((h.prepare('SELECT value FROM config_cmd WHERE key = ?').get('plugin.cmd.allow') as { value: string }).value, '["ls","cat"]');
      assert.equal((h.prepare('SELECT value FROM config WHERE key = ?').get('core.agent.name') as { value: string }).value, '"Kiki"');
      assert.equal(h.pragma('user_version', { simple: true }), 4);
      assert.equal(h.pragma('journal_mode', { simple: true }), 'wal');
    } finally {
      h.close();
    }
  });

  test('settingsFor gives a scoped view without the prefix', async () => {
    const { reg } = makeRegistry(tmpDb());
    reg.registerPlugin('webui', { port: def(z.number().int(), 8080), key: def(z.string(), '', { secret: true }) });
    reg.register({ 'core.other': def(z.number(), 1) });
    const s = reg.settingsFor('webui');
    const seen: string[] = [];
    s.onChange((k) => seen.push(k));
    await s.set('port', 9000);
    await reg.set('core.other', 2);
    assert.equal(s.get('port'), 9000);
    assert.equal(reg.get('plugin.webui.port'), 9000);
    assert.deepEqual(seen, ['port']);
    await s.set('key', SECRET);
    assert.deepEqual(
      s.list().map((i) => [i.key, i.value]),
      [
        ['key', '••••cdef'],
        ['port', 9000],
      ],
    );
    await assert.rejects(s.set('port', 1.5), /plugin\.webui\.port/);
    assert.throws(() => reg.settingsFor('../etc'), ValidationError);
  });

  test('list gives JSON schemas and masks secret defaults; get returns copies', async () => {
    const { reg } = makeRegistry(tmpDb());
    reg.register(coreConfigDefaults());
    const info = reg.info('core.agent.max_tool_rounds');
    assert.equal(info.schema.type, 'integer');
    assert.equal(info.default, 8);
    assert.ok(reg.list('core.memory').every((i) => i.key.startsWith('core.memory.')));
    assert.ok(reg.list('core.memory').length >= 10);
    reg.register({ 'core.list': def(z.array(z.string()), ['a']) });
    const v = reg.get<string[]>('core.list');
    v.push('mutated');
    assert.deepEqual(reg.get('core.list'), ['a']);
  });

  test('set before open fails clearly', async () => {
    const reg = new ConfigRegistry({ dbPath: tmpDb(), env: {} });
    reg.register({ 'core.x': def(z.number(), 1) });
    assert.equal(reg.get('core.x'), 1);
    await assert.rejects(reg.set('core.x', 2), /not open/);
  });
});

test('decision 0270: core.agent.timezone takes IANA names and "" (the system zone), and refuses anything else by name', async () => {
  const { reg } = makeRegistry(tmpDb());
  reg.register(coreConfigDefaults());
  assert.equal(reg.get('core.agent.timezone'), '');
  await reg.set('core.agent.timezone', 'Europe/Berlin');
  await reg.set('core.agent.timezone', 'asia/shanghai');
  for (const bad of ['Mars/Olympus', '+08:00', 'UTC+8', 'x'.repeat(65)]) {
    await assert.rejects(reg.set('core.agent.timezone', bad), (e: unknown) => {
      assert.ok(e instanceof ValidationError, bad);
      assert.match(e.message, /invalid value for core\.agent\.timezone: .*(unknown time zone: use an IANA name such as Europe\/Berlin|at most)/);
      return true;
    });
  }
  assert.equal(reg.get('core.agent.timezone'), 'asia/shanghai', 'a refused value changes nothing');
  await reg.set('core.agent.timezone', '');
});
