import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { startFakeLlm } from '../../../test/fixtures/fake-llm/index.js';
import { testConfig, testLog } from './__fixtures__/test-config.js';
import { cosine, EmbedderService, HybridIndex, type ReembedProgress } from './index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'embedder-test-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Three "topics" in 4 dimensions so similarity is predictable. */
const VEC_ROWS = [
  'cat 1 0 0 0',
  'dog 0.9 0.1 0 0',
  'kitten 0.95 0 0.05 0',
  'car 0 1 0 0',
  'truck 0 0.9 0.1 0',
  '猫 1 0 0 0.1',
  '汽车 0 1 0 0.1',
];

function writeVec(name: string, header: boolean, rows = VEC_ROWS): string {
  const p = path.join(root, name);
  fs.writeFileSync(p, `${header ? `${rows.length} 4\n` : ''}${rows.join('\n')}\n`);
  return p;
}

test('tokenize: English stop-words removed and Porter-stemmed; Chinese segmented by jieba', () => {
  const e = new EmbedderService({ config: testConfig() });
  assert.deepEqual(e.tokenize("Caroline's running to the support-groups"), ['carolin', 'run', 'support', 'group']);
  const zh = e.tokenize('我喜欢在北京吃烤鸭');
  assert.ok(zh.includes('北京') && zh.includes('烤鸭'), zh.join(','));
  assert.ok(!zh.includes('在'));
  assert.deepEqual(e.keywords('pottery pottery class with the kids', 2), ['pottery', 'class']);
  assert.ok(e.keywords('今天我们去北京天安门看升旗', 3).includes('天安门'));
  // Names jieba's dictionary does not know stay whole and come first (graph recall of people).
  const people = e.keywords('张三喜欢咖啡，王五住在杭州', 6);
  assert.ok(people.includes('张三') && people.includes('王五'), people.join(','));
  assert.deepEqual(e.keywords('李雷和韩梅梅是同学', 3), ['李雷', '韩梅梅', '同学']);
  // A new word that is not a name does not jump ahead of the TF-IDF keywords.
  assert.notEqual(e.keywords('我家的猫最近老是掉毛', 3)[0], '老是');
});

test('lexical by default: no dense model, null vectors, modelId "lexical"', async () => {
  const e = new EmbedderService({ config: testConfig({ 'core.memory.embedding_model_path': '' }) });
  await e.start();
  await e.ready();
  assert.equal(e.dense, false);
  assert.equal(e.modelId(), 'lexical');
  assert.deepEqual(await e.embed(['a', 'b']), [null, null]);
  await e.stop();
  await e.stop();
});

test('static vectors: .vec with a header line and word2vec/GloVe text without one', async () => {
  for (const [name, header] of [
    ['with-header.vec', true],
    ['no-header.txt', false],
  ] as const) {
    const file = writeVec(name, header);
    const e = new EmbedderService({ config: testConfig({ 'core.memory.embedding_model_path': file }) });
    await e.start();
    await e.ready();
    assert.equal(e.dense, true, name);
    assert.equal(e.modelId(), `static:${name}#4`);
    const [cat, kitten, truck, none] = await e.embed(['a cat', 'the kitten', 'a truck', 'zzz qqq']);
    assert.ok(cat && kitten && truck);
    assert.equal(none, null);
    assert.ok(cosine(cat, kitten) > cosine(cat, truck), `${name}: cat is nearer kitten than truck`);
    const [zhCat] = await e.embed(['猫']);
    assert.ok(zhCat && cosine(zhCat, cat) > 0.9, 'Chinese words are looked up after jieba segmentation');
    await e.stop();
  }
});

test('ConceptNet Numberbatch keys (/c/en/word) are mapped to words', async () => {
  const file = writeVec('mini-numberbatch.txt', true, ['/c/en/cat 1 0 0 0', '/c/en/car 0 1 0 0', '/c/zh/猫 1 0 0 0']);
  const e = new EmbedderService({ config: testConfig({ 'core.memory.embedding_model_path': file }) });
  await e.start();
  await e.ready();
  const [a, b] = await e.embed(['cat', '猫']);
  assert.ok(a && b && cosine(a, b) > 0.99);
});

