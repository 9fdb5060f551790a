/**
 * The LoCoMo benchmark measures what users run (K-7): the memory composition the daemon opens,
 * default config, no ranking overrides — and on a small conversation written for this test, a
 * year of heartbeats on the simulated clock changes where the turns live, not what is recalled.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryCompositionOptions } from '../src/memory/index.js';
import type { Conversation } from '../bench/locomo/dataset.js';
import { age, ask, DAY_MS, memoryOptionsFor, replay, tierSizes } from '../bench/locomo/lifecycle.js';
import { scoreRanking } from '../bench/locomo/metrics.js';

/** Everything the daemon passes to openMemorySystem (src/daemon/daemon.ts) — the bench may pass no more. */
const DAEMON_KEYS: (keyof MemoryCompositionOptions)[] = ['homeDir', 'config', 'log', 'llm', 'injectConsolidation', 'sessions'];
/** What only a simulation adds: the clock. */
const CLOCK_KEYS: (keyof MemoryCompositionOptions)[] = ['scheduler', 'now'];

function conversation(): Conversation {
  const s = (n: number) => Date.UTC(2024, 2, 1 + 7 * n, 18, 0);
  const lines: [number, string, string][] = [
    [1, 'Lena', 'I finally signed up for the pottery course at the community centre'],
    [1, 'Omar', 'Nice! What are you going to make first?'],
    [1, 'Lena', 'A blue glazed bowl for my grandmother'],
    [1, 'Omar', 'I spent the weekend fixing my old bicycle'],
    [2, 'Omar', 'My sister moved to Lisbon for a job at a bakery'],
    [2, 'Lena', 'Lisbon is lovely, the custard tarts are famous'],
    [2, 'Omar', 'She says the bakery opens at five every morning'],
    [2, 'Lena', 'I would never manage to get up that early'],
    [3, 'Lena', 'The bowl came out of the kiln with a crack'],
    [3, 'Omar', 'Oh no, can it be repaired?'],
    [3, 'Lena', 'My teacher showed me how to fill it with gold, kintsugi'],
    [3, 'Omar', 'That makes it even more special'],
  ];
  // Small talk around the facts, so the window (40 events) overflows into the documents.
  const topics = ['the weather', 'a podcast', 'lunch', 'the traffic', 'a film', 'the neighbours', 'work emails', 'a board game'];
  for (const session of [1, 2, 3]) for (let i = 0; i < 12; i++) lines.push([session, i % 2 ? 'Omar' : 'Lena', `Random chat number ${session}-${i} about ${topics[(session + i) % topics.length]}`]);
  lines.sort((a, b) => a[0] - b[0]);
  const turns = lines.map(([session, speaker, text], i) => ({ diaId: `D${session}:${i}`, speaker, text: `${speaker}: ${text}`, session, index: i, sessionTime: s(session) }));
  const idOf = (needle: string) => turns.find((t) => t.text.includes(needle))!.diaId;
  return {
    id: 'synthetic',
    speakers: ['Lena', 'Omar'],
    turns,
    questions: [
      { question: 'What did Lena make in her pottery course?', category: 4, evidence: [idOf('blue glazed bowl')] },
      { question: 'Where did Omar’s sister move?', category: 4, evidence: [idOf('moved to Lisbon')] },
      { question: 'How was the cracked bowl repaired?', category: 4, evidence: [idOf('kintsugi')] },
    ],
  };
}

test('the bench opens the daemon’s memory composition with the default config and asks without ranking overrides', async () => {
  const cm = await replay(conversation());
  try {
    const opts = memoryOptionsFor(cm.home, cm.config, cm.scheduler);
    for (const k of Object.keys(opts)) assert.ok([...DAEMON_KEYS, ...CLOCK_KEYS].includes(k as keyof MemoryCompositionOptions), `the bench passes ${k}, the daemon does not`);
    const changed = cm.config.list('core.').filter((k) => k.origin !== 'default');
    assert.deepEqual(changed, [], 'every setting at its default');
    const seen: unknown[] = [];
    const real = cm.memory.recall.search.bind(cm.memory.recall);
    cm.memory.recall.search = (q, o) => {
      seen.push(o);
      return real(q, o);
    };
    await ask(cm.memory, 'pottery');
    assert.deepEqual(seen, [{ k: 50 }], 'no ranking knobs');
  } finally {
    await cm.close();
  }
});

test('a year of heartbeats on the simulated clock moves every turn to the cold archive and recall stays the same', async () => {
  const conv = conversation();
  const cm = await replay(conv);
  try {
    const score = async () => {
      const out: string[] = [];
      for (const q of conv.questions) {
        const { items } = await ask(cm.memory, q.question);
        const s = scoreRanking(items, q.evidence);
        out.push(`${q.question} r5=${s.r5} r10=${s.r10} mrr=${s.mrr.toFixed(3)}`);
      }
      return out;
    };
    const fresh = await score();
    assert.ok(fresh.every((l) => l.includes('r5=1')), fresh.join('\n'));
    await age(cm, 365 * DAY_MS);
    const sizes = tierSizes(cm.memory);
    assert.equal(sizes.documents, 0, 'the warm tier emptied');
    assert.ok(sizes.archive > 0, 'turns pruned from the window are archived, not deleted');
    assert.equal(sizes.archive + sizes.context, conv.turns.length, 'every turn is somewhere');
    assert.deepEqual(await score(), fresh);
    const goldTiers = new Set<string>();
    for (const q of conv.questions) for (const h of (await ask(cm.memory, q.question)).hits) if (h.refs.some((r) => q.evidence.includes(r))) goldTiers.add(h.tier);
    assert.ok(goldTiers.has('archive'), `gold turns answered from: ${[...goldTiers].join(', ')}`);
  } finally {
    await cm.close();
  }
});
