import { join } from 'node:path';
import { GraphDB } from '../memory/index.js';
import type { TransferPartPlan } from '../spec/index.js';
import { copyDb } from './copy-db.js';
import { emptyPlan, type MergeContext } from './merge-context.js';

/**
 * The archive's graph merged into a copy of ours (`GraphDB.importFacts`: an entity by name, a
 * relation by subject, predicate and object; sources mapped through `refs`, forgotten ones and
 * forgotten facts left out). Undefined when the archive has no graph.
 */
export function mergeGraph(c: MergeContext): TransferPartPlan | undefined {
  const { staged, live, mergedHome: M, mode, refs, files } = c;
  let plan: TransferPartPlan | undefined;
  const facts = staged.graph();
  if (facts) {
    const liveGraph = join(live.home, 'graph.db');
    copyDb(liveGraph, join(M, 'graph.db'));
    const g = new GraphDB({ path: join(M, 'graph.db') });
    g.open();
    try {
      plan = { ...emptyPlan(), ...g.importFacts(facts, { mode, mapRef: (r) => refs.ref(r), isForgottenFact: c.ledger.isForgottenFact?.bind(c.ledger) }) };
    } finally {
      g.close();
    }
    files.push({ live: liveGraph, merged: join(M, 'graph.db') });
  }
  return plan;
}
