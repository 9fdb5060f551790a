import fs from 'node:fs/promises';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { InjectedSource, KnowledgeAPI, KnowledgeEntry, PluginLogger, PromptQuery, PromptSlotFill } from '../spec/index.js';
import { ConflictError, MAX_KNOWLEDGE_BYTES, NotFoundError, PayloadTooLargeError, ValidationError } from '../spec/index.js';
import { writeFileAtomic } from '../fs/index.js';
import { Bm25Index, tokenize, type TextIndex } from './bm25-index.js';

/** Letters/digits first, then letters, digits, space, `_`, `-`, `.`; at most 64 characters. */
export const KNOWLEDGE_NAME_RE = /^[\p{L}\p{N}][\p{L}\p{N} _.-]{0,63}$/u;
/** Largest content of one entry (bytes of UTF-8). */
export { MAX_KNOWLEDGE_BYTES };
const CONTENT_FILE = 'content.md';

/** Validates an entry name: no path separators, no `..`, no leading dot, no trailing dot/space. */
export function assertKnowledgeName(name: unknown): string {
  if (typeof name !== 'string') throw new ValidationError('knowledge name must be a string', { key: 'name' });
  const n = name.normalize('NFC');
  if (!KNOWLEDGE_NAME_RE.test(n) || n.includes('..') || /[. ]$/.test(n)) {
    throw new ValidationError(`invalid knowledge name ${JSON.stringify(name.slice(0, 80))}: use 1–64 letters, digits, spaces, "_", "-", "." (no path separators or "..")`, { key: 'name' });
  }
  return n;
}

interface Entry {
  name: string;
  content: string;
  updatedAt: number;
  size: number;
}

export interface KnowledgeBaseOptions {
  /** `<home>/knowledge`. */
  dir: string;
  log?: PluginLogger;
  /** Index to use (default: an in-memory BM25). A HybridIndex fits the same shape. */
  index?: TextIndex;
  /** Characters of the `knowledge` prompt slot (default 800). */
  slotChars?: number;
  /** Watch the folder for edits made by hand (default true). */
  watch?: boolean;
  /** Debounce of the watcher's events per entry, in ms (default 120). */
  watchDebounceMs?: number;
  /** Told after a hand edit changed the index (for `memory_changed`; not the history). Must not throw. */
  onHandEdit?: (name: string) => void;
}

/** One change of an entry, for the memory history (K-3): its content before and after (absent = no entry). */
export interface KnowledgeChange {
  op: 'create' | 'update' | 'delete';
  name: string;
  before?: string;
  after?: string;
}

/** How a write is told to the change listener: `quiet` for forget's own rewrites and for undo (they record themselves). */
export interface KnowledgeWriteOptions {
  quiet?: boolean;
}

/**
 * The knowledge base (T-10): `knowledge/<name>/content.md` files with their own index, separate
 * from the memory tiers. Writes are atomic; names are validated so nothing escapes the folder.
 */
export class KnowledgeBase implements KnowledgeAPI {
  private entries = new Map<string, Entry>();
  /** Names being created (lower case): a second create of the same name meanwhile is refused. */
  private creating = new Set<string>();
  private index: TextIndex;
  private opened = false;
  private changeListener?: (c: KnowledgeChange) => void;
  private watcher: FSWatcher | undefined;
  private watcherReady: Promise<void> = Promise.resolve();
  private timers = new Map<string, NodeJS.Timeout>();
  /**
   * Bumped when every write and delete of our own starts and ends, per name: a hand edit's read that
   * overlapped one is stale and must not index what it read (it could bring back a deleted or
   * forgotten entry, or an edit's old text). A later change on disk raises a new event.
   */
  private generations = new Map<string, number>();
  /** Writes and deletes of ours in flight, per name: a hand-edit read that ends during one is stale too. */
  private writing = new Map<string, number>();

  constructor(private readonly opts: KnowledgeBaseOptions) {
    this.index = opts.index ?? new Bm25Index();
  }

  get dir(): string {
    return this.opts.dir;
  }

