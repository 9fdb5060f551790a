import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import yazl from 'yazl';
import { PluginError } from '../spec/index.js';
import { createTestHost } from '../sdk/testing/index.js';
import { fixtureHome } from './__fixtures__/fixture-home.js';
import { checkEntryName } from './hmap-archive.js';

interface ZipEntry {
  name: string;
  data: string | Buffer;
  mode?: number;
}

/** Builds a zip in memory; `patches` swap equal-length byte strings afterwards (to forge names yazl refuses). */
function zip(entries: ZipEntry[], patches: [string, string][] = []): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const e of entries) z.addBuffer(Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data), e.name, e.mode ? { mode: e.mode } : {});
  z.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('error', reject);
    z.outputStream.on('end', () => {
      const buf = Buffer.concat(chunks);
      for (const [from, to] of patches) {
        assert.equal(from.length, to.length);
        let i = buf.indexOf(from);
        assert.ok(i >= 0, `patch target ${from} not found`);
        while (i >= 0) {
          buf.write(to, i, 'latin1');
          i = buf.indexOf(from, i + 1);
        }
      }
      resolve(buf);
    });
  });
}

function manifest(version: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ name: 'ext-versioned', version, entry: 'index.js', ...extra });
}

function code(out: string, crash = false): string {
  return `${crash ? "throw new Error('v-broken cannot start');\n" : ''}export default { name: 'ext-versioned', start(sdk) { sdk.registerTool({ name: 'versioned_which', description: 'x', parameters: { type: 'object', properties: {} }, handler: () => '${out}' }); } };\n`;
}

function good(version: string, out: string): Promise<Buffer> {
  return zip([
    { name: 'plugin.json', data: manifest(version) },
    { name: 'index.js', data: code(out) },
  ]);
}

async function setup(t: { after: (fn: () => unknown) => void }) {
  const homeDir = fixtureHome('ext-versioned');
  const h = await createTestHost({ homeDir, registry: { hmap: { maxFiles: 20, maxFileBytes: 64 * 1024, maxTotalBytes: 256 * 1024 } } });
  t.after(async () => {
    await h.close();
    rmSync(homeDir, { recursive: true, force: true });
  });
  assert.equal(await h.callTool('versioned_which'), 'v1');
  return h;
}

const refused = (code: string) => (e: unknown) => {
  assert.ok(e instanceof PluginError, String(e));
  assert.equal((e as PluginError).code, code, (e as Error).message);
  return true;
};

test('checkEntryName refuses escapes, absolute paths and drive letters', () => {
  assert.equal(checkEntryName('a/./b.js'), 'a/b.js');
  assert.equal(checkEntryName('dir\\file.js'), 'dir/file.js');
  for (const bad of ['a/b/../c.js', '../x', 'a/../../x', '/etc/passwd', 'C:/x', 'c:\\x', '..\\x', '\\\\server\\x']) assert.throws(() => checkEntryName(bad), refused('HMAP_PATH_ESCAPE'), bad);
});

