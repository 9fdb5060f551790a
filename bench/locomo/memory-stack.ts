import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigReader, ConfigValue } from '../../src/spec/config.js';
import { GraphDB, extractFacts, RelevanceContext, DocStore } from '../../src/memory/index.js';
import type { RankOptions } from '../../src/memory/documents/index.js';
import type { EmbedderService } from '../../src/memory/embedder/index.js';
import type { Conversation } from './dataset.js';
import type { RankedItem } from './metrics.js';

/** A tiny in-memory ConfigReader. */
export function memoryConfig(values: Record<string, ConfigValue>): ConfigReader {
  return {
    get: <T extends ConfigValue>(k: string) => (values[k] ?? null) as T,
    onChange: () => () => {},
  };
}

/**
 * One conversation's fresh memory stack in a temp data folder (real SQLite): RelevanceContext
 * pruning into the DocStore exactly as the live agent does each turn.
 */
export class MemoryStack {
  readonly home = fs.mkdtempSync(path.join(os.tmpdir(), 'locomo-'));
  readonly docs: DocStore;
  readonly context: RelevanceContext;
  /** Knowledge graph fed by the rule distiller during ingest (T-4/T-9). */
  readonly graph: GraphDB;
  /** Triples the rule distiller committed during ingest. */
  facts = 0;
  private readonly turnText = new Map<string, string>();

  constructor(
    private readonly embedder: EmbedderService,
    topK = 40,
  ) {
    this.docs = new DocStore({ home: this.home, embedder });
    this.graph = new GraphDB({ path: path.join(this.home, 'graph.db') });
    this.context = new RelevanceContext({
      home: this.home,
      embedder,
      topK,
      saveDebounceMs: 5_000,
      archive: (events) => this.docs.archiveEvents(events),
    });
  }

  async open(): Promise<void> {
    await this.docs.open();
    this.graph.open();
    await this.context.start();
  }

  /**
   * Ingests every turn in order: append at the session date (+1 s per turn for order), run the rule
   * distiller on the turn (speaker = the turn's speaker, ref = its dia_id) into the graph, then prune.
   */
  async ingest(conv: Conversation): Promise<void> {
    for (const t of conv.turns) {
      this.context.append({
        kind: 'user',
        source: 'locomo',
        channel: 'locomo',
        sessionId: `${conv.id}:S${t.session}`,
        input: t.text,
        response: '',
        timestamp: t.sessionTime + t.index * 1000,
        refs: [t.diaId],
      });
      this.turnText.set(t.diaId, t.text);
      // The indexed text is `speaker: text`; the distiller reads the utterance itself.
      const utterance = t.text.startsWith(`${t.speaker}: `) ? t.text.slice(t.speaker.length + 2) : t.text;
      const triples = extractFacts(utterance, { speaker: t.speaker, refs: [t.diaId] });
      if (triples.length) this.facts += this.graph.commit(triples);
      await this.context.prune(t.text);
    }
    await this.context.flush();
    await this.docs.whenIdle();
  }

  /**
   * The ranked memory for a question: documents and live context events in one ranking. With
   * `after` > 0 each hit comes with its following turn(s) (messageRange) as one item.
   */
  async search(q: string, rank?: Partial<RankOptions>, after = 0): Promise<RankedItem[]> {
    if (after === 0) {
      const hits = await this.docs.search(q, 50, { alsoEvents: this.context.events(), rank });
      return hits.map((h) => ({ refs: h.doc.refs, text: h.doc.content }));
    }
    const wins = await this.docs.searchWindows(q, 50, { alsoEvents: this.context.events(), rank, before: 0, after });
    return wins.map((w) => ({ refs: w.docs.flatMap((d) => d.refs), text: w.docs.map((d) => d.content).join('\n') }));
  }

  /**
   * Default ranking fused with graph recall: the question's keywords seed `graph.recall(kws, 2)`;
   * every item carrying a ref of a recalled relation gets `boost × top score` added, and recalled
   * turns missing from the top 50 enter with that boost alone. The default ranking is untouched.
   */
  async searchGraph(q: string, rank?: Partial<RankOptions>, boost = 0.1): Promise<RankedItem[]> {
    const hits = await this.docs.search(q, 50, { alsoEvents: this.context.events(), rank });
    const recalled = this.graphRefs(q);
    if (!recalled.size) return hits.map((h) => ({ refs: h.doc.refs, text: h.doc.content }));
    const add = boost * (hits[0]?.score ?? 1);
    const scored = hits.map((h) => ({ refs: h.doc.refs, text: h.doc.content, score: h.score + (h.doc.refs.some((r) => recalled.has(r)) ? add : 0) }));
    const have = new Set(hits.flatMap((h) => h.doc.refs));
    for (const ref of recalled) {
      const text = this.turnText.get(ref);
      if (!have.has(ref) && text !== undefined) scored.push({ refs: [ref], text, score: add });
    }
    return scored.sort((a, b) => b.score - a.score).map(({ refs, text }) => ({ refs, text }));
  }

  /** The refs (dia_ids) of the relations `graph.recall(keywords(q), 2)` returns. */
  graphRefs(q: string): Set<string> {
    const kws = this.embedder.keywords(q);
    const recalled = new Set<string>();
    if (kws.length) for (const r of this.graph.recall(kws, 2, { touch: false }).relations) for (const ref of r.refs ?? []) recalled.add(ref);
    return recalled;
  }

  async close(): Promise<void> {
    this.graph.close();
    await this.context.stop();
    await this.docs.close();
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}