  /**
   * Tells `fn` every change made through this object (by the agent's tools, the WebUI, `waiter`,
   * MCP): the memory history records them. Edits made by hand in the folder are indexed by the
   * watcher but not told here.
   */
  onChange(fn: ((c: KnowledgeChange) => void) | undefined): void {
    this.changeListener = fn;
  }

  private changed(c: KnowledgeChange, o: KnowledgeWriteOptions): void {
    if (o.quiet || !this.changeListener) return;
    try {
      this.changeListener(c);
    } catch (e) {
      this.opts.log?.warn(`knowledge: recording the change of "${c.name}" failed: ${(e as Error).message}`);
    }
  }

  /** Creates the folder, indexes every `<name>/content.md` in it and watches it for hand edits. */
  async open(): Promise<void> {
    await fs.mkdir(this.opts.dir, { recursive: true });
    await this.reload();
    this.opened = true;
    if (this.opts.watch !== false && !this.watcher) this.startWatcher();
  }

  /** Resolves when the hand-edit watcher is watching (for tests). */
  async watching(): Promise<void> {
    await this.watcherReady;
  }

  /**
   * Edits made by hand in the folder (an editor, a sync tool) reach the index without a restart:
   * `<name>/content.md` created, changed or deleted, or the entry's folder removed. They are not
   * recorded in the memory history (nothing here knows who made them), as for the library's files.
   */
  private startWatcher(): void {
    const w = watch(this.opts.dir, { ignoreInitial: true, depth: 1 });
    this.watcher = w;
    this.watcherReady = new Promise((resolve) => w.once('ready', () => resolve()));
    w.on('error', (e) => this.opts.log?.warn(`knowledge: watching the folder failed: ${(e as Error).message}`));
    const onEvent = (p: string) => {
      const rel = path.relative(this.opts.dir, p).split(path.sep);
      if (rel.length > 2 || rel[0] === '' || rel[0].startsWith('..') || (rel.length === 2 && rel[1] !== CONTENT_FILE)) return;
      const folder = rel[0];
      clearTimeout(this.timers.get(folder));
      this.timers.set(
        folder,
        setTimeout(() => {
          this.timers.delete(folder);
          if (this.opened) void this.refresh(folder);
        }, this.opts.watchDebounceMs ?? 120),
      );
    };
    for (const ev of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const) w.on(ev, onEvent);
  }

  /** Reads one entry's folder again after a hand edit: indexed, updated, or gone. */
  private async refresh(folder: string): Promise<void> {
    let name: string;
    try {
      name = assertKnowledgeName(folder);
    } catch {
      return;
    }
    const generation = this.generations.get(name);
    const stale = () => this.generations.get(name) !== generation || this.writing.has(name) || !this.opened;
    const dir = path.join(this.opts.dir, folder);
    const file = path.join(dir, CONTENT_FILE);
    let read: Entry | undefined;
    try {
      // As at open: a linked folder or file is no entry (it could serve a file from anywhere).
      const [d, st] = await Promise.all([fs.lstat(dir), fs.lstat(file)]);
      if (d.isDirectory() && st.isFile() && st.size <= MAX_KNOWLEDGE_BYTES) read = { name, content: await fs.readFile(file, 'utf8'), updatedAt: st.mtimeMs, size: st.size };
      else this.opts.log?.warn(`knowledge: skipping ${file} (not a regular file or too large)`);
    } catch {
      // gone: no entry
    }
    if (stale()) return;
    const had = this.entries.get(name);
    if (read) {
      if (had && had.content === read.content) return;
      this.put(read);
    } else if (had) {
      this.entries.delete(name);
      this.index.remove(name);
    } else return;
    try {
      this.opts.onHandEdit?.(name);
    } catch (e) {
      this.opts.log?.warn(`knowledge: telling a hand edit of "${name}" failed: ${(e as Error).message}`);
    }
  }

