import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readContextFile, serialiseContext, writeFileAtomic } from './context-file.js';

test('R-5: the context file keeps speaker and place across a restart; a malformed one is dropped, not the event', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-ctxfile-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'context.json');
  const base = { timestamp: 1, source: 'qq', channel: 'qq', sessionId: 'qq:group:1', input: 'hi', response: '' };
  await writeFileAtomic(
    file,
    serialiseContext([
      { ...base, id: 'a', kind: 'user', speaker: { id: 'qq:10001', name: 'Alice', platform: 'qq', userId: '10001' }, conversation: { kind: 'group', id: 'qq:group:1', platform: 'qq', title: 'Family' } },
      { ...base, id: 'b', kind: 'user', conversation: { kind: 'channel', id: 5 } as never },
      { ...base, id: 'c', kind: 'user', sessionId: 'webui:x' },
    ]),
  );
  const r = await readContextFile(file);
  assert.equal(r.status, 'ok');
  if (r.status !== 'ok') return;
  assert.equal(r.dropped, 0);
  assert.deepEqual(r.events[0].speaker, { id: 'qq:10001', name: 'Alice', platform: 'qq', userId: '10001' });
  assert.deepEqual(r.events[0].conversation, { kind: 'group', id: 'qq:group:1', platform: 'qq', title: 'Family' });
  assert.equal(r.events[1].conversation, undefined, 'a malformed place is dropped; the event stays');
  assert.equal(r.events[2].speaker, undefined);
});
