import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { parseMemoryFile, serializeMemory, assertSnapshotText, type MemoryRecord } from './memory-file.js';
import { sanitizeImpressions } from './impressions.js';
import { assertMemoryId, newMemoryId } from './memory-id.js';

const rec: MemoryRecord = {
  id: 'zh-note_01',
  title: '周末计划：去杭州 # 西湖 \u2028 \u0085 \ufeff \u0007 end',
  impressions: ['杭州', '西湖', 'yes', '12:30', '- 列表', '"引号"', "it's", '[a, b]', '{x}', 'null'],
  tags: ['convention', '会话总结'],
  enabled: false,
  links: ['other-1', 'abc'],
  composedOf: ['src-1'],
  source: { sessionId: 'webui:会话-1', seqs: [3, 4, 9] },
  createdAt: '2026-11-29T10:00:00.000Z',
  updatedAt: '2026-11-29T11:00:00.000Z',
  snapshot: '用户说：周六去西湖。\n---\n## 快照\n带 `代码` 与 \\反斜杠\\ 与 \t 制表符',
  notes: '批注第一行\n\n<!-- notes -->\n批注里可以再出现标记',
};

function frontMatter(text: string): string {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  assert.ok(m, 'file starts with a front-matter block');
  return m[1];
}

test('M-1: parse → write → parse is the identity (Chinese text, tricky strings)', () => {
  const text = serializeMemory(rec);
  const back = parseMemoryFile(rec.id, text);
  assert.deepEqual(back, rec);
  assert.equal(serializeMemory(back), text, 'writing again gives the same bytes');
});

test('M-1: the front-matter is valid YAML with the same values (Obsidian opens it)', () => {
  const text = serializeMemory(rec);
  const y = parseYaml(frontMatter(text)) as Record<string, unknown>;
  const { id: _id, snapshot: _s, notes: _n, ...meta } = rec;
  assert.deepEqual(y, meta);
  for (const line of frontMatter(text).split('\n')) assert.match(line, /^[A-Za-z]+: /, 'one key: value line per field');
});

test('M-1: file layout: ## 快照, snapshot, <!-- notes --> line, notes', () => {
  const text = serializeMemory({ ...rec, notes: '' });
  const body = text.slice(text.indexOf('\n---\n') + 5);
  assert.ok(body.startsWith('## 快照\n\n用户说'));
  assert.ok(body.trimEnd().endsWith('<!-- notes -->'));
});

test('M-1: hand-written front-matter: plain strings, YAML block lists (Obsidian edits), no front-matter', () => {
  const plain = parseMemoryFile('hand-1', '---\ntitle: 我的笔记\nenabled: false\ntags: ["convention"]\n---\n## 快照\n内容\n<!-- notes -->\n注\n');
  assert.equal(plain.title, '我的笔记');
  assert.equal(plain.enabled, false);
  assert.deepEqual(plain.tags, ['convention']);
  assert.equal(plain.snapshot, '内容');
  assert.equal(plain.notes, '注');
  const obsidian = parseMemoryFile('hand-2', '---\ntitle: 标题\ntags:\n  - convention\n  - 会话总结\nimpressions:\n  - 甲\n---\n## 快照\n正文\n');
  assert.deepEqual(obsidian.tags, ['convention', '会话总结']);
  assert.deepEqual(obsidian.impressions, ['甲']);
  const bare = parseMemoryFile('hand-3', '只是一段文字\r\n第二行\r\n');
  assert.equal(bare.title, 'hand-3');
  assert.equal(bare.snapshot, '只是一段文字\n第二行');
  assert.equal(bare.enabled, true);
});

test('M-1: unknown front-matter keys survive a round trip', () => {
  const r = parseMemoryFile('extra-1', '---\ntitle: "t"\naliases: ["别名"]\n---\n## 快照\nx\n');
  assert.deepEqual(r.extra, { aliases: ['别名'] });
  assert.deepEqual(parseMemoryFile('extra-1', serializeMemory(r)), r);
});

test('M-1: a snapshot containing the notes marker line is refused', () => {
  assert.throws(() => assertSnapshotText('a\n<!-- notes -->\nb'), { code: 'VALIDATION' });
  assert.doesNotThrow(() => assertSnapshotText('inline <!-- notes --> is fine'));
});

test('M-2: impressions are trimmed, cut to 40 chars, deduped, empty dropped, at most 12', () => {
  const long = '长'.repeat(50);
  const out = sanitizeImpressions(['  a  ', 'a', '', '   ', long, 7, null, ...Array.from({ length: 20 }, (_, i) => `i${i}`)]);
  assert.equal(out[0], 'a');
  assert.equal(out[1], '长'.repeat(40));
  assert.equal(out[2], '7');
  assert.equal(out.length, 12);
  assert.deepEqual(sanitizeImpressions('x'), []);
});

test('M-1: ids: ^[A-Za-z0-9_-]{3,64}$ only (no path traversal)', () => {
  for (const bad of ['../x', 'a/b', 'ab', 'x'.repeat(65), '..', 'a.md', '', 42]) assert.throws(() => assertMemoryId(bad), { code: 'VALIDATION' });
  assert.equal(assertMemoryId('ok_id-1'), 'ok_id-1');
  assert.doesNotThrow(() => assertMemoryId(newMemoryId()));
});

test('the speaker is flat front-matter (speaker, speakerName, conversation) that YAML and a round trip keep', () => {
  const withSpeaker: MemoryRecord = { ...rec, speaker: { id: 'telegram:42', name: 'Alice "A" 爱丽丝' }, conversation: 'telegram:42' };
  const text = serializeMemory(withSpeaker);
  const y = parseYaml(frontMatter(text)) as Record<string, unknown>;
  assert.equal(y.speaker, 'telegram:42');
  assert.equal(y.speakerName, 'Alice "A" 爱丽丝');
  assert.equal(y.conversation, 'telegram:42');
  assert.deepEqual(parseMemoryFile(rec.id, text), withSpeaker);
  // A hand edit to something that is not a speaker id is dropped, not trusted.
  const bad = parseMemoryFile(rec.id, text.replace('speaker: "telegram:42"', 'speaker: "no id here"'));
  assert.equal(bad.speaker, undefined);
});
