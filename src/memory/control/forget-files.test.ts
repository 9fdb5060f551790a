/**
 * Decision 0370 over the real memory system, session logs and files: a forget deletes the files
 * its turns' messages brought (the kernel's copy and the channel's), keeps a file a turn that stays
 * still names, counts them in its preview and report, never reaches outside `<home>/media/`, and
 * a forget cut off between its commit point and the deletion finishes it at the next open.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openMemoryAt } from '../__fixtures__/memory-on-disk.js';
import { turnHash } from './tombstone-hash.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-forget-files-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let n = 0;
const SID = 'telegram:77';

/** Writes a file under the data folder; returns its path from there. */
function put(home: string, rel: string, body: string): string {
  const file = path.join(home, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, body);
  return rel;
}

/** A data folder with a session log; `say` logs one turn as the kernel records it. */
async function world() {
  const home = path.join(root, `h${n++}`);
  fs.mkdirSync(home, { recursive: true });
  const a = await openMemoryAt(home);
  await a.sessions.create({ channel: 'telegram', id: SID });
  const say = async (text: string, attachments: { path?: string; channelPath?: string }[] = [], reply = 'Got it.') => {
    const { turnId } = a.sessions.nextTurn(SID);
    await a.sessions.append(SID, { turnId, kind: 'user', text, data: { source: 'telegram', trigger: 'user', ...(attachments.length ? { attachments: attachments.map((x) => ({ name: 'f', mimeType: 'text/plain', bytes: 1, kind: 'text', ...x })) } : {}) } });
    await a.sessions.append(SID, { turnId, kind: 'assistant', text: reply });
    return turnId;
  };
  return { home, ...a, say };
}

const there = (home: string, rel: string) => fs.existsSync(path.join(home, rel));

test('0370: forgetting a turn deletes both copies of its file, counted in preview and report; a file a kept turn also names stays', async () => {
  const w = await world();
  const kernel = put(w.home, 'media/2026-01-01/passport.txt', 'X1234567');
  const channel = put(w.home, 'media/telegram/77/10-passport.txt', 'X1234567');
  const shared = put(w.home, 'media/2026-01-01/floorplan.txt', 'kitchen left');
  const other = put(w.home, 'media/2026-01-01/recipe.txt', 'pesto');
  const secret = await w.say('my passport scan', [{ path: kernel, channelPath: channel }, { path: shared }]);
  // The same file named again by a turn that stays (a resend, a reply pointing at it).
  await w.say('here is the floor plan again', [{ path: shared }]);
  await w.say('a recipe', [{ path: other }]);

  const plan = await w.mem.control.forgetPreview({ turnIds: [secret] });
  assert.equal(plan.files, 2, JSON.stringify(plan));
  // An archive's tombstone of that turn (what an import would apply here) says the files go too.
  const preview = await w.mem.control.previewTombstones([`sha256:turn:${turnHash(secret)}`]);
  assert.deepEqual(preview, { turns: 1, facts: 0, documents: 0, files: 2 });
  const res = await w.mem.control.forget({ turnIds: [secret] });
  assert.equal(res.turns, 1);
  assert.equal(res.files, 2);
  assert.equal(there(w.home, kernel), false, "the kernel's copy is gone");
  assert.equal(there(w.home, channel), false, "the channel's copy is gone");
  assert.equal(there(w.home, shared), true, 'a file a kept turn names stays');
  assert.equal(there(w.home, other), true, "another turn's file stays");
  await w.close();
});

test('0370: a Telegram message logged before the channel copy was data — its "saved to" note — still takes the copy; nothing outside the media folder is touched', async () => {
  const w = await world();
  const channel = put(w.home, 'media/telegram/77/11-notes.txt', 'door code 4711');
  const outside = put(w.home, 'persona.md', 'I am the agent');
  const secret = w.sessions.nextTurn(SID).turnId;
  await w.sessions.append(SID, { turnId: secret, kind: 'user', text: `my notes\n[file saved to ${path.join(w.home, channel)}]`, data: { attachments: [{ name: 'x', mimeType: 'text/plain', path: '../persona.md' }, { name: 'y', mimeType: 'text/plain', path: outside }] } });
  const res = await w.mem.control.forget({ turnIds: [secret] });
  assert.equal(res.files, 1);
  assert.equal(there(w.home, channel), false);
  assert.equal(there(w.home, outside), true, 'a path outside media/ in a log is never followed');
  await w.close();
});

test('0370: a forget cut off after its commit point (its file list left in memory-control.db) deletes the files at the next open', async () => {
  const w = await world();
  const kernel = put(w.home, 'media/2026-01-01/letter.txt', 'dear bank');
  const channel = put(w.home, 'media/telegram/77/12-letter.txt', 'dear bank');
  const stay = put(w.home, 'media/2026-01-01/stay.txt', 'stays');
  await w.say('my letter', [{ path: kernel, channelPath: channel }]);
  await w.close();
  // What the forget's commit (tombstones and files in one transaction) leaves when a kill comes
  // before the files are deleted.
  const db = new Database(path.join(w.home, 'memory-control.db'));
  const ins = db.prepare('INSERT INTO forget_files(path, at) VALUES (?, ?)');
  // A folder inside media that is a link to one outside it (review finding): not followed.
  const outside = path.join(root, `outside-${n++}`);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'keep.txt'), 'not the data folder');
  fs.symlinkSync(outside, path.join(w.home, 'media', 'linked'));
  for (const f of [kernel, channel, '../persona.md', 'media/linked/keep.txt']) ins.run(f, Date.now());
  put(w.home, 'persona.md', 'I am the agent');
  db.close();
  assert.equal(there(w.home, kernel) && there(w.home, channel), true);
  const b = await openMemoryAt(w.home);
  assert.equal(there(w.home, kernel), false, "the kernel's copy is deleted at the next open");
  assert.equal(there(w.home, channel), false, "the channel's copy is deleted at the next open");
  assert.equal(there(w.home, stay), true);
  assert.equal(there(w.home, 'persona.md'), true, 'a listed path outside media/ is never deleted');
  assert.equal(fs.existsSync(path.join(outside, 'keep.txt')), true, 'nor one that a linked folder leads outside media/');
  await b.close();
  const after = new Database(path.join(w.home, 'memory-control.db'), { readonly: true });
  assert.equal(after.prepare('SELECT count(*) FROM forget_files').pluck().get(), 0, 'the list is emptied once done');
  after.close();
});
