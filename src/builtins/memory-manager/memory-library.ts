import { lstat, readdir, readFile, realpath, stat, unlink, mkdir } from 'node:fs/promises';
import { join, basename, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { ConflictError, NotFoundError, ValidationError, writeFileAtomic } from '../../sdk/index.js';
import { isReservedTag } from '../../spec/index.js';
import { cleanStringList, cleanTags, sanitizeImpressions } from './impressions.js';
import { assertMemoryId, MEMORY_ID_RE, newMemoryId } from './memory-id.js';
import { assertSnapshotText, normalizeText, parseMemoryFile, serializeMemory, type MemoryRecord, type MemorySource } from './memory-file.js';
import { focusGraph, overviewGraph, relatedOf, type LinkIndex, type MemoryGraph } from './memory-graph.js';
import { LexicalScorer } from './lexical-scorer.js';
import { assertNoImmutable, composeInputSchema, metaPatchSchema, parseInput, saveInputSchema, type MemorySummary } from './library-inputs.js';
import { DENSE_ONLY_MIN, LibraryVectors, type LibraryEmbedder } from './library-vectors.js';

export { assertNoImmutable, composeInputSchema, metaPatchSchema, parseInput, saveInputSchema, type MemorySummary, type MetaPatch, type SaveInput } from './library-inputs.js';
export type { LibraryEmbedder } from './library-vectors.js';

export interface MemoryLibraryOptions {
  log?: (msg: string, data?: Record<string, unknown>) => void;
  /** Dense ranking for search, fused with the lexical scores; without it (or lexical only) search is lexical. */
  embedder?: LibraryEmbedder;
  /** Watch the folder for hand edits (default true). */
  watch?: boolean;
  /** Debounce of watcher events in ms (default 120). */
  debounceMs?: number;
  now?: () => Date;
  /**
   * Every change made through this API (K-3 history): `before`/`after` are the whole records
   * (undefined for a create / a delete). Not called for hand edits seen by the watcher. Must not throw.
   */
  onChange?: (op: 'create' | 'update' | 'delete', before: MemoryRecord | undefined, after: MemoryRecord | undefined) => void;
  /**
   * A memory file changed on disk by something else than this API (a hand edit, a sync tool) and
   * the index followed it: the memory's id, and the record before and after (undefined for a file
   * that appeared / went). Must not throw.
   */
  onFileChange?: (id: string, before?: MemoryRecord, after?: MemoryRecord) => void;
}

/**
 * The memory library (M-1…M-4): `memories/<id>.md` files under `root`, an in-memory MRU index
 * plus a backlink index and a lexical scorer, built by an async scan on `open()` and kept current
 * on every write and on hand edits (chokidar watcher).
 */
export class MemoryLibrary implements LinkIndex {
  readonly root: string;
  readonly dir: string;
  private readonly opts: MemoryLibraryOptions;
  /** MRU order: most recently used last (Map insertion order). */
  private records = new Map<string, MemoryRecord>();
  /** Dense ranking of search (vectors made in the background). */
  private readonly vectors: LibraryVectors;
  private backlinkIndex = new Map<string, Set<string>>();
  private scorer = new LexicalScorer();
  private scanning: Promise<void> | undefined;
  private watcher: FSWatcher | undefined;
  private watcherReady: Promise<void> = Promise.resolve();
  private timers = new Map<string, NodeJS.Timeout>();
  private written = new Map<string, string>();
  /** Our own writes of an id in flight: a read meanwhile may see the old text (not a hand edit). */
  private writing = new Map<string, number>();
  /**
   * Our own deletes of an id in flight: from the moment the memory leaves the index until its file
   * is gone, a watcher read would find the file and take it for a memory added by hand — with its
   * text, into the history a forget must leave without it.
   */
  private deleting = new Map<string, number>();
  /**
   * Bumped by every write and delete of our own, per id: a file read that was in flight meanwhile
   * (a watcher event's) is stale and must not index what it read — it could bring a deleted or
   * forgotten memory back, or an edit's old text. A later change on disk raises a new event.
   */
  private generations = new Map<string, number>();
  private writeChain: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(root: string, opts: MemoryLibraryOptions = {}) {
    this.root = root;
    this.dir = join(root, 'memories');
    this.opts = opts;
    this.vectors = new LibraryVectors({ embedder: opts.embedder, log: opts.log, records: () => this.records.values(), get: (id) => this.records.get(id) });
  }

  /** Starts the scan (not awaited) and the watcher. Idempotent. */
  open(): void {
    if (this.scanning) return;
    this.closed = false;
    this.scanning = this.scan();
    this.scanning.catch((e) => this.opts.log?.('library scan failed', { error: String(e) }));
  }

  /** Resolves when the first scan is done (opens the library lazily). */
  async ready(): Promise<void> {
    this.open();
    await this.scanning;
  }

  /** Resolves when the hand-edit watcher is watching (for tests). */
  async watching(): Promise<void> {
    await this.ready();
    await this.watcherReady;
  }

  /** Stops the watcher and pending writes. Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await this.scanning?.catch(() => undefined);
    const w = this.watcher;
    this.watcher = undefined;
    await w?.close().catch(() => undefined);
    await this.writeChain.catch(() => undefined);
  }

  private async scan(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const names = await readdir(this.dir);
    for (const name of names) {
      if (this.closed) return;
      await this.loadFile(join(this.dir, name));
    }
    if (this.opts.watch !== false && !this.closed) this.startWatcher();
  }

  private idOf(path: string): string | undefined {
    const name = basename(path);
    if (!name.endsWith('.md')) return undefined;
    const id = name.slice(0, -3);
    return MEMORY_ID_RE.test(id) ? id : undefined;
  }

  /** Reads one memory file into the index; true when the index changed (not our own write). */
  private async loadFile(path: string): Promise<boolean> {
    const id = this.idOf(path);
    if (!id) return false;
    const generation = this.generations.get(id);
    const stale = () => this.generations.get(id) !== generation;
    let text: string;
    let mtime: Date;
    let notText = false;
    try {
      const inside = await this.staysInside(path);
      if (stale()) return false;
      if (!inside) {
        // A link to /etc/… (or anywhere outside) would serve that file as a memory (SPEC §9).
        const had = this.records.has(id);
        this.forget(id);
        this.opts.log?.('memory file is a link that leaves the library; ignored', { id });
        return had;
      }
      let bytes: Buffer;
      [bytes, mtime] = await Promise.all([readFile(path), stat(path).then((s) => s.mtime)]);
      text = bytes.toString('utf8');
      notText = !isText(bytes);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || stale()) return false;
      const had = this.records.has(id);
      this.forget(id);
      return had;
    }
    // A read that ended while our own write of the file was in flight saw the old text or ours:
    // neither is a hand edit, and indexing the old one would undo the write in the index.
    if (stale() || this.writing.has(id) || this.deleting.has(id) || (this.written.get(id) === text && this.records.has(id))) return false;
    try {
      const rec = parseMemoryFile(id, text, mtime.toISOString());
      // Shown as best it can be, but never written over: what could not be read would be lost.
      this.index(notText ? { ...rec, frontMatterError: 'the file is not UTF-8 text (a binary or another encoding)' } : rec);
      return true;
    } catch (e) {
      this.opts.log?.('memory file unreadable', { id, error: String(e) });
      return false;
    }
  }

  /**
   * True when `path` is a regular file whose real location is inside the library (the library
   * folder itself may be a link, e.g. into an Obsidian vault; a memory file may not point out).
   */
  private async staysInside(path: string): Promise<boolean> {
    const st = await lstat(path);
    if (!st.isSymbolicLink()) return st.isFile();
    const [real, root] = await Promise.all([realpath(path), realpath(this.root)]);
    return real.startsWith(root + sep) && (await stat(real)).isFile();
  }

  private startWatcher(): void {
    const w = watch(this.dir, { ignoreInitial: true, depth: 0 });
    this.watcher = w;
    this.watcherReady = new Promise((resolve) => w.once('ready', () => resolve()));
    const onEvent = (path: string) => {
      if (!this.idOf(path)) return;
      clearTimeout(this.timers.get(path));
      this.timers.set(
        path,
        setTimeout(() => {
          this.timers.delete(path);
          if (this.closed) return;
          const id = this.idOf(path)!;
          const before = this.records.get(id);
          void this.loadFile(path).then((changed) => {
            if (!changed || this.closed) return;
            try {
              this.opts.onFileChange?.(id, before, this.records.get(id));
            } catch (e) {
              this.opts.log?.('reporting a hand edit failed', { error: (e as Error).message });
            }
          });
        }, this.opts.debounceMs ?? 120),
      );
    };
    w.on('add', onEvent).on('change', onEvent).on('unlink', onEvent);
    w.on('error', (e) => this.opts.log?.('library watcher error', { error: String(e) }));
  }

  private index(rec: MemoryRecord): void {
    this.unindexLinks(rec.id);
    this.records.delete(rec.id);
    this.records.set(rec.id, rec);
    for (const l of rec.links) {
      let s = this.backlinkIndex.get(l);
      if (!s) this.backlinkIndex.set(l, (s = new Set()));
      s.add(rec.id);
    }
    this.scorer.set(rec.id, { impressions: rec.impressions.join(' '), title: rec.title, body: `${rec.snapshot}\n${rec.notes}` });
  }

  private unindexLinks(id: string): void {
    const old = this.records.get(id);
    if (!old) return;
    for (const l of old.links) this.backlinkIndex.get(l)?.delete(id);
  }

  private bump(id: string): void {
    this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
  }

  private forget(id: string): void {
    this.bump(id);
    this.unindexLinks(id);
    this.records.delete(id);
    this.scorer.delete(id);
    this.written.delete(id);
    this.vectors.drop(id);
  }

  private async persist(rec: MemoryRecord): Promise<void> {
    const text = serializeMemory(rec);
    this.written.set(rec.id, text);
    this.bump(rec.id);
    this.writing.set(rec.id, (this.writing.get(rec.id) ?? 0) + 1);
    const job = this.writeChain.then(() => writeFileAtomic(join(this.dir, `${rec.id}.md`), text));
    this.writeChain = job.catch(() => undefined);
    try {
      await job;
    } finally {
      const n = (this.writing.get(rec.id) ?? 1) - 1;
      if (n > 0) this.writing.set(rec.id, n);
      else this.writing.delete(rec.id);
      // A read that started while the file was being replaced may have seen the old text.
      this.bump(rec.id);
    }
  }

  /**
   * Tags as the library already spells them: "PETS" on a new memory is "pets" when another memory
   * has "pets", so the library keeps one tag and its filter finds both.
   */
  private spelled(tags: string[], id: string): string[] {
    if (!tags.length) return tags;
    // A reserved tag keeps the spelling it was given: "convention" is the convention tag whatever
    // spelling of it another memory has, and another case of it never becomes it (0480).
    const wanted = new Set(tags.filter((t) => !isReservedTag(t)).map((t) => t.toLowerCase()));
    const spelling = new Map<string, string>();
    for (const r of this.records.values()) {
      if (r.id === id) continue;
      for (const t of r.tags) {
        const k = t.toLowerCase();
        if (wanted.has(k) && !spelling.has(k)) spelling.set(k, t);
      }
    }
    return tags.map((t) => (isReservedTag(t) ? t : (spelling.get(t.toLowerCase()) ?? t)));
  }

  private now(): string {
    return (this.opts.now?.() ?? new Date()).toISOString();
  }

  // ---- LinkIndex (synchronous, valid after ready()) ----

  /** The cached record (no MRU touch). */
  get(id: string): MemoryRecord | undefined {
    return this.records.get(id);
  }

  backlinks(id: string): string[] {
    return [...(this.backlinkIndex.get(id) ?? [])].filter((b) => this.records.has(b)).sort();
  }

  composedInto(id: string): string[] {
    return this.all()
      .filter((r) => r.composedOf.includes(id))
      .map((r) => r.id)
      .sort();
  }

  all(): MemoryRecord[] {
    return [...this.records.values()];
  }

  /**
   * The memories made from these log events (decision 0430): a session summary of them, a message
   * saved from them — each whose `source` names one of their seqs in its session.
   */
  madeFrom(sources: readonly { sessionId: string; seqs: readonly number[] }[]): MemoryRecord[] {
    const bySession = new Map(sources.map((s) => [s.sessionId, new Set(s.seqs)]));
    return this.all().filter((r) => {
      const seqs = r.source && bySession.get(r.source.sessionId);
      return !!seqs && r.source!.seqs.some((q) => seqs.has(q));
    });
  }

  /**
   * The memories composed of these (`composedOf`), and those composed of them, and so on — each
   * holds a copy of their text. The given ones themselves are not in the answer.
   */
  madeOf(ids: readonly string[]): MemoryRecord[] {
    const seen = new Set(ids);
    const out: MemoryRecord[] = [];
    for (let frontier = new Set(ids); frontier.size; ) {
      const next = new Set<string>();
      for (const r of this.all()) {
        if (seen.has(r.id) || !r.composedOf.some((c) => frontier.has(c))) continue;
        seen.add(r.id);
        out.push(r);
        next.add(r.id);
      }
      frontier = next;
    }
    return out;
  }

  /** A list entry for a record. */
  summary(rec: MemoryRecord): MemorySummary {
    const { snapshot: _s, notes: _n, ...meta } = rec;
    return { ...meta, preview: Array.from(rec.snapshot).slice(0, 120).join(''), backlinks: this.backlinks(rec.id) };
  }

  // ---- public async API ----

  /** Memories, newest `updatedAt` first; optional tag filter and paging. */
  async list(opts: { tag?: string; enabledOnly?: boolean; limit?: number; offset?: number; order?: 'updated' | 'mru' } = {}): Promise<{ total: number; items: MemorySummary[] }> {
    await this.ready();
    let recs = opts.order === 'mru' ? this.all().reverse() : this.all();
    if (opts.tag) recs = recs.filter((r) => hasTag(r, opts.tag as string));
    if (opts.enabledOnly) recs = recs.filter((r) => r.enabled);
    if (opts.order !== 'mru') recs.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
    const offset = Math.max(0, opts.offset ?? 0);
    const limit = Math.max(0, Math.min(opts.limit ?? 200, 5000));
    return { total: recs.length, items: recs.slice(offset, offset + limit).map((r) => this.summary(r)) };
  }

  /** The ids in MRU order, most recently used first. */
  async mru(limit = 50): Promise<string[]> {
    await this.ready();
    return [...this.records.keys()].reverse().slice(0, limit);
  }

  /** A whole memory with its backlinks; NotFoundError when missing. Marks it recently used. */
  async read(id: string): Promise<MemoryRecord & { backlinks: string[] }> {
    assertMemoryId(id);
    await this.ready();
    const rec = this.records.get(id);
    if (!rec) throw new NotFoundError('memory', id);
    this.records.delete(id);
    this.records.set(id, rec);
    return { ...rec, backlinks: this.backlinks(id) };
  }

  /**
   * Saves a new memory. With an existing `id` the snapshot must be identical (it is immutable:
   * ConflictError otherwise); meta and notes are then updated.
   */
  async save(input: unknown): Promise<MemoryRecord> {
    const inp = parseInput(saveInputSchema, input, 'memory.save');
    await this.ready();
    const snapshot = normalizeText(inp.snapshot);
    if (!snapshot) throw new ValidationError('memory.save: snapshot is empty', { path: 'snapshot' });
    assertSnapshotText(snapshot);
    const id = inp.id ?? newMemoryId();
    const existing = this.records.get(id);
    if (existing && existing.snapshot !== snapshot) throw new ConflictError(`memory ${id} exists and its snapshot is immutable`, { id, field: 'snapshot' });
    const now = this.now();
    const title = inp.title?.trim() || existing?.title || Array.from(snapshot.split('\n')[0].replace(/^#+\s*/, '')).slice(0, 60).join('') || id;
    const rec: MemoryRecord = {
      id,
      title,
      impressions: sanitizeImpressions(inp.impressions ?? existing?.impressions ?? []),
      tags: this.spelled(cleanTags(inp.tags ?? existing?.tags ?? []), id),
      enabled: inp.enabled ?? existing?.enabled ?? true,
      links: cleanStringList(inp.links ?? existing?.links ?? []).filter((l) => l !== id),
      composedOf: cleanStringList(inp.composedOf ?? existing?.composedOf ?? []).filter((l) => l !== id),
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
      snapshot,
      notes: normalizeText(inp.notes ?? existing?.notes ?? ''),
    };
    const source: MemorySource | undefined = inp.source ?? existing?.source;
    if (source) rec.source = { sessionId: source.sessionId, seqs: [...source.seqs] };
    const speaker = inp.speaker ?? existing?.speaker;
    // A display name is untrusted text: control characters become spaces.
    // eslint-disable-next-line no-control-regex
    if (speaker) rec.speaker = { id: speaker.id, ...(speaker.name?.trim() ? { name: speaker.name.trim().replace(/[\u0000-\u001f\u007f]/g, ' ') } : {}) };
    const conversation = inp.conversation ?? existing?.conversation;
    if (conversation) rec.conversation = conversation;
    if (existing?.extra) rec.extra = existing.extra;
    await this.persist(rec);
    this.index(rec);
    this.changed(existing ? 'update' : 'create', existing, rec);
    return rec;
  }

  private changed(op: 'create' | 'update' | 'delete', before: MemoryRecord | undefined, after: MemoryRecord | undefined): void {
    try {
      this.opts.onChange?.(op, before, after);
    } catch (e) {
      this.opts.log?.('recording a library change failed', { error: (e as Error).message });
    }
  }

  /** Saves several new memories: all are validated first, then written (no half-written batch). */
  async saveAll(inputs: unknown[]): Promise<MemoryRecord[]> {
    const parsed = inputs.map((i) => parseInput(saveInputSchema, i, 'memory.save'));
    for (const p of parsed) {
      assertSnapshotText(p.snapshot);
      if (p.id && this.records.has(p.id)) throw new ConflictError(`memory ${p.id} exists`, { id: p.id });
    }
    const out: MemoryRecord[] = [];
    for (const p of parsed) out.push(await this.save(p));
    return out;
  }

  private async mutate(id: string, fn: (rec: MemoryRecord) => MemoryRecord, opts: { unrecorded?: boolean; keepUpdatedAt?: boolean } = {}): Promise<MemoryRecord> {
    assertMemoryId(id);
    await this.ready();
    const rec = this.records.get(id);
    if (!rec) throw new NotFoundError('memory', id);
    // Written over, a file read only in part would lose what could not be read (a hand edit's fault).
    if (rec.frontMatterError) throw new ConflictError(`memory ${id} cannot be changed here until its file is fixed: ${rec.frontMatterError} (memories/${id}.md)`, { id });
    const next = { ...fn(rec), id, snapshot: rec.snapshot, createdAt: rec.createdAt, updatedAt: opts.keepUpdatedAt ? rec.updatedAt : this.now() };
    await this.persist(next);
    this.index(next);
    // Unrecorded, the open views are still told (as for a hand edit of the file).
    if (!opts.unrecorded) this.changed('update', rec, next);
    else this.opts.onFileChange?.(id);
    return next;
  }

  /**
   * A new title, recorded nowhere (K-2): the old one named a forgotten message, and a history entry
   * of the change would keep it (`before`). `updatedAt` stays, so an undo of an earlier change
   * still finds the memory as it left it.
   */
  async retitle(id: string, title: string): Promise<MemoryRecord> {
    return this.mutate(id, (r) => ({ ...r, title: title.trim() || r.title }), { unrecorded: true, keepUpdatedAt: true });
  }

  /** Replaces (or appends to) the editable notes. */
  async updateNotes(id: string, notes: unknown, mode: 'replace' | 'append' = 'replace'): Promise<MemoryRecord> {
    if (typeof notes !== 'string') throw new ValidationError('notes must be a string', { path: 'notes' });
    if (notes.length > 500_000) throw new ValidationError('notes are too long', { path: 'notes' });
    return this.mutate(id, (r) => ({ ...r, notes: normalizeText(mode === 'append' && r.notes ? `${r.notes}\n\n${notes}` : notes) }));
  }

  /** Updates editable meta; a patch touching the snapshot (or id/source/createdAt) is a ConflictError. */
  async updateMeta(id: string, patch: unknown): Promise<MemoryRecord> {
    assertNoImmutable(patch);
    const p = parseInput(metaPatchSchema, patch, 'memory.updateMeta');
    return this.mutate(id, (r) => ({
      ...r,
      title: p.title?.trim() || r.title,
      impressions: p.impressions ? sanitizeImpressions(p.impressions) : r.impressions,
      tags: p.tags ? this.spelled(cleanTags(p.tags), id) : r.tags,
      enabled: p.enabled ?? r.enabled,
      links: p.links ? cleanStringList(p.links).filter((l) => l !== id) : r.links,
      composedOf: p.composedOf ? cleanStringList(p.composedOf).filter((l) => l !== id) : r.composedOf,
    }));
  }

  /** Adds (or removes) a link `from → to`; both must exist. */
  async link(from: string, to: string, remove = false): Promise<MemoryRecord> {
    assertMemoryId(to, 'to');
    await this.ready();
    if (from === to) throw new ValidationError('a memory cannot link to itself', { path: 'to' });
    if (!this.records.has(to)) throw new NotFoundError('memory', to);
    return this.mutate(from, (r) => ({ ...r, links: remove ? r.links.filter((l) => l !== to) : [...new Set([...r.links, to])] }));
  }

  /** Deletes a memory file. */
  async delete(id: string, opts: { unrecorded?: boolean } = {}): Promise<{ id: string; deleted: boolean }> {
    assertMemoryId(id);
    await this.ready();
    const before = this.records.get(id);
    if (!before) throw new NotFoundError('memory', id);
    this.deleting.set(id, (this.deleting.get(id) ?? 0) + 1);
    this.forget(id);
    const job = this.writeChain.then(() => unlink(join(this.dir, `${id}.md`)).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    }));
    this.writeChain = job.catch(() => undefined);
    try {
      await job;
    } finally {
      // A watcher's read that began before the unlink may have indexed the file again meanwhile.
      this.forget(id);
      const n = (this.deleting.get(id) ?? 1) - 1;
      if (n > 0) this.deleting.set(id, n);
      else this.deleting.delete(id);
    }
    // A forget removes without a history entry: the history must not keep the text (K-2).
    if (!opts.unrecorded) this.changed('delete', before, undefined);
    return { id, deleted: true };
  }

  /** A new memory made of several (M-4 composedOf); the sources stay untouched. It starts off when one of them is off. */
  async compose(input: unknown): Promise<MemoryRecord> {
    const inp = parseInput(composeInputSchema, input, 'memory.compose');
    await this.ready();
    const ids = [...new Set(inp.ids)];
    const sources = ids.map((id) => {
      const r = this.records.get(id);
      if (!r) throw new NotFoundError('memory', id);
      return r;
    });
    const snapshot = sources.map((s) => `### ${s.title}（${s.id}）\n\n${s.snapshot}`).join('\n\n');
    return this.save({
      title: inp.title,
      snapshot,
      notes: inp.notes,
      impressions: inp.impressions ?? sources.flatMap((s) => s.impressions),
      tags: inp.tags ?? [],
      // A memory turned off is kept out of every prompt: made of one, the new memory starts off too
      // (the person turns it on when its text may be injected after all).
      enabled: sources.every((s) => s.enabled),
      composedOf: ids,
    });
  }

  /** Related recall (BFS over links + backlinks). */
  async related(id: string, depth = 2, limit = 20): Promise<(MemorySummary & { distance: number })[]> {
    assertMemoryId(id);
    await this.ready();
    if (!this.records.has(id)) throw new NotFoundError('memory', id);
    return relatedOf(this, id, depth, limit).map((r) => ({ ...this.summary(this.records.get(r.id) as MemoryRecord), distance: r.distance }));
  }

  /** The graph for the panel: overview of the latest N, or the 1–2 hop focus of one id. */
  async graph(opts: { focus?: string; hops?: 1 | 2; limit?: number } = {}): Promise<MemoryGraph> {
    await this.ready();
    if (opts.focus !== undefined) {
      assertMemoryId(opts.focus, 'focus');
      if (!this.records.has(opts.focus)) throw new NotFoundError('memory', opts.focus);
      return focusGraph(this, opts.focus, opts.hops ?? 1);
    }
    return overviewGraph(this, opts.limit ?? 200);
  }

  /**
   * Ranked search over impressions, title and body: BM25F, fused half and half with the cosine to
   * the query in the agent's embedding space when a dense model is loaded (the same relative-score
   * fusion as the memory tiers), so "kitten" finds the memory about the user's cat.
   */
  async search(query: string, limit = 20, opts: { tag?: string } = {}): Promise<(MemorySummary & { score: number })[]> {
    await this.ready();
    const lexHits = this.scorer.search(query, 5000);
    const dense = await this.vectors.scores(query);
    let ranked: { id: string; score: number }[] = lexHits;
    if (dense.size > 0) {
      const lex = new Map(lexHits.map((h) => [h.id, h.score]));
      let maxL = 0;
      for (const v of lex.values()) if (v > maxL) maxL = v;
      let maxD = 0;
      for (const v of dense.values()) if (v > maxD) maxD = v;
      const fused: { id: string; score: number }[] = [];
      for (const id of new Set([...lex.keys(), ...dense.keys()])) {
        const d = dense.get(id) ?? 0;
        // A memory with no query word in it must be close in meaning to be listed at all.
        if (!lex.has(id) && d < DENSE_ONLY_MIN) continue;
        fused.push({ id, score: 0.5 * (maxL > 0 ? (lex.get(id) ?? 0) / maxL : 0) + 0.5 * (maxD > 0 ? Math.max(0, d) / maxD : 0) });
      }
      ranked = fused.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
    }
    const out: (MemorySummary & { score: number })[] = [];
    for (const h of ranked) {
      const r = this.records.get(h.id);
      if (!r || (opts.tag && !hasTag(r, opts.tag))) continue;
      out.push({ ...this.summary(r), score: Math.round(h.score * 1000) / 1000 });
      if (out.length >= limit) break;
    }
    return out;
  }

}

/** The memory has `tag`, whatever its letter case. */
function hasTag(r: MemoryRecord, tag: string): boolean {
  const k = tag.toLowerCase();
  return r.tags.some((t) => t.toLowerCase() === k);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** True for UTF-8 text without NUL bytes (a memory file as the library writes it). */
function isText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
