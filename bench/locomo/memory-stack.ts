import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConfigReader, ConfigValue } from '../../src/spec/config.js';
import { RelevanceContext } from '../../src/memory/context/index.js';
import { DocStore, type RankOptions } from '../../src/memory/documents/index.js';
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

  constructor(embedder: EmbedderService, topK = 40) {
    this.docs = new DocStore({ home: this.home, embedder });
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
    await this.context.start();
  }

  /** Ingests every turn in order: append at the session date (+1 s per turn for order), then prune. */
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

  async close(): Promise<void> {
    await this.context.stop();
    await this.docs.close();
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}
