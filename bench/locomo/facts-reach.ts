/**
 * How far graph facts could carry multi-hop recall (decision 0210): `node --import tsx bench/locomo/facts-reach.ts [--data PATH] [--ranked]`.
 *
 * An upper bound, not a ranking: the rule distiller (no LLM, as the benchmark runs) is applied to
 * every turn the way the rule pipeline does (the turn's text, its speaker as subject), and the
 * multi-hop questions' gold turns are counted — how many yield any fact, and how many a fact whose
 * subject is the person the question names. A signal "a fact about the named person brings its
 * source turn in" can move at most the gold turns counted here, however well it matched the
 * question to the fact's relation and object.
 */
// First: the zone the memory counts days in (decision 0270).
import './utc-person.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractFacts } from '../../src/memory/distill/index.js';
import { loadLocomo } from './dataset.js';
import { ask, replay } from './lifecycle.js';

/**
 * With `ranked`, each conversation is replayed through the daemon's memory composition (as
 * `bench:locomo` does) and every multi-hop question asked with the defaults: the bound then counts
 * only gold turns with a fact about the named person that the default top 10 misses, i.e. the most
 * multi-hop R@10 a perfect "facts bring their source turns in" signal could add.
 */
export async function factsReach(data: string, ranked = false): Promise<string> {
  const convs = loadLocomo(data);
  let turns = 0;
  let facts = 0;
  let turnsWithFact = 0;
  let questions = 0;
  let gold = 0;
  let goldWithFact = 0;
  let goldAboutNamed = 0;
  let questionsReached = 0;
  let share = 0;
  let r10 = 0;
  let r10Bound = 0;
  let graphFacts = 0;
  const predicates = new Map<string, number>();
  for (const c of convs) {
    const byId = new Map<string, { speaker: string; n: number }>();
    for (const t of c.turns) {
      const fs = extractFacts(t.text, { speaker: t.speaker });
      turns++;
      facts += fs.length;
      if (fs.length) turnsWithFact++;
      for (const f of fs) predicates.set(f.predicate, (predicates.get(f.predicate) ?? 0) + 1);
      byId.set(t.diaId, { speaker: t.speaker, n: fs.length });
    }
    const mem = ranked ? await replay(c) : undefined;
    if (mem) graphFacts += mem.memory.graph.stats().relations;
    for (const q of c.questions) {
      if (q.category !== 1) continue;
      const top = new Set<string>();
      if (mem) for (const it of (await ask(mem.memory, q.question, 10)).items.slice(0, 10)) for (const r of it.refs) top.add(r);
      const withFacts = new Set(top);
      // The person a question names: a participant whose first name is a word of it (one only).
      const named = c.speakers.filter((s) => new RegExp(`\\b${s.split(' ')[0]}\\b`, 'i').test(q.question));
      questions++;
      let reached = 0;
      for (const id of q.evidence) {
        const t = byId.get(id);
        gold++;
        if (!t || t.n === 0) continue;
        goldWithFact++;
        if (named.length === 1 && t.speaker === named[0]) {
          goldAboutNamed++;
          reached++;
          withFacts.add(id);
        }
      }
      if (reached) questionsReached++;
      share += reached / q.evidence.length;
      r10 += q.evidence.filter((e) => top.has(e)).length / q.evidence.length;
      r10Bound += q.evidence.filter((e) => withFacts.has(e)).length / q.evidence.length;
    }
    await mem?.close();
  }
  const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)} %`;
  return [
    `Rule distiller over ${turns} turns of ${convs.length} conversations: ${facts} facts from ${turnsWithFact} turns (${pct(turnsWithFact, turns)}); predicates ${[...predicates].sort((a, b) => b[1] - a[1]).map(([p, n]) => `${p} ${n}`).join(', ')}.`,
    `Multi-hop questions: ${questions}, gold turns ${gold}; gold turns yielding any fact ${goldWithFact} (${pct(goldWithFact, gold)}), a fact whose subject is the named person ${goldAboutNamed} (${pct(goldAboutNamed, gold)}); questions with at least one such gold turn ${questionsReached} (${pct(questionsReached, questions)}).`,
    `Upper bound of the multi-hop recall facts could bring in (mean share of a question's gold turns that carry a fact about the named person): ${(100 * share / Math.max(1, questions)).toFixed(1)} points.`,
    ...(ranked
      ? [
          `Replayed through the daemon's memory (rule distiller in the heartbeat loops): ${graphFacts} graph relations. Multi-hop R@10 with the defaults ${(100 * r10 / Math.max(1, questions)).toFixed(1)}; with every gold turn that carries a fact about the named person added to the top 10 (a perfect fact signal, nothing displaced) ${(100 * r10Bound / Math.max(1, questions)).toFixed(1)}.`,
        ]
      : []),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const di = process.argv.indexOf('--data');
  factsReach(di >= 0 ? process.argv[di + 1] : '/work/shared/bench/locomo-dev.json', process.argv.includes('--ranked')).then(console.log, (e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
