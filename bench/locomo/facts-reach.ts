/**
 * How far graph facts could carry multi-hop recall (decision 0210): `node --import tsx bench/locomo/facts-reach.ts [--data PATH]`.
 *
 * An upper bound, not a ranking: the rule distiller (no LLM, as the benchmark runs) is applied to
 * every turn the way the rule pipeline does (the turn's text, its speaker as subject), and the
 * multi-hop questions' gold turns are counted — how many yield any fact, and how many a fact whose
 * subject is the person the question names. A signal "a fact about the named person brings its
 * source turn in" can move at most the gold turns counted here, however well it matched the
 * question to the fact's relation and object.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractFacts } from '../../src/memory/distill/index.js';
import { loadLocomo } from './dataset.js';

export function factsReach(data: string): string {
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
    for (const q of c.questions) {
      if (q.category !== 1) continue;
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
        }
      }
      if (reached) questionsReached++;
      share += reached / q.evidence.length;
    }
  }
  const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)} %`;
  return [
    `Rule distiller over ${turns} turns of ${convs.length} conversations: ${facts} facts from ${turnsWithFact} turns (${pct(turnsWithFact, turns)}); predicates ${[...predicates].sort((a, b) => b[1] - a[1]).map(([p, n]) => `${p} ${n}`).join(', ')}.`,
    `Multi-hop questions: ${questions}, gold turns ${gold}; gold turns yielding any fact ${goldWithFact} (${pct(goldWithFact, gold)}), a fact whose subject is the named person ${goldAboutNamed} (${pct(goldAboutNamed, gold)}); questions with at least one such gold turn ${questionsReached} (${pct(questionsReached, questions)}).`,
    `Upper bound of the multi-hop recall facts could bring in (mean share of a question's gold turns that carry a fact about the named person): ${(100 * share / Math.max(1, questions)).toFixed(1)} points.`,
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const di = process.argv.indexOf('--data');
  console.log(factsReach(di >= 0 ? process.argv[di + 1] : '/work/shared/bench/locomo-dev.json'));
}
