import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { HomeAgentError } from '../../spec/errors/index.js';
import type { MemoryDocument } from '../documents/index.js';
import type { EmbedderLog, StoredVector } from '../embedder/index.js';
import { migrateArchive } from './archive-migrations.js';

/** An archived document with what ranking needs: its term counts, length and stored vector. */
export interface ArchivedRow {
  doc: MemoryDocument;
  terms: Map<string, number>;
  len: number;
  vec?: StoredVector;
}

/** How many rows of one query term `candidates` reads (`Infinity` = every row holding it). */
export type QuotaFn = (term: string, df: number) => number;

export interface ColdArchiveOptions {
  /** Data folder; the archive lives in `<home>/documents/archive.db`. */
  home: string;
  /** Our lexical tokenizer (the embedder's `tokenize`): every tier indexes the same tokens. */
  tokenize: (text: string) => string[];
  log?: EmbedderLog;
  clock?: () => number;
}

interface Row {
  n: number;
  id: string;
  turn_id: string | null;
  event_kind: string;
  kind: string;
  source: string;
  channel: string;
  session_id: string;
  speaker_id: string | null;
  speaker_name: string | null;
  title: string | null;
  created_at: number;
  added_at: number;
  archived_at: number;
  access_count: number;
  content: string;
  input: string | null;
  response: string;
  refs: string;
  meta: string | null;
  tokens: string;
  ntok: number;
  vec: Buffer | null;
  vec_model: string | null;
}

/** Rows whose parsed form stays in memory between queries (bounded: the archive itself never is). */
const ROW_CACHE = 4096;
/** Neighbour lookups remembered between queries. */
const ADJ_CACHE = 20_000;

/**
 * The cold archive (T-3): documents that went cold are distilled into graph facts and then moved
 * here instead of being deleted. SQLite (`documents/archive.db`, WAL), searched without any
 * in-memory index: FTS5 over our own tokens finds candidate rows, `terms`/`meta` hold the
 * collection statistics, and the ranker scores candidates with the same BM25 as the other tiers.
 * Opening costs the same at 10 rows and at 1,000,000. Only an explicit delete (forget) removes a
 * row; re-archiving the same id replaces it.
 */
export class ColdArchive {
  private db: Database.Database | undefined;
  private docs = 0;
  private tokens = 0;
  private readonly cache = new Map<number, ArchivedRow>();
  /** Row numbers of the nearest earlier / later row of a document's session, by document id (cleared on writes). */
  private readonly adjCache = new Map<string, [number | null, number | null]>();
  private readonly stmts = new Map<string, Database.Statement>();
  private readonly log: EmbedderLog;
  private readonly clock: () => number;

  constructor(private readonly opts: ColdArchiveOptions) {
    this.log = opts.log ?? { info: () => {}, warn: () => {} };
    this.clock = opts.clock ?? Date.now;
  }

  /** Path of the database file. */
  get path(): string {
    return path.join(this.opts.home, 'documents', 'archive.db');
  }

  /** Number of archived documents. */
  get size(): number {
    return this.docs;
  }

  /** Sum of the token counts of every archived document (BM25 average length). */
  get totalTokens(): number {
    return this.tokens;
  }

  /** True between open() and close(). */
  get isOpen(): boolean {
    return this.db !== undefined;
  }

  /**
   * Opens (creating and migrating) the archive. A corrupt file is renamed to
   * `archive.db.corrupt-<time>` with a log line and a fresh archive starts (`waiter memory
   * reindex` rebuilds it from the session logs).
   */
  open(): void {
    if (this.db) return;
    fs.mkdirSync(path.dirname(this.path), { recursive: true });
    try {
      this.db = this.connect();
    } catch (e) {
      if (!isCorruption(e)) throw e;
      const aside = `${this.path}.corrupt-${this.clock()}`;
      for (const suffix of ['', '-wal', '-shm']) if (fs.existsSync(this.path + suffix)) fs.renameSync(this.path + suffix, aside + suffix);
      this.log.warn(`archive: ${this.path} is corrupt (${(e as Error).message}); kept aside as ${aside}; starting an empty archive (waiter memory reindex rebuilds it from the session logs)`);
      this.db = this.connect();
    }
    const meta = this.st('SELECT key, value FROM meta').all() as { key: string; value: number }[];
    for (const m of meta) {
      if (m.key === 'docs') this.docs = m.value;
      if (m.key === 'tokens') this.tokens = m.value;
    }
  }

