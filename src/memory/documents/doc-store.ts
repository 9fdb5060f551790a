import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ConfigReader } from '../../spec/config.js';
import { HomeAgentError, ValidationError } from '../../spec/errors/index.js';
import type { ContextEvent } from '../../spec/memory.js';
import { cleanText, HybridIndex, type EmbedderLog, type EmbedderService, type ReembedProgress, type StoredVector } from '../embedder/index.js';
import { migrateDocs } from './doc-migrations.js';
import { safeDays, type DayKeyRange, type SaidDaysResolver } from './turn-days.js';
import { newDocumentSchema, type MemoryDocument, type NewDocument } from './memory-document.js';
import { privateSqliteFile, setAsideSqlite } from '../../fs/index.js';
import { compactSqlite, scrubbedSqlite, secureDeleteOn, type CompactOutcome } from '../../fs/sqlite/index.js';
import { WarmLexicon } from './warm-lexicon.js';

export interface DocStoreOptions {
  /** Data folder; the store lives in `<home>/documents/documents.db`. */
  home: string;
  embedder: EmbedderService;
  config?: ConfigReader;
  log?: EmbedderLog;
  clock?: () => number;
  /** Progress of background re-embedding after a model change. */
  onProgress?: (p: ReembedProgress) => void;
  /**
   * The days a document's text says, resolved against its time (recall's `saidDays`, decision
   * 0160). Without it documents are stored with their days pending, resolved at the next open by a
   * store that has it.
   */
  saidDays?: SaidDaysResolver;
}

interface Row {
  id: string;
  seq: number;
  content: string;
  input: string;
  response: string;
  kind: string;
  source: string;
  channel: string;
  session_id: string;
  title: string | null;
  created_at: number;
  added_at: number;
  access_count: number;
  last_access: number | null;
  refs: string;
  meta: string | null;
  tokens: string | null;
  vec: Buffer | null;
  vec_model: string | null;
  turn_id: string | null;
  event_kind: string;
  speaker_id: string | null;
  speaker: string | null;
  conversation_id: string | null;
  conversation: string | null;
}

type Statements = { ins: Database.Statement; del: Database.Statement; delDays: Database.Statement; putDay: Database.Statement; touch: Database.Statement };

/**
 * The Document tier (T-3, seed DocStore), the warm half of the archive: documents in SQLite
 * (`documents.db`, WAL, one transaction per write, so an acknowledged document survives a kill)
 * with their vectors in the shared embedder space and an in-memory hybrid index rebuilt at open.
 * It stays small by design: documents move on to the cold archive once they are cold (72 h
 * without access, ≤ 2 accesses) and beyond `core.memory.warm_max_docs`.
 *
 * Ranking over this tier and the others lives in `recall/`; this class stores, indexes, counts
 * accesses (`touch`) and answers the lookups ranking and recovery need (`adjacent`, `hasTurn`).
 */
export class DocStore {
  private db: Database.Database | undefined;
  private index: HybridIndex<MemoryDocument> | undefined;
  private readonly log: EmbedderLog;
  private readonly clock: () => number;
  private seq = 0;
  private readonly order: string[] = [];
  private orderDirty = false;
  /** Insertion sequence per document: breaks ties of equal timestamps. */
  private readonly seqs = new Map<string, number>();
  /** Ids per session in time order (ties by id), rebuilt lazily after changes (neighbours). */
  private readonly sessionOrder = new Map<string, string[]>();
  private readonly sessionDirty = new Set<string>();
  /** The people heard in this tier: speaker id → documents and latest display name (R-5, issue 15). */
  private readonly people = new Map<string, { n: number; name?: string }>();
  private stmts: Statements | undefined;
  private readonly stmtCache = new Map<string, Database.Statement>();

  constructor(private readonly opts: DocStoreOptions) {
    this.log = opts.log ?? { info: () => {}, warn: () => {} };
    this.clock = opts.clock ?? Date.now;
  }

  /** Path of the database file. */
  get path(): string {
    return path.join(this.opts.home, 'documents', 'documents.db');
  }

  private asideAt: { file: string; at: number } | undefined;

  /** The corrupt file this process set aside when it opened the store (`*.corrupt-<time>`), if any. */
  get setAside(): { file: string; at: number } | undefined {
    return this.asideAt;
  }

  /** Number of documents. */
  get size(): number {
    return this.index?.size ?? 0;
  }

