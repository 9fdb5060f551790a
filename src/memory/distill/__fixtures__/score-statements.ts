import { readFileSync } from 'node:fs';
import type { Triple } from '../../../spec/index.js';

/** One labelled statement: the facts (predicate, object or accepted alternatives) it states about its speaker. */
export interface LabelledStatement {
  id: string;
  lang: 'zh' | 'en';
  text: string;
  facts: [string, string | string[]][];
  split: 'dev' | 'heldout';
}

/** Precision / recall of an extractor on a set of statements. */
export interface StatementScore {
  items: number;
  expected: number;
  extracted: number;
  correct: number;
  precision: number;
  recall: number;
  /** Statements without a fact (questions, hypotheticals, negations, others) that yielded none. */
  negatives: number;
  cleanNegatives: number;
  /** Wrong extractions and missed facts, for reading. */
  errors: { id: string; text: string; wrong: string[]; missed: string[] }[];
}

/** The labelled set in `fact-statements.json`. */
export function loadStatements(): LabelledStatement[] {
  const doc = JSON.parse(readFileSync(new URL('./fact-statements.json', import.meta.url), 'utf8')) as { items: LabelledStatement[] };
  return doc.items;
}

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

/** Scores `extract` (the speaker is `user`) against the labels: a fact counts once, by predicate and object. */
export function scoreStatements(items: readonly LabelledStatement[], extract: (text: string) => Triple[]): StatementScore {
  const s: StatementScore = { items: items.length, expected: 0, extracted: 0, correct: 0, precision: 0, recall: 0, negatives: 0, cleanNegatives: 0, errors: [] };
  for (const it of items) {
    const got = extract(it.text).filter((t) => t.subject === 'user');
    const open = it.facts.map(([p, o]) => ({ p, alts: (Array.isArray(o) ? o : [o]).map(norm), used: false }));
    const wrong: string[] = [];
    for (const t of got) {
      const m = open.find((e) => !e.used && e.p === t.predicate && e.alts.includes(norm(t.object)));
      if (m) m.used = true;
      else wrong.push(`${t.predicate} ${t.object}`);
    }
    const missed = open.filter((e) => !e.used).map((e) => `${e.p} ${e.alts[0]}`);
    s.expected += open.length;
    s.extracted += got.length;
    s.correct += open.filter((e) => e.used).length;
    if (it.facts.length === 0) {
      s.negatives++;
      if (got.length === 0) s.cleanNegatives++;
    }
    if (wrong.length || missed.length) s.errors.push({ id: it.id, text: it.text, wrong, missed });
  }
  s.precision = s.extracted ? s.correct / s.extracted : 1;
  s.recall = s.expected ? s.correct / s.expected : 1;
  return s;
}
