import path from 'node:path';
import Database from 'better-sqlite3';
import type { ChangeActor, ChangeKind, HistoryQuery, MemoryChange, ControlStoreSalvage } from '../../spec/index.js';
import { HomeAgentError, salvageInWords } from '../../spec/index.js';
import { migrateControl } from './control-migrations.js';
import { emptyControlReport, salvageControlFile, writeControlSalvage } from './control-salvage.js';
import { emptyHeld, parseHeld, type HeldTurn } from './held-turn.js';
import { privateSqliteFile } from '../../fs/index.js';
import { compactSqlite, openSalvaging, scrubbedSqlite, secureDeleteOn, type CompactOutcome } from '../../fs/sqlite/index.js';

interface HistoryRow {
  id: number;
  at: number;
  actor: string;
  tool: string | null;
  turn_id: string | null;
  kind: string;
  target: string;
  op: string;
  summary: string;
  before: string | null;
  after: string | null;
  undone_at: number | null;
  undone_by: number | null;
  undo_of: number | null;
  redacted: number;
}

/** A change as written (the id comes from the table; undone and redacted are set later). */
export type HistoryInsert = Omit<MemoryChange, 'id' | 'undoneAt' | 'undoneBy' | 'redacted'>;

/** Tombstone kinds kept in memory (see `hotStones`). */
const HOT_KINDS = new Set(['turn', 'fact', 'document', 'deleted-fact']);

export interface ControlDBOptions {
  /** Data folder; the file is `<home>/memory-control.db`. */
  home: string;
  clock?: () => number;
  log?: { warn(msg: string, data?: Record<string, unknown>): void };
}

/**
 * `memory-control.db` (M-9, K-2, K-3): excluded turns with what is held aside for them, turns
 * replaced by a regenerate (decision 0550), tombstones of what was forgotten, and the history of changes. SQLite (WAL); every write one transaction.
 */
export class ControlDB {
  private db: Database.Database | undefined;
  private readonly stmts = new Map<string, Database.Statement>();
  /** The excluded turn ids (read at open; the gate every ingest path consults, synchronously). */
  private readonly excludedSet = new Set<string>();
  /** The replaced turns, pending replacements included (decision 0550): a gate as synchronous as the exclusions'. */
  private readonly replacedSet = new Set<string>();
  /**
   * Tombstones of turns and facts with their time, in memory: the gate asks for every event and
   * every distilled fact, so a lookup must not cost a query (text tombstones stay on disk).
   */
  private readonly hotStones = new Map<string, number>();
  private readonly clock: () => number;

  constructor(private readonly opts: ControlDBOptions) {
    this.clock = opts.clock ?? Date.now;
  }

  get path(): string {
    return path.join(this.opts.home, 'memory-control.db');
  }

  private asideAt: { file: string; at: number; salvaged: ControlStoreSalvage } | undefined;

  /**
   * The corrupt file this process set aside when it opened the store (`*.corrupt-<time>`), if
   * any, with what was read back of it into the new store (decision 0280).
   */
  get setAside(): { file: string; at: number; salvaged: ControlStoreSalvage } | undefined {
    return this.asideAt;
  }

  get isOpen(): boolean {
    return this.db !== undefined;
  }