  /** The hybrid index (for benchmarks and diagnostics). */
  get hybrid(): HybridIndex<MemoryDocument> {
    return this.idx;
  }

  /**
   * Opens (creating and migrating) the store and loads the index. A corrupt database is renamed
   * to `documents.db.corrupt-<time>` with a log line and a fresh store starts.
   */
  async open(): Promise<void> {
    if (this.db) return;
    fs.mkdirSync(path.dirname(this.path), { recursive: true });
    try {
      this.db = this.connect();
    } catch (e) {
      if (!isCorruption(e)) throw e;
      this.asideAt = setAsideSqlite(this.path, this.clock());
      const aside = this.asideAt.file;
      this.log.warn(`documents: ${this.path} is corrupt (${(e as Error).message}); kept aside as ${aside}; starting an empty document store (waiter memory reindex brings its turns back from the session logs into the cold archive)`);
      this.db = this.connect();
    }
    const db = this.db;
    this.stmts = {
      ins: db.prepare(`INSERT OR REPLACE INTO documents (id, seq, content, input, response, kind, source, channel, session_id, title, created_at, added_at, access_count, last_access, refs, meta, tokens, turn_id, event_kind, speaker_id, speaker, conversation_id, conversation, days_done)
        VALUES (@id, @seq, @content, @input, @response, @kind, @source, @channel, @sessionId, @title, @createdAt, @addedAt, @accessCount, @lastAccess, @refs, @meta, @tokens, @turnId, @eventKind, @speakerId, @speakerJson, @conversationId, @conversationJson, @daysDone)`),
      del: db.prepare('DELETE FROM documents WHERE id = ?'),
      delDays: db.prepare('DELETE FROM turn_days WHERE id = ?'),
      putDay: db.prepare('INSERT OR IGNORE INTO turn_days (day, id) VALUES (?, ?)'),
      touch: db.prepare('UPDATE documents SET access_count = access_count + 1, last_access = ? WHERE id = ?'),
    };
    const updVec = db.prepare('UPDATE documents SET vec = ?, vec_model = ? WHERE id = ?');
    const lexicon = new WarmLexicon();
    this.index = new HybridIndex<MemoryDocument>({
      embedder: this.opts.embedder,
      log: this.log,
      name: 'documents',
      // Same scores as the default Bm25Index in a fraction of the heap (decision 0190).
      lexical: lexicon,
      onProgress: this.opts.onProgress,
      onVector: (id, v) => {
        if (this.db) updVec.run(Buffer.from(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength), v.modelId, id);
      },
    });
    let bad = 0;
    const shared = sharedStrings();
    for (const row of db.prepare('SELECT * FROM documents ORDER BY created_at, seq').iterate() as Iterable<Row>) {
      try {
        this.load(row, shared);
      } catch {
        bad++;
      }
      if (row.seq >= this.seq) this.seq = row.seq + 1;
    }
    if (bad > 0) this.log.warn(`documents: ${bad} unreadable rows skipped`);
    // Everything loaded goes into the pooled postings now (no per-term arrays left over).
    lexicon.merge();
    this.fillDays();
    const model = this.opts.embedder.modelId();
    if (this.opts.embedder.dense && [...this.idx.ids()].some((id) => this.idx.vectorOf(id)?.modelId !== model)) void this.idx.reembed(model);
  }

  /** Closes the store. Safe to call twice. */
  async close(): Promise<void> {
    this.index?.close();
    this.index = undefined;
    // A reopen (after an import swapped the file, K-5) loads everything again from the file.
    this.order.length = 0;
    this.orderDirty = false;
    this.seqs.clear();
    this.sessionOrder.clear();
    this.sessionDirty.clear();
    this.seq = 0;
    this.people.clear();
    this.stmts = undefined;
    this.stmtCache.clear();
    this.db?.close();
    this.db = undefined;
  }

  /** Adds a document (validated; content defaults to input + response). */
  add(input: NewDocument): MemoryDocument {
    return this.addMany([input])[0];
  }

  /** doc_commit: stores a note. */
  commit(content: string, extra: Omit<NewDocument, 'content'> = {}): MemoryDocument {
    return this.add({ kind: 'commit', source: 'doc_commit', ...extra, content });
  }

