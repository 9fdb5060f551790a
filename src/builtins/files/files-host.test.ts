import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestHost } from '../../sdk/testing/index.js';
import { definePlugin } from '../../sdk/index.js';
import type { ChangeTrackerService } from '../../spec/index.js';
import { filesPlugin } from './index.js';

test('files in the real host: tools through the SDK; another plugin undoes through the changes service', async (t) => {
  let changes: ChangeTrackerService | undefined;
  const consumer = definePlugin({ name: 'consumer', dependencies: ['files'], start(sdk) { changes = sdk.use('changes'); } });
  const host = await createTestHost({ plugins: [filesPlugin, consumer] });
  t.after(() => host.close());
  assert.equal(host.plugin('files')?.state, 'running');
  await host.callTool('files_write', { path: 'todo.md', content: '- milk\n' });
  await host.callTool('files_write', { path: 'todo.md', content: '- eggs\n', append: true });
  const file = join(host.homeDir, 'files', 'todo.md');
  assert.equal(readFileSync(file, 'utf8'), '- milk\n- eggs\n');
  await assert.rejects(host.callTool('files_read', { path: '../config.db' }), /outside the allowed roots/);
  assert.ok(changes, 'the changes service is visible to other plugins');
  const [append, create] = changes!.list();
  assert.equal(append.op, 'write');
  assert.equal(append.turnId, 'test:1#0');
  await changes!.undo(append.id);
  assert.equal(readFileSync(file, 'utf8'), '- milk\n');
  await changes!.undo(create.id);
  assert.equal(existsSync(file), false);
});