  /**
   * Opens (creating and migrating) the file. A corrupt one is read for what can still be read
   * (decision 0280) into a new file beside it, then set aside, and the new file takes its place:
   * a kill at any step leaves either the corrupt file in place (the next start salvages it again)
   * or the complete new one ready (the next start moves it in) — see `openSalvaging`.
   */
  open(): void {
    if (this.db) return;
    const opened = openSalvaging({
      file: this.path,
      now: this.clock,
      connect: () => this.connect(),
      isCorrupt: (e) => ['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'CONTROL_CORRUPT'].includes((e as { code?: string }).code ?? ''),
      salvage: (file, staged) => {
        const s = salvageControlFile(file);
        writeControlSalvage(staged, s);
        return s.report;
      },
    });
    this.db = opened.db;
    const a = opened.aside;
    if (a) {
      const salvaged = a.salvage ?? emptyControlReport();
      this.asideAt = { file: a.file, at: a.at, salvaged };
      const why = a.salvageError ? ` (reading it back failed: ${a.salvageError.message})` : '';
      this.opts.log?.warn(`memory control: ${this.path} is corrupt (${a.error.message}); kept aside as ${a.file}; started a new one with what could be read back of it${why}: ${describeSalvage(salvaged)}`, { salvaged });
    }
    this.excludedSet.clear();
    for (const id of this.st('SELECT turn_id FROM exclusions').pluck().all() as string[]) this.excludedSet.add(id);
    this.replacedSet.clear();
    for (const id of this.st('SELECT turn_id FROM replacements').pluck().all() as string[]) this.replacedSet.add(id);
    this.hotStones.clear();
    for (const r of this.st(`SELECT hash, at FROM tombstones WHERE kind IN ('turn', 'fact', 'document', 'deleted-fact')`).all() as { hash: string; at: number }[]) this.hotStones.set(r.hash, r.at);
  }

  private connect(): Database.Database {
    privateSqliteFile(this.path);
    const db = new Database(this.path);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // What was said leaves no copy in a page when its row moves or goes (decision 0400).
      secureDeleteOn(db);
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 3000');
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new HomeAgentError('CONTROL_CORRUPT', `quick_check: ${String(check)}`);
      migrateControl(db);
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  }

  close(): void {
    this.stmts.clear();
    this.db?.close();
    this.db = undefined;
  }

  private get conn(): Database.Database {
    if (!this.db) throw new HomeAgentError('CONTROL_CLOSED', 'the memory control store is not open');
    return this.db;
  }

  private st(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.conn.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Runs deletes with secure_delete on and truncates the WAL after (forget, K-2). */
  scrubbed<T>(fn: () => T): T {
    const db = this.conn;
    return scrubbedSqlite(db, () => db.transaction(fn)());
  }

  /** After a forget: rebuilds the file (when not too large) and empties the WAL (decision 0400). */
  compact(): CompactOutcome {
    return compactSqlite(this.conn);
  }

  // ---------- exclusions ----------

  isExcluded(turnId: string): boolean {
    return this.excludedSet.has(turnId);
  }

  excluded(): string[] {
    return [...this.excludedSet];
  }

  /** Records an exclusion (nothing held yet); false when it was excluded already. */
  addExclusion(turnId: string, sessionId: string): boolean {
    if (this.excludedSet.has(turnId)) return false;
    this.st('INSERT OR IGNORE INTO exclusions(turn_id, session_id, at) VALUES (?, ?, ?)').run(turnId, sessionId, this.clock());
    this.excludedSet.add(turnId);
    return true;
  }

  /**
   * Lets a turn through the gate while it is being restored (its row, with what is held, stays
   * until `removeExclusion`).
   */
  liftGate(turnId: string): void {
    this.excludedSet.delete(turnId);
  }

  /** Closes the gate again after a restore that failed (the row still holds the turn). */
  closeGate(turnId: string): void {
    if (this.st('SELECT 1 FROM exclusions WHERE turn_id = ?').get(turnId) !== undefined) this.excludedSet.add(turnId);
  }

  /** What is held aside for an excluded turn. */
  held(turnId: string): HeldTurn {
    const raw = this.st('SELECT held FROM exclusions WHERE turn_id = ?').pluck().get(turnId) as string | undefined;
    return raw ? parseHeld(raw) : emptyHeld();
  }

  setHeld(turnId: string, held: HeldTurn): void {
    this.st('UPDATE exclusions SET held = ? WHERE turn_id = ?').run(JSON.stringify(held), turnId);
  }

  /** Every excluded turn with its held payload (forget's scan of what is held). */
  allHeld(): { turnId: string; sessionId: string; at: number; held: HeldTurn }[] {
    return (this.st('SELECT turn_id, session_id, at, held FROM exclusions').all() as { turn_id: string; session_id: string; at: number; held: string }[]).map((r) => ({ turnId: r.turn_id, sessionId: r.session_id, at: r.at, held: parseHeld(r.held) }));
  }

  /** Ends an exclusion (restore, forget): the held payload goes with it, and the ids of its items unless the turn is replaced too. */
  removeExclusion(turnId: string): boolean {
    const n = this.conn.transaction(() => {
      const gone = this.st('DELETE FROM exclusions WHERE turn_id = ?').run(turnId).changes;
      if (!this.replacedSet.has(turnId)) this.st('DELETE FROM turn_refs WHERE turn_id = ?').run(turnId);
      return gone;
    })();
    this.excludedSet.delete(turnId);
    return n > 0;
  }

  /** Excluded turns not swept with every tier up since they were excluded, or since something could bring them back (decision 0700). */
  unsweptExclusions(): string[] {
    return this.st('SELECT turn_id FROM exclusions WHERE swept_at IS NULL ORDER BY at, turn_id').pluck().all() as string[];
  }

  /** True when an excluded turn was swept with every tier up and nothing has written it back since. */
  isExclusionSwept(turnId: string): boolean {
    return this.st('SELECT 1 FROM exclusions WHERE turn_id = ? AND swept_at IS NOT NULL').get(turnId) !== undefined;
  }

  /** An excluded turn swept with every tier up (decision 0700): not swept again at the next open. */
  markExclusionSwept(turnId: string): void {
    this.st('UPDATE exclusions SET swept_at = ? WHERE turn_id = ?').run(this.clock(), turnId);
  }

  /** Something may write an excluded turn's items back past the gate (a restore, a put-back, an undo): swept again at the next open. */
  unsweepExclusion(turnId: string): void {
    this.st('UPDATE exclusions SET swept_at = NULL WHERE turn_id = ? AND swept_at IS NOT NULL').run(turnId);
  }

  // ---------- the ids of a swept turn's items (decision 0700) ----------

  /** Ties the ids of what a tier held of `turnId` (window events, documents, archived rows) to it; written before they are taken out. */
  addTurnRefs(turnId: string, refs: readonly string[]): void {
    const ins = this.st('INSERT OR IGNORE INTO turn_refs(ref, turn_id) VALUES (?, ?)');
    this.conn.transaction(() => {
      for (const r of refs) if (r !== turnId) ins.run(r, turnId);
    })();
  }

  /** The ids tied to `turnId` by its sweeps (not the turn id itself). */
  turnRefs(turnId: string): string[] {
    return this.st('SELECT ref FROM turn_refs WHERE turn_id = ? ORDER BY ref').pluck().all(turnId) as string[];
  }

  /** A forget: the ids tied to these turns go (run it `scrubbed`). */
  dropTurnRefs(turnIds: readonly string[]): void {
    const del = this.st('DELETE FROM turn_refs WHERE turn_id = ?');
    for (const id of turnIds) del.run(id);
  }

  /** The turn whose swept item `ref` names, if a sweep tied it to one. */
  turnOfRef(ref: string): string | undefined {
    return this.st('SELECT turn_id FROM turn_refs WHERE ref = ?').pluck().get(ref) as string | undefined;
  }

  // ---------- replaced turns (decision 0550) ----------

  /** True when a regenerate or an edit-and-resend replaced the turn, or is replacing it now (the gate). */
  isReplaced(turnId: string): boolean {
    return this.replacedSet.has(turnId);
  }

  /** The replacement of a turn: its session, the turn that replaces it (absent while pending) and what is held. */
  replacement(turnId: string): { sessionId: string; byTurn?: string; held: HeldTurn } | undefined {
    const r = this.st('SELECT session_id, by_turn, held FROM replacements WHERE turn_id = ?').get(turnId) as { session_id: string; by_turn: string | null; held: string } | undefined;
    return r ? { sessionId: r.session_id, ...(r.by_turn ? { byTurn: r.by_turn } : {}), held: parseHeld(r.held) } : undefined;
  }

  /** Every replacement not done yet (decision 0600): pending ones (no `byTurn`) first, then those committed but not swept for good. */
  unfinishedReplacements(): { turnId: string; sessionId: string; byTurn?: string }[] {
    const rows = this.st('SELECT turn_id, session_id, by_turn FROM replacements WHERE done_at IS NULL ORDER BY by_turn IS NOT NULL, at, turn_id').all() as { turn_id: string; session_id: string; by_turn: string | null }[];
    return rows.map((r) => ({ turnId: r.turn_id, sessionId: r.session_id, ...(r.by_turn ? { byTurn: r.by_turn } : {}) }));
  }

  /** Every committed replacement (the new turn is known), done or not: what an export carries (decision 0620). */
  committedReplacements(): { turnId: string; byTurn: string }[] {
    const rows = this.st('SELECT turn_id, by_turn FROM replacements WHERE by_turn IS NOT NULL ORDER BY at, turn_id').all() as { turn_id: string; by_turn: string }[];
    return rows.map((r) => ({ turnId: r.turn_id, byTurn: r.by_turn }));
  }

  /** True when a replacement's steps are all done: nothing of the old turn is in a tier, and the gate keeps it so. */
  isReplacementDone(turnId: string): boolean {
    return this.st('SELECT 1 FROM replacements WHERE turn_id = ? AND done_at IS NOT NULL').get(turnId) !== undefined;
  }

  /** A committed replacement swept with every tier up (decision 0600): not swept again at the next open. */
  markReplacementDone(turnId: string): void {
    this.st('UPDATE replacements SET done_at = ? WHERE turn_id = ? AND by_turn IS NOT NULL').run(this.clock(), turnId);
  }

  /** A done replacement whose old turn something wrote back past the gate (an undo): swept again at the next open. */
  unfinishReplacement(turnId: string): void {
    this.st('UPDATE replacements SET done_at = NULL WHERE turn_id = ?').run(turnId);
  }

  /**
   * The tiers were swapped (an import): what they hold now was never swept, so every replacement and
   * every exclusion is unfinished again and the next sweep — at the reopen, or the next start after a kill — takes each.
   */
  unfinishAll(): void {
    this.conn.transaction(() => {
      this.st('UPDATE replacements SET done_at = NULL WHERE done_at IS NOT NULL').run();
      // Decision 0700: an excluded turn the swapped tiers hold again is swept aside at their reopen.
      this.st('UPDATE exclusions SET swept_at = NULL WHERE swept_at IS NOT NULL').run();
    })();
  }

  /** Records a pending replacement (nothing held yet); the gate closes on the turn at once. */
  beginReplacement(turnId: string, sessionId: string): void {
    this.st('INSERT OR IGNORE INTO replacements(turn_id, session_id, at) VALUES (?, ?, ?)').run(turnId, sessionId, this.clock());
    this.replacedSet.add(turnId);
  }

  /** What is held of a turn while its replacement is pending (put back if the new turn never comes). */
  setReplacementHeld(turnId: string, held: HeldTurn): boolean {
    return this.st('UPDATE replacements SET held = ? WHERE turn_id = ? AND by_turn IS NULL').run(JSON.stringify(held), turnId).changes > 0;
  }

  /**
   * The new turn is in the session log: the replacement is done. What was held goes, and so does
   * what an exclusion of the turn held (it would come back on a restore), in one transaction.
   */
  commitReplacement(turnId: string, sessionId: string, byTurn: string): void {
    this.conn.transaction(() => {
      this.st(`INSERT INTO replacements(turn_id, session_id, by_turn, at) VALUES (?, ?, ?, ?) ON CONFLICT(turn_id) DO UPDATE SET by_turn = excluded.by_turn, held = '{}', done_at = NULL`).run(turnId, sessionId, byTurn, this.clock());
      this.st(`UPDATE exclusions SET held = '{}' WHERE turn_id = ?`).run(turnId);
    })();
    this.replacedSet.add(turnId);
  }

  /** Lets a replaced turn through the gate while what was held is put back (its row stays until `dropReplacement`). */
  liftReplacedGate(turnId: string): void {
    this.replacedSet.delete(turnId);
  }

  /** Closes the gate again after a put-back that failed (the row still holds the turn). */
  closeReplacedGate(turnId: string): void {
    if (this.st('SELECT 1 FROM replacements WHERE turn_id = ?').get(turnId) !== undefined) this.replacedSet.add(turnId);
  }

  /** A pending replacement that did not happen (the send failed, or the new turn is not in the log): the row goes, the gate opens. */
  dropReplacement(turnId: string): void {
    this.st('DELETE FROM replacements WHERE turn_id = ? AND by_turn IS NULL').run(turnId);
    if (this.st('SELECT 1 FROM replacements WHERE turn_id = ?').get(turnId) === undefined) {
      this.replacedSet.delete(turnId);
      if (!this.excludedSet.has(turnId)) this.st('DELETE FROM turn_refs WHERE turn_id = ?').run(turnId);
    }
  }

  // ---------- tombstones ----------

  /** Adds tombstones (now, or at the time an import says they were made), and the files a forget takes; returns how many tombstones were new. */
  addTombstones(items: { hash: string; kind: string; at?: number }[], files: readonly string[] = [], pending?: { key: string; body: string }): number {
    const ins = this.st('INSERT OR IGNORE INTO tombstones(hash, kind, at) VALUES (?, ?, ?)');
    const file = this.st('INSERT OR IGNORE INTO forget_files(path, at) VALUES (?, ?)');
    const now = this.clock();
    let n = 0;
    // The files a forget takes, and the forget itself until it is done, are recorded with its
    // tombstones, at once (decisions 0370, 0410): once the forget is committed it is finished, by
    // itself or — after a kill — at the next open.
    this.conn.transaction(() => {
      for (const t of items) n += ins.run(t.hash, t.kind, t.at ?? now).changes;
      for (const f of files) file.run(f, now);
      if (pending) this.st('INSERT INTO forget_pending(key, body, at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET body = excluded.body').run(pending.key, pending.body, now);
    })();
    for (const t of items) if (HOT_KINDS.has(t.kind) && !this.hotStones.has(t.hash)) this.hotStones.set(t.hash, t.at ?? now);
    return n;
  }

  /**
   * Marks a fact the person deleted (decision 0490), at `at`: deleted again later, the mark moves
   * to the later time (what was said between the two deletions is covered too).
   */
  markDeletedFact(hash: string, at: number): void {
    this.st('INSERT INTO tombstones(hash, kind, at) VALUES (?, ?, ?) ON CONFLICT(hash) DO UPDATE SET at = max(at, excluded.at)').run(hash, 'deleted-fact', at);
    this.hotStones.set(hash, Math.max(at, this.hotStones.get(hash) ?? 0));
  }

  /** Takes back the mark of a deleted fact (its delete was undone: the person wants it back). */
  clearDeletedFact(hash: string): void {
    this.st(`DELETE FROM tombstones WHERE hash = ? AND kind = 'deleted-fact'`).run(hash);
    this.hotStones.delete(hash);
  }

  /** Forgets committed and not finished (decision 0410), oldest first; each read counts as a try. */
  pendingForgets(): { key: string; body: string; tries: number }[] {
    const rows = this.st('SELECT key, body, tries FROM forget_pending ORDER BY at, key').all() as { key: string; body: string; tries: number }[];
    const bump = this.st('UPDATE forget_pending SET tries = tries + 1 WHERE key = ?');
    this.conn.transaction(() => rows.forEach((r) => bump.run(r.key)))();
    return rows;
  }

  /** A forget is finished: its record (which holds the texts it removed) goes, with secure delete. */
  dropPendingForget(key: string): void {
    const del = this.st('DELETE FROM forget_pending WHERE key = ?');
    this.scrubbed(() => del.run(key));
  }

  /**
   * A forget is finished: its history entries are written and its record dropped in one
   * transaction, so a kill between the two cannot record it twice at the next open.
   */
  finishForget(key: string, changes: readonly HistoryInsert[]): MemoryChange[] {
    const del = this.st('DELETE FROM forget_pending WHERE key = ?');
    return this.scrubbed(() => {
      const out = changes.length ? this.insertChanges(changes) : [];
      del.run(key);
      return out;
    });
  }

  /**
   * What a forget finished at open owes the participants that had not registered (decision
   * 0420); written before its record is dropped, so a kill between the two writes it again.
   */
  addOwed(key: string, participants: readonly string[], body: string): void {
    if (!participants.length) return;
    const ins = this.st('INSERT INTO forget_owed(key, participant, body, at) VALUES (?, ?, ?, ?) ON CONFLICT(participant, key) DO UPDATE SET body = excluded.body');
    const now = this.clock();
    this.conn.transaction(() => participants.forEach((p) => ins.run(key, p, body, now)))();
  }

  /** What is owed to one participant, oldest first; each read counts as a try. */
  owedTo(participant: string): { key: string; body: string; tries: number }[] {
    const rows = this.st('SELECT key, body, tries FROM forget_owed WHERE participant = ? ORDER BY at, key').all(participant) as { key: string; body: string; tries: number }[];
    const bump = this.st('UPDATE forget_owed SET tries = tries + 1 WHERE participant = ? AND key = ?');
    this.conn.transaction(() => rows.forEach((r) => bump.run(participant, r.key)))();
    return rows;
  }

  /** Whether anything is owed to `participant` (a cheap check at every registration). */
  owes(participant: string): boolean {
    return this.st('SELECT 1 FROM forget_owed WHERE participant = ? LIMIT 1').pluck().get(participant) !== undefined;
  }

  /**
   * At start: counts one more start for every debt, and drops (with secure delete) those whose
   * participant has not taken them in the `maxStarts` starts before this one — a plugin switched off or removed; they
   * hold the forgotten texts. Returns the participants given up on.
   */
  ageOwed(maxStarts: number): string[] {
    this.st('UPDATE forget_owed SET starts = starts + 1').run();
    const gone = this.st('SELECT DISTINCT participant FROM forget_owed WHERE starts >= ?').pluck().all(maxStarts) as string[];
    if (gone.length) this.scrubbed(() => this.st('DELETE FROM forget_owed WHERE starts >= ?').run(maxStarts));
    return gone;
  }

  /** A debt paid (or given up): dropped with secure delete (it holds the texts). */
  dropOwed(participant: string, key: string): void {
    const del = this.st('DELETE FROM forget_owed WHERE participant = ? AND key = ?');
    this.scrubbed(() => del.run(participant, key));
  }

  /** Files a committed forget has still to delete (paths from the data folder, decision 0370). */
  forgetFiles(): string[] {
    return this.st('SELECT path FROM forget_files ORDER BY path').pluck().all() as string[];
  }

  /** Drops files from the list once deleted (with secure delete: the rows name them). */
  dropForgetFiles(paths: readonly string[]): void {
    if (!paths.length) return;
    const del = this.st('DELETE FROM forget_files WHERE path = ?');
    this.scrubbed(() => paths.forEach((p) => del.run(p)));
  }

  /** Every tombstone (hashes only), oldest first: what an export carries. */
  listTombstones(): { hash: string; kind: string; at: number }[] {
    return this.st('SELECT hash, kind, at FROM tombstones ORDER BY at, hash').all() as { hash: string; kind: string; at: number }[];
  }

  /** When a turn or fact hash was tombstoned, or undefined (from memory). */
  hotTombstone(hash: string): number | undefined {
    return this.hotStones.get(hash);
  }

  /**
   * The hashes of tombstones of these kinds, read at once: a scan that asks about every text of
   * every tier (applying tombstones) asks a set, not the file, each time.
   */
  tombstoneSet(kinds: readonly string[]): Set<string> {
    if (!kinds.length) return new Set();
    return new Set(this.conn.prepare(`SELECT hash FROM tombstones WHERE kind IN (${kinds.map(() => '?').join(',')})`).pluck().all(...kinds) as string[]);
  }

  /** When a hash was tombstoned, or undefined. */
  tombstone(hash: string): number | undefined {
    return this.st('SELECT at FROM tombstones WHERE hash = ?').pluck().get(hash) as number | undefined;
  }

  tombstoneCount(): number {
    return this.st('SELECT count(*) FROM tombstones').pluck().get() as number;
  }

  // ---------- history ----------

  insertChanges(changes: readonly HistoryInsert[]): MemoryChange[] {
    const ins = this.st('INSERT INTO history(at, actor, tool, turn_id, kind, target, op, summary, before, after, undo_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const sub = this.st('INSERT OR IGNORE INTO history_subjects(change_id, subject) VALUES (?, ?)');
    const ids: number[] = [];
    this.conn.transaction(() => {
      for (const c of changes) {
        const id = Number(
          ins.run(c.at, c.actor, c.tool ?? null, c.turnId ?? null, c.kind, c.target, c.op, c.summary, c.before === undefined ? null : JSON.stringify(c.before), c.after === undefined ? null : JSON.stringify(c.after), c.undoOf !== undefined ? Number(c.undoOf) : null).lastInsertRowid,
        );
        for (const s of new Set(c.subjects.map((x) => x.trim()).filter((x) => x && x.length <= 200))) sub.run(id, s);
        ids.push(id);
      }
    })();
    return ids.map((id) => this.change(String(id))!);
  }

  change(id: string): MemoryChange | undefined {
    if (!/^\d{1,15}$/.test(id)) return undefined;
    const r = this.st('SELECT * FROM history WHERE id = ?').get(Number(id)) as HistoryRow | undefined;
    return r ? this.toChange(r) : undefined;
  }

  private toChange(r: HistoryRow): MemoryChange {
    const c: MemoryChange = {
      id: String(r.id),
      at: r.at,
      actor: r.actor as ChangeActor,
      kind: r.kind as ChangeKind,
      target: r.target,
      subjects: this.st('SELECT subject FROM history_subjects WHERE change_id = ? ORDER BY subject').pluck().all(r.id) as string[],
      op: r.op,
      summary: r.summary,
    };
    if (r.tool) c.tool = r.tool;
    if (r.turn_id) c.turnId = r.turn_id;
    if (r.before !== null) c.before = JSON.parse(r.before) as unknown;
    if (r.after !== null) c.after = JSON.parse(r.after) as unknown;
    if (r.undone_at !== null) c.undoneAt = r.undone_at;
    if (r.undone_by !== null) c.undoneBy = String(r.undone_by);
    if (r.undo_of !== null) c.undoOf = String(r.undo_of);
    if (r.redacted) c.redacted = true;
    return c;
  }

  /** Changes, newest first: of a subject (a name, or a word of the summary), a target, a kind. */
  history(q: HistoryQuery = {}): MemoryChange[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.target) {
      where.push('h.target = ?');
      args.push(q.target);
    }
    if (q.kind) {
      where.push('h.kind = ?');
      args.push(q.kind);
    }
    if (q.subject?.trim()) {
      const s = q.subject.trim();
      where.push("(h.id IN (SELECT change_id FROM history_subjects WHERE subject = ?) OR h.target = ? OR instr(lower(h.summary), lower(?)) > 0)");
      args.push(s, s, s);
    }
    if (q.before !== undefined) {
      where.push('h.id < ?');
      args.push(q.before);
    }
    const limit = Math.min(Math.max(1, Math.floor(q.limit ?? 100)), 1000);
    const rows = this.conn.prepare(`SELECT h.* FROM history h ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY h.id DESC LIMIT ?`).all(...args, limit) as HistoryRow[];
    return rows.map((r) => this.toChange(r));
  }

  /** Links an undo to the change it undid. */
  linkUndo(id: string, by: string): void {
    this.conn.transaction(() => {
      this.st('UPDATE history SET undone_at = ?, undone_by = ? WHERE id = ?').run(this.clock(), Number(by), Number(id));
      this.st('UPDATE history SET undo_of = ? WHERE id = ?').run(Number(id), Number(by));
    })();
  }

  /**
   * Forget (K-2): entries of one of `turnIds`, about one of `targets`, naming one of `subjects`, or
   * whose summary or rows before / after hold one of `needles` lose their text — before, after,
   * subjects and summary — and stay as a trace that cannot be undone. Matched inside SQLite
   * (`instr`, in batches), so a long history is not read into JS. Returns how many. Run inside
   * `scrubbed`.
   */
  redactHistory(m: { turnIds: readonly string[]; targets: readonly string[]; subjects: readonly string[]; needles: readonly string[] }): number {
    const ids = new Set<number>();
    const run = (where: string, args: unknown[]) => {
      for (const id of this.conn.prepare(`SELECT id FROM history WHERE redacted = 0 AND (${where})`).pluck().all(...args) as number[]) ids.add(id);
    };
    const inList = (col: string, xs: readonly string[]) => {
      for (let i = 0; i < xs.length; i += 500) {
        const chunk = xs.slice(i, i + 500);
        run(`${col} IN (${chunk.map(() => '?').join(',')})`, chunk);
      }
    };
    inList('turn_id', m.turnIds);
    inList('target', m.targets);
    for (let i = 0; i < m.subjects.length; i += 500) {
      const chunk = m.subjects.slice(i, i + 500);
      run(`id IN (SELECT change_id FROM history_subjects WHERE subject IN (${chunk.map(() => '?').join(',')}))`, chunk);
    }
    for (let i = 0; i < m.needles.length; i += 100) {
      const chunk = m.needles.slice(i, i + 100);
      run(chunk.map(() => 'instr(summary, ?) > 0 OR instr(before, ?) > 0 OR instr(after, ?) > 0').join(' OR '), chunk.flatMap((n) => [n, n, n]));
    }
    const upd = this.st("UPDATE history SET before = NULL, after = NULL, summary = '(forgotten)', redacted = 1, target = CASE WHEN target LIKE 'entity:%' THEN 'entity:(forgotten)' ELSE target END WHERE id = ?");
    const del = this.st('DELETE FROM history_subjects WHERE change_id = ?');
    for (const id of ids) {
      upd.run(id);
      del.run(id);
    }
    return ids.size;
  }

}

/** What a salvage read back, in words for the log and errors. */
export function describeSalvage(r: ControlStoreSalvage): string {
  const tail = r.tombstonesLostAtMost === 0 ? '' : '; until what you forgot is forgotten again, an import is refused unless told to go ahead';
  return `${salvageInWords(r)}${tail}`;
}