  /** Re-scans the folder (files edited by hand). */
  async reload(): Promise<void> {
    for (const name of this.entries.keys()) this.index.remove(name);
    this.entries.clear();
    const dirents = await fs.readdir(this.opts.dir, { withFileTypes: true });
    for (const d of dirents) {
      if (!d.isDirectory()) continue;
      let name: string;
      try {
        name = assertKnowledgeName(d.name);
      } catch {
        this.opts.log?.warn(`knowledge: skipping folder with an invalid name: ${d.name}`);
        continue;
      }
      const file = path.join(this.opts.dir, d.name, CONTENT_FILE);
      try {
        const st = await fs.lstat(file);
        if (!st.isFile() || st.size > MAX_KNOWLEDGE_BYTES) {
          this.opts.log?.warn(`knowledge: skipping ${file} (not a regular file or too large)`);
          continue;
        }
        const content = await fs.readFile(file, 'utf8');
        this.put({ name, content, updatedAt: st.mtimeMs, size: st.size });
      } catch {
        // a folder without content.md is not an entry
      }
    }
  }

  /** Stops the watcher and forgets the in-memory index. Safe to call twice. */
  async close(): Promise<void> {
    this.opened = false;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    const w = this.watcher;
    this.watcher = undefined;
    await w?.close().catch(() => undefined);
  }

  get isOpen(): boolean {
    return this.opened;
  }

  private put(e: Entry): void {
    this.entries.set(e.name, e);
    this.index.add(e.name, `${e.name}\n${e.content}`);
  }

  /** A write of ours starts (`+1`) or ends (`-1`): a new generation either way. */
  private bump(name: string, writing: 1 | -1): void {
    this.generations.set(name, (this.generations.get(name) ?? 0) + 1);
    const n = (this.writing.get(name) ?? 0) + writing;
    if (n > 0) this.writing.set(name, n);
    else this.writing.delete(name);
  }

  private checkContent(content: unknown): string {
    if (typeof content !== 'string') throw new ValidationError('content must be a string', { key: 'content' });
    if (Buffer.byteLength(content, 'utf8') > MAX_KNOWLEDGE_BYTES) throw new PayloadTooLargeError(MAX_KNOWLEDGE_BYTES, 'knowledge content');
    return content;
  }

  private async write(name: string, content: string): Promise<KnowledgeEntry> {
    const file = path.join(this.opts.dir, name, CONTENT_FILE);
    // belt and braces: the resolved path must stay inside the folder
    if (path.relative(this.opts.dir, file).startsWith('..')) throw new ValidationError('knowledge name escapes the folder', { key: 'name' });
    this.bump(name, 1);
    try {
      await writeFileAtomic(file, content);
      const st = await fs.stat(file);
      this.put({ name, content, updatedAt: st.mtimeMs, size: st.size });
      return { name, content, updatedAt: st.mtimeMs };
    } finally {
      this.bump(name, -1);
    }
  }

  /**
   * Creates an entry; an existing name is a ConflictError unless `overwrite`. Without `overwrite`
   * a name that differs only in letter case is taken too: on macOS and Windows "recipes" is the
   * folder of "Recipes", so creating it would replace that entry (and an archive moved there would).
   */
  async create(name: string, content: string, opts: { overwrite?: boolean } & KnowledgeWriteOptions = {}): Promise<KnowledgeEntry> {
    const n = assertKnowledgeName(name);
    const c = this.checkContent(content);
    const before = this.entries.get(n)?.content;
    if (!opts.overwrite) {
      const key = n.toLowerCase();
      const same = before !== undefined ? n : [...this.entries.keys()].find((x) => x.toLowerCase() === key);
      if (same !== undefined || this.creating.has(key)) throw new ConflictError(`knowledge entry "${same ?? n}" already exists`, { name: same ?? n });
      this.creating.add(key);
      try {
        const out = await this.write(n, c);
        this.changed({ op: 'create', name: n, before: undefined, after: c }, opts);
        return out;
      } finally {
        this.creating.delete(key);
      }
    }
    // Overwriting "rust" when "Rust" exists is that entry (one folder on macOS and Windows; on
    // Linux it would become a second entry that differs only in case).
    if (before === undefined) {
      const same = [...this.entries.keys()].find((x) => x.toLowerCase() === n.toLowerCase());
      if (same !== undefined) return this.create(same, content, opts);
    }
    const out = await this.write(n, c);
    if (before !== c) this.changed({ op: before === undefined ? 'create' : 'update', name: n, before, after: c }, opts);
    return out;
  }

