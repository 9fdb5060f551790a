import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ConfigReader } from '../../spec/config.js';
import { HomeAgentError, ValidationError } from '../../spec/errors/index.js';
import type { ContextEvent } from '../../spec/memory.js';
import { cleanText, HybridIndex, type EmbedderLog, type EmbedderService, type ReembedProgress, type StoredVector } from '../embedder/index.js';
import { migrateDocs } from './doc-migrations.js';
import { eventAsDoc, rankDocuments, type RankOptions } from './doc-ranker.js';
import { newDocumentSchema, type DocHit, type DocWindowHit, type MemoryDocument, type NewDocument } from './memory-document.js';

export interface DocStoreOptions {
  /** Data folder; the store lives in `<home>/documents/documents.db`. */
  home: string;
  embedder: EmbedderService;
  config?: ConfigReader;
  log?: EmbedderLog;
  clock?: () => number;
  /** Progress of background re-embedding after a model change. */
  onProgress?: (p: ReembedProgress) => void;
  /** Ranking knobs (see `rankDocuments`); the defaults are what the LoCoMo benchmark measured best. */
  rank?: Partial<RankOptions>;
}

/** Longest query text used for ranking (a pasted log must not stall the store). */
const MAX_QUERY_CHARS = 10_000;

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
}

/**
 * The Document tier (T-3, seed DocStore): documents in SQLite (`documents.db`, WAL, one
 * transaction per write, so an acknowledged document survives a kill) with their vectors in the
 * shared embedder space, searched through an in-memory hybrid index rebuilt at open.
 *
 * Reads: `search` (pure ranking), `query` (auto-injection: read-only, counts an access),
 * `consume` (doc_query: removes what it returns, for re-appending to the context).
 */
export class DocStore {
  private db: Database.Database | undefined;
  private index: HybridIndex<MemoryDocument> | undefined;
  private readonly log: EmbedderLog;
  private readonly clock: () => number;
  private seq = 0;
  private readonly order: string[] = [];
  private orderDirty = false;
  private readonly position = new Map<string, number>();
  /** Insertion sequence per document: breaks ties of equal timestamps. */
  private readonly seqs = new Map<string, number>();
  private stmts: { ins: Database.Statement; del: Database.Statement; touch: Database.Statement } | undefined;

  constructor(private readonly opts: DocStoreOptions) {
    this.log = opts.log ?? { info: () => {}, warn: () => {} };
    this.clock = opts.clock ?? Date.now;
  }

