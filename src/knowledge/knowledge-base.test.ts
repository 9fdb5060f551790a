import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConflictError, NotFoundError, PayloadTooLargeError, ValidationError } from '../spec/index.js';
import { KnowledgeBase, MAX_KNOWLEDGE_BYTES } from './knowledge-base.js';
import { knowledgeTools } from './knowledge-tools.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ha-knowledge-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const call = { sessionId: 's', turnId: 's#1', callId: 'c', signal: new AbortController().signal };

test('CRUD on knowledge/<name>/content.md, persisted and re-indexed on reopen', async () => {
  const dir = path.join(root, 'kb1');
  const kb = new KnowledgeBase({ dir });
  await kb.open();
  await kb.create('wifi', 'The home WiFi password is on the router label. SSID: homenet');
  await kb.create('菜谱 红烧肉', '红烧肉做法：五花肉切块，冰糖炒色，加酱油和水炖一小时。');
  assert.equal(fs.readFileSync(path.join(dir, 'wifi', 'content.md'), 'utf8'), 'The home WiFi password is on the router label. SSID: homenet');
  await assert.rejects(kb.create('wifi', 'x'), ConflictError);
  await kb.create('wifi', 'SSID: homenet2', { overwrite: true });
  assert.equal((await kb.get('wifi')).content, 'SSID: homenet2');
  await kb.update('wifi', 'SSID: homenet3, password on the router');
  await assert.rejects(kb.update('nope', 'x'), NotFoundError);
  assert.deepEqual((await kb.list()).map((e) => e.name), ['wifi', '菜谱 红烧肉']);
  const hits = await kb.search('五花肉怎么做');
  assert.equal(hits[0].name, '菜谱 红烧肉');
  assert.match(hits[0].snippet, /五花肉/);
  assert.equal((await kb.search('router password'))[0].name, 'wifi');
  assert.deepEqual(await kb.search('zebra'), []);
  // a fresh instance sees the files (and hand-made ones)
  fs.mkdirSync(path.join(dir, 'by-hand'));
  fs.writeFileSync(path.join(dir, 'by-hand', 'content.md'), 'Garbage day is Tuesday');
  const kb2 = new KnowledgeBase({ dir });
  await kb2.open();
  assert.deepEqual((await kb2.list()).map((e) => e.name), ['by-hand', 'wifi', '菜谱 红烧肉']);
  assert.equal((await kb2.search('garbage'))[0].name, 'by-hand');
  await kb2.delete('wifi');
  assert.equal(fs.existsSync(path.join(dir, 'wifi')), false);
  await assert.rejects(kb2.get('wifi'), NotFoundError);
  await assert.rejects(kb2.delete('wifi'), NotFoundError);
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
  await kb.close();
  await kb2.close();
});

test('path-traversal and malformed names are refused; nothing is written outside', async () => {
  const dir = path.join(root, 'kb2');
  const kb = new KnowledgeBase({ dir });
  await kb.open();
  for (const bad of ['../evil', '..', '.', '.hidden', 'a/b', 'a\\b', '/etc/passwd', 'x'.repeat(65), '', 'trailing.', 'nul\u0000x', 'a..b']) {
    await assert.rejects(kb.create(bad, 'x'), ValidationError, JSON.stringify(bad));
    await assert.rejects(kb.get(bad), ValidationError);
  }
  assert.deepEqual(fs.readdirSync(dir), []);
  assert.equal(fs.existsSync(path.join(root, 'evil')), false);
  await assert.rejects(kb.create('big', 'x'.repeat(MAX_KNOWLEDGE_BYTES + 1)), PayloadTooLargeError);
  await assert.rejects(kb.create('num', 42 as never), ValidationError);
  await kb.close();
});