  /** Replaces the content of an existing entry. */
  async update(name: string, content: string, opts: KnowledgeWriteOptions = {}): Promise<KnowledgeEntry> {
    const n = assertKnowledgeName(name);
    const c = this.checkContent(content);
    const before = this.entries.get(n)?.content;
    if (before === undefined) throw new NotFoundError('knowledge entry', n);
    const out = await this.write(n, c);
    if (before !== c) this.changed({ op: 'update', name: n, before, after: c }, opts);
    return out;
  }

  async get(name: string): Promise<KnowledgeEntry> {
    const n = assertKnowledgeName(name);
    const e = this.entries.get(n);
    if (!e) throw new NotFoundError('knowledge entry', n);
    return { name: e.name, content: e.content, updatedAt: e.updatedAt };
  }

  /** Deletes an entry's folder. */
  async delete(name: string, opts: KnowledgeWriteOptions = {}): Promise<void> {
    const n = assertKnowledgeName(name);
    const before = this.entries.get(n)?.content;
    if (before === undefined) throw new NotFoundError('knowledge entry', n);
    this.bump(n, 1);
    try {
      await fs.rm(path.join(this.opts.dir, n), { recursive: true, force: true });
      this.entries.delete(n);
      this.index.remove(n);
    } finally {
      this.bump(n, -1);
    }
    this.changed({ op: 'delete', name: n, before }, opts);
  }

  /** The entry's content now, or undefined when there is none (for undo's check). */
  contentOf(name: string): string | undefined {
    return this.entries.get(name)?.content;
  }

  async list(): Promise<{ name: string; updatedAt: number; size: number }[]> {
    return [...this.entries.values()].map((e) => ({ name: e.name, updatedAt: e.updatedAt, size: e.size })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Ranked entries for a query, each with a snippet around the first matching term. */
  async search(query: string, limit = 5): Promise<{ name: string; score: number; snippet: string }[]> {
    if (typeof query !== 'string') throw new ValidationError('query must be a string', { key: 'query' });
    const k = Math.min(Math.max(1, Math.floor(limit) || 5), 50);
    const hits = await this.index.search(query, k);
    return hits
      .map((h) => {
        const e = this.entries.get(h.id);
        return e ? { name: e.name, score: h.score, snippet: snippet(e.content, query) } : undefined;
      })
      .filter((x): x is { name: string; score: number; snippet: string } => x !== undefined);
  }

  /** Prompt-slot provider for `knowledge`: the top 3 hits for the input, short. */
  slot(): (q: PromptQuery) => Promise<PromptSlotFill | undefined> {
    return async (q) => {
      if (q.consolidation || !q.input.trim() || !this.entries.size) return undefined;
      const hits = await this.search(q.input, 3);
      if (!hits.length) return undefined;
      // No heading here: the kernel prints the slot's title (【知识库】) once.
      const max = this.opts.slotChars ?? 800;
      const lines: string[] = [];
      const sources: InjectedSource[] = [];
      let size = 0;
      for (const h of hits) {
        const line = `- ${h.name}: ${h.snippet}`;
        if (size + line.length + 1 > max) break;
        lines.push(line);
        sources.push({ tier: 'knowledge', id: h.name, text: h.snippet, ...(this.entries.get(h.name)?.updatedAt ? { at: this.entries.get(h.name)!.updatedAt } : {}) });
        size += line.length + 1;
      }
      return lines.length ? { text: lines.join('\n'), sources } : undefined;
    };
  }
}

/** About 200 characters of `content` around the first query term found in it. */
export function snippet(content: string, query: string, width = 200): string {
  const flat = content.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  let at = -1;
  for (const t of tokenize(query, { query: true })) {
    at = lower.indexOf(t);
    if (at >= 0) break;
  }
  const start = Math.max(0, at < 0 ? 0 : at - Math.floor(width / 3));
  const s = flat.slice(start, start + width);
  return `${start > 0 ? '…' : ''}${s}${start + width < flat.length ? '…' : ''}`;
}
