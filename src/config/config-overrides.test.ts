/**
 * Overrides (`homed --port`) and the migration that made the WebUI port one setting (issue 14).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { ConfigKeyDef } from '../spec/index.js';
import { ConfigRegistry } from './config-registry.js';
import { coreConfigDefaults } from './core-defaults.js';

function tmpDb(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-config-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'config.db');
}

const port: Record<string, ConfigKeyDef> = { 'plugin.webui.port': { schema: z.number().int().min(0).max(65535), default: 8765, description: 'port', env: 'HOMEAGENT_WEBUI_PORT' } as unknown as ConfigKeyDef };

test('an override wins over stored and env values for this run only and is never written', async (t) => {
  const db = tmpDb(t);
  const a = new ConfigRegistry({ dbPath: db, env: { HOMEAGENT_WEBUI_PORT: '9001' }, logger: { warn() {} } });
  a.open();
  a.register(port);
  await a.set('plugin.webui.port', 9002);
  a.close();

  const b = new ConfigRegistry({ dbPath: db, env: { HOMEAGENT_WEBUI_PORT: '9001' }, logger: { warn() {} }, overrides: { 'plugin.webui.port': 9100 } });
  b.open();
  b.register(port);
  assert.equal(b.get('plugin.webui.port'), 9100);
  assert.equal(b.info('plugin.webui.port').origin, 'override');
  // A set still stores (the next run without the flag uses it); this run keeps the flag's value.
  await b.set('plugin.webui.port', 9003);
  assert.equal(b.get('plugin.webui.port'), 9100);
  b.close();

  const c = new ConfigRegistry({ dbPath: db, env: {}, logger: { warn() {} } });
  c.open();
  c.register(port);
  assert.equal(c.get('plugin.webui.port'), 9003, 'the override was never stored');
  c.close();
});

test('info names what fixed an overridden value (overrideNames), for the warning of config set', async (t) => {
  const named = new ConfigRegistry({ dbPath: tmpDb(t), env: {}, logger: { warn() {} }, overrides: { 'plugin.webui.port': 9100 }, overrideNames: { 'plugin.webui.port': '--port' } });
  named.open();
  named.register(port);
  assert.equal(named.info('plugin.webui.port').overriddenBy, '--port');
  named.close();
  const unnamed = new ConfigRegistry({ dbPath: tmpDb(t), env: { HOMEAGENT_WEBUI_PORT: '9001' }, logger: { warn() {} }, overrides: { 'plugin.webui.port': 9100 } });
  unnamed.open();
  unnamed.register(port);
  assert.equal(unnamed.info('plugin.webui.port').overriddenBy, 'a command-line flag of this run');
  unnamed.close();
  // Without an override there is nothing to name; an env value gives way to a stored one.
  const plain = new ConfigRegistry({ dbPath: tmpDb(t), env: { HOMEAGENT_WEBUI_PORT: '9001' }, logger: { warn() {} } });
  plain.open();
  plain.register(port);
  assert.equal(plain.info('plugin.webui.port').origin, 'env');
  assert.equal(plain.info('plugin.webui.port').overriddenBy, undefined);
  await plain.set('plugin.webui.port', 9004);
  assert.deepEqual([plain.get('plugin.webui.port'), plain.info('plugin.webui.port').origin], [9004, 'stored']);
  plain.close();
});

test('an override that fails the schema is ignored with a warning', (t) => {
  const warnings: string[] = [];
  const r = new ConfigRegistry({ dbPath: tmpDb(t), env: {}, logger: { warn: (m) => warnings.push(m) }, overrides: { 'plugin.webui.port': 70000 } });
  r.open();
  r.register(port);
  assert.equal(r.get('plugin.webui.port'), 8765);
  assert.match(warnings.join('\n'), /override of plugin\.webui\.port/);
  r.close();
});

test('migration 4: a stored core.webui.token moves to plugin.webui.token (the key the WebUI checks)', (t) => {
  const db = tmpDb(t);
  const raw = new Database(db);
  raw.exec('CREATE TABLE config (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL) WITHOUT ROWID');
  raw.prepare('INSERT INTO config VALUES (?, ?, ?)').run('core.webui.token', '"s3cret-token"', 1);
  raw.pragma('user_version = 3');
  raw.close();
  const r = new ConfigRegistry({ dbPath: db, env: {}, logger: { warn() {} } });
  r.open();
  r.register(coreConfigDefaults());
  assert.equal(r.has('core.webui.token'), false);
  r.register({ 'plugin.webui.token': { schema: z.string(), default: '', description: 'token', secret: true } as unknown as ConfigKeyDef });
  assert.equal(r.get('plugin.webui.token'), 's3cret-token');
  r.close();
});

test('migration 2: a stored core.webui.port/host moves to plugin.webui.*; a plugin value already set wins', (t) => {
  const db = tmpDb(t);
  const raw = new Database(db);
  raw.exec('CREATE TABLE config (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL) WITHOUT ROWID');
  raw.exec('CREATE TABLE config_webui (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL) WITHOUT ROWID');
  raw.prepare('INSERT INTO config VALUES (?, ?, ?)').run('core.webui.port', '9200', 1);
  raw.prepare('INSERT INTO config VALUES (?, ?, ?)').run('core.webui.host', '"127.0.0.2"', 1);
  raw.prepare('INSERT INTO config_webui VALUES (?, ?, ?)').run('plugin.webui.host', '"::1"', 2);
  raw.pragma('user_version = 1');
  raw.close();

  const r = new ConfigRegistry({ dbPath: db, env: {}, logger: { warn() {} } });
  r.open();
  r.register(coreConfigDefaults());
  assert.equal(r.has('core.webui.port'), false, 'one setting: the core duplicate is gone');
  r.register({ ...port, 'plugin.webui.host': { schema: z.string(), default: '127.0.0.1', description: 'host' } as unknown as ConfigKeyDef });
  assert.equal(r.get('plugin.webui.port'), 9200);
  assert.equal(r.get('plugin.webui.host'), '::1');
  r.close();
  const check = new Database(db);
  assert.equal((check.prepare("SELECT count(*) AS n FROM config WHERE key LIKE 'core.webui.%'").get() as { n: number }).n, 0);
  check.close();
});
