import { performance } from 'node:perf_hooks';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { HomeAgentError } from '../../spec/errors/index.js';
import { asksQuestion, safeDays, type DayKeyRange, type MemoryDocument, type SaidDaysResolver } from '../documents/index.js';
import { BM25_B, BM25_K1, type Bm25Stats, type EmbedderLog, type StoredVector } from '../embedder/index.js';
import { migrateArchive } from './archive-migrations.js';
import { privateSqliteFile, setAsideSqlite } from '../../fs/index.js';
import { compactSqlite, scrubbedSqlite, secureDeleteOn, type CompactOutcome } from '../../fs/sqlite/index.js';

/**
 * How much of a row is read: `light` (id, session, time, speaker, neighbours — what ranking
 * needs of a candidate), `tokens` (+ term counts and vector), `full` (+ text, refs, meta).
 */
export type RowLevel = 'light' | 'tokens' | 'full';

/** An archived document as read at some level (fields beyond the level are empty). */
export interface ArchivedRow {
  /** Row number (stable while the row exists). */
  n: number;
  doc: MemoryDocument;
  /** Row numbers of the turns before and after it in its session. */
  prev: number | null;
  next: number | null;
  len: number;
  /** Whether the turn asks a question (`asksQuestion` of its text). */
  asks: boolean;
  terms?: Map<string, number>;
  vec?: StoredVector;
  level: RowLevel;
}

export interface ColdArchiveOptions {
  /** Data folder; the archive lives in `<home>/documents/archive.db`. */
  home: string;
  /** Our lexical tokenizer (the embedder's `tokenize`): every tier indexes the same tokens. */
  tokenize: (text: string) => string[];
  log?: EmbedderLog;
  clock?: () => number;
  /**
   * The days a turn's text says, resolved against its time, as YYYYMMDD keys (recall's `saidDays`,
   * decision 0160). Without it rows are stored with their days pending, resolved at the next open
   * by an archive that has it.
   */
  saidDays?: SaidDaysResolver;
}

/** Rows whose days are resolved per transaction at open (rows stored before schema 3). */
const DAYS_BATCH = 2_000;

interface Row {
  n: number;
  id?: string;
  turn_id?: string | null;
  event_kind: string;
  kind: string;
  source?: string;
  channel?: string;
  session_id: string;
  speaker_id?: string | null;
  speaker?: string | null;
  conversation_id?: string | null;
  conversation?: string | null;
  title?: string | null;
  created_at: number;
  added_at?: number;
  access_count?: number;
  content?: string;
  input?: string | null;
  response?: string;
  refs?: string;
  meta?: string | null;
  tokens?: string;
  ntok: number;
  prev_n: number | null;
  next_n: number | null;
  asks?: number;
  vec?: Buffer | null;
  vec_model?: string | null;
}

/** The light columns, all in the covering index `turns_rank` (narrow pages: candidates are read without touching the text). */
const LIGHT = 'n, session_id, created_at, ntok, prev_n, next_n, event_kind, kind, conversation_id, speaker_id, asks';
/** What ranking reads of a row (`ColdArchive.rankRows`): a subset of the light columns, in `RankRow`'s order. */
const RANKING = 'n, session_id, created_at, ntok, prev_n, next_n, event_kind, speaker_id, asks';
const COLUMNS: Record<RowLevel, string> = { light: LIGHT, tokens: `${LIGHT}, tokens, vec, vec_model`, full: '*' };
/**
 * Listed rows' `cols` from the covering index: a join over the JSON list of row numbers, one seek
 * each. (`n IN (SELECT value FROM json_each(?))` first builds and sorts a temporary index of the
 * list: on the 1M archive 200 random rows cost 0.80 ms of CPU that way and 0.57 ms joined, decision 0230.)
 */
const listedRows = (cols: string) => `SELECT ${cols.split(', ').map((c) => `t.${c}`).join(', ')} FROM json_each(?) j JOIN turns t INDEXED BY turns_rank ON t.n = j.value`;
const RANK: Record<RowLevel, number> = { light: 0, tokens: 1, full: 2 };

/** Rows kept parsed between queries (light rows are small; the archive itself is never in memory). */
const ROW_CACHE = 4096;

/**
 * The cold archive (T-3): documents that went cold are distilled into graph facts and then moved
 * here instead of being deleted. SQLite (`documents/archive.db`, WAL), searched without an
 * in-memory index: a postings table clustered by term gives each query term's (row, count, length)
 * in one range read, so BM25 is computed exactly as for the in-memory tiers and rows are read only
 * for the candidates ranking keeps. Opening reads two counters. Only an explicit delete (forget)
 * removes a row; archiving the same id again replaces it.
 */
