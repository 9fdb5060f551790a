import type Database from 'better-sqlite3';
import type { StoreSalvage } from '../../spec/index.js';
import { salvageRowsInto, type SalvagedRow } from '../../fs/sqlite/index.js';
import { GRAPH_MIGRATIONS, migrateGraph } from './graph-migrations.js';

/** What was read back of a damaged `graph.db` (decision 0310). */
export interface GraphSalvage {
  report: StoreSalvage;
  /** Sources put back from the facts' own `refs` (their `relation_sources` rows were on unreadable pages). */
  sourcesFromRefs: number;
}

const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v.trim() !== '';

function jsonOf(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The graph's own rules for a row that fits its columns: names and predicates not empty, the JSON columns JSON of their shape. */
function check(table: string, row: SalvagedRow): boolean {
  if (table === 'entities') {
    const attrs = row.attributes === undefined ? {} : jsonOf(row.attributes);
    return nonEmpty(row.name) && (row.type === undefined || nonEmpty(row.type)) && typeof attrs === 'object' && attrs !== null && !Array.isArray(attrs);
  }
  if (table === 'relations') {
    const refs = row.refs === undefined ? [] : jsonOf(row.refs);
    return nonEmpty(row.predicate) && row.subject_id !== row.object_id && Array.isArray(refs) && refs.every((r) => typeof r === 'string');
  }
  if (table === 'relation_sources') return nonEmpty(row.ref);
  if (table === 'merge_decisions') return nonEmpty(row.a) && nonEmpty(row.b) && nonEmpty(row.decision);
  return true;
}

/**
 * Reads what can be read of a damaged `graph.db` into `staged` (a new, empty file): entities,
 * facts with their confidence, sentence, refs and validity (`valid_from` / `valid_to` exactly as
 * stored: a timeline that lost a link keeps the ends it had), the sources each fact came from
 * (turn and speaker) and the merge decisions — ids kept, so the history of changes in
 * memory-control.db still names the same rows. A fact whose subject or object was on an
 * unreadable page is left out (a fact between unknown names says nothing); one whose source rows
 * were lost gets them back from its `refs` (without the speaker), so forget (K-2) still finds it
 * by turn. The entity-name index is filled by its triggers as the rows go in. Never throws for damage.
 */
export function salvageGraphFile(file: string, staged: Database.Database): GraphSalvage {
  let sourcesFromRefs = 0;
  const report = salvageRowsInto(file, staged, {
    migrate: migrateGraph,
    newest: GRAPH_MIGRATIONS.length,
    check,
    finish: (db) => {
      // Before version 4 there is no such table: that migration fills it from `refs` itself.
      if (!db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'relation_sources'").get()) return;
      sourcesFromRefs = db
        .prepare("INSERT OR IGNORE INTO relation_sources(relation_id, ref) SELECT r.id, j.value FROM relations r, json_each(r.refs) j WHERE json_valid(r.refs) AND j.type = 'text'")
        .run().changes;
    },
  });
  return { report, sourcesFromRefs };
}
