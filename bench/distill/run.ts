/**
 * Rule distiller precision / recall on the labelled statements (T-9):
 * `node --import tsx bench/distill/run.ts [--errors]`. Reported beside the LoCoMo figures by
 * `npm run bench:locomo`. The set is split: `dev` statements were read while writing the rules,
 * `heldout` ones were not, so the held-out figure is the honest one.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractFacts } from '../../src/memory/distill/index.js';
import { loadStatements, scoreStatements, type StatementScore } from '../../src/memory/distill/__fixtures__/score-statements.js';

const pct = (x: number) => (100 * x).toFixed(1);

function line(name: string, s: StatementScore): string {
  return `| ${name} | ${s.items} | ${s.expected} | ${s.extracted} | ${pct(s.precision)} | ${pct(s.recall)} | ${s.cleanNegatives} / ${s.negatives} |`;
}

/** Scores the rule distiller; returns the markdown table and a one-line summary. */
export async function runDistillBench(showErrors = false): Promise<{ items: number; table: string; summary: string }> {
  const all = loadStatements();
  const extract = (t: string) => extractFacts(t, { speaker: 'user' });
  const parts: [string, typeof all][] = [
    ['all', all],
    ['dev (read while writing the rules)', all.filter((i) => i.split === 'dev')],
    ['held-out (not read while tuning)', all.filter((i) => i.split === 'heldout')],
    ['Chinese', all.filter((i) => i.lang === 'zh')],
    ['English', all.filter((i) => i.lang === 'en')],
  ];
  const scores = parts.map(([n, items]) => [n, scoreStatements(items, extract)] as const);
  const table = [
    '| statements | n | facts labelled | facts extracted | precision % | recall % | no-fact statements left without facts |',
    '|---|---|---|---|---|---|---|',
    ...scores.map(([n, s]) => line(n, s)),
  ].join('\n');
  const a = scores[0][1];
  const h = scores[2][1];
  const summary = `precision ${pct(a.precision)} %, recall ${pct(a.recall)} % (held-out half: ${pct(h.precision)} % / ${pct(h.recall)} %); ${a.cleanNegatives} of ${a.negatives} questions, conditions, negations and other people's facts yielded no fact.`;
  if (showErrors) for (const e of a.errors) console.error(`${e.id} ${e.text} | wrong: ${e.wrong.join('; ')} | missed: ${e.missed.join('; ')}`);
  return { items: all.length, table, summary };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runDistillBench(process.argv.includes('--errors')).then((r) => console.log(`${r.table}\n\n${r.summary}`));
}