export class ColdArchive {
  private db: Database.Database | undefined;
  private docs = 0;
  private tokens = 0;
  private readonly cache = new Map<number, ArchivedRow>();
  /** Bumped by every write, open and close: what readers key their own caches by. */
  private writes = 0;
  /** The people heard (`speakers` table, small): id → latest display name. */
  private people = new Map<string, string | undefined>();
  private readonly stmts = new Map<string, Database.Statement>();
  private light: Database.Statement | undefined;
  private ranking: Database.Statement | undefined;
  private readonly log: EmbedderLog;
  private readonly clock: () => number;
  /** The background resolution of days of rows stored before (see `fillDays`). */
  private fillTimer: NodeJS.Timeout | undefined;
  private filling: Promise<void> = Promise.resolve();
  private fillSettled: () => void = () => {};

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

  /**
   * Changes whenever the archive's content may have changed (a write, a delete, open, close):
   * a reader's cache of rows or neighbours is valid only while it stays the same.
   */
  get version(): number {
    return this.writes;
  }

  private asideAt: { file: string; at: number } | undefined;

  /** The corrupt file this process set aside when it opened the store (`*.corrupt-<time>`), if any. */
  get setAside(): { file: string; at: number } | undefined {
    return this.asideAt;
  }

  /** True between open() and close(). */
  get isOpen(): boolean {
    return this.db !== undefined;
  }

  /**
   * Opens (creating and migrating) the archive. A corrupt file is renamed to
   * `archive.db.corrupt-<time>` with a log line and a fresh archive starts (`waiter memory
   * reindex` rebuilds it from the session logs). Damage counts wherever opening meets it: SQLite
   * opening the file, or the first reads (the counters, the people heard, the first batch of days)
   * — a file cut short opens cleanly and fails only when a page past its end is read.
   */
  open(): void {
    if (this.db) return;
    this.writes++;
    fs.mkdirSync(path.dirname(this.path), { recursive: true });
    try {
      this.db = this.connect();
      this.load();
    } catch (e) {
      // Statements prepared on the damaged file's connection go with it.
      this.close();
      if (!isCorruption(e)) throw e;
      this.asideAt = setAsideSqlite(this.path, this.clock());
      const aside = this.asideAt.file;
      this.log.warn(`archive: ${this.path} is corrupt (${(e as Error).message}); kept aside as ${aside}; starting an empty archive (waiter memory reindex rebuilds it from the session logs)`);
      this.db = this.connect();
      this.load();
    }
  }

  /** The first reads of an open: the counters, the people heard, the first batch of days. */
  private load(): void {
    this.docs = 0;
    this.tokens = 0;
    for (const m of this.st('SELECT key, value FROM meta').all() as { key: string; value: number }[]) {
      if (m.key === 'docs') this.docs = m.value;
      if (m.key === 'tokens') this.tokens = m.value;
    }
    this.loadPeople();
    this.fillDays();
  }

