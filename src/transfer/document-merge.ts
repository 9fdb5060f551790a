import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { importNote, type TransferMode, type TransferPartPlan } from '../spec/index.js';
import { ColdArchive, DocStore, saidDays, type ArchivedRow, type MemoryDocument } from '../memory/index.js';
import { mergeContextWindow } from './context-merge.js';
import { copyDb } from './copy-db.js';
import type { MergeContext } from './merge-context.js';
import type { RefMap } from './ref-map.js';
import type { StagedExport } from './staged-export.js';

/**
 * Counts an imported document against our copy (in either tier) and says whether to put it: new,
 * or a conflict that `overwrite` settles (`evict` drops our copy in the other tier) or `keep-both`
 * settles under a new id; the same document or a skipped conflict is left out.
 */
function settleDocument(p: TransferPartPlan, mode: TransferMode, ours: MemoryDocument | undefined, d: MemoryDocument, refs: RefMap, evict: () => void): boolean {
  if (!ours) {
    p.added++;
    return true;
  }
  if (ours.content === d.content && ours.createdAt === d.createdAt) {
    p.same++;
    return false;
  }
  p.conflicts++;
  if (mode === 'skip') {
    p.skipped++;
    return false;
  }
  if (mode === 'overwrite') {
    p.overwritten++;
    evict();
  } else {
    p.keptBoth++;
    d.id = refs.newId(d.id);
  }
  return true;
}

/**
 * A document as it is imported: session renamed, refs mapped, id mapped; undefined when forgotten
 * (its id, its turn, a text forgotten here, or its message with its reply).
 */
function mapDocument(d: MemoryDocument, refs: RefMap, textForgotten: (t: string) => boolean, pairForgotten: (m: string, r: string) => boolean): MemoryDocument | undefined {
  const turn = d.refs[0];
  if (refs.forgotten(d.id) || (turn !== undefined && refs.forgotten(turn))) return undefined;
  if ([d.content, d.input, d.response].some((t) => t && textForgotten(t))) return undefined;
  if (d.input && d.response && pairForgotten(d.input, d.response)) return undefined;
  const id = refs.ref(d.id) ?? d.id;
  return { ...d, id, sessionId: refs.session(d.sessionId), refs: d.refs.map((r) => refs.ref(r)).filter((r): r is string => r !== undefined) };
}

/**
 * The archive's warm documents and cold archive merged into copies of ours through the tier
 * classes themselves (so indexes, postings and schemas are what the daemon writes), then the
 * context window — its events that no tier of ours holds — while both copies are open.
 */
export async function mergeDocumentTiers(c: MergeContext, theirDocs: ReturnType<StagedExport['documents']>, theirCtx: ReturnType<StagedExport['context']>): Promise<void> {
  const { staged, live, mergedHome: M, mode, refs, files, notes, plan, textForgotten, pairForgotten, noteLeftOut } = c;
  const liveDocs = join(live.home, 'documents', 'documents.db');
  const liveArchive = join(live.home, 'documents', 'archive.db');
  copyDb(liveDocs, join(M, 'documents', 'documents.db'));
  copyDb(liveArchive, join(M, 'documents', 'archive.db'));
  // Imported turns get their days said resolved here, as the live tiers would (decision 0160),
  // on the person's calendar (decision 0270).
  const said = (text: string, time: number) => saidDays(text, time, c.memory.timeZone());
  const docs = new DocStore({ home: M, embedder: c.memory.embedder, config: c.config, saidDays: said });
  const archive = new ColdArchive({ home: M, tokenize: (t) => c.memory.embedder.tokenize(t), saidDays: said });
  await docs.open();
  archive.open();
  try {
    if (theirDocs.unreadable) notes.push(importNote.unreadableDocuments(theirDocs.unreadable));
    const putDocs: MemoryDocument[] = [];
    const putVecs: (typeof theirDocs.docs)[number]['vector'][] = [];
    for (const { doc, vector } of theirDocs.docs) {
      const p = plan('documents');
      const d = mapDocument(doc, refs, textForgotten, pairForgotten);
      if (!d) {
        p.forgotten++;
        noteLeftOut(doc.refs[0], !(doc.refs[0] !== undefined && refs.forgotten(doc.refs[0])));
        continue;
      }
      if (!settleDocument(p, mode, docs.get(d.id) ?? archive.get(d.id)?.doc, d, refs, () => archive.deleteIds([d.id]))) continue;
      putDocs.push(d);
      putVecs.push(vector);
    }
    if (putDocs.length) docs.restore(putDocs, putVecs);
    const theirArchive = staged.archive((t) => c.memory.embedder.tokenize(t));
    if (theirArchive) {
      try {
        for (let after = 0; ; ) {
          const rows: ArchivedRow[] = theirArchive.page(after, 500);
          if (!rows.length) break;
          after = rows[rows.length - 1].n;
          const put: MemoryDocument[] = [];
          const vecs: ArchivedRow['vec'][] = [];
          for (const r of rows) {
            const p = plan('archive');
            const d = mapDocument(r.doc, refs, textForgotten, pairForgotten);
            if (!d) {
              p.forgotten++;
              noteLeftOut(r.doc.refs[0], !(r.doc.refs[0] !== undefined && refs.forgotten(r.doc.refs[0])));
              continue;
            }
            if (!settleDocument(p, mode, archive.get(d.id)?.doc ?? docs.get(d.id), d, refs, () => docs.remove(d.id))) continue;
            put.push(d);
            vecs.push(r.vec);
          }
          if (put.length) archive.putMany(put, { vectors: vecs });
        }
      } finally {
        theirArchive.close();
      }
    }

    mergeContextWindow(c, theirCtx, (id) => docs.has(id) || archive.has(id));
  } finally {
    await docs.close();
    archive.close();
  }
  if (existsSync(join(M, 'documents', 'documents.db'))) files.push({ live: liveDocs, merged: join(M, 'documents', 'documents.db') });
  if (existsSync(join(M, 'documents', 'archive.db'))) files.push({ live: liveArchive, merged: join(M, 'documents', 'archive.db') });
}