test('files of different dimensions are never mixed: the load fails over to lexical with a warning', async () => {
  const a = writeVec('four.vec', true);
  const b = writeVec('three.vec', false, ['apple 1 0 0', 'pear 0 1 0']);
  const log = testLog();
  const e = new EmbedderService({ config: testConfig({ 'core.memory.embedding_model_path': `${a},${b}` }), log });
  await e.start();
  await e.ready();
  assert.equal(e.dense, false);
  assert.ok(log.lines.some((l) => /warn .*dimension 3, expected 4/.test(l)), log.lines.join('\n'));
});

test('a missing model named like fastText is downloaded; when the network refuses, a clear fallback line and lexical service', async () => {
  const log = testLog();
  const urls: string[] = [];
  const fetchRefusing = (async (url: string | URL | Request) => {
    urls.push(String(url));
    throw new TypeError('fetch failed: ECONNREFUSED');
  }) as typeof fetch;
  const e = new EmbedderService({ config: testConfig({ 'core.memory.embedding_model_path': path.join(root, 'models', 'cc.zh.300.vec') }), log, fetch: fetchRefusing });
  await e.start();
  await e.ready();
  assert.equal(e.dense, false);
  assert.deepEqual(urls, ['https://dl.fbaipublicfiles.com/fasttext/vectors-crawl/cc.zh.300.vec.gz']);
  assert.ok(log.lines.some((l) => /warn embedder: download of .*cc\.zh\.300\.vec\.gz failed .*falling back to lexical/.test(l)), log.lines.join('\n'));
  assert.ok(!fs.existsSync(path.join(root, 'models', 'cc.zh.300.vec')));
  assert.deepEqual(e.tokenize('cats'), ['cat'], 'lexical service goes on');
});

/**
 * A loopback server for vector downloads: the gzipped `.vec` body in `parts` pieces, `gapMs` apart,
 * with a Content-Length; `stallAfter` pieces, then nothing more (the connection stays open).
 */
