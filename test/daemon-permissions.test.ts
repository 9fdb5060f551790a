/**
 * The data folder holds API keys (config.db) and the control socket: neither may be readable or
 * connectable by other users, whatever the umask (§0, C-12).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestDaemon } from './fixtures/daemon.js';

const root = mkdtempSync(join(tmpdir(), 'ha-perm-'));
after(() => rmSync(root, { recursive: true, force: true }));
const env = (h: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOMEAGENT_HOME: h, OLLAMA_HOST: 'http://127.0.0.1:9' });
const mode = (p: string) => statSync(p).mode & 0o777;

/** Runs `fn` with a umask that would make every new file world-readable and -writable. */
async function withUmask0<T>(fn: () => Promise<T>): Promise<T> {
  const old = process.umask(0);
  try {
    return await fn();
  } finally {
    process.umask(old);
  }
}

test('a new data folder is 0700, config.db (and its WAL files) 0600, the socket 0600 even with umask 0', async () => {
  const h = join(root, 'fresh', 'home');
  const d = await withUmask0(() => startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false }));
  try {
    assert.equal(mode(h), 0o700);
    assert.equal(mode(d.paths.configDb), 0o600);
    for (const suffix of ['-wal', '-shm']) {
      try {
        assert.equal(mode(d.paths.configDb + suffix), 0o600, `config.db${suffix}`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    assert.equal(mode(d.socketPath), 0o600);
    // Every database, session log and log file is 0600 too (security review: they were 0644).
    await withUmask0(async () => {
      const t = d.agent.injectInput({ sessionId: 'cli:perm', source: 'cli', text: 'a private message' });
      await t.accepted;
      await t.done;
    });
    const wide: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile() && /\.(db(-wal|-shm)?|jsonl|log)$/.test(e.name) && mode(p) !== 0o600) wide.push(`${p.slice(h.length)} ${mode(p).toString(8)}`);
      }
    };
    walk(h);
    assert.deepEqual(wide, []);
    for (const f of ['graph.db', 'memory-control.db', join('documents', 'documents.db'), join('documents', 'archive.db'), join('sessions', 'cli%3Aperm.jsonl')]) assert.ok(existsSync(join(h, f)), `${f} was checked`);
  } finally {
    await d.stop();
  }
});

test('an existing data folder and config.db made by an older daemon are narrowed to 0700 / 0600', async () => {
  const h = join(root, 'old');
  mkdirSync(h, { mode: 0o755 });
  chmodSync(h, 0o755);
  closeSync(openSync(join(h, 'config.db'), 'w', 0o644));
  chmodSync(join(h, 'config.db'), 0o644);
  const d = await startTestDaemon({ homeDir: h, env: env(h), webuiPort: 0, heartbeats: false });
  try {
    assert.equal(mode(h), 0o700);
    assert.equal(mode(d.paths.configDb), 0o600);
    await d.config.set('core.agent.max_tool_rounds', 4);
    assert.equal(d.config.get('core.agent.max_tool_rounds'), 4, 'the pre-created empty config.db is a working database');
  } finally {
    await d.stop();
  }
});
