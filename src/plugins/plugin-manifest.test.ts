import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PluginError } from '../spec/index.js';
import { checkCompat, parseManifest } from './plugin-manifest.js';

const base = { name: 'demo', version: '1.0.0', entry: 'index.js' };
const bad = (code = 'PLUGIN_BAD_MANIFEST') => (e: unknown) => e instanceof PluginError && e.code === code;

test('P-3: a minimal manifest parses with defaults', () => {
  const m = parseManifest(JSON.stringify(base), 'demo');
  assert.deepEqual(m.permissions, []);
  assert.deepEqual(m.dependencies, []);
});

test('P-3: invalid manifests are refused with a message naming the field', () => {
  const cases: [unknown, RegExp][] = [
    [{ ...base, name: 'Bad Name' }, /name: name must be lower-case/],
    [{ ...base, version: 'one' }, /version: version must be semver/],
    [{ ...base, entry: '../x.js' }, /entry: entry must be a relative path inside the plugin folder/],
    [{ ...base, entry: '/abs/x.js' }, /entry must be a relative path/],
    [{ ...base, entry: 'C:/x.js' }, /entry must be a relative path/],
    [{ ...base, entry: 'main.py' }, /entry must be a \.js or \.mjs file/],
    [{ ...base, permissions: ['root'] }, /permissions\.0/],
    [{ ...base, platforms: ['amiga'] }, /platforms\.0/],
    [{ ...base, surprise: true }, /surprise/],
    [{ name: 'demo' }, /version.*entry|entry.*version/],
    ['not an object', /invalid plugin\.json/],
  ];
  for (const [raw, msg] of cases) {
    assert.throws(() => parseManifest(JSON.stringify(raw), 'demo'), (e: unknown) => bad()(e) && msg.test((e as Error).message), JSON.stringify(raw));
  }
  assert.throws(() => parseManifest('{ nope', 'demo'), (e: unknown) => bad()(e) && /not valid JSON/.test((e as Error).message));
});

test('P-3: platforms and engines.node are checked against the running process', () => {
  const m = (extra: Record<string, unknown>) => parseManifest(JSON.stringify({ ...base, ...extra }), 'demo');
  assert.doesNotThrow(() => checkCompat(m({ platforms: ['linux'] }), 'linux', '20.1.0'));
  assert.throws(() => checkCompat(m({ platforms: ['win32'] }), 'linux', '20.1.0'), (e: unknown) => bad('PLUGIN_INCOMPATIBLE')(e) && /unsupported platform linux/.test((e as Error).message));
  assert.doesNotThrow(() => checkCompat(m({ engines: { node: '>=18' } }), 'linux', '20.1.0'));
  assert.throws(() => checkCompat(m({ engines: { node: '>=22' } }), 'linux', '20.1.0'), bad('PLUGIN_INCOMPATIBLE'));
  assert.throws(() => checkCompat(m({ engines: { node: '^18' } }), 'linux', '20.1.0'), bad('PLUGIN_INCOMPATIBLE'));
  assert.doesNotThrow(() => checkCompat(m({ engines: { node: '20.x' } }), 'linux', '20.1.0'));
});

test('SPEC §9: a manifest setting may take its value only from the plugin\'s own env vars, never the daemon\'s secrets', () => {
  const withEnv = (env: string, name = 'demo-x') => JSON.stringify({ ...base, name, settings: { key: { default: '', secret: true, env } } });
  for (const env of ['OPENAI_API_KEY', 'HOMEAGENT_WEBUI_TOKEN', 'HOMEAGENT_PLUGIN_OTHER_TOKEN', 'HOMEAGENT_PLUGIN_DEMO_X']) {
    assert.throws(() => parseManifest(withEnv(env), 'demo-x'), (e: unknown) => bad()(e) && /settings\.key\.env: must start with HOMEAGENT_PLUGIN_DEMO_X_/.test((e as Error).message), env);
  }
  assert.equal(parseManifest(withEnv('HOMEAGENT_PLUGIN_DEMO_X_TOKEN'), 'demo-x').settings?.key.env, 'HOMEAGENT_PLUGIN_DEMO_X_TOKEN');
});