async function vectorServer(t: { after: (fn: () => unknown) => void }, o: { parts: number; gapMs: number; stallAfter?: number }) {
  const body = zlib.gzipSync(`${VEC_ROWS.length} 4\n${VEC_ROWS.join('\n')}\n${Array.from({ length: 400 }, (_, i) => `w${i} 0.1 0.2 0.3 0.4`).join('\n')}\n`);
  const server = http.createServer(async (req, res) => {
    if (!new URL(req.url ?? '/', 'http://x').pathname.endsWith('/cc.en.300.vec.gz')) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(body.length) });
    const size = Math.ceil(body.length / o.parts);
    for (let i = 0; i < o.parts; i++) {
      if (o.stallAfter !== undefined && i >= o.stallAfter) return; // never ends
      res.write(body.subarray(i * size, (i + 1) * size));
      await new Promise((r) => setTimeout(r, o.gapMs));
    }
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/vectors/cc.en.300.vec.gz?download=1`;
}

test('download by name from a mirror: a slow transfer is not cut off while bytes flow, progress is logged and visible', async (t) => {
  // 8 pieces 200 ms apart: 1.6 s in all, past the 1.2 s stall limit, which never trips (each gap is
  // a sixth of it: a loaded machine that delays a piece by a second must not fail the test).
  const url = await vectorServer(t, { parts: 8, gapMs: 200 });
  const log = testLog();
  const target = path.join(root, 'dl-ok', 'cc.en.300.vec');
  // A mirror folder (ending in "/"): the usual file name is appended.
  const folder = url.slice(0, url.lastIndexOf('/') + 1);
  const e = new EmbedderService({ config: testConfig({ 'core.memory.embedding_model_path': target, 'core.memory.embedding_download_url': folder }), log, downloadStallMs: 1200 });
  const seen: number[] = [];
  const poll = setInterval(() => {
    const p = e.downloadProgress();
    if (p) seen.push(p.bytes);
  }, 20);
  t.after(() => clearInterval(poll));
  await e.start();
  await e.ready();
  clearInterval(poll);
  assert.equal(e.dense, true, log.lines.join('\n'));
  assert.ok(fs.existsSync(target), 'unpacked next to where it was asked for');
  assert.ok(!fs.readdirSync(path.dirname(target)).some((f) => f.includes('.download-')), 'no temp file left');
  const [cat, kitten, truck] = await e.embed(['cat', 'kitten', 'truck']);
  assert.ok(cosine(cat!, kitten!) > cosine(cat!, truck!), 'the downloaded vectors are in use');
  const progress = log.lines.filter((l) => /info embedder: downloading cc\.en\.300\.vec: \d+% \(/.test(l));
  assert.ok(progress.length >= 5, `progress lines:\n${log.lines.join('\n')}`);
  assert.ok(log.lines.some((l) => /downloaded cc\.en\.300\.vec \(/.test(l)));
  assert.ok(seen.length > 3 && seen.some((b, i) => i > 0 && b > seen[0]), `downloadProgress() grew while it ran: ${seen.join(',')}`);
  assert.equal(e.downloadProgress(), undefined, 'nothing in progress afterwards');
});

test('download by name: a transfer that stalls is given up with a clear line, nothing half-written stays, lexical service goes on', async (t) => {
  const url = await vectorServer(t, { parts: 8, gapMs: 10, stallAfter: 2 });
  const log = testLog();
  const target = path.join(root, 'dl-stall', 'cc.en.300.vec');
  const e = new EmbedderService({ config: testConfig({ 'core.memory.embedding_model_path': target, 'core.memory.embedding_download_url': url }), log, downloadStallMs: 300 });
  await e.start();
  await e.ready();
  assert.equal(e.dense, false);
  assert.ok(log.lines.some((l) => /warn embedder: download of .* failed \(no data for \d+ s\); falling back to lexical/.test(l)), log.lines.join('\n'));
  assert.ok(!fs.existsSync(target));
  assert.deepEqual(fs.existsSync(path.dirname(target)) ? fs.readdirSync(path.dirname(target)) : [], [], 'no temp file left');
  assert.deepEqual(e.tokenize('cats'), ['cat']);
});

test('embeddings API over real HTTP: OpenAI /v1/embeddings, and Ollama /api/embed after a 404', async (t) => {
  const llm = await startFakeLlm();
  t.after(() => llm.close());
  llm.setEmbedding((text) => (text.includes('cat') ? [1, 0, 0] : text.includes('car') ? [0, 1, 0] : [0.5, 0.5, 0.1]));
  const e = new EmbedderService({
    config: testConfig({ 'core.memory.embedding_api.base_url': llm.url, 'core.memory.embedding_api.model': 'fake-embed', 'core.memory.embedding_api.api_key': 'k', 'core.memory.embedding_model_path': '' }),
  });
  await e.start();
  await e.ready();
  assert.equal(e.modelId(), 'api:fake-embed#3');
  const [a, b] = await e.embed(['a cat', 'a car']);
  assert.ok(a && b);
  assert.ok(Math.abs(cosine(a, b)) < 1e-6);
  assert.ok(llm.requests.some((r) => r.path === '/v1/embeddings'));

  // A server that only speaks Ollama's /api/embed.
  const http = await import('node:http');
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url !== '/api/embed') {
        res.writeHead(404).end();
        return;
      }
      const input = (JSON.parse(body) as { input: string[] }).input;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ embeddings: input.map((_, i) => [1, i, 0, 0, 0]) }));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  t.after(() => new Promise<void>((r) => srv.close(() => r())));
  const port = (srv.address() as { port: number }).port;
  const o = new EmbedderService({ config: testConfig({ 'core.memory.embedding_api.base_url': `http://127.0.0.1:${port}`, 'core.memory.embedding_api.model': 'nomic', 'core.memory.embedding_api.api_key': '', 'core.memory.embedding_model_path': '' }) });
  await o.start();
  await o.ready();
  assert.equal(o.modelId(), 'api:nomic#5');
});