test('P-3: bad .hmap archives are refused with their code and the running version keeps running', async (t) => {
  const h = await setup(t);
  const cases: [string, Promise<Buffer> | Buffer][] = [
    ['HMAP_PATH_ESCAPE', zip([{ name: 'plugin.json', data: manifest('2.0.0') }, { name: 'index.js', data: code('v2') }, { name: 'xx/evil.js', data: 'x' }], [['xx/evil.js', '../evil.js']])],
    ['HMAP_PATH_ESCAPE', zip([{ name: 'plugin.json', data: manifest('2.0.0') }, { name: 'index.js', data: code('v2') }, { name: '_tmp/evil.js', data: 'x' }], [['_tmp/evil.js', '/tmp/evil.js']])],
    ['HMAP_PATH_ESCAPE', zip([{ name: 'plugin.json', data: manifest('2.0.0') }, { name: 'index.js', data: code('v2') }, { name: 'CC/evil.js', data: 'x' }], [['CC/evil.js', 'C:/evil.js']])],
    ['HMAP_SYMLINK', zip([{ name: 'plugin.json', data: manifest('2.0.0') }, { name: 'index.js', data: code('v2') }, { name: 'link', data: '/etc/passwd', mode: 0o120777 }])],
    ['HMAP_TOO_LARGE', zip([{ name: 'plugin.json', data: manifest('2.0.0') }, { name: 'index.js', data: code('v2') }, { name: 'bomb.bin', data: Buffer.alloc(2 * 1024 * 1024) }])],
    ['HMAP_TOO_MANY_FILES', zip([{ name: 'plugin.json', data: manifest('2.0.0') }, { name: 'index.js', data: code('v2') }, ...Array.from({ length: 30 }, (_, i) => ({ name: `f${i}.txt`, data: 'x' }))])],
    ['HMAP_BAD_MANIFEST', zip([{ name: 'index.js', data: code('v2') }])],
    ['HMAP_BAD_MANIFEST', zip([{ name: 'plugin.json', data: '{ not json' }, { name: 'index.js', data: code('v2') }])],
    ['HMAP_BAD_MANIFEST', zip([{ name: 'plugin.json', data: manifest('2.0.0', { entry: 'missing.js' }) }, { name: 'index.js', data: code('v2') }])],
    ['HMAP_BAD_ARCHIVE', Buffer.from('this is not a zip file at all')],
  ];
  for (const [expected, archive] of cases) {
    await assert.rejects(h.registry.install(await archive), refused(expected));
    assert.equal(h.plugin('ext-versioned')?.state, 'running');
    assert.equal(h.plugin('ext-versioned')?.version, '1.0.0');
  }
  assert.equal(await h.callTool('versioned_which'), 'v1');
  // Nothing of the refused archives is left behind: no staging folders, no escaped file.
  assert.deepEqual(readdirSync(join(h.homeDir, 'plugins')).filter((n) => n.startsWith('.staging')), []);
  assert.deepEqual(existsSync(join(h.homeDir, 'plugins', '.pending')) ? readdirSync(join(h.homeDir, 'plugins', '.pending')) : [], []);
  assert.equal(existsSync(join(h.homeDir, 'evil.js')), false);
  assert.equal(existsSync('/tmp/evil.js'), false);
});

test('P-3: a zip bomb that lies about its size in the headers is stopped while streaming', async (t) => {
  const h = await setup(t);
  const size = 1024 * 1024;
  const archive = await zip([{ name: 'plugin.json', data: manifest('2.0.0') }, { name: 'index.js', data: code('v2') }, { name: 'bomb.bin', data: Buffer.alloc(size) }]);
  // Rewrite the declared uncompressed size of bomb.bin in the central directory to 10 bytes.
  const cd = archive.lastIndexOf(Buffer.from('bomb.bin')) - 46;
  assert.equal(archive.readUInt32LE(cd), 0x02014b50);
  assert.equal(archive.readUInt32LE(cd + 24), size);
  archive.writeUInt32LE(10, cd + 24);
  await assert.rejects(h.registry.install(archive), refused('HMAP_TOO_LARGE'));
  assert.equal(await h.callTool('versioned_which'), 'v1');
});

