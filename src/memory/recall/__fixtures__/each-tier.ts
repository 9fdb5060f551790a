import path from 'node:path';
import type { ContextEvent } from '../../../spec/index.js';
import { ColdArchive } from '../../archive/index.js';
import { DocStore, eventDocument } from '../../documents/index.js';
import type { EmbedderService } from '../../embedder/index.js';
import { MemoryRecall } from '../index.js';
import type { RecallTiers } from '../memory-recall.js';

/** A turn of a test conversation: session, speaker (id = name), text. Turn `i` gets ref `t<i>`. */
export type TestTurn = [session: string, speaker: string, text: string];

/** The turns as context events, one a month from January 2023 (so later turns are newer). */
export function turnEvents(turns: readonly TestTurn[]): ContextEvent[] {
  return turns.map(([s, who, text], i) => ({ id: `e${i}`, timestamp: Date.UTC(2023, i, 3), kind: 'user', source: 'chat', channel: 'chat', sessionId: s, input: text, response: '', refs: [`t${i}`], speaker: { id: who, name: who } }));
}

/**
 * Runs `check` three times, with the turns held only by the cold archive, then only by the warm
 * documents, then only by the context window (real SQLite files under `root/<tier>`), and returns
 * what each run returned: ranking must not depend on the tier a turn lives in. `extra`: more of the
 * recall's options (e.g. a word-neighbour table).
 */
export async function inEachTier<T>(root: string, embedder: EmbedderService, turns: readonly TestTurn[], check: (recall: MemoryRecall) => Promise<T>, extra: Partial<RecallTiers> = {}): Promise<T[]> {
  const out: T[] = [];
  for (const where of ['archive', 'document', 'context'] as const) {
    const home = path.join(root, where);
    const archive = new ColdArchive({ home, tokenize: (t) => embedder.tokenize(t) });
    archive.open();
    const docs = new DocStore({ home, embedder });
    await docs.open();
    const evs = turnEvents(turns);
    if (where === 'archive') archive.putMany(evs.map((e) => eventDocument(e, 0)));
    if (where === 'document') docs.restore(evs.map((e) => eventDocument(e, 0)));
    const recall = new MemoryRecall({ embedder, context: () => ({ events: () => (where === 'context' ? evs : []) }), docs: () => docs, archive: () => archive, ...extra });
    try {
      out.push(await check(recall));
    } finally {
      archive.close();
      await docs.close();
    }
  }
  return out;
}
