import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { testConfig } from '../embedder/__fixtures__/test-config.js';
import { EmbedderService } from '../embedder/index.js';
import { ColdArchive } from '../archive/index.js';
import { DocStore, eventDocument } from '../documents/index.js';
import { turnEvents, type TestTurn } from './__fixtures__/each-tier.js';
import { MemoryRecall } from './index.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'concurrent-recall-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const TURNS: TestTurn[] = [
  ['S1', 'Ann', 'Ann: we adopted a grey cat from the shelter'],
  ['S1', 'Bo', 'Bo: the shelter was full of barking dogs'],
  ['S2', 'Ann', 'Ann: my sister plays the violin in an orchestra'],
  ['S2', 'Bo', 'Bo: we drove the old car to the coast for a picnic'],
  ['S3', 'Ann', 'Ann: the car broke down near the lighthouse'],
  ['S3', 'Bo', 'Bo: the orchestra rehearses on Tuesdays in the old church'],
];

/** An OpenAI-shaped embeddings server (real HTTP) that answers texts containing `slow` after the others. */
async function embeddingsServer(slow: string): Promise<{ url: string; close(): Promise<void> }> {
  const vec = (t: string) => [t.includes('cat') ? 1 : 0, t.includes('car') ? 1 : 0, t.includes('violin') || t.includes('orchestra') ? 1 : 0, 0.1];
  const srv = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const input = (JSON.parse(body) as { input: string[] }).input;
      const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: input.map((t, index) => ({ object: 'embedding', index, embedding: vec(t) })), model: 'fake-embed' }));
      if (input.some((t) => t.includes(slow))) setTimeout(answer, 150);
      else answer();
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => srv.close(() => r())) };
}

test('concurrent recalls with a dense model (the ranking awaits an embeddings API) give what each gives alone', async (t) => {
  const api = await embeddingsServer('Which cat');
  t.after(() => api.close());
  const embedder = new EmbedderService({ config: testConfig({ 'core.memory.embedding_api.base_url': api.url, 'core.memory.embedding_api.model': 'fake-embed', 'core.memory.embedding_api.api_key': 'k', 'core.memory.embedding_model_path': '' }) });
  await embedder.start();
  await embedder.ready();
  assert.equal(embedder.dense, true);
  t.after(() => embedder.stop());

  const home = path.join(root, 'h');
  const archive = new ColdArchive({ home, tokenize: (x) => embedder.tokenize(x) });
  archive.open();
  const docs = new DocStore({ home, embedder });
  await docs.open();
  const evs = turnEvents(TURNS);
  archive.putMany(evs.slice(0, 4).map((e) => eventDocument(e, 0)));
  docs.restore(evs.slice(4).map((e) => eventDocument(e, 0)));
  t.after(async () => {
    archive.close();
    await docs.close();
  });
  // The tier objects are the same from query to query (as in the daemon), so the corpora are shared.
  const context = { events: () => [] };
  const recall = new MemoryRecall({ embedder, context: () => context, docs: () => docs, archive: () => archive });

  // One candidate per tier: the shelter turn next to the cat turn is then outside the candidates and
  // lends its evidence from the archive's scores of the query being ranked.
  const OPTS = { k: 4, tiers: ['document', 'archive'] as const, rank: { maxCandidates: 1 } };
  const queries = ['Which cat did Ann adopt from the shelter?', 'Where did the car break down?', 'When does the orchestra rehearse?', 'who plays the violin'];
  const show = (hs: { id: string; score: number }[]) => hs.map((h) => `${h.id}:${h.score.toFixed(9)}`);
  // One pass first: the warm documents get their vectors on the first ranking that needs them.
  for (const q of queries) await recall.search(q, OPTS);
  const alone: string[][] = [];
  for (const q of queries) alone.push(show(await recall.search(q, OPTS)));
  assert.ok(alone.every((a) => a.length > 0));
  // All at once (the first waits longest for its query vector): no ranking may see another's state.
  for (let round = 0; round < 2; round++) {
    const together = await Promise.all(queries.map((q) => recall.search(q, OPTS)));
    assert.deepEqual(together.map(show), alone, `round ${round}`);
  }
});
