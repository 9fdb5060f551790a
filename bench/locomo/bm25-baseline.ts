import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { createRequire } from 'node:module';
import type { RankedItem } from './metrics.js';
import type { Turn } from './dataset.js';

const require = createRequire(import.meta.url);
const { eng } = require('stopword') as { eng: string[] };
const STOP = new Set(eng);

/**
 * The README's baseline: minisearch (BM25+), Porter stemming, English stop-words, one item per
 * turn with text `speaker: text [shares caption]`.
 */
export class Bm25Baseline {
  private readonly ms = new MiniSearch<{ id: number; text: string }>({
    fields: ['text'],
    processTerm: (t) => {
      const w = t.toLowerCase();
      return STOP.has(w) ? null : stemmer(w);
    },
  });
  private readonly turns: Turn[] = [];

  add(t: Turn): void {
    this.ms.add({ id: this.turns.length, text: t.text });
    this.turns.push(t);
  }

  search(q: string, k = 50): RankedItem[] {
    return this.ms
      .search(q)
      .slice(0, k)
      .map((r) => {
        const t = this.turns[r.id as number];
        return { refs: [t.diaId], text: t.text };
      });
  }
}