test('P-3: a good .hmap replaces the running version; a new version that fails to start is rolled back', async (t) => {
  const h = await setup(t);
  const info = await h.registry.install(await good('2.0.0', 'v2'));
  assert.equal(info.state, 'running');
  assert.equal(info.version, '2.0.0');
  assert.equal(await h.callTool('versioned_which'), 'v2');
  // Archive with a top-level folder also works.
  await h.registry.install(await zip([{ name: 'ext-versioned/plugin.json', data: manifest('3.0.0') }, { name: 'ext-versioned/index.js', data: code('v3') }]));
  assert.equal(await h.callTool('versioned_which'), 'v3');
  // v4 throws at import: install fails, v3 is restored and running.
  const broken = await zip([{ name: 'plugin.json', data: manifest('4.0.0') }, { name: 'index.js', data: code('v4', true) }]);
  await assert.rejects(h.registry.install(broken), (e: unknown) => refused('HMAP_START_FAILED')(e) && /v-broken cannot start/.test((e as Error).message) && /restored/.test((e as Error).message));
  assert.equal(h.plugin('ext-versioned')?.version, '3.0.0');
  assert.equal(h.plugin('ext-versioned')?.state, 'running');
  assert.equal(await h.callTool('versioned_which'), 'v3');
  assert.deepEqual(readdirSync(join(h.homeDir, 'plugins')).filter((n) => n.startsWith('.')).filter((n) => n !== '.state.json' && n !== '.pending'), []);
  assert.deepEqual(readdirSync(join(h.homeDir, 'plugins', '.pending')), []);
  // A fresh plugin installs too, and uninstall removes it.
  const other = await zip([{ name: 'plugin.json', data: JSON.stringify({ name: 'ext-other', version: '0.1.0', entry: 'main.mjs' }) }, { name: 'main.mjs', data: "export default { name: 'ext-other', start(sdk) { sdk.registerTool({ name: 'other_ping', description: 'x', parameters: { type: 'object', properties: {} }, handler: () => 'pong' }); } };" }]);
  assert.equal((await h.registry.install(other)).name, 'ext-other');
  assert.equal(await h.callTool('other_ping'), 'pong');
  await h.registry.uninstall('ext-other');
  assert.equal(h.plugin('ext-other'), undefined);
  assert.equal(existsSync(join(h.homeDir, 'plugins', 'ext-other')), false);
});

test('SPEC §9: an uploaded .hmap is staged and validated but runs nothing until confirmed; discard throws it away; pending survives a restart', async (t) => {
  const h = await setup(t);
  const marker = join(h.homeDir, 'ran.txt');
  const ran = (v: string) => `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, '${v}');\n${code(v)}`;
  const staged = await h.registry.stage(await zip([{ name: 'plugin.json', data: manifest('5.0.0', { description: 'five', permissions: ['memory', 'llm'] }) }, { name: 'index.js', data: ran('v5') }]));
  assert.deepEqual({ ...staged, stagedAt: 0 }, { name: 'ext-versioned', version: '5.0.0', description: 'five', permissions: ['memory', 'llm'], dependencies: [], settings: [], replaces: '1.0.0', stagedAt: 0 });
  // Nothing of it ran, and the installed version is untouched.
  assert.equal(existsSync(marker), false);
  assert.equal(h.plugin('ext-versioned')?.version, '1.0.0');
  assert.equal(await h.callTool('versioned_which'), 'v1');
  assert.deepEqual(h.registry.pending().map((p) => p.name), ['ext-versioned']);
  assert.equal(h.registry.list().some((p) => p.name === '.pending'), false);

  // Discard: gone, nothing ran.
  await h.registry.discardInstall('ext-versioned');
  assert.deepEqual(h.registry.pending(), []);
  await assert.rejects(h.registry.confirmInstall('ext-versioned'), (e: unknown) => (e as { code?: string }).code === 'NOT_FOUND');
  await assert.rejects(h.registry.confirmInstall('../x'), (e: unknown) => (e as { code?: string }).code === 'VALIDATION');
  assert.equal(existsSync(marker), false);

  // Stage again, restart the registry: still pending, still not running; confirm runs it.
  await h.registry.stage(await zip([{ name: 'plugin.json', data: manifest('5.0.0') }, { name: 'index.js', data: ran('v5') }]));
  await h.registry.stop();
  await h.registry.start();
  assert.deepEqual(h.registry.pending().map((p) => p.version), ['5.0.0']);
  assert.equal(existsSync(marker), false);
  const info = await h.registry.confirmInstall('ext-versioned');
  assert.equal(info.version, '5.0.0');
  assert.equal(await h.callTool('versioned_which'), 'v5');
  assert.equal(existsSync(marker), true);
  assert.deepEqual(h.registry.pending(), []);
});