  /** Closes the archive. Safe to call twice. */
  close(): void {
    this.stmts.clear();
    this.cache.clear();
    this.adjCache.clear();
    this.db?.close();
    this.db = undefined;
  }

  private connect(): Database.Database {
    const db = new Database(this.path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 3000');
      // quick_check reads every page: at a million rows that is seconds, so open checks only the
      // header and schema; SQLite reports real corruption on use (SQLITE_CORRUPT), which is logged.
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
      migrateArchive(db);
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  }

  private get conn(): Database.Database {
    if (!this.db) throw new HomeAgentError('ARCHIVE_CLOSED', 'the cold archive is not open');
    return this.db;
  }

  /** Prepared statements, cached (preparing dominates small queries). */
  private st(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.conn.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /**
   * Archives documents in one transaction (tokens computed here unless given). A document whose id
   * is already archived is replaced, so archiving twice is harmless.
   */
  putMany(docs: readonly MemoryDocument[], opts: { tokens?: (string[] | undefined)[]; vectors?: (StoredVector | undefined)[] } = {}): number {
    if (docs.length === 0) return 0;
    const now = this.clock();
    const toks = docs.map((d, i) => cleanTokens(opts.tokens?.[i] ?? this.opts.tokenize(d.title ? `${d.title}\n${d.content}` : d.content)));
    const ins = this.st(`INSERT INTO turns (id, turn_id, event_kind, kind, source, channel, session_id, speaker_id, speaker_name, title, created_at, added_at, archived_at, access_count, content, input, response, refs, meta, tokens, ntok, vec, vec_model)
      VALUES (@id, @turnId, @eventKind, @kind, @source, @channel, @sessionId, @speakerId, @speakerName, @title, @createdAt, @addedAt, @archivedAt, @accessCount, @content, @input, @response, @refs, @meta, @tokens, @ntok, @vec, @vecModel)`);
    const df = new Map<string, number>();
    let addDocs = 0;
    let addTokens = 0;
    this.conn.transaction(() => {
      const replaced = this.deleteWhere('id', docs.map((d) => d.id), df);
      addDocs -= replaced.docs;
      addTokens -= replaced.tokens;
      docs.forEach((d, i) => {
        const t = toks[i];
        const v = opts.vectors?.[i];
        ins.run({
          id: d.id,
          turnId: d.refs[0] ?? null,
          eventKind: d.eventKind ?? '',
          kind: d.kind,
          source: d.source,
          channel: d.channel,
          sessionId: d.sessionId,
          speakerId: d.speaker?.id ?? null,
          speakerName: d.speaker?.name ?? null,
          title: d.title ?? null,
          createdAt: d.createdAt,
          addedAt: d.addedAt,
          archivedAt: now,
          accessCount: d.accessCount,
          content: d.content,
          // Most archived turns are one message: the input is the content, stored once.
          input: d.input === d.content ? null : d.input,
          response: d.response,
          refs: JSON.stringify(d.refs),
          meta: d.meta ? JSON.stringify(d.meta) : null,
          tokens: t.join(' '),
          ntok: t.length,
          vec: v ? Buffer.from(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength) : null,
          vecModel: v?.modelId ?? null,
        });
        for (const term of new Set(t)) df.set(term, (df.get(term) ?? 0) + 1);
        addDocs++;
        addTokens += t.length;
      });
      this.applyDf(df);
      this.bumpMeta(addDocs, addTokens);
    })();
    this.cache.clear();
    this.adjCache.clear();
    return docs.length;
  }

  /** Deletes rows by document id (forget, K-2). Returns how many existed. */
  deleteIds(ids: readonly string[]): number {
    return this.deleteBy('id', ids);
  }

  /**
   * Deletes every row of the given turns (the seam of forget, K-2: one call per tier removes a
   * turn everywhere). Returns how many rows went.
   */
  deleteByTurnIds(turnIds: readonly string[]): number {
    return this.deleteBy('turn_id', turnIds);
  }

  private deleteBy(col: 'id' | 'turn_id', values: readonly string[]): number {
    if (values.length === 0) return 0;
    const df = new Map<string, number>();
    const r = this.conn.transaction(() => {
      const gone = this.deleteWhere(col, values, df);
      this.applyDf(df);
      this.bumpMeta(-gone.docs, -gone.tokens);
      return gone.docs;
    })();
    this.cache.clear();
    this.adjCache.clear();
    return r;
  }

  /** Deletes matching rows (inside the caller's transaction), recording their df changes. */
  private deleteWhere(col: 'id' | 'turn_id', values: readonly string[], df: Map<string, number>): { docs: number; tokens: number } {
    let docs = 0;
    let tokens = 0;
    const sel = this.st(`SELECT n, tokens, ntok FROM turns WHERE ${col} = ?`);
    const del = this.st('DELETE FROM turns WHERE n = ?');
    for (const v of values) {
      for (const row of sel.all(v) as { n: number; tokens: string; ntok: number }[]) {
        for (const term of new Set(splitTokens(row.tokens))) df.set(term, (df.get(term) ?? 0) - 1);
        del.run(row.n);
        docs++;
        tokens += row.ntok;
      }
    }
    return { docs, tokens };
  }

  private applyDf(df: Map<string, number>): void {
    const up = this.st('INSERT INTO terms(term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df');
    const drop = this.st('DELETE FROM terms WHERE term = ? AND df <= 0');
    for (const [term, d] of df) {
      if (d === 0) continue;
      up.run(term, d);
      if (d < 0) drop.run(term);
    }
  }

  private bumpMeta(docs: number, tokens: number): void {
    this.st("UPDATE meta SET value = value + ? WHERE key = 'docs'").run(docs);
    this.st("UPDATE meta SET value = value + ? WHERE key = 'tokens'").run(tokens);
    this.docs += docs;
    this.tokens += tokens;
  }

  /** Document frequency of each term in the archive. */
  df(terms: Iterable<string>): Map<string, number> {
    const q = this.st('SELECT df FROM terms WHERE term = ?').pluck();
    const out = new Map<string, number>();
    for (const t of terms) if (!out.has(t)) out.set(t, (q.get(t) as number | undefined) ?? 0);
    return out;
  }

  /**
   * Rows holding any of the terms. Each term reads at most `quota(term, df)` rows, newest first:
   * a rare term brings every row that holds it, a very common one only its most recent rows (its
   * idf is low, so those rows rarely rank on it alone; older ones stay reachable by any rarer word).
   */
  candidates(terms: Iterable<string>, quota: QuotaFn, df?: Map<string, number>): ArchivedRow[] {
    const list = [...new Set(terms)].filter(isIndexable);
    const dfs = df ?? this.df(list);
    const match = this.st('SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rowid DESC LIMIT ?').pluck();
    const ns = new Set<number>();
    for (const t of list) {
      const d = dfs.get(t) ?? 0;
      if (d === 0) continue;
      const lim = quota(t, d);
      if (lim <= 0) continue;
      for (const n of match.all(`"${t.replace(/"/g, '""')}"`, Number.isFinite(lim) ? Math.floor(lim) : -1) as number[]) ns.add(n);
    }
    return this.rowsByN([...ns]);
  }

  /** Rows by row number, through the bounded cache. */
  private rowsByN(ns: number[]): ArchivedRow[] {
    const out: ArchivedRow[] = [];
    const missing: number[] = [];
    for (const n of ns) {
      const c = this.cache.get(n);
      if (c) out.push(c);
      else missing.push(n);
    }
    if (missing.length) {
      const rows = this.st('SELECT * FROM turns WHERE n IN (SELECT value FROM json_each(?))').all(JSON.stringify(missing)) as Row[];
      for (const r of rows) out.push(this.remember(r));
    }
    return out;
  }

  private remember(r: Row): ArchivedRow {
    const row = toArchived(r);
    if (this.cache.size >= ROW_CACHE) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(r.n, row);
    return row;
  }

  /** One archived row by document id. */
  get(id: string): ArchivedRow | undefined {
    const r = this.st('SELECT * FROM turns WHERE id = ?').get(id) as Row | undefined;
    return r ? (this.cache.get(r.n) ?? this.remember(r)) : undefined;
  }

  /** True when a document id is archived. */
  has(id: string): boolean {
    return this.st('SELECT 1 FROM turns WHERE id = ?').get(id) !== undefined;
  }

  /** True when the archive holds an event of this turn (of this event kind when given). */
  hasTurn(turnId: string, eventKind?: string): boolean {
    return eventKind === undefined
      ? this.st('SELECT 1 FROM turns WHERE turn_id = ? LIMIT 1').get(turnId) !== undefined
      : this.st('SELECT 1 FROM turns WHERE turn_id = ? AND event_kind = ? LIMIT 1').get(turnId, eventKind) !== undefined;
  }

  /** Rows whose id or turn id is one of `refs` (the sources a graph fact cites). */
  byRefs(refs: readonly string[], limit = 20): ArchivedRow[] {
    const ns = new Set<number>();
    const byId = this.st('SELECT n FROM turns WHERE id = ?').pluck();
    const byTurn = this.st('SELECT n FROM turns WHERE turn_id = ? LIMIT 4').pluck();
    for (const ref of refs.slice(0, 50)) {
      for (const n of [...(byId.all(ref) as number[]), ...(byTurn.all(ref) as number[])]) if (ns.size < limit) ns.add(n);
    }
    return this.rowsByN([...ns]).sort((a, b) => a.doc.createdAt - b.doc.createdAt);
  }

  /** The `span` rows before and after `doc` in its session (time order, ties by id), nearest first. */
  adjacent(doc: Pick<MemoryDocument, 'id' | 'sessionId' | 'createdAt'>, span = 1): { before: ArchivedRow[]; after: ArchivedRow[] } {
    if (span <= 0) return { before: [], after: [] };
    const before = this.st('SELECT n FROM turns WHERE session_id = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?').pluck().all(doc.sessionId, doc.createdAt, doc.id, span) as number[];
    const after = this.st('SELECT n FROM turns WHERE session_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at ASC, id ASC LIMIT ?').pluck().all(doc.sessionId, doc.createdAt, doc.id, span) as number[];
    const byN = new Map(this.rowsByN([...before, ...after]).map((r) => [rowN.get(r), r]));
    const pick = (ns: number[]) => ns.map((n) => byN.get(n)).filter((r): r is ArchivedRow => r !== undefined);
    return { before: pick(before), after: pick(after) };
  }

  /**
   * The nearest earlier and later row of each document's session, for many documents in one
   * statement (the ranker asks for a few hundred per query; one round trip each would dominate).
   */
  adjacentMany(docs: readonly Pick<MemoryDocument, 'id' | 'sessionId' | 'createdAt'>[]): Map<string, { before: ArchivedRow[]; after: ArchivedRow[] }> {
    const out = new Map<string, { before: ArchivedRow[]; after: ArchivedRow[] }>();
    if (!docs.length) return out;
    const todo = docs.filter((d) => !this.adjCache.has(d.id));
    const found = todo.length === 0 ? [] : (this.st(`WITH q(k, s, c, i) AS (SELECT key, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?))
      SELECT q.k AS k,
        (SELECT n FROM turns t WHERE t.session_id = q.s AND (t.created_at, t.id) < (q.c, q.i) ORDER BY t.created_at DESC, t.id DESC LIMIT 1) AS prev,
        (SELECT n FROM turns t WHERE t.session_id = q.s AND (t.created_at, t.id) > (q.c, q.i) ORDER BY t.created_at ASC, t.id ASC LIMIT 1) AS next
      FROM q`).all(JSON.stringify(todo.map((d) => [d.sessionId, d.createdAt, d.id]))) as { k: number; prev: number | null; next: number | null }[]);
    for (const r of found) {
      if (this.adjCache.size >= ADJ_CACHE) this.adjCache.delete(this.adjCache.keys().next().value as string);
      this.adjCache.set(todo[r.k].id, [r.prev, r.next]);
    }
    const need = new Set<number>();
    for (const d of docs) for (const n of this.adjCache.get(d.id) ?? []) if (n !== null) need.add(n);
    const byN = new Map(this.rowsByN([...need]).map((row) => [rowN.get(row), row]));
    for (const d of docs) {
      const [p, n] = this.adjCache.get(d.id) ?? [null, null];
      const prev = p !== null ? byN.get(p) : undefined;
      const next = n !== null ? byN.get(n) : undefined;
      out.set(d.id, { before: prev ? [prev] : [], after: next ? [next] : [] });
    }
    return out;
  }

  /** Archived documents, newest first, paged. */
  list(opts: { offset?: number; limit?: number } = {}): MemoryDocument[] {
    const rows = this.st('SELECT * FROM turns ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?').all(Math.max(0, opts.limit ?? 50), Math.max(0, opts.offset ?? 0)) as Row[];
    return rows.map((r) => toArchived(r).doc);
  }

  /** Size of the database files on disk (bytes). */
  diskBytes(): number {
    let total = 0;
    for (const suffix of ['', '-wal']) {
      try {
        total += fs.statSync(this.path + suffix).size;
      } catch {
        // absent
      }
    }
    return total;
  }
}

/** Row number of a parsed row (kept out of the public shape). */
const rowN = new WeakMap<ArchivedRow, number>();

function toArchived(r: Row): ArchivedRow {
  const terms = new Map<string, number>();
  const toks = splitTokens(r.tokens);
  for (const t of toks) terms.set(t, (terms.get(t) ?? 0) + 1);
  const doc: MemoryDocument = {
    id: r.id,
    content: r.content,
    input: r.input ?? r.content,
    response: r.response,
    kind: r.kind,
    source: r.source,
    channel: r.channel,
    sessionId: r.session_id,
    title: r.title ?? undefined,
    createdAt: r.created_at,
    addedAt: r.added_at,
    accessCount: r.access_count,
    refs: parseJson<string[]>(r.refs, []),
    meta: r.meta ? parseJson<Record<string, unknown>>(r.meta, {}) : undefined,
    eventKind: r.event_kind || undefined,
  };
  if (r.speaker_id) doc.speaker = r.speaker_name ? { id: r.speaker_id, name: r.speaker_name } : { id: r.speaker_id };
  let vec: StoredVector | undefined;
  if (r.vec && r.vec_model) {
    const copy = new Uint8Array(r.vec);
    vec = { vector: new Float32Array(copy.buffer, 0, copy.byteLength / 4), modelId: r.vec_model };
  }
  const row: ArchivedRow = { doc, terms, len: r.ntok, vec };
  rowN.set(row, r.n);
  return row;
}

function splitTokens(s: string): string[] {
  return s ? s.split(' ') : [];
}

/** Our tokens are letter/number runs; anything else (never produced today) is dropped, not mis-indexed. */
function cleanTokens(tokens: readonly string[]): string[] {
  return tokens.filter(isIndexable);
}

function isIndexable(t: string): boolean {
  return t.length > 0 && t.length <= 200 && /^[\p{L}\p{N}]+$/u.test(t);
}

function parseJson<T>(s: string, fallback: T): T {
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
}

function isCorruption(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}