test('a new entry never replaces one: a name in another letter case is taken (one folder on macOS and Windows), and two creates at once make one', async () => {
  const dir = path.join(root, 'kb-case');
  const kb = new KnowledgeBase({ dir });
  await kb.open();
  await kb.create('Recipes', 'Pesto: basil, pine nuts');
  await assert.rejects(kb.create('recipes', 'something else'), (e: unknown) => e instanceof ConflictError && /"Recipes" already exists/.test(e.message));
  assert.equal((await kb.get('Recipes')).content, 'Pesto: basil, pine nuts');
  const both = await Promise.allSettled([kb.create('wifi', 'one'), kb.create('WiFi', 'two')]);
  assert.deepEqual(both.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  assert.equal((await kb.list()).filter((e) => e.name.toLowerCase() === 'wifi').length, 1);
  // Overwrite (an edit, an import) is as before.
  await kb.create('Recipes', 'Pesto v2', { overwrite: true });
  assert.equal((await kb.get('Recipes')).content, 'Pesto v2');
  await kb.close();
});

test('tools and the knowledge prompt slot', async () => {
  const kb = new KnowledgeBase({ dir: path.join(root, 'kb3') });
  await kb.open();
  const tools = Object.fromEntries(knowledgeTools(kb).map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(tools), ['knowledge_search', 'knowledge_create', 'knowledge_list']);
  assert.equal((tools.knowledge_create.parameters as { type: string }).type, 'object');
  assert.deepEqual(await tools.knowledge_create.handler({ name: 'printer', content: 'The printer toner model is TN-2420.' }, call), { created: 'printer', chars: 35 });
  await assert.rejects(Promise.resolve().then(() => tools.knowledge_create.handler({ name: 'x' }, call)), ValidationError);
  await assert.rejects(Promise.resolve().then(() => tools.knowledge_create.handler({ name: '../x', content: 'y' }, call)), ValidationError);
  const found = (await tools.knowledge_search.handler({ query: 'toner' }, call)) as { hits: { name: string }[] };
  assert.equal(found.hits[0].name, 'printer');
  const listed = (await tools.knowledge_list.handler({}, call)) as { entries: { name: string }[] };
  assert.deepEqual(listed.entries.map((e) => e.name), ['printer']);
  const slot = kb.slot();
  const filled = await slot({ sessionId: 's', turnId: 't', input: 'which toner do I buy?', consolidation: false });
  assert.match(filled?.text ?? '', /^- printer: .*TN-2420/, 'no heading of its own: the kernel prints 【知识库】 once');
  assert.deepEqual(filled?.sources?.map((x) => [x.tier, x.id]), [['knowledge', 'printer']], 'the entry is named as the source');
  assert.equal(await slot({ sessionId: 's', turnId: 't', input: 'weather', consolidation: false }), undefined);
  await kb.close();
});

/** Polls until `ok()` holds (the watcher's events arrive after its debounce); fails after 5 s. */
async function until(ok: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out: ${what}`);
}

test('edits made by hand in the folder reach the index without a restart; linked files and our own writes are handled', async () => {
  const dir = path.join(root, 'kb-watch');
  const told: string[] = [];
  const kb = new KnowledgeBase({ dir, watchDebounceMs: 20, onHandEdit: (n) => void told.push(n) });
  await kb.open();
  await kb.watching();
  const names = async () => (await kb.list()).map((e) => e.name);
  // Created by hand (an editor, a sync tool).
  fs.mkdirSync(path.join(dir, 'bins'));
  fs.writeFileSync(path.join(dir, 'bins', 'content.md'), 'The recycling bin goes out on Thursday');
  await until(async () => (await kb.search('recycling'))[0]?.name === 'bins', 'a new entry is indexed');
  // Changed by hand: the old words no longer find it, the new ones do.
  fs.writeFileSync(path.join(dir, 'bins', 'content.md'), 'The compost bin goes out on Monday');
  await until(async () => (await kb.search('compost'))[0]?.name === 'bins', 'the edit is indexed');
  assert.deepEqual(await kb.search('recycling'), []);
  assert.equal((await kb.get('bins')).content, 'The compost bin goes out on Monday');
  // Deleted by hand.
  fs.rmSync(path.join(dir, 'bins'), { recursive: true });
  await until(async () => !(await names()).includes('bins'), 'a removed entry leaves the index');
  assert.deepEqual([...new Set(told)], ['bins'], 'each hand edit is told (for memory_changed)');
  // A content.md that is a link to a file elsewhere is no entry (as at open).
  const outside = path.join(root, 'outside-secret.txt');
  fs.writeFileSync(outside, 'outside words');
  fs.mkdirSync(path.join(dir, 'linked'));
  fs.symlinkSync(outside, path.join(dir, 'linked', 'content.md'));
  // Our own writes are not undone by their own watcher events, nor by a hand edit read meanwhile.
  await kb.create('keys', 'spare key under the blue pot');
  await kb.update('keys', 'spare key with the neighbour');
  // The watcher has seen those events once a later hand edit is indexed (the same debounce; the
  // earlier events' timers fire first), so the checks below are not made before it could act.
  fs.mkdirSync(path.join(dir, 'sentinel'));
  fs.writeFileSync(path.join(dir, 'sentinel', 'content.md'), 'sentinel entry');
  await until(async () => (await names()).includes('sentinel'), 'a later hand edit is indexed');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((await kb.get('keys')).content, 'spare key with the neighbour');
  assert.deepEqual(await kb.search('outside'), []);
  assert.ok(!(await names()).includes('linked'));
  assert.deepEqual([...new Set(told)], ['bins', 'sentinel'], `our own writes are not told as hand edits: ${told.join()}`);
  await kb.close();
  // After close, nothing is watched: a change on disk is read at the next open.
  fs.writeFileSync(path.join(dir, 'keys', 'content.md'), 'key in the drawer');
  await new Promise((r) => setTimeout(r, 100));
  const again = new KnowledgeBase({ dir, watch: false });
  await again.open();
  assert.equal((await again.get('keys')).content, 'key in the drawer');
  await again.close();
});

test('a one-character Chinese query finds the entry, and a longer one that shares only common characters finds nothing; a put in another letter case is the same entry', async () => {
  const kb = new KnowledgeBase({ dir: path.join(root, 'kb-cjk') });
  await kb.open();
  await kb.create('tea', '龙井茶的冲泡：先投茶，再注水。泡龙井茶要用八十度的水。我每天都是一个人喝。');
  await kb.create('coffee', 'Espresso needs finely ground beans.');
  assert.equal((await kb.search('茶'))[0]?.name, 'tea');
  // A longer query is matched by its pairs: common single characters bring nothing unrelated.
  assert.deepEqual(await kb.search('今天是星期几'), []);
  assert.deepEqual(await kb.search('你好，帮我记一下明天的会'), []);
  assert.match((await kb.search('龙井'))[0]?.snippet ?? '', /龙井/);
  await kb.create('Rust', 'ownership');
  const r = await kb.create('rust', 'borrowing', { overwrite: true });
  assert.equal(r.name, 'Rust');
  assert.deepEqual((await kb.list()).map((e) => e.name).filter((x) => /rust/i.test(x)), ['Rust']);
  assert.equal((await kb.get('Rust')).content, 'borrowing');
});
