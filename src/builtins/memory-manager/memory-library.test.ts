import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync, existsSync, unlinkSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLibrary } from './memory-library.js';

function tempLib(t: { after(fn: () => unknown): void }, opts: ConstructorParameters<typeof MemoryLibrary>[1] = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mm-lib-'));
  const lib = new MemoryLibrary(dir, opts);
  t.after(async () => {
    await lib.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, lib };
}

async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('M-1: save writes memories/<id>.md atomically; a fresh library scans it back', async (t) => {
  const { dir, lib } = tempLib(t, { watch: false });
  const rec = await lib.save({ id: 'trip-1', title: '杭州之行', snapshot: '周六去西湖', impressions: [' 西湖 ', '西湖', ''], tags: ['convention'], notes: '带伞' });
  assert.deepEqual(rec.impressions, ['西湖']);
  const file = join(dir, 'memories', 'trip-1.md');
  assert.ok(readFileSync(file, 'utf8').includes('周六去西湖'));
  assert.deepEqual(readdirSync(join(dir, 'memories')), ['trip-1.md'], 'no temp files left');
  const again = new MemoryLibrary(dir, { watch: false });
  t.after(() => again.close());
  const read = await again.read('trip-1');
  assert.equal(read.title, '杭州之行');
  assert.equal(read.notes, '带伞');
  assert.deepEqual(read.tags, ['convention']);
});

test('M-1: the snapshot is immutable: save over it, updateMeta with it → ConflictError; notes are editable', async (t) => {
  const { lib } = tempLib(t, { watch: false });
  await lib.save({ id: 'imm-1', title: 't', snapshot: '原文' });
  await assert.rejects(lib.save({ id: 'imm-1', title: 't', snapshot: '改过的' }), { code: 'CONFLICT' });
  await assert.rejects(lib.updateMeta('imm-1', { snapshot: 'x' }), { code: 'CONFLICT' });
  await assert.rejects(lib.updateMeta('imm-1', { createdAt: 'x' }), { code: 'CONFLICT' });
  const same = await lib.save({ id: 'imm-1', title: '新标题', snapshot: '原文' });
  assert.equal(same.title, '新标题', 'same snapshot: meta may change');
  const n = await lib.updateNotes('imm-1', '第一条');
  const n2 = await lib.updateNotes('imm-1', '第二条', 'append');
  assert.equal(n.snapshot, '原文');
  assert.equal(n2.notes, '第一条\n\n第二条');
  assert.equal((await lib.read('imm-1')).snapshot, '原文');
});

test('tags are kept once whatever their letter case ("pets" and "PETS" are one tag; the first spelling stays), on save, edit and compose', async (t) => {
  const { lib } = tempLib(t, { watch: false });
  const a = await lib.save({ title: 'Rex', snapshot: 'a dog', tags: ['pets', 'PETS', ' Pets ', 'dogs'] });
  assert.deepEqual(a.tags, ['pets', 'dogs']);
  const b = await lib.updateMeta(a.id, { tags: ['Family', 'family', 'pets'] });
  assert.deepEqual(b.tags, ['Family', 'pets']);
  const c = await lib.compose({ ids: [a.id], title: 'All', tags: ['x', 'X'] });
  assert.deepEqual(c.tags, ['x']);
});

test('across memories a tag keeps the library\'s spelling ("PETS" on a new memory is "pets"), the tag filter ignores letter case; another case of "convention" never becomes it', async (t) => {
  const { dir, lib } = tempLib(t, { watch: false });
  const a = await lib.save({ title: 'Rex', snapshot: 'a dog', tags: ['pets'] });
  const b = await lib.save({ title: 'Tom', snapshot: 'a cat', tags: ['PETS', 'Cats'] });
  assert.deepEqual(b.tags, ['pets', 'Cats']);
  const c = await lib.updateMeta(a.id, { tags: ['pets', 'CATS'] });
  assert.deepEqual(c.tags, ['pets', 'Cats']);
  // The only memory with a tag may change its spelling.
  assert.deepEqual((await lib.updateMeta(a.id, { tags: ['Pets'] })).tags, ['pets'], 'another memory still spells it "pets"');
  // Files written by hand (Obsidian) keep their spelling; the filter finds them all the same.
  mkdirSync(join(dir, 'memories'), { recursive: true });
  writeFileSync(join(dir, 'memories', 'hand-1.md'), '---\ntitle: Goldie\ntags: ["PETS"]\n---\n## 快照\na fish\n');
  const again = new MemoryLibrary(dir, { watch: false });
  t.after(() => again.close());
  assert.deepEqual((await again.list({ tag: 'Pets' })).items.map((m) => m.title).sort(), ['Goldie', 'Rex', 'Tom']);
  assert.deepEqual((await again.search('fish', 20, { tag: 'pets' })).map((m) => m.title), ['Goldie']);
  // A reserved tag is what it is written as: another case of it stays a plain tag (an existing
  // memory tagged "Convention" must not start being injected everywhere), and the exact spelling
  // wins within one list and over the library's spelling (a review of 0480).
  const legacy = await lib.save({ title: 'Trade fair', snapshot: 'the convention centre opens at 9', tags: ['Convention', 'ｃｏｎｖｅｎｔｉｏｎ'] });
  assert.deepEqual(legacy.tags, ['Convention', 'ｃｏｎｖｅｎｔｉｏｎ']);
  assert.deepEqual((await lib.save({ title: 'Rule', snapshot: 'answer briefly', tags: ['Convention', 'convention'] })).tags, ['convention']);
  assert.deepEqual((await lib.save({ title: 'Rule 2', snapshot: 'answer in Chinese', tags: ['convention'] })).tags, ['convention'], 'not respelled after the legacy memory');
  writeFileSync(join(dir, 'memories', 'hand-2.md'), '---\ntitle: Brief\ntags: ["Convention", "PETS", "pets"]\n---\n## 快照\nkeep it short\n');
  const third = new MemoryLibrary(dir, { watch: false });
  t.after(() => third.close());
  assert.deepEqual((await third.read('hand-2')).tags, ['Convention', 'PETS'], 'a hand-written file keeps its spelling');
});

test('compose: made of a memory that is turned off, the new memory starts off too (its text stays out of prompts until the person turns it on)', async (t) => {
  const { lib } = tempLib(t, { watch: false });
  const on = await lib.save({ title: 'Rex', snapshot: 'a dog' });
  const off = await lib.save({ title: 'Secret', snapshot: 'the safe code is 1234', enabled: false });
  assert.equal((await lib.compose({ ids: [on.id, off.id], title: 'Both' })).enabled, false);
  const on2 = await lib.save({ title: 'Tom', snapshot: 'a cat' });
  assert.equal((await lib.compose({ ids: [on.id, on2.id], title: 'Pets' })).enabled, true);
});

test('M-1: bad input gets typed errors', async (t) => {
  const { lib } = tempLib(t, { watch: false });
  await assert.rejects(lib.read('../x'), { code: 'VALIDATION' });
  await assert.rejects(lib.save({ id: '../x', snapshot: 'a' }), { code: 'VALIDATION' });
  await assert.rejects(lib.save({ snapshot: '' }), { code: 'VALIDATION' });
  await assert.rejects(lib.save({ snapshot: 'a', bogus: 1 }), { code: 'VALIDATION' });
  await assert.rejects(lib.read('missing-1'), { code: 'NOT_FOUND' });
  await assert.rejects(lib.updateMeta('missing-1', { title: 'x' }), { code: 'NOT_FOUND' });
  await assert.rejects(lib.updateMeta('../../etc', { title: 'x' }), { code: 'VALIDATION' });
});

test('M-4: links, backlinks, related BFS, compose keeps sources, graph overview and focus', async (t) => {
  const { lib } = tempLib(t, { watch: false });
  await lib.save({ id: 'aaa', title: 'A', snapshot: 'a', impressions: ['甲'] });
  await lib.save({ id: 'bbb', title: 'B', snapshot: 'b', links: ['aaa'] });
  await lib.save({ id: 'ccc', title: 'C', snapshot: 'c', links: ['bbb'] });
  await lib.save({ id: 'ddd', title: 'D', snapshot: 'd' });
  assert.deepEqual((await lib.read('aaa')).backlinks, ['bbb']);
  const rel = await lib.related('aaa', 2);
  assert.deepEqual(rel.map((r) => [r.id, r.distance]), [['bbb', 1], ['ccc', 2]]);
  assert.deepEqual((await lib.related('aaa', 1)).map((r) => r.id), ['bbb']);

  const comp = await lib.compose({ ids: ['aaa', 'ddd'], title: '合集' });
  assert.deepEqual(comp.composedOf, ['aaa', 'ddd']);
  assert.ok(comp.snapshot.includes('### A（aaa）') && comp.snapshot.includes('d'));
  assert.deepEqual(comp.impressions, ['甲']);
  assert.equal((await lib.read('aaa')).snapshot, 'a', 'sources untouched');
  await assert.rejects(lib.compose({ ids: ['aaa', 'nope-1'], title: 'x' }), { code: 'NOT_FOUND' });

  await lib.read('bbb');
  assert.deepEqual((await lib.list({ order: 'mru', limit: 3 })).items.map((i) => i.id), ['bbb', 'aaa', comp.id], 'MRU order: last used first');
  const focus = await lib.graph({ focus: 'aaa', hops: 1 });
  assert.deepEqual(focus.nodes.map((n) => n.id).sort(), ['aaa', 'bbb', comp.id].sort());
  assert.deepEqual(focus.edges.map((e) => `${e.from}>${e.to}:${e.kind}`).sort(), ['bbb>aaa:backlink', `${comp.id}>aaa:composedOf`].sort());
  assert.equal(focus.nodes.find((n) => n.id === 'aaa')?.depth, 0);
  const focus2 = await lib.graph({ focus: comp.id, hops: 2 });
  assert.ok(focus2.edges.some((e) => e.kind === 'composedOf' && e.from === comp.id && e.to === 'ddd'));
  assert.ok(focus2.edges.some((e) => e.kind === 'backlink' && e.from === 'bbb' && e.to === 'aaa'));
  const over = await lib.graph({ limit: 3 });
  assert.equal(over.nodes.length, 3);
  assert.equal(over.nodes[0].id, comp.id, 'latest first');

  await lib.delete('bbb');
  assert.deepEqual((await lib.read('aaa')).backlinks, []);
  await assert.rejects(lib.delete('bbb'), { code: 'NOT_FOUND' });
});

test('M-1: search ranks impressions over title over body (jieba tokens)', async (t) => {
  const { lib } = tempLib(t, { watch: false });
  await lib.save({ id: 'body-1', title: '杂记', snapshot: '今天讨论了数据库迁移的方案' });
  await lib.save({ id: 'title-1', title: '数据库迁移', snapshot: '一些内容' });
  await lib.save({ id: 'imp-1', title: '其它', snapshot: '另一些内容', impressions: ['数据库迁移'] });
  await lib.save({ id: 'none-1', title: '旅行', snapshot: '去西湖' });
  const hits = await lib.search('数据库迁移');
  assert.deepEqual(hits.map((h) => h.id), ['imp-1', 'title-1', 'body-1']);
  assert.deepEqual(await lib.search('   '), []);
});

test('M-1: hand edits while running are picked up by the watcher (add, change, unlink)', async (t) => {
  const { dir, lib } = tempLib(t, { debounceMs: 30 });
  await lib.save({ id: 'watch-1', title: '原标题', snapshot: '正文', links: [] });
  await lib.watching();
  const file = join(dir, 'memories', 'watch-1.md');
  writeFileSync(file, readFileSync(file, 'utf8').replace('"原标题"', '"手改标题"').replace('"links": []', '').replace('links: []', 'links: ["hand-2"]'));
  writeFileSync(join(dir, 'memories', 'hand-2.md'), '---\ntitle: 手写的\ntags: ["convention"]\n---\n## 快照\n在 Obsidian 里写的\n');
  writeFileSync(join(dir, 'memories', 'not-a-memory.txt'), 'x');
  await until(() => lib.get('watch-1')?.title === '手改标题' && lib.get('hand-2') !== undefined, 'hand edits');
  assert.deepEqual(lib.get('hand-2')?.tags, ['convention']);
  assert.deepEqual(lib.backlinks('hand-2'), ['watch-1'], 'backlink index follows hand edits');
  assert.equal((await lib.search('Obsidian'))[0]?.id, 'hand-2');
  unlinkSync(join(dir, 'memories', 'hand-2.md'));
  await until(() => lib.get('hand-2') === undefined, 'unlink');
  assert.ok(existsSync(file));
});

test('decision 0260: a hand edit is reported (onFileChange) with its id; a write through the API is not reported as one', async (t) => {
  const seen: string[] = [];
  const { dir, lib } = tempLib(t, { debounceMs: 30, onFileChange: (id: string) => seen.push(id) });
  await lib.save({ id: 'own-1', title: 'mine', snapshot: 'written through the API' });
  await lib.watching();
  await lib.updateNotes('own-1', 'more', 'replace');
  writeFileSync(join(dir, 'memories', 'hand-3.md'), '---\ntitle: by hand\n---\n## 快照\nin Obsidian\n');
  await until(() => seen.includes('hand-3'), 'the hand edit reported');
  unlinkSync(join(dir, 'memories', 'hand-3.md'));
  await until(() => seen.filter((x) => x === 'hand-3').length === 2, 'the hand delete reported');
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(!seen.includes('own-1'), `own writes are not hand edits: ${seen.join()}`);
});

test('a watcher read in flight while a memory is deleted or edited does not bring it back or undo the edit', async (t) => {
  const { dir, lib } = tempLib(t, { watch: false });
  await lib.ready();
  // What a watcher event runs, started just before our own delete / edit; the delete and the edit
  // are started a few event-loop turns later each time, so the read lands in every phase of them.
  const watcherRead = (id: string) => (lib as unknown as { loadFile(p: string): Promise<void> }).loadFile(join(dir, 'memories', `${id}.md`));
  const turns = async (n: number) => {
    for (let k = 0; k < n; k++) await new Promise((r) => setImmediate(r));
  };
  const back: string[] = [];
  const stale: string[] = [];
  for (let i = 0; i < 48; i++) {
    const gone = await lib.save({ title: `gone ${i}`, snapshot: `text ${i}` });
    const read = watcherRead(gone.id);
    await turns(i % 12);
    await lib.delete(gone.id, { unrecorded: true });
    await read;
    if (lib.get(gone.id)) back.push(gone.id);
    const edited = await lib.save({ title: `edited ${i}`, snapshot: `text ${i}`, notes: 'old' });
    const read2 = watcherRead(edited.id);
    await turns(i % 12);
    await lib.updateNotes(edited.id, 'new');
    await read2;
    if (lib.get(edited.id)?.notes !== 'new') stale.push(edited.id);
  }
  assert.deepEqual(back, [], 'deleted memories came back in the index');
  assert.deepEqual(stale, [], 'edits were undone in the index');
  assert.equal((await lib.list()).total, 48);
});

test('a hand-edited memory whose front matter is not valid YAML is read in part and not written over by app edits (it would lose the rest)', async (t) => {
  const { dir, lib } = tempLib(t, { watch: false });
  mkdirSync(join(dir, 'memories'), { recursive: true });
  const file = join(dir, 'memories', 'hand-yaml.md');
  const text = '---\ntitle: "Trip"\ntags:\n  - travel\n  - food\nmood: "sunny\nsource_url: https://example.org/x\n---\n## 快照\nWe went to Lisbon.\n';
  writeFileSync(file, text);
  await lib.ready();
  const rec = lib.get('hand-yaml');
  assert.equal(rec?.snapshot, 'We went to Lisbon.', 'still readable and searchable');
  assert.match(rec?.frontMatterError ?? '', /not valid YAML/);
  await assert.rejects(lib.updateNotes('hand-yaml', 'appended note', 'append'), (e: Error & { code?: string }) => e.code === 'CONFLICT' && /cannot be changed here until its file is fixed/.test(e.message));
  await assert.rejects(lib.updateMeta('hand-yaml', { title: 'New' }), { code: 'CONFLICT' });
  assert.equal(readFileSync(file, 'utf8'), text, 'the file is as the person wrote it');
  // Fixed by hand, it can be edited again.
  writeFileSync(file, text.replace('"sunny', '"sunny"'));
  const again = new MemoryLibrary(dir, { watch: false });
  t.after(() => again.close());
  await again.ready();
  assert.equal(again.get('hand-yaml')?.frontMatterError, undefined);
  assert.deepEqual(again.get('hand-yaml')?.tags, ['travel', 'food']);
  await again.updateNotes('hand-yaml', 'appended note', 'append');
  assert.match(readFileSync(file, 'utf8'), /source_url/, 'the properties it did not know are kept');
});

test('search: an embedder that never answers costs one short wait, then lexical ranking without asking it again for a while', async (t) => {
  let calls = 0;
  const stuck = { model: async () => 'api:m#4', embed: () => (calls++, new Promise<(number[] | null)[]>(() => {})) };
  const { lib } = tempLib(t, { watch: false, embedder: stuck });
  await lib.save({ id: 'cat-1', title: 'My cat', snapshot: 'The cat is called Mochi.' });
  await lib.save({ id: 'car-1', title: 'Car', snapshot: 'The car needs a repair.' });
  assert.deepEqual((await lib.search('cat')).map((h) => h.id), ['cat-1'], 'lexical results after the wait');
  const asked = calls;
  assert.deepEqual((await lib.search('repair')).map((h) => h.id), ['car-1']);
  assert.equal(calls, asked, 'not asked again while it is failing');
});

test('search: memories are embedded once and re-embedded only when their text changes', async (t) => {
  const seen: string[] = [];
  const vec = (text: string) => (/cat|kitten/i.test(text) ? [1, 0] : [0, 1]);
  const emb = { model: async () => 'static:test#2', embed: async (texts: string[]) => (seen.push(...texts), texts.map(vec)) };
  const { lib } = tempLib(t, { watch: false, embedder: emb });
  await lib.save({ id: 'cat-1', title: 'My cat', snapshot: 'Mochi sleeps all day.' });
  await lib.save({ id: 'car-1', title: 'Car', snapshot: 'Needs a repair.' });
  assert.deepEqual((await lib.search('kitten')).map((h) => h.id), ['cat-1']);
  const n = seen.length;
  await lib.search('kitten');
  assert.equal(seen.length, n + 1, 'only the query is embedded again');
  await lib.save({ id: 'car-1', title: 'Car', snapshot: 'Needs a repair.', notes: 'notes are not embedded' });
  await lib.updateMeta('car-1', { title: 'Red car' });
  await lib.search('kitten');
  assert.ok(seen.slice(n + 1).some((x) => x.startsWith('Red car')), 'the changed memory is embedded again');
});

test('search: a query the model has no vector for is ranked lexically once, dense ranking stays on', async (t) => {
  const emb = {
    model: async () => 'static:test#2',
    embed: async (texts: string[]) => texts.map((x) => (/zzz/.test(x) ? null : /cat|kitten/i.test(x) ? [1, 0] : [0, 1])),
  };
  const { lib } = tempLib(t, { watch: false, embedder: emb });
  await lib.save({ id: 'cat-1', title: 'My cat', snapshot: 'Mochi sleeps all day.' });
  await lib.save({ id: 'car-1', title: 'Car', snapshot: 'Needs a repair.' });
  assert.deepEqual(await lib.search('zzz'), []);
  assert.deepEqual((await lib.search('kitten')).map((h) => h.id), ['cat-1']);
});

test('SPEC §9: a memory file that is a link leaving the library is refused (scan and watcher); a link inside it is fine', async (t) => {
  const outside = mkdtempSync(join(tmpdir(), 'mm-outside-'));
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  const secret = join(outside, 'secret.md');
  writeFileSync(secret, '---\ntitle: "stolen"\n---\n## 快照\nthe door code is 4711\n<!-- notes -->\n');
  const { dir, lib } = tempLib(t, { debounceMs: 20 });
  mkdirSync(join(dir, 'memories'), { recursive: true });
  symlinkSync(secret, join(dir, 'memories', 'evil-1.md'));
  symlinkSync('/etc/hostname', join(dir, 'memories', 'host-1.md'));
  writeFileSync(join(dir, 'memories', 'real-1.md'), '---\ntitle: "real"\n---\n## 快照\na real memory\n<!-- notes -->\n');
  symlinkSync(join(dir, 'memories', 'real-1.md'), join(dir, 'memories', 'alias-1.md'));
  await lib.ready();
  assert.deepEqual(lib.all().map((r) => r.id).sort(), ['alias-1', 'real-1']);
  await assert.rejects(lib.read('evil-1'), /not found|NOT_FOUND/i);
  await assert.rejects(lib.read('host-1'), /not found|NOT_FOUND/i);
  assert.equal((await lib.read('alias-1')).title, 'real');
  assert.equal((await lib.search('4711')).length, 0);
  // Added while running: the watcher refuses it too.
  await lib.watching();
  symlinkSync(secret, join(dir, 'memories', 'evil-2.md'));
  writeFileSync(join(dir, 'memories', 'plain-2.md'), '---\ntitle: "plain"\n---\n## 快照\nhand written\n<!-- notes -->\n');
  await until(() => lib.all().some((r) => r.id === 'plain-2'), 'the watcher to pick up plain-2');
  assert.equal(lib.all().some((r) => r.id === 'evil-2'), false);
});

test('a hand edit just before a delete is not reported as a memory added by hand (a forget must leave no text in the history)', async (t) => {
  const seen: { id: string; before: boolean; after: boolean }[] = [];
  const { dir, lib } = tempLib(t, { debounceMs: 1, onFileChange: (id, before, after) => seen.push({ id, before: !!before, after: !!after }) });
  await lib.save({ id: 'secret', title: 'secret', snapshot: '我的银行卡密码是 4711' });
  await lib.watching();
  // Our own writes queued first keep the delete's unlink waiting while the watcher's timer fires:
  // the delete has taken the memory out of the index, and the file is still there to be read.
  const busy = Array.from({ length: 60 }, (_, i) => lib.save({ id: `other-${i}`, title: `other ${i}`, snapshot: 'x'.repeat(20_000) }));
  writeFileSync(join(dir, 'memories', 'secret.md'), `${readFileSync(join(dir, 'memories', 'secret.md'), 'utf8')}\n手改了一行`);
  await lib.delete('secret', { unrecorded: true });
  await Promise.all(busy);
  await new Promise((r) => setTimeout(r, 200));
  assert.deepEqual(seen.filter((s) => s.id === 'secret' && s.after), [], 'the deleted memory came back as a hand add');
  await assert.rejects(lib.read('secret'));
});

test('a memory file that is not UTF-8 text (a binary, a GBK file) is listed with the reason and never written over', async (t) => {
  const { dir, lib } = tempLib(t, { watch: false });
  mkdirSync(join(dir, 'memories'), { recursive: true });
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(64, 0xff)]);
  const gbk = Buffer.concat([Buffer.from('---\ntitle: note\n---\n## 快照\n'.replace('快照', '\u5feb\u7167'), 'utf8'), Buffer.from([0xc4, 0xe3, 0xba, 0xc3])]); // 你好 in GBK
  writeFileSync(join(dir, 'memories', 'photo.md'), png);
  writeFileSync(join(dir, 'memories', 'gbk-note.md'), gbk);
  await lib.ready();
  for (const [id, bytes] of [['photo', png], ['gbk-note', gbk]] as const) {
    assert.match(lib.get(id)?.frontMatterError ?? '', /not UTF-8 text/, id);
    await assert.rejects(lib.updateNotes(id, 'a note', 'append'), { code: 'CONFLICT' });
    await assert.rejects(lib.updateMeta(id, { title: 'x' }), { code: 'CONFLICT' });
    assert.ok(readFileSync(join(dir, 'memories', `${id}.md`)).equals(bytes), `${id} is byte for byte as it was`);
  }
});