  /** Path of the database file. */
  get path(): string {
    return path.join(this.opts.home, 'documents', 'documents.db');
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
      const aside = `${this.path}.corrupt-${this.clock()}`;
      for (const suffix of ['', '-wal', '-shm']) if (fs.existsSync(this.path + suffix)) fs.renameSync(this.path + suffix, aside + suffix);
      this.log.warn(`documents: ${this.path} is corrupt (${(e as Error).message}); kept aside as ${aside}; starting an empty document store`);
      this.db = this.connect();
    }
    const db = this.db;
    this.stmts = {
      ins: db.prepare(`INSERT OR REPLACE INTO documents (id, seq, content, input, response, kind, source, channel, session_id, title, created_at, added_at, access_count, last_access, refs, meta, tokens)
        VALUES (@id, @seq, @content, @input, @response, @kind, @source, @channel, @sessionId, @title, @createdAt, @addedAt, 0, NULL, @refs, @meta, @tokens)`),
      del: db.prepare('DELETE FROM documents WHERE id = ?'),
      touch: db.prepare('UPDATE documents SET access_count = access_count + 1, last_access = ? WHERE id = ?'),
    };
    const updVec = db.prepare('UPDATE documents SET vec = ?, vec_model = ? WHERE id = ?');
    this.index = new HybridIndex<MemoryDocument>({
      embedder: this.opts.embedder,
      log: this.log,
      name: 'documents',
      onProgress: this.opts.onProgress,
      onVector: (id, v) => {
        if (this.db) updVec.run(Buffer.from(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength), v.modelId, id);
      },
    });
    let bad = 0;
    for (const row of db.prepare('SELECT * FROM documents ORDER BY created_at, seq').iterate() as Iterable<Row>) {
      try {
        this.load(row);
      } catch {
        bad++;
      }
      if (row.seq >= this.seq) this.seq = row.seq + 1;
    }
    if (bad > 0) this.log.warn(`documents: ${bad} unreadable rows skipped`);
    const model = this.opts.embedder.modelId();
    if (this.opts.embedder.dense && [...this.idx.ids()].some((id) => this.idx.vectorOf(id)?.modelId !== model)) void this.idx.reembed(model);
  }

  /** Closes the store. Safe to call twice. */
  async close(): Promise<void> {
    this.index?.close();
    this.index = undefined;
    this.stmts = undefined;
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
      return doc;
    });
    return this.insert(docs);
  }

  private insert(docs: MemoryDocument[]): MemoryDocument[] {
    const db = this.conn;
    const { ins } = this.statements;
    const tokens = docs.map((d) => this.opts.embedder.tokenize(indexText(d)));
    const seqs = docs.map(() => this.seq++);
    db.transaction(() => {
      docs.forEach((d, i) =>
        ins.run({ ...d, seq: seqs[i], title: d.title ?? null, refs: JSON.stringify(d.refs), meta: d.meta ? JSON.stringify(d.meta) : null, tokens: JSON.stringify(tokens[i]) }),
      );
    })();
    docs.forEach((d, i) => {
      if (this.idx.has(d.id)) this.dropOrder(d.id);
      this.idx.add(d.id, indexText(d), d, { tokens: tokens[i] });
      this.pushOrder(d);
    });
    return docs;
  }

  /**
   * Prune archive (seed ContextToDoc): one document per event, keeping the event's original
   * timestamp, session, source and refs. The document id is the event id.
   */
  archiveEvents(events: readonly ContextEvent[]): MemoryDocument[] {
    // Events come from our own context window (already validated): no schema pass per turn.
    const now = this.clock();
    const docs: MemoryDocument[] = events.map((e) => ({
      id: e.id,
      content: cleanText(`${e.input} ${e.response}`) || cleanText((e.toolOutputs ?? []).filter((t) => !t.noMemory).map((t) => t.text).join('\n')) || '(empty)',
      input: e.input,
      response: e.response,
      kind: 'archive',
      source: e.source,
      channel: e.channel,
      sessionId: e.sessionId,
      createdAt: e.timestamp,
      addedAt: now,
      accessCount: 0,
      refs: [...(e.refs ?? [])],
      meta: { eventKind: e.kind },
    }));
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
    const r = this.statements.del.run(id);
    this.idx.remove(id);
    this.dropOrder(id);
    return r.changes > 0;
  }

  /**
   * Pure ranking (no access counted): hybrid lexical + dense, with neighbour evidence and query
   * expansion (see `rankDocuments`). `alsoEvents` ranks live context events in the same pass.
   */
  async search(query: string, k = 10, opts: { alsoEvents?: readonly ContextEvent[]; rank?: Partial<RankOptions> } = {}): Promise<DocHit[]> {
    if (typeof query !== 'string' || k <= 0) return [];
    const q = query.length > MAX_QUERY_CHARS ? query.slice(0, MAX_QUERY_CHARS) : query;
    return rankDocuments(this.idx, q, Math.min(k, 1000), {
      neighbours: (id) => this.neighbours(id),
      alsoEvents: opts.alsoEvents,
      options: { ...this.opts.rank, ...opts.rank },
    });
  }

  /**
   * Search returning each hit with its neighbouring turns of the same session (Mastra's
   * messageRange): `before` earlier and `after` later documents. A document already shown in an
   * earlier window is not repeated. Pure ranking, no access counted.
   */
  async searchWindows(query: string, k = 10, opts: { before?: number; after?: number; alsoEvents?: readonly ContextEvent[]; rank?: Partial<RankOptions> } = {}): Promise<DocWindowHit[]> {
    const before = Math.max(0, opts.before ?? 0);
    const after = Math.max(0, opts.after ?? 1);
    const hits = await this.search(query, Math.max(k, 50), opts);
    const seen = new Set<string>();
    const out: DocWindowHit[] = [];
    const live = opts.alsoEvents ?? [];
    const livePos = new Map(live.map((e, i) => [e.id, i]));
    const pos = (d: MemoryDocument): number => livePos.get(d.id) ?? this.position.get(d.id) ?? 0;
    for (const h of hits) {
      if (out.length >= k) break;
      if (seen.has(h.doc.id)) continue;
      const me = pos(h.doc);
      const near = livePos.has(h.doc.id)
        ? live.filter((e) => e.sessionId === h.doc.sessionId && Math.abs((livePos.get(e.id) ?? 0) - me) <= Math.max(before, after)).map((e) => eventAsDoc(e))
        : this.neighbours(h.doc.id, Math.max(before, after));
      const win = [h.doc, ...near.filter((n) => n.id !== h.doc.id && (pos(n) < me ? me - pos(n) <= before : pos(n) - me <= after))]
        .filter((d) => !seen.has(d.id))
        .sort((a, b) => a.createdAt - b.createdAt || pos(a) - pos(b));
      for (const d of win) seen.add(d.id);
      out.push({ hit: h.doc, docs: win, score: h.score });
    }
    return out;
  }

  /** Auto-injection read (T-3): the top k, each counted as one access. Read-only otherwise. */
  async query(query: string, k = 3): Promise<DocHit[]> {
    const hits = await this.search(query, k);
    const now = this.clock();
    const upd = this.statements.touch;
    this.conn.transaction(() => {
      for (const h of hits) {
        upd.run(now, h.doc.id);
        h.doc.accessCount++;
        h.doc.lastAccess = now;
      }
    })();
    return hits;
  }

  /** doc_query (T-3): finds the top k and removes them from the store; the caller re-appends them. */
  async consume(query: string, k = 5): Promise<MemoryDocument[]> {
    const hits = await this.search(query, k);
    const del = this.statements.del;
    this.conn.transaction(() => {
      for (const h of hits) del.run(h.doc.id);
    })();
    for (const h of hits) {
      this.idx.remove(h.doc.id);
      this.dropOrder(h.doc.id);
    }
    return hits.map((h) => h.doc);
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

  /** Resolves when queued embeddings are done (tests, benchmarks). */
  whenIdle(): Promise<void> {
    return this.idx.whenIdle();
  }

  /** The documents just before and after `id` in time order within the same session. */
  neighbours(id: string, span = 1): MemoryDocument[] {
    const order = this.ordered();
    const i = this.position.get(id);
    const doc = this.get(id);
    if (i === undefined || !doc) return [];
    const out: MemoryDocument[] = [];
    for (let j = Math.max(0, i - span); j <= Math.min(order.length - 1, i + span); j++) {
      if (j === i) continue;
      const n = this.get(order[j]);
      if (n && n.sessionId === doc.sessionId) out.push(n);
    }
    return out;
  }

  private ordered(): string[] {
    if (this.orderDirty) {
      this.order.sort((a, b) => {
        const x = this.get(a)!;
        const y = this.get(b)!;
        return x.createdAt - y.createdAt || (this.seqOf(x) - this.seqOf(y));
      });
      this.position.clear();
      this.order.forEach((id, i) => this.position.set(id, i));
      this.orderDirty = false;
    }
    return this.order;
  }

  private seqOf(d: MemoryDocument): number {
    return this.seqs.get(d.id) ?? 0;
  }

  private pushOrder(d: MemoryDocument): void {
    this.seqs.set(d.id, this.seq);
    const last = this.order.length ? this.get(this.order[this.order.length - 1]) : undefined;
    this.order.push(d.id);
    if (last && last.createdAt > d.createdAt) this.orderDirty = true;
    else if (!this.orderDirty) this.position.set(d.id, this.order.length - 1);
  }

  private dropOrder(id: string): void {
    this.seqs.delete(id);
    const i = this.order.indexOf(id);
    if (i >= 0) {
      this.order.splice(i, 1);
      this.orderDirty = true;
    }
  }

  private load(row: Row): void {
    const doc: MemoryDocument = {
      id: row.id,
      content: row.content,
      input: row.input,
      response: row.response,
      kind: row.kind,
      source: row.source,
      channel: row.channel,
      sessionId: row.session_id,
      title: row.title ?? undefined,
      createdAt: row.created_at,
      addedAt: row.added_at,
      accessCount: row.access_count,
      lastAccess: row.last_access ?? undefined,
      refs: JSON.parse(row.refs) as string[],
      meta: row.meta ? (JSON.parse(row.meta) as Record<string, unknown>) : undefined,
    };
    let vector: StoredVector | undefined;
    if (row.vec && row.vec_model) {
      const copy = new Uint8Array(row.vec);
      vector = { vector: new Float32Array(copy.buffer, 0, copy.byteLength / 4), modelId: row.vec_model };
    }
    const tokens = row.tokens ? (JSON.parse(row.tokens) as string[]) : undefined;
    this.idx.add(doc.id, indexText(doc), doc, { tokens, vector });
    this.seqs.set(doc.id, row.seq);
    this.order.push(doc.id);
    this.position.set(doc.id, this.order.length - 1);
  }

  private connect(): Database.Database {
    const db = new Database(this.path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
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

  private get conn(): Database.Database {
    if (!this.db) throw new HomeAgentError('DOCS_CLOSED', 'the document store is not open');
    return this.db;
  }

  private get statements(): { ins: Database.Statement; del: Database.Statement; touch: Database.Statement } {
    if (!this.stmts) throw new HomeAgentError('DOCS_CLOSED', 'the document store is not open');
    return this.stmts;
  }

  private get idx(): HybridIndex<MemoryDocument> {
    if (!this.index) throw new HomeAgentError('DOCS_CLOSED', 'the document store is not open');
    return this.index;
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