  /**
   * Resolves the days said in rows stored without them (before schema 3, or by a process without a
   * resolver), a batch per transaction: the first batch at open (a small archive is done there),
   * the rest in the background between events, so a large archive does not delay the start (≈ 25 µs
   * of CPU a row, 100,000 rows in 8 s on a loaded machine; day-scoped recall misses the rows not
   * reached yet). A kill keeps the batches done.
   */
  private fillDays(): void {
    const resolve = this.opts.saidDays;
    if (!resolve) return;
    let rows = 0;
    let days = 0;
    const t0 = performance.now();
    const step = () => {
      this.fillTimer = undefined;
      if (!this.db) return this.fillSettled();
      const r = this.fillBatch(resolve);
      rows += r.rows;
      days += r.days;
      if (r.rows === DAYS_BATCH) {
        if (rows === DAYS_BATCH) this.log.info('archive: resolving the days said in archived turns stored before (once, in the background)…');
        this.fillTimer = setTimeout(step, 0);
        this.fillTimer.unref?.();
        return;
      }
      if (rows > 0) this.log.info(`archive: resolved the days said in ${rows} archived turns (${days} days) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      this.fillSettled();
    };
    this.filling = new Promise((r) => (this.fillSettled = r));
    step();
  }

  /** One batch of `fillDays` in one transaction. */
  private fillBatch(resolve: SaidDaysResolver): { rows: number; days: number } {
    const batch = this.st('SELECT n, content, created_at FROM turns INDEXED BY turns_days_todo WHERE days_done = 0 ORDER BY n LIMIT ?').all(DAYS_BATCH) as { n: number; content: string; created_at: number }[];
    const put = this.st('INSERT OR IGNORE INTO turn_days (day, n) VALUES (?, ?)');
    const done = this.st('UPDATE turns SET days_done = 1 WHERE n = ?');
    let days = 0;
    this.conn.transaction(() => {
      for (const r of batch) {
        for (const d of safeDays(resolve, r.content, r.created_at)) {
          put.run(d, r.n);
          days++;
        }
        done.run(r.n);
      }
    })();
    return { rows: batch.length, days };
  }

  /** Resolves when the days of rows stored before are all resolved (or the archive closed). */
  whenDaysResolved(): Promise<void> {
    return this.filling;
  }

  private loadPeople(): void {
    const rows = this.st('SELECT id, name FROM speakers WHERE n > 0').all() as { id: string; name: string | null }[];
    this.people = new Map(rows.map((r) => [r.id, r.name ?? undefined]));
  }

  /** Everyone whose turns the archive holds: speaker id and the latest display name recorded. */
  speakers(): ReadonlyMap<string, string | undefined> {
    return this.people;
  }

  /** Closes the archive. Safe to call twice. */
  close(): void {
    if (this.fillTimer) clearTimeout(this.fillTimer);
    this.fillTimer = undefined;
    this.fillSettled();
    this.stmts.clear();
    this.light = undefined;
    this.ranking = undefined;
    this.cache.clear();
    this.writes++;
    this.db?.close();
    this.db = undefined;
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
      // Reads here are random over a large file: the OS page cache serves them, and SQLite's own cache
      // (16 MiB per connection as better-sqlite3 builds it) would only add resident memory.
      db.pragma('cache_size = -4000');
      // quick_check reads every page (seconds at a million rows): open checks the header and
      // schema only; SQLite reports damage where it is met (SQLITE_CORRUPT), and that is logged.
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
      migrateArchive(db, (p) =>
        this.log.info(
          p.ms === undefined
            ? `archive: upgrading ${this.path} from schema ${p.from} to ${p.to} (once; about ${p.rows} rows, which can take minutes at a million)…`
            : `archive: upgraded from schema ${p.from} to ${p.to} in ${(p.ms / 1000).toFixed(1)} s`,
        ),
      );
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

  // ---------- writes ----------

  /**
   * Archives documents in one transaction (tokens computed here unless given). A document whose id
   * is already archived is replaced, so archiving twice is harmless.
   */
  putMany(docs: readonly MemoryDocument[], opts: { tokens?: (string[] | undefined)[]; vectors?: (StoredVector | undefined)[] } = {}): number {
    if (docs.length === 0) return 0;
    const now = this.clock();
    const toks = docs.map((d, i) => (opts.tokens?.[i] ?? this.opts.tokenize(d.title ? `${d.title}\n${d.content}` : d.content)).filter(isIndexable));
    const ins = this.st(`INSERT INTO turns (id, turn_id, event_kind, kind, source, channel, session_id, speaker_id, speaker, conversation_id, conversation, title, created_at, added_at, archived_at, access_count, content, input, response, refs, meta, tokens, ntok, vec, vec_model, asks, days_done)
      VALUES (@id, @turnId, @eventKind, @kind, @source, @channel, @sessionId, @speakerId, @speakerJson, @conversationId, @conversationJson, @title, @createdAt, @addedAt, @archivedAt, @accessCount, @content, @input, @response, @refs, @meta, @tokens, @ntok, @vec, @vecModel, @asks, @daysDone)`);
    const resolve = this.opts.saidDays;
    const putDay = this.st('INSERT OR IGNORE INTO turn_days (day, n) VALUES (?, ?)');
    const person = this.st('INSERT INTO speakers (id, name, n) VALUES (?, ?, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1, name = COALESCE(excluded.name, name)');
    const posting = this.st('INSERT INTO postings (term_id, n, tf, len) VALUES (?, ?, ?, ?)');
    const df = new Map<number, number>();
    this.conn.transaction(() => {
      const replaced = this.deleteWhere('id', docs.map((d) => d.id), df);
      let addDocs = -replaced.docs;
      let addTokens = -replaced.tokens;
      docs.forEach((d, i) => {
        const t = toks[i];
        const v = opts.vectors?.[i];
        const n = Number(
          ins.run({
            id: d.id,
            turnId: d.refs[0] ?? null,
            eventKind: d.eventKind ?? '',
            kind: d.kind,
            source: d.source,
            channel: d.channel,
            sessionId: d.sessionId,
            speakerId: d.speaker?.id ?? null,
            speakerJson: d.speaker ? JSON.stringify(d.speaker) : null,
            conversationId: d.conversation?.id ?? null,
            conversationJson: d.conversation ? JSON.stringify(d.conversation) : null,
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
            asks: asksQuestion(d.content) ? 1 : 0,
            daysDone: resolve ? 1 : 0,
          }).lastInsertRowid,
        );
        if (resolve) for (const day of safeDays(resolve, d.content, d.createdAt)) putDay.run(day, n);
        if (d.speaker?.id) person.run(d.speaker.id, d.speaker.name ?? null);
        this.link(n, d);
        for (const [term, tf] of counts(t)) {
          const id = this.termId(term);
          posting.run(id, n, tf, t.length);
          df.set(id, (df.get(id) ?? 0) + 1);
        }
        addDocs++;
        addTokens += t.length;
      });
      this.applyDf(df);
      this.bumpMeta(addDocs, addTokens);
    })();
    this.cache.clear();
    this.writes++;
    if (docs.some((d) => d.speaker?.id)) this.loadPeople();
    return docs.length;
  }

  /** Threads a new row between the turns before and after it in its session. */
  private link(n: number, d: Pick<MemoryDocument, 'id' | 'sessionId' | 'createdAt'>): void {
    const prev = this.st('SELECT n FROM turns WHERE session_id = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT 1').pluck().get(d.sessionId, d.createdAt, d.id) as number | undefined;
    const next = this.st('SELECT n FROM turns WHERE session_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at ASC, id ASC LIMIT 1').pluck().get(d.sessionId, d.createdAt, d.id) as number | undefined;
    this.st('UPDATE turns SET prev_n = ?, next_n = ? WHERE n = ?').run(prev ?? null, next ?? null, n);
    if (prev !== undefined) this.st('UPDATE turns SET next_n = ? WHERE n = ?').run(n, prev);
    if (next !== undefined) this.st('UPDATE turns SET prev_n = ? WHERE n = ?').run(n, next);
  }

  private termId(term: string): number {
    const id = this.st('SELECT id FROM terms WHERE term = ?').pluck().get(term) as number | undefined;
    return id ?? Number(this.st('INSERT INTO terms (term, df) VALUES (?, 0)').run(term).lastInsertRowid);
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
    const df = new Map<number, number>();
    const r = this.conn.transaction(() => {
      const gone = this.deleteWhere(col, values, df);
      this.applyDf(df);
      this.bumpMeta(-gone.docs, -gone.tokens);
      return gone.docs;
    })();
    this.cache.clear();
    this.writes++;
    if (r > 0) this.loadPeople();
    return r;
  }

  /** Deletes matching rows (inside the caller's transaction): postings, links, and df changes. */
  private deleteWhere(col: 'id' | 'turn_id', values: readonly string[], df: Map<number, number>): { docs: number; tokens: number } {
    let docs = 0;
    let tokens = 0;
    const sel = this.st(`SELECT n, tokens, ntok, prev_n, next_n, speaker_id FROM turns WHERE ${col} = ?`);
    const person = this.st('UPDATE speakers SET n = n - 1 WHERE id = ?');
    const gonePerson = this.st('DELETE FROM speakers WHERE id = ? AND n <= 0');
    const termOf = this.st('SELECT id FROM terms WHERE term = ?').pluck();
    const delPosting = this.st('DELETE FROM postings WHERE term_id = ? AND n = ?');
    for (const v of values) {
      for (const row of sel.all(v) as { n: number; tokens: string; ntok: number; prev_n: number | null; next_n: number | null; speaker_id: string | null }[]) {
        if (row.speaker_id !== null) {
          person.run(row.speaker_id);
          gonePerson.run(row.speaker_id);
        }
        for (const term of new Set(splitTokens(row.tokens))) {
          const id = termOf.get(term) as number | undefined;
          if (id === undefined) continue;
          delPosting.run(id, row.n);
          df.set(id, (df.get(id) ?? 0) - 1);
        }
        if (row.prev_n !== null) this.st('UPDATE turns SET next_n = ? WHERE n = ?').run(row.next_n, row.prev_n);
        if (row.next_n !== null) this.st('UPDATE turns SET prev_n = ? WHERE n = ?').run(row.prev_n, row.next_n);
        this.st('DELETE FROM turn_days WHERE n = ?').run(row.n);
        this.st('DELETE FROM turns WHERE n = ?').run(row.n);
        docs++;
        tokens += row.ntok;
      }
    }
    return { docs, tokens };
  }

  private applyDf(df: Map<number, number>): void {
    const up = this.st('UPDATE terms SET df = df + ? WHERE id = ?');
    const drop = this.st('DELETE FROM terms WHERE id = ? AND df <= 0');
    for (const [id, d] of df) {
      if (d === 0) continue;
      up.run(d, id);
      if (d < 0) drop.run(id);
    }
  }

  private bumpMeta(docs: number, tokens: number): void {
    this.st("UPDATE meta SET value = value + ? WHERE key = 'docs'").run(docs);
    this.st("UPDATE meta SET value = value + ? WHERE key = 'tokens'").run(tokens);
    this.docs += docs;
    this.tokens += tokens;
  }

  // ---------- ranking ----------

  /** Document frequency of each term in the archive. */
  df(terms: Iterable<string>): Map<string, number> {
    const q = this.st('SELECT df FROM terms WHERE term = ?').pluck();
    const out = new Map<string, number>();
    for (const t of terms) if (!out.has(t)) out.set(t, isIndexable(t) ? ((q.get(t) as number | undefined) ?? 0) : 0);
    return out;
  }

  /**
   * BM25 (k1 1.2, b 0.5, under the given collection statistics) of the rows holding the weighted
   * query terms, by row number. Each term reads at most `quota(term)` postings, newest rows first:
   * a rare term all of its rows, a very common one only its most recent (its idf is low, so older
   * rows rarely rank on it alone; they stay reachable by any rarer word).
   */
  score(terms: ReadonlyMap<string, number>, stats: Bm25Stats, quota: (term: string) => number, cache?: Map<string, [number, number, number][]>): Map<number, number> {
    const acc = new Map<number, number>();
    const termOf = this.st('SELECT id FROM terms WHERE term = ?').pluck();
    const read = this.st('SELECT n, tf, len FROM postings WHERE term_id = ? ORDER BY n DESC LIMIT ?').raw();
    const avg = stats.avgLen || 1;
    const base = BM25_K1 * (1 - BM25_B);
    const perLen = (BM25_K1 * BM25_B) / avg;
    for (const [term, w] of terms) {
      if (w === 0 || !isIndexable(term)) continue;
      const lim = quota(term);
      if (lim <= 0) continue;
      // One ranking scores twice (before and after query expansion): a term's postings are read once.
      const key = `${term}\u0000${lim}`;
      let postings = cache?.get(key);
      if (!postings) {
        const id = termOf.get(term) as number | undefined;
        postings = id === undefined ? [] : (read.all(id, Number.isFinite(lim) ? Math.floor(lim) : -1) as [number, number, number][]);
        cache?.set(key, postings);
      }
      const idf = stats.idf(term) * w * (BM25_K1 + 1);
      for (const [n, tf, len] of postings) {
        acc.set(n, (acc.get(n) ?? 0) + (idf * tf) / (tf + base + perLen * len));
      }
    }
    return acc;
  }

  /** Rows by row number at (at least) `level`, through the bounded cache; absent rows are skipped. */
  rows(ns: readonly number[], level: RowLevel = 'light'): Map<number, ArchivedRow> {
    const out = new Map<number, ArchivedRow>();
    const missing: number[] = [];
    for (const n of ns) {
      const c = this.cache.get(n);
      if (c && RANK[c.level] >= RANK[level]) out.set(n, c);
      else missing.push(n);
    }
    if (!missing.length) return out;
    if (level === 'light') {
      // Light rows come from the covering index (narrow pages; SQLite would pick the table by rowid),
      // as arrays: ranking reads hundreds per query at scale, and a row object per row is garbage.
      for (const r of this.lightStatement().all(JSON.stringify(missing)) as LightRow[]) out.set(r[0], this.remember(lightRow(r)));
      return out;
    }
    const rows = this.st(`SELECT ${COLUMNS[level]} FROM turns WHERE n IN (SELECT value FROM json_each(?))`).all(JSON.stringify(missing)) as Row[];
    for (const r of rows) out.set(r.n, this.remember(toArchived(r, level)));
    return out;
  }

  /**
   * What ranking reads of rows by row number (absent rows are skipped): `RankRow`'s columns, as
   * arrays, straight from the covering index and past the row cache. At scale ranking reads hundreds
   * of candidates and neighbours per query, which it keeps itself while the archive is unchanged;
   * fewer columns (no strings it does not use) and no row objects make each row cheaper.
   */
  rankRows(ns: readonly number[]): RankRow[] {
    if (!ns.length) return [];
    if (!this.ranking) this.ranking = this.conn.prepare(listedRows(RANKING)).raw(true);
    return this.ranking.all(JSON.stringify([...new Set(ns)])) as RankRow[];
  }

  /** The light columns of listed rows, in raw mode (its own statement: `st` hands out object-mode ones). */
  private lightStatement(): Database.Statement {
    if (!this.light) this.light = this.conn.prepare(listedRows(LIGHT)).raw(true);
    return this.light;
  }

  private remember(row: ArchivedRow): ArchivedRow {
    this.cache.delete(row.n);
    if (this.cache.size >= ROW_CACHE) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(row.n, row);
    return row;
  }

  /**
   * The nearest earlier and later archived row of each document's session, for documents of
   * other tiers (an archived row knows its neighbours: `prev`/`next`). One statement for all.
   */
  adjacentMany(docs: readonly Pick<MemoryDocument, 'id' | 'sessionId' | 'createdAt'>[]): Map<string, { before: ArchivedRow[]; after: ArchivedRow[] }> {
    const out = new Map<string, { before: ArchivedRow[]; after: ArchivedRow[] }>();
    if (!docs.length) return out;
    const found = this.st(`WITH q(k, s, c, i) AS (SELECT key, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?))
      SELECT q.k AS k,
        (SELECT n FROM turns t WHERE t.session_id = q.s AND (t.created_at, t.id) < (q.c, q.i) ORDER BY t.created_at DESC, t.id DESC LIMIT 1) AS prev,
        (SELECT n FROM turns t WHERE t.session_id = q.s AND (t.created_at, t.id) > (q.c, q.i) ORDER BY t.created_at ASC, t.id ASC LIMIT 1) AS next
      FROM q`).all(JSON.stringify(docs.map((d) => [d.sessionId, d.createdAt, d.id]))) as { k: number; prev: number | null; next: number | null }[];
    const need: number[] = [];
    for (const r of found) for (const n of [r.prev, r.next]) if (n !== null) need.push(n);
    const byN = this.rows(need);
    for (const r of found) {
      const prev = r.prev !== null ? byN.get(r.prev) : undefined;
      const next = r.next !== null ? byN.get(r.next) : undefined;
      out.set(docs[r.k].id, { before: prev ? [prev] : [], after: next ? [next] : [] });
    }
    return out;
  }

  /** The `span` rows before and after `doc` in its session, nearest first. */
  adjacent(doc: Pick<MemoryDocument, 'id' | 'sessionId' | 'createdAt'>, span = 1): { before: ArchivedRow[]; after: ArchivedRow[] } {
    const first = this.adjacentMany([doc]).get(doc.id) ?? { before: [], after: [] };
    const walk = (start: ArchivedRow | undefined, dir: 'prev' | 'next'): ArchivedRow[] => {
      const out: ArchivedRow[] = [];
      let cur = start;
      while (cur && out.length < span) {
        out.push(cur);
        const n = cur[dir];
        cur = n === null ? undefined : this.rows([n]).get(n);
      }
      return out;
    };
    return { before: walk(first.before[0], 'prev'), after: walk(first.after[0], 'next') };
  }

  // ---------- days said (decision 0160) ----------

  /**
   * Row numbers of the turns that say a day in one of `ranges` (YYYYMMDD keys), newest rows first,
   * at most `limit`: what day-scoped recall admits beside the turns dated on those days.
   */
  saidOn(ranges: readonly DayKeyRange[], limit: number): number[] {
    const out = new Set<number>();
    const q = this.st('SELECT n FROM turn_days WHERE day BETWEEN ? AND ? ORDER BY n DESC LIMIT ?').pluck();
    for (const r of ranges) {
      if (out.size >= limit) break;
      for (const n of q.all(r.from, r.to, limit) as number[]) if (out.size < limit) out.add(n);
    }
    return [...out];
  }

  /** The years the stored days span (yearless query days are read in each), or undefined when none. */
  saidYears(): { min: number; max: number } | undefined {
    // Two scalar subqueries, each one seek at an end of the primary key: SQLite's min/max shortcut
    // applies only to a query with a single min() or max(), so `SELECT min(day), max(day)` scanned
    // every said day (≈ 116,000 rows at 1,000,000 archived turns, ≈ 3 ms per day-scoped query; decision 0200).
    const r = this.st('SELECT (SELECT min(day) FROM turn_days) AS a, (SELECT max(day) FROM turn_days) AS b').get() as { a: number | null; b: number | null };
    return r.a === null || r.b === null ? undefined : { min: Math.floor(r.a / 10_000), max: Math.floor(r.b / 10_000) };
  }

  /** The days said in one archived document (by id), sorted. */
  daysOf(id: string): number[] {
    return this.st('SELECT d.day FROM turn_days d JOIN turns t ON t.n = d.n WHERE t.id = ? ORDER BY d.day').pluck().all(id) as number[];
  }

  // ---------- lookups ----------

  /** One archived row by document id (full). */
  get(id: string): ArchivedRow | undefined {
    const r = this.st('SELECT * FROM turns WHERE id = ?').get(id) as Row | undefined;
    return r ? this.remember(toArchived(r, 'full')) : undefined;
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

  /** Rows whose id or turn id is one of `refs` (the sources a graph fact cites), oldest first. */
  byRefs(refs: readonly string[], limit = 20): ArchivedRow[] {
    const ns = new Set<number>();
    const byId = this.st('SELECT n FROM turns WHERE id = ?').pluck();
    const byTurn = this.st('SELECT n FROM turns WHERE turn_id = ? LIMIT 4').pluck();
    for (const ref of refs.slice(0, 50)) for (const n of [...(byId.all(ref) as number[]), ...(byTurn.all(ref) as number[])]) if (ns.size < limit) ns.add(n);
    return [...this.rows([...ns], 'full').values()].sort((a, b) => a.doc.createdAt - b.doc.createdAt);
  }

  /** Every row of one turn, whole (text, refs, vector). */
  rowsOfTurn(turnId: string): ArchivedRow[] {
    const rows = this.st('SELECT * FROM turns WHERE turn_id = ?').all(turnId) as Row[];
    return rows.map((r) => toArchived(r, 'full'));
  }

  /**
   * Rows holding every one of `tokens` (an intersection of their postings, rarest first), whole,
   * at most `limit`: what a forget by words finds in the archive beyond the recall's top hits.
   */
  rowsWithAll(tokens: readonly string[], limit = 500): ArchivedRow[] {
    const terms = [...new Set(tokens.filter(isIndexable))];
    if (!terms.length) return [];
    const df = this.df(terms);
    if (terms.some((t) => (df.get(t) ?? 0) === 0)) return [];
    terms.sort((a, b) => df.get(a)! - df.get(b)!);
    const termOf = this.st('SELECT id FROM terms WHERE term = ?').pluck();
    const rowsOf = this.st('SELECT n FROM postings WHERE term_id = ?').pluck();
    let acc: Set<number> | undefined;
    for (const t of terms) {
      const ns = new Set(rowsOf.all(termOf.get(t)) as number[]);
      acc = acc ? new Set([...acc].filter((n) => ns.has(n))) : ns;
      if (!acc.size) return [];
    }
    return [...this.rows([...acc!].slice(0, limit), 'full').values()];
  }

  /**
   * Runs deletes with SQLite's secure_delete on and the WAL truncated after, so forgotten text is
   * overwritten on disk, not only unlinked (forget, K-2).
   */
  scrubbed<T>(fn: () => T): T {
    return scrubbedSqlite(this.conn, fn);
  }

  /** After a forget: rebuilds the file (when not too large) and empties the WAL (decision 0400). */
  compact(): CompactOutcome {
    return compactSqlite(this.conn);
  }

  /** Archived documents, newest first, paged. */
  list(opts: { offset?: number; limit?: number } = {}): MemoryDocument[] {
    const rows = this.st('SELECT * FROM turns ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?').all(Math.max(0, opts.limit ?? 50), Math.max(0, opts.offset ?? 0)) as Row[];
    return rows.map((r) => toArchived(r, 'full').doc);
  }

  /**
   * Whole rows (text, refs, vector) in row order after row `afterN`, for reading an archive out in
   * pages (export and import, K-5).
   */
  page(afterN: number, limit: number): ArchivedRow[] {
    return (this.st('SELECT * FROM turns WHERE n > ? ORDER BY n LIMIT ?').all(afterN, Math.max(1, limit)) as Row[]).map((r) => toArchived(r, 'full'));
  }

  /**
   * Whole rows recorded without a turn (notes committed by a tool, imported documents), in row
   * order after row `afterN`: what an imported tombstone may name by the note's id or text (K-2).
   */
  pageWithoutTurn(afterN: number, limit: number): ArchivedRow[] {
    return (this.st('SELECT * FROM turns WHERE turn_id IS NULL AND n > ? ORDER BY n LIMIT ?').all(afterN, Math.max(1, limit)) as Row[]).map((r) => toArchived(r, 'full'));
  }

  /**
   * The newest user turns said by one of `speakerIds`, whole, at most `limit` (what memory holds
   * about a person, "said by them"). A user turn recorded without a speaker is the owner's
   * (`owner` true: the CLI and the WebUI record none). Reads the `turns_speaker` index newest row
   * first, so a person with a million turns costs `limit` rows.
   */
  saidBy(speakerIds: readonly string[], owner: boolean, limit = 100): ArchivedRow[] {
    const lim = Math.max(0, Math.min(limit, 1000));
    const ids = [...new Set(speakerIds.filter((x) => typeof x === 'string' && x))].slice(0, 50);
    const out: Row[] = [];
    const one = this.st("SELECT * FROM turns WHERE speaker_id = ? AND event_kind = 'user' ORDER BY n DESC LIMIT ?");
    for (const id of ids) out.push(...(one.all(id, lim) as Row[]));
    if (owner) out.push(...(this.st("SELECT * FROM turns WHERE speaker_id IS NULL AND event_kind = 'user' ORDER BY n DESC LIMIT ?").all(lim) as Row[]));
    return out
      .map((r) => toArchived(r, 'full'))
      .sort((a, b) => b.doc.createdAt - a.doc.createdAt)
      .slice(0, lim);
  }

  /** Whole rows of one session (its turns in the archive), e.g. before an import replaces that session. */
  bySession(sessionId: string): ArchivedRow[] {
    return (this.st('SELECT * FROM turns WHERE session_id = ? ORDER BY created_at, id').all(sessionId) as Row[]).map((r) => toArchived(r, 'full'));
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

function toArchived(r: Row, level: RowLevel): ArchivedRow {
  const doc: MemoryDocument =
    level === 'full'
      ? {
          id: r.id ?? '',
          content: r.content ?? '',
          input: r.input ?? r.content ?? '',
          response: r.response ?? '',
          kind: r.kind,
          source: r.source ?? '',
          channel: r.channel ?? '',
          sessionId: r.session_id,
          title: r.title ?? undefined,
          createdAt: r.created_at,
          addedAt: r.added_at ?? r.created_at,
          accessCount: r.access_count ?? 0,
          refs: parseJson<string[]>(r.refs ?? '[]', []),
          meta: r.meta ? parseJson<Record<string, unknown>>(r.meta, {}) : undefined,
          eventKind: r.event_kind || undefined,
        }
      : { id: r.id ?? `#${r.n}`, content: '', input: '', response: '', kind: r.kind, source: '', channel: '', sessionId: r.session_id, createdAt: r.created_at, addedAt: r.created_at, accessCount: 0, refs: [], eventKind: r.event_kind || undefined };
  const speaker = r.speaker ? parseJson<Record<string, unknown> | null>(r.speaker, null) : null;
  if (speaker && typeof speaker.id === 'string') doc.speaker = speaker as unknown as MemoryDocument['speaker'];
  // Rows read for ranking know only who said it (enough to rank by speaker).
  else if (r.speaker_id) doc.speaker = { id: r.speaker_id };
  const conversation = r.conversation ? parseJson<Record<string, unknown> | null>(r.conversation, null) : null;
  if (conversation && typeof conversation.id === 'string') doc.conversation = conversation as unknown as MemoryDocument['conversation'];
  // Rows read for ranking know only the place's id (enough to scope by conversation).
  else if (r.conversation_id) doc.conversation = { kind: 'private', id: r.conversation_id };
  const row: ArchivedRow = { n: r.n, doc, prev: r.prev_n, next: r.next_n, len: r.ntok, asks: r.asks === 1, level };
  if (r.tokens !== undefined) row.terms = counts(splitTokens(r.tokens));
  if (r.vec && r.vec_model) {
    const copy = new Uint8Array(r.vec);
    row.vec = { vector: new Float32Array(copy.buffer, 0, copy.byteLength / 4), modelId: r.vec_model };
  }
  return row;
}

/** A light row as read in raw mode, in `LIGHT`'s column order. */
type LightRow = [n: number, session_id: string, created_at: number, ntok: number, prev_n: number | null, next_n: number | null, event_kind: string, kind: string, conversation_id: string | null, speaker_id: string | null, asks: number];

/** A row as ranking reads it (`ColdArchive.rankRows`), in `RANKING`'s column order. */
export type RankRow = [n: number, session_id: string, created_at: number, ntok: number, prev_n: number | null, next_n: number | null, event_kind: string, speaker_id: string | null, asks: number];

/** What `toArchived(row, 'light')` gives for the same row, built straight from the array. */
function lightRow(r: LightRow): ArchivedRow {
  const n = r[0];
  const createdAt = r[2];
  const doc: MemoryDocument = { id: `#${n}`, content: '', input: '', response: '', kind: r[7], source: '', channel: '', sessionId: r[1], createdAt, addedAt: createdAt, accessCount: 0, refs: [], eventKind: r[6] || undefined };
  if (r[9]) doc.speaker = { id: r[9] };
  if (r[8]) doc.conversation = { kind: 'private', id: r[8] };
  return { n, doc, prev: r[4], next: r[5], len: r[3], asks: r[10] === 1, level: 'light' };
}

function counts(tokens: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

function splitTokens(s: string): string[] {
  return s ? s.split(' ') : [];
}

/** Our tokens are letter/number runs; anything else (never produced today) is not indexed. */
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
  return code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'));
}