  /** Adds several documents in one transaction (each validated; typed error on bad input). */
  addMany(inputs: NewDocument[]): MemoryDocument[] {
    const now = this.clock();
    const docs = inputs.map((raw) => {
      const r = newDocumentSchema.safeParse(raw);
      if (!r.success) throw new ValidationError(`invalid document: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, { issues: r.error.issues.length });
      const d = r.data;
      const content = d.content ?? cleanText(`${d.input ?? ''} ${d.response ?? ''}`);
      if (content.trim().length === 0) throw new ValidationError('a document needs content (or input/response)');
      const doc: MemoryDocument = {
        id: d.id ?? randomUUID(),
        content,
        input: d.input ?? content,
        response: d.response ?? '',
        kind: d.kind ?? 'note',
        source: d.source ?? '',
        channel: d.channel ?? '',
        sessionId: d.sessionId ?? '',
        title: d.title,
        createdAt: d.createdAt ?? now,
        addedAt: now,
        accessCount: 0,
        refs: d.refs ?? [],
        meta: d.meta,
      };
      if (d.speaker) doc.speaker = d.speaker;
      if (d.conversation) doc.conversation = d.conversation;
      return doc;
    });
    return this.insert(docs);
  }

  private insert(docs: MemoryDocument[], vectors?: (StoredVector | undefined)[]): MemoryDocument[] {
    const db = this.conn;
    const { ins, delDays, putDay } = this.statements;
    const tokens = docs.map((d) => this.opts.embedder.tokenize(indexText(d)));
    const seqs = docs.map(() => this.seq++);
    const resolve = this.opts.saidDays;
    db.transaction(() => {
      docs.forEach((d, i) => {
        // A replaced document's days go with it.
        delDays.run(d.id);
        if (resolve) for (const day of safeDays(resolve, d.content, d.createdAt)) putDay.run(day, d.id);
        ins.run({
          ...d,
          seq: seqs[i],
          title: d.title ?? null,
          lastAccess: d.lastAccess ?? null,
          refs: JSON.stringify(d.refs),
          meta: d.meta ? JSON.stringify(d.meta) : null,
          tokens: JSON.stringify(tokens[i]),
          turnId: d.refs[0] ?? null,
          eventKind: d.eventKind ?? '',
          speakerId: d.speaker?.id ?? null,
          speakerJson: d.speaker ? JSON.stringify(d.speaker) : null,
          conversationId: d.conversation?.id ?? null,
          conversationJson: d.conversation ? JSON.stringify(d.conversation) : null,
          daysDone: resolve ? 1 : 0,
        });
      });
    })();
    docs.forEach((d, i) => {
      if (this.idx.has(d.id)) this.dropOrder(d.id);
      const v = vectors?.[i];
      this.idx.add(d.id, indexText(d), d, { tokens: tokens[i], vector: v });
      this.pushOrder(d);
    });
    return docs;
  }

  /**
   * Puts documents back as they were (id, times, access counts kept), e.g. a document that the
   * context window holds again and prunes a second time. Replaces a document with the same id.
   */
  restore(docs: readonly MemoryDocument[], vectors?: (StoredVector | undefined)[]): MemoryDocument[] {
    return docs.length ? this.insert(docs.map((d) => ({ ...d })), vectors) : [];
  }

  /**
   * Prune archive (seed ContextToDoc): one document per event, keeping the event's original
   * timestamp, session, source and refs. The document id is the event id.
   */
  archiveEvents(events: readonly ContextEvent[]): MemoryDocument[] {
    // Events come from our own context window (already validated): no schema pass per turn.
    const now = this.clock();
    const docs: MemoryDocument[] = events.map((e) => eventDocument(e, now));
    return docs.length ? this.insert(docs) : [];
  }

  /** One document by id. */
  get(id: string): MemoryDocument | undefined {
    return this.index?.get(id)?.meta;
  }

  /** Documents in time order (oldest first), paged. */
  list(opts: { offset?: number; limit?: number } = {}): MemoryDocument[] {
    const off = Math.max(0, opts.offset ?? 0);
    const lim = Math.max(0, opts.limit ?? Infinity);
    return this.ordered().slice(off, off + lim).map((id) => this.get(id)!);
  }

  /** Deletes a document; returns whether it existed. */
  remove(id: string): boolean {
    if (typeof id !== 'string') return false;
    return this.removeMany([id]) > 0;
  }

  /** Deletes documents in one transaction; returns how many existed. */
  removeMany(ids: readonly string[]): number {
    const { del, delDays } = this.statements;
    let n = 0;
    this.conn.transaction(() => {
      for (const id of ids) {
        delDays.run(id);
        n += del.run(id).changes;
      }
    })();
    for (const id of ids) {
      // dropOrder reads the document (its session) before the index forgets it.
      this.dropOrder(id);
      this.idx.remove(id);
    }
    return n;
  }

  /**
   * Deletes every document of the given turns (the seam of forget, K-2: one call per tier removes
   * a turn everywhere). Returns how many documents went.
   */
  deleteByTurnIds(turnIds: readonly string[]): number {
    const sel = this.prepared('SELECT id FROM documents WHERE turn_id = ?').pluck();
    const ids = turnIds.flatMap((t) => sel.all(t) as string[]);
    return this.removeMany(ids);
  }

  /** Ids of the documents of one turn (its first ref). */
  idsOfTurn(turnId: string): string[] {
    return this.prepared('SELECT id FROM documents WHERE turn_id = ?').pluck().all(turnId) as string[];
  }

  /**
   * Runs deletes with SQLite's secure_delete on and the WAL truncated after, so forgotten text is
   * overwritten on disk, not only unlinked from the table (forget, K-2).
   */
  scrubbed<T>(fn: () => T): T {
    return scrubbedSqlite(this.conn, fn);
  }

  /** After a forget: rebuilds the file (when not too large) and empties the WAL (decision 0400). */
  compact(): CompactOutcome {
    return compactSqlite(this.conn);
  }

  /** True when the store holds this document id. */
  has(id: string): boolean {
    return this.index?.has(id) ?? false;
  }

  /** True when the store holds an event of this turn (of this event kind when given). */
  hasTurn(turnId: string, eventKind?: string): boolean {
    const row =
      eventKind === undefined
        ? this.prepared('SELECT 1 FROM documents WHERE turn_id = ? LIMIT 1').get(turnId)
        : this.prepared('SELECT 1 FROM documents WHERE turn_id = ? AND event_kind = ? LIMIT 1').get(turnId, eventKind);
    return row !== undefined;
  }

  /** Documents whose id or turn id is one of `refs` (the sources a graph fact cites). */
  byRefs(refs: readonly string[], limit = 20): MemoryDocument[] {
    const sel = this.prepared('SELECT id FROM documents WHERE turn_id = ? LIMIT 4').pluck();
    const ids = new Set<string>();
    for (const ref of refs.slice(0, 50)) {
      if (this.has(ref)) ids.add(ref);
      for (const id of sel.all(ref) as string[]) ids.add(id);
    }
    return [...ids].slice(0, limit).map((id) => this.get(id)).filter((d): d is MemoryDocument => d !== undefined);
  }

  /** Counts one access of each document now (auto-injection reads, T-3). */
  touch(ids: readonly string[]): void {
    const now = this.clock();
    const upd = this.statements.touch;
    this.conn.transaction(() => {
      for (const id of ids) {
        const d = this.get(id);
        if (!d) continue;
        upd.run(now, id);
        d.accessCount++;
        d.lastAccess = now;
      }
    })();
  }

  /** Cold documents (T-3): not accessed for `hours` (since their last access or arrival) and accessed ≤ maxAccess times. */
  findCold(now: number = this.clock(), hours = this.cfgNum('core.memory.cold_after_hours', 72), maxAccess = this.cfgNum('core.memory.cold_max_access', 2)): MemoryDocument[] {
    const cutoff = now - hours * 3_600_000;
    const ids = this.conn
      .prepare('SELECT id FROM documents WHERE COALESCE(last_access, added_at) < ? AND access_count <= ? ORDER BY created_at, seq')
      .pluck()
      .all(cutoff, maxAccess) as string[];
    return ids.map((id) => this.get(id)).filter((d): d is MemoryDocument => d !== undefined);
  }

  /**
   * Documents beyond the warm tier's bound (`max`), least recently used first (last access or
   * arrival): what the archive loop moves on even though it is not cold yet.
   */
  beyondBound(max: number): MemoryDocument[] {
    const excess = this.size - Math.max(0, max);
    if (excess <= 0) return [];
    const ids = this.conn.prepare('SELECT id FROM documents ORDER BY COALESCE(last_access, added_at), created_at, seq LIMIT ?').pluck().all(excess) as string[];
    return ids.map((id) => this.get(id)).filter((d): d is MemoryDocument => d !== undefined);
  }

  /**
   * Resolves the days said in documents stored without them (before schema 3, or by a process
   * without a resolver), in one transaction.
   */
  private fillDays(): void {
    const resolve = this.opts.saidDays;
    if (!resolve) return;
    const todo = this.conn.prepare('SELECT id, content, created_at FROM documents WHERE days_done = 0').all() as { id: string; content: string; created_at: number }[];
    if (!todo.length) return;
    const { putDay } = this.statements;
    const done = this.conn.prepare('UPDATE documents SET days_done = 1 WHERE id = ?');
    this.conn.transaction(() => {
      for (const r of todo) {
        for (const day of safeDays(resolve, r.content, r.created_at)) putDay.run(day, r.id);
        done.run(r.id);
      }
    })();
  }

  // ---------- days said (decision 0160) ----------

  /** Ids of the documents that say a day in one of `ranges` (YYYYMMDD keys), at most `limit`. */
  saidOn(ranges: readonly DayKeyRange[], limit: number): string[] {
    const out = new Set<string>();
    const q = this.prepared('SELECT id FROM turn_days WHERE day BETWEEN ? AND ? LIMIT ?').pluck();
    for (const r of ranges) {
      if (out.size >= limit) break;
      for (const id of q.all(r.from, r.to, limit) as string[]) if (out.size < limit) out.add(id);
    }
    return [...out];
  }

  /** The years the stored days span, or undefined when none. */
  saidYears(): { min: number; max: number } | undefined {
    const r = this.prepared('SELECT min(day) AS a, max(day) AS b FROM turn_days').get() as { a: number | null; b: number | null };
    return r.a === null || r.b === null ? undefined : { min: Math.floor(r.a / 10_000), max: Math.floor(r.b / 10_000) };
  }

  /** The days said in one document, sorted. */
  daysOf(id: string): number[] {
    return this.prepared('SELECT day FROM turn_days WHERE id = ? ORDER BY day').pluck().all(id) as number[];
  }

  /** Everyone whose turns the warm tier holds: speaker id → the latest display name recorded. */
  speakers(): Map<string, string | undefined> {
    return new Map([...this.people].map(([id, p]) => [id, p.name]));
  }

  private countSpeaker(d: MemoryDocument, by: 1 | -1): void {
    const id = d.speaker?.id;
    if (!id) return;
    const p = this.people.get(id) ?? { n: 0 };
    p.n += by;
    if (by > 0 && d.speaker?.name) p.name = d.speaker.name;
    if (p.n <= 0) this.people.delete(id);
    else this.people.set(id, p);
  }

  /** The stored vector of a document (whatever model made it). */
  vectorOf(id: string): StoredVector | undefined {
    return this.index?.vectorOf(id);
  }

  /** A document's token count (BM25's length), without building its term counts. */
  lengthOf(id: string): number | undefined {
    return this.index?.lexical.lengthOf(id);
  }

  /** Lexical tokens of a document as term counts, and its length. */
  termsOf(id: string): { terms: ReadonlyMap<string, number>; len: number } | undefined {
    const bm = this.index?.lexical;
    const terms = bm?.terms(id);
    return terms && bm ? { terms, len: bm.lengthOf(id) ?? 0 } : undefined;
  }

  /** Resolves when queued embeddings are done (tests, benchmarks). */
  whenIdle(): Promise<void> {
    return this.idx.whenIdle();
  }

  /**
   * The `span` documents before and after `doc` in its session (time order, ties by id), nearest
   * first. `doc` need not be in this store (neighbours across tiers).
   */
  adjacent(doc: Pick<MemoryDocument, 'id' | 'sessionId' | 'createdAt'>, span = 1): { before: MemoryDocument[]; after: MemoryDocument[] } {
    const list = this.sessionIds(doc.sessionId);
    if (!list.length || span <= 0) return { before: [], after: [] };
    // First index whose key is greater than the doc's key (binary search on (createdAt, id)).
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.get(list[mid])!;
      if (m.createdAt < doc.createdAt || (m.createdAt === doc.createdAt && m.id <= doc.id)) lo = mid + 1;
      else hi = mid;
    }
    const before: MemoryDocument[] = [];
    for (let j = lo - 1; j >= 0 && before.length < span; j--) if (list[j] !== doc.id) before.push(this.get(list[j])!);
    const after: MemoryDocument[] = [];
    for (let j = lo; j < list.length && after.length < span; j++) if (list[j] !== doc.id) after.push(this.get(list[j])!);
    return { before, after };
  }

  private sessionIds(sessionId: string): string[] {
    const list = this.sessionOrder.get(sessionId);
    if (!list) return [];
    if (this.sessionDirty.has(sessionId)) {
      list.sort((a, b) => {
        const x = this.get(a)!;
        const y = this.get(b)!;
        return x.createdAt - y.createdAt || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
      });
      this.sessionDirty.delete(sessionId);
    }
    return list;
  }

  private ordered(): string[] {
    if (this.orderDirty) {
      this.order.sort((a, b) => {
        const x = this.get(a)!;
        const y = this.get(b)!;
        return x.createdAt - y.createdAt || (this.seqOf(x) - this.seqOf(y));
      });
      this.orderDirty = false;
    }
    return this.order;
  }

  private seqOf(d: MemoryDocument): number {
    return this.seqs.get(d.id) ?? 0;
  }

  private pushOrder(d: MemoryDocument): void {
    this.countSpeaker(d, 1);
    let list = this.sessionOrder.get(d.sessionId);
    if (!list) this.sessionOrder.set(d.sessionId, (list = []));
    const prev = list.length ? this.get(list[list.length - 1]) : undefined;
    list.push(d.id);
    // Usually the newest turn of its session: the list stays sorted without a re-sort.
    if (prev && (prev.createdAt > d.createdAt || (prev.createdAt === d.createdAt && prev.id > d.id))) this.sessionDirty.add(d.sessionId);
    this.seqs.set(d.id, this.seq);
    const last = this.order.length ? this.get(this.order[this.order.length - 1]) : undefined;
    this.order.push(d.id);
    if (last && last.createdAt > d.createdAt) this.orderDirty = true;
  }

  private dropOrder(id: string): void {
    const d = this.get(id);
    if (d) {
      this.countSpeaker(d, -1);
      const list = this.sessionOrder.get(d.sessionId);
      const k = list?.indexOf(id) ?? -1;
      if (list && k >= 0) list.splice(k, 1);
      if (list && list.length === 0) this.sessionOrder.delete(d.sessionId);
    }
    this.seqs.delete(id);
    const i = this.order.indexOf(id);
    if (i >= 0) {
      this.order.splice(i, 1);
      this.orderDirty = true;
    }
  }

  private load(row: Row, shared: (s: string) => string): void {
    const { doc, vector, tokens } = rowToDocument(row, shared);
    this.idx.add(doc.id, indexText(doc), doc, { tokens, vector });
    this.countSpeaker(doc, 1);
    this.seqs.set(doc.id, row.seq);
    this.order.push(doc.id);
    let list = this.sessionOrder.get(doc.sessionId);
    if (!list) this.sessionOrder.set(doc.sessionId, (list = []));
    list.push(doc.id);
    this.sessionDirty.add(doc.sessionId);
  }

  private connect(): Database.Database {
    privateSqliteFile(this.path);
    const db = new Database(this.path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // What was said leaves no copy in a page when its row moves or goes (decision 0400).
      secureDeleteOn(db);
      db.pragma('busy_timeout = 3000');
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new HomeAgentError('DOCS_CORRUPT', `quick_check: ${String(check)}`);
      migrateDocs(db);
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  }

  private cfgNum(key: string, d: number): number {
    try {
      const v = this.opts.config?.get(key);
      return typeof v === 'number' && Number.isFinite(v) ? v : d;
    } catch {
      return d;
    }
  }

  /** A prepared statement, cached per connection (preparing dominates small lookups). */
  private prepared(sql: string): Database.Statement {
    let st = this.stmtCache.get(sql);
    if (!st) {
      st = this.conn.prepare(sql);
      this.stmtCache.set(sql, st);
    }
    return st;
  }

  private get conn(): Database.Database {
    if (!this.db) throw new HomeAgentError('DOCS_CLOSED', 'the document store is not open');
    return this.db;
  }

  private get statements(): Statements {
    if (!this.stmts) throw new HomeAgentError('DOCS_CLOSED', 'the document store is not open');
    return this.stmts;
  }

  private get idx(): HybridIndex<MemoryDocument> {
    if (!this.index) throw new HomeAgentError('DOCS_CLOSED', 'the document store is not open');
    return this.index;
  }
}

/**
 * One string per distinct value while loading (decision 0190): SQLite hands out a new string for
 * every row, and the warm tier's few kinds, sources, channels and sessions would be held once per
 * document. Values longer than `max` are not pooled (texts are unique anyway).
 */
export function sharedStrings(max = 200): (s: string) => string {
  const pool = new Map<string, string>();
  return (s) => {
    if (s.length > max) return s;
    const held = pool.get(s);
    if (held !== undefined) return held;
    pool.set(s, s);
    return s;
  };
}

/** One row of documents.db as a document with its vector and tokens. */
function rowToDocument(row: Row, shared: (s: string) => string = (s) => s): { doc: MemoryDocument; vector?: StoredVector; tokens?: string[] } {
  const doc: MemoryDocument = {
    id: row.id,
    content: row.content,
    // A document added with only its content has the same input (held once, not twice).
    input: row.input === row.content ? row.content : row.input,
    response: shared(row.response),
    kind: shared(row.kind),
    source: shared(row.source),
    channel: shared(row.channel),
    sessionId: shared(row.session_id),
    title: row.title ?? undefined,
    createdAt: row.created_at,
    addedAt: row.added_at,
    accessCount: row.access_count,
    lastAccess: row.last_access ?? undefined,
    refs: JSON.parse(row.refs) as string[],
    meta: row.meta ? (JSON.parse(row.meta) as Record<string, unknown>) : undefined,
    eventKind: row.event_kind ? shared(row.event_kind) : undefined,
  };
  const speaker = parseObject(row.speaker);
  if (speaker && typeof speaker.id === 'string') doc.speaker = speaker as unknown as MemoryDocument['speaker'];
  const conversation = parseObject(row.conversation);
  if (conversation && typeof conversation.id === 'string') doc.conversation = conversation as unknown as MemoryDocument['conversation'];
  let vector: StoredVector | undefined;
  if (row.vec && row.vec_model) {
    const copy = new Uint8Array(row.vec);
    vector = { vector: new Float32Array(copy.buffer, 0, copy.byteLength / 4), modelId: row.vec_model };
  }
  const tokens = row.tokens ? (JSON.parse(row.tokens) as string[]) : undefined;
  return { doc, vector, tokens };
}

/**
 * Reads every document of a documents.db file that is not the live one (an export's snapshot,
 * K-5): opened, migrated to this build's schema, read in time order, closed. Unreadable rows are
 * counted, not thrown. A newer schema is a HomeAgentError `DOCS_SCHEMA_TOO_NEW`.
 */
export function readDocumentFile(file: string): { docs: { doc: MemoryDocument; vector?: StoredVector }[]; unreadable: number } {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('trusted_schema = OFF');
    migrateDocs(db);
    const docs: { doc: MemoryDocument; vector?: StoredVector }[] = [];
    let unreadable = 0;
    for (const row of db.prepare('SELECT * FROM documents ORDER BY created_at, seq').iterate() as Iterable<Row>) {
      try {
        const { doc, vector } = rowToDocument(row);
        docs.push({ doc, vector });
      } catch {
        unreadable++;
      }
    }
    return { docs, unreadable };
  } finally {
    db.close();
  }
}

/** A pruned context event as a document (seed ContextToDoc): id, time, session, refs and speaker kept. */
export function eventDocument(e: ContextEvent, addedAt: number): MemoryDocument {
  const doc: MemoryDocument = {
    id: e.id,
    content: cleanText(`${e.input} ${e.response}`) || cleanText((e.toolOutputs ?? []).filter((t) => !t.noMemory).map((t) => t.text).join('\n')) || '(empty)',
    input: e.input,
    response: e.response,
    kind: 'archive',
    source: e.source,
    channel: e.channel,
    sessionId: e.sessionId,
    createdAt: e.timestamp,
    addedAt,
    accessCount: 0,
    refs: [...(e.refs ?? [])],
    meta: { eventKind: e.kind },
    eventKind: e.kind,
  };
  if (e.speaker) doc.speaker = { ...e.speaker };
  if (e.conversation) doc.conversation = { ...e.conversation };
  return doc;
}

/** A JSON object column, or undefined (absent or unreadable). */
export function parseObject(s: string | null | undefined): Record<string, unknown> | undefined {
  if (!s) return undefined;
  try {
    const v = JSON.parse(s) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The text a document is indexed by: title + content. */
function indexText(d: MemoryDocument): string {
  return d.title ? `${d.title}\n${d.content}` : d.content;
}

function isCorruption(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || code === 'DOCS_CORRUPT';
}
