/**
 * A full disk takes part of a write and Node resolves with the count, no error. The session log
 * must not report such a torn line as durable (a reply shown, then gone after a restart, and the
 * next acknowledged event glued onto it). `ulimit -f` gives the same short write as a full disk,
 * in a child process, without a tmpfs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SessionStore } from './session-store.js';

const child = (store: string, dir: string) => `
import { SessionStore } from ${JSON.stringify(store)};
const s = new SessionStore({ dir: ${JSON.stringify(dir)}, logger: { warn: () => {} } });
await s.open();
await s.ensure('cli:full', 'cli');
await s.append('cli:full', { turnId: 'cli:full#1', kind: 'user', text: 'before the disk fills' });
let refused = 'no';
try {
  // Crosses the 16 KiB file-size limit: the kernel writes part of it.
  await s.append('cli:full', { turnId: 'cli:full#1', kind: 'assistant', text: 'x'.repeat(20000) });
} catch (e) {
  refused = e.code ?? e.message;
}
await s.append('cli:full', { turnId: 'cli:full#2', kind: 'user', text: 'after, short enough to fit' });
console.log(JSON.stringify({ refused }));
`;

test('a write the disk takes only part of is refused and cut back; the next event is whole after a restart', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-short-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const script = path.join(dir, 'child.mts');
  fs.writeFileSync(script, child(new URL('./session-store.ts', import.meta.url).pathname, path.join(dir, 'sessions')));
  const r = spawnSync('sh', ['-c', `ulimit -f 16 && exec "${process.execPath}" --import tsx "${script}"`], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /"refused":"(EFBIG|ENOSPC)"/, 'the torn append was reported as a failure');
  const warnings: string[] = [];
  const s = new SessionStore({ dir: path.join(dir, 'sessions'), logger: { warn: (m) => void warnings.push(m) } });
  await s.open();
  const events = await s.events('cli:full');
  assert.deepEqual(events.map((e) => [e.seq, e.kind, e.text]), [
    [1, 'user', 'before the disk fills'],
    [2, 'user', 'after, short enough to fit'],
  ]);
  assert.deepEqual(warnings, [], 'no torn or malformed line to skip');
  await s.close();
});