test('an unreachable embeddings API falls back to lexical with a warning, never throws', async () => {
  const log = testLog();
  const e = new EmbedderService({ config: testConfig({ 'core.memory.embedding_api.base_url': 'http://127.0.0.1:9', 'core.memory.embedding_model_path': '' }), log });
  await e.start();
  await e.ready();
  assert.equal(e.dense, false);
  assert.ok(log.lines.some((l) => /warn embedder: embeddings API .*unavailable.*lexical/.test(l)), log.lines.join('\n'));
});

test('model change: background re-embedding with progress; vectors of another model are never compared', async (t) => {
  const llm = await startFakeLlm();
  t.after(() => llm.close());
  llm.setEmbedding((text) => (text.includes('cat') ? [1, 0, 0] : [0, 1, 0]));
  const file = writeVec('change.vec', true);
  const config = testConfig({ 'core.memory.embedding_model_path': file, 'core.memory.embedding_api.base_url': '', 'core.memory.embedding_api.model': 'fake3', 'core.memory.embedding_api.api_key': '' });
  const log = testLog();
  const e = new EmbedderService({ config, log });
  await e.start();
  await e.ready();
  const progress: ReembedProgress[] = [];
  const idx = new HybridIndex({ embedder: e, onProgress: (p) => progress.push(p), log, name: 'test-index' });
  t.after(() => idx.close());
  for (let i = 0; i < 70; i++) idx.add(`n${i}`, i % 2 ? 'a car on the road' : 'a cat on the mat');
  assert.equal(idx.vectorOf('n0')?.modelId, 'static:change.vec#4');
  assert.equal(idx.vectorOf('n0')?.vector.length, 4);
  assert.deepEqual(idx.stats(), { size: 70, modelId: 'static:change.vec#4', dim: 4, current: 70, stale: 0, missing: 0 });

  const changed = new Promise<string>((r) => {
    const off = e.onModelChange((id) => {
      off();
      r(id);
    });
  });
  config.set('core.memory.embedding_api.base_url', llm.url);
  assert.equal(await changed, 'api:fake3#3');
  // Right after the switch the old 4-d vectors are ignored (treated as missing): search still answers.
  const during = await idx.search('cat', 3);
  assert.ok(during.length > 0);
  while (!progress.some((p) => p.done === p.total && p.modelId === 'api:fake3#3')) await new Promise((r) => setTimeout(r, 5));
  assert.ok(progress.length >= 2, 'progress in batches');
  assert.equal(progress.at(-1)?.total, 70);
  assert.equal(idx.vectorOf('n1')?.modelId, 'api:fake3#3');
  assert.equal(idx.vectorOf('n1')?.vector.length, 3);
  assert.deepEqual(idx.stats(), { size: 70, modelId: 'api:fake3#3', dim: 3, current: 70, stale: 0, missing: 0 });
  assert.ok(log.lines.some((l) => /test-index: re-embedded 70\/70 for api:fake3#3/.test(l)), log.lines.join('\n'));
  const hits = await idx.search('cat', 5);
  assert.ok(hits.every((h) => Number(h.id.slice(1)) % 2 === 0), 'dense ranking in the new space');

  // Dimension guard: a stored vector whose dimension does not match the query's is never compared,
  // even when it claims the current model (e.g. the server swapped models under one name).
  idx.add('stale', 'a cat', undefined, { vector: { vector: new Float32Array([1, 0, 0, 0]), modelId: 'api:fake3#3' } });
  const scores = idx.denseScores(new Float32Array([1, 0, 0]), 'api:fake3#3');
  assert.equal(scores.has('stale'), false);
  assert.equal(scores.get('n0'), 1);
  await e.stop();
});
