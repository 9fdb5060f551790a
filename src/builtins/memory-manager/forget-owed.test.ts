/**
 * Decision 0420 from the library's side, over the real memory control on disk: a forget finished
 * at open owes the library the memories the person ticked. The memory manager starts after that,
 * and the first thing that reads the library must not see them. That is its agent tools (whatever
 * started the turn) as much as its injection.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openMemoryAt } from '../../memory/__fixtures__/memory-on-disk.js';
import { serializeMemory } from './memory-file.js';
import { setupManager } from './__fixtures__/setup.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mm-owed-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function writeMemory(home: string, id: string, title: string, snapshot: string) {
  fs.mkdirSync(path.join(home, 'memory', 'memories'), { recursive: true });
  const at = '2026-01-01T00:00:00.000Z';
  fs.writeFileSync(path.join(home, 'memory', 'memories', `${id}.md`), serializeMemory({ id, title, impressions: [], tags: [], enabled: true, links: [], composedOf: [], createdAt: at, updatedAt: at, snapshot, notes: '' }));
}

/**
 * A forget of `id` whose library part failed after its commit point (as a kill would), then the
 * next start: it finishes the forget before any plugin runs, so the library is owed its part.
 */
async function owedToLibrary(home: string, id: string) {
  const first = await openMemoryAt(home);
  first.mem.control.registerForgetParticipant('library', {
    find: async () => [],
    describe: async () => [],
    remove: async () => {
      throw new Error('disk full');
    },
    scrub: async () => 0,
  });
  await assert.rejects(first.mem.control.forget({ memoryIds: [id] }), /disk full/);
  await first.close();
  return openMemoryAt(home);
}

test('0420: a memory a finished forget still owes the library is gone before the first agent tool reads the library', async (t) => {
  const home = path.join(root, 'h1');
  fs.mkdirSync(home, { recursive: true });
  writeMemory(home, 'mem-alarm', 'Alarm', 'the alarm code is ORCA-5150');
  writeMemory(home, 'mem-garden', 'Garden', 'the alarm in the garden shed is loud');
  const again = await owedToLibrary(home, 'mem-alarm');
  t.after(() => again.close());
  const { fake } = setupManager(t, { home, services: { 'host.memory-control': again.mem.control } });
  // No await between the manager's start and the tool call (a reminder's turn, an MCP client).
  const hits = (await fake.callTool('library_search', { query: 'alarm' })) as { results: { id: string }[] };
  assert.deepEqual(
    hits.results.map((r) => r.id),
    ['mem-garden'],
    'the ticked memory is not found',
  );
  await assert.rejects(fake.callTool('library_read', { id: 'mem-alarm' }), /not found|NOT_FOUND/i);
  assert.equal(fs.existsSync(path.join(home, 'memory', 'memories', 'mem-alarm.md')), false);
});

test('0420: the library API (WebUI, waiter, MCP) does not list a memory a finished forget still owes the library', async (t) => {
  const home = path.join(root, 'h2');
  fs.mkdirSync(home, { recursive: true });
  writeMemory(home, 'mem-alarm', 'Alarm', 'the alarm code is ORCA-5150');
  writeMemory(home, 'mem-garden', 'Garden', 'the garden shed');
  const again = await owedToLibrary(home, 'mem-alarm');
  t.after(() => again.close());
  const { fake } = setupManager(t, { home, services: { 'host.memory-control': again.mem.control } });
  const listed = (await fake.op('memory.list')) as { value: { items: { id: string }[]; total: number } };
  assert.deepEqual(listed.value.items.map((r) => r.id), ['mem-garden']);
});
