import { closeSync, copyFileSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, ftruncateSync, fstatSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import Database from 'better-sqlite3';
import type { TransferCounts, TransferLeftOut } from '../spec/index.js';
import { KNOWLEDGE_NAME_RE } from '../knowledge/index.js';
import { sessionIdFromFileStem } from '../sessions/index.js';
import { ADAPTER_NAME_RE, LIBRARY_ID_RE } from './manifest.js';
import { ADAPTER_MAX_BYTES } from './llm-sources.js';
import type { PackFile } from './zip-pack.js';
import { INSTALL_LOCAL_SETTINGS, type TransferHost } from './transfer-host.js';

/** What a snapshot holds: the files to pack, the counts per part and the schema of each database. */
export interface Snapshot {
  files: PackFile[];
  counts: TransferCounts;
  schemas: Record<string, number>;
  /** Databases SQLite found damaged while copying them: left out, the rest taken. */
  leftOut: TransferLeftOut[];
}

/** What brings back a tier left out of an export because its file is damaged. */
const RECOVER: Record<TransferLeftOut['part'], string> = {
  documents: 'its turns are in the session logs, which this export holds; restart homed (a damaged documents.db is set aside when it opens) and run `waiter memory reindex`, then export again',
  archive: 'its turns are in the session logs, which this export holds; restart homed (a damaged archive.db is set aside when it opens) and run `waiter memory reindex`, then export again',
  graph: 'restart homed: a damaged graph.db is read back into a new one when it opens (what its readable pages hold); then export again',
};

/** True when SQLite says the file is not a usable database (as the stores' opens judge it). */
function isDamage(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_NOTADB' || (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'));
}

/** Lets the event loop run between steps (the daemon keeps answering during an export). */
const tick = () => new Promise<void>((r) => setImmediate(r));

/**
 * A consistent copy of a SQLite database with `VACUUM INTO`, from a read-only connection of its
 * own: one statement, so it reads one snapshot of the file (WAL) while the daemon keeps writing.
 */
function vacuumInto(source: string, target: string): { rows: (table: string) => number; version: number } {
  const src = new Database(source, { readonly: true, fileMustExist: true });
  try {
    src.pragma('busy_timeout = 5000');
    src.prepare('VACUUM INTO ?').run(target);
  } finally {
    src.close();
  }
  const copy = new Database(target, { readonly: true });
  const version = copy.pragma('user_version', { simple: true }) as number;
  const counts = new Map<string, number>();
  for (const t of ['documents', 'turns', 'relations']) {
    try {
      counts.set(t, (copy.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n);
    } catch {
      // not this file's table
    }
  }
  copy.close();
  return { rows: (t) => counts.get(t) ?? 0, version };
}

/** Copies a session log and cuts a torn last line (an append in flight) off the copy. */
function copyLog(source: string, target: string): void {
  copyFileSync(source, target);
  const fd = openSync(target, 'r+');
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 1 << 20));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    if (size > 0 && tail[tail.length - 1] !== 0x0a) {
      const nl = tail.lastIndexOf(0x0a);
      ftruncateSync(fd, nl < 0 ? 0 : size - tail.length + nl + 1);
    }
  } finally {
    closeSync(fd);
  }
}

function regularFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/** Regular files under `dir` (no links), at most `depth` folders deep, as paths relative to it. */
function walk(dir: string, depth: number): string[] {
  const out: string[] = [];
  const go = (d: string, left: number) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names.sort()) {
      if (n.startsWith('.')) continue;
      const p = join(d, n);
      const st = lstatSync(p);
      if (st.isDirectory() && left > 0) go(p, left - 1);
      else if (st.isFile()) out.push(relative(dir, p).split(sep).join('/'));
    }
  };
  go(dir, depth);
  return out;
}

/**
 * Takes the export's snapshot into `dir` (private, empty). Order matters for consistency while
 * the daemon runs: the context window (in memory, as it is at this instant), then documents, then
 * the cold archive — the archive loop writes the archive before it removes a warm document, and
 * pruning writes documents before the window drops the events, so a move during the snapshot can
 * only leave a turn in two parts (an import counts it once), never in none — then the graph, the
 * session logs (append-only), the library, knowledge, persona, settings without secrets (and
 * never the auth token; the person's LLM sources among them, without their keys), the Lua
 * adapters of `adapters/`, and forget's tombstones. Media files are write-once and packed from
 * where they are. A database SQLite finds damaged while copying it is left out and named in
 * `leftOut`; the rest is taken.
 */
export async function takeSnapshot(host: TransferHost, dir: string, onStep?: (step: string) => void): Promise<Snapshot> {
  const files: PackFile[] = [];
  const counts: TransferCounts = {};
  const schemas: Record<string, number> = {};
  const leftOut: TransferLeftOut[] = [];
  const mem = join(dir, 'memory');
  mkdirSync(mem, { recursive: true, mode: 0o700 });
  const m = host.memory;
  const up = m.status();

  onStep?.('context');
  if (up.context) {
    const target = join(mem, 'context.json');
    writeFileSync(target, m.context.snapshot(), { mode: 0o600 });
    files.push({ entry: 'memory/context.json', part: 'context', source: target });
    counts.context = m.context.events().length;
  }
  await tick();
  const tiers: [string, string, 'documents' | 'archive' | 'graph', string][] = [
    [join(host.home, 'documents', 'documents.db'), 'documents.db', 'documents', 'documents'],
    [join(host.home, 'documents', 'archive.db'), 'archive.db', 'archive', 'turns'],
    [join(host.home, 'graph.db'), 'graph.db', 'graph', 'relations'],
  ];
  for (const [source, name, part, table] of tiers) {
    onStep?.(part);
    if (!existsSync(source)) continue;
    const target = join(mem, name);
    let copied: ReturnType<typeof vacuumInto>;
    try {
      copied = vacuumInto(source, target);
    } catch (e) {
      // One damaged database must not cost the person the whole backup: the rest is exported
      // and the job names the file left out and what brings it back.
      if (!isDamage(e)) throw e;
      rmSync(target, { force: true });
      leftOut.push({ part, file: relative(host.home, source).split(sep).join('/'), error: (e as Error).message, recover: RECOVER[part] });
      continue;
    }
    const { rows, version } = copied;
    files.push({ entry: `memory/${name}`, part, source: target });
    counts[part] = rows(table);
    schemas[part] = version;
    await tick();
  }

  onStep?.('sessions');
  const sessDir = join(dir, 'sessions');
  mkdirSync(sessDir, { recursive: true, mode: 0o700 });
  let sessions = 0;
  const logs = join(host.home, 'sessions');
  for (const name of existsSync(logs) ? readdirSync(logs).sort() : []) {
    if (!name.endsWith('.jsonl') || !sessionIdFromFileStem(name.slice(0, -'.jsonl'.length))) continue;
    const source = join(logs, name);
    if (!regularFile(source)) continue;
    const target = join(sessDir, name);
    copyLog(source, target);
    files.push({ entry: `sessions/${name}`, part: 'sessions', source: target });
    sessions++;
  }
  counts.sessions = sessions;
  await tick();

  onStep?.('library');
  const lib = host.libraryRoot();
  let memories = 0;
  const libOut = join(dir, 'library');
  for (const [sub, ok] of [
    ['memories', (n: string) => n.endsWith('.md') && LIBRARY_ID_RE.test(n.slice(0, -3))],
    ['pinned', (n: string) => ['plan.json', 'excluded.json', 'once.json'].includes(n)],
  ] as const) {
    const from = join(lib, sub);
    if (!existsSync(from)) continue;
    mkdirSync(join(libOut, sub), { recursive: true, mode: 0o700 });
    for (const n of readdirSync(from).sort()) {
      if (!ok(n) || !regularFile(join(from, n))) continue;
      copyFileSync(join(from, n), join(libOut, sub, n));
      files.push({ entry: `library/${sub}/${n}`, part: 'library', source: join(libOut, sub, n) });
      if (sub === 'memories') memories++;
    }
  }
  counts.library = memories;

  onStep?.('knowledge');
  const kDir = join(host.home, 'knowledge');
  let entries = 0;
  for (const n of existsSync(kDir) ? readdirSync(kDir).sort() : []) {
    const src = join(kDir, n, 'content.md');
    if (!KNOWLEDGE_NAME_RE.test(n) || /[. ]$/.test(n) || !regularFile(src)) continue;
    mkdirSync(join(dir, 'knowledge', n), { recursive: true, mode: 0o700 });
    copyFileSync(src, join(dir, 'knowledge', n, 'content.md'));
    files.push({ entry: `knowledge/${n}/content.md`, part: 'knowledge', source: join(dir, 'knowledge', n, 'content.md') });
    entries++;
  }
  counts.knowledge = entries;

  onStep?.('persona');
  const persona = host.personaFile();
  if (regularFile(persona)) {
    copyFileSync(persona, join(dir, 'persona.md'));
    files.push({ entry: 'persona.md', part: 'persona', source: join(dir, 'persona.md') });
    counts.persona = 1;
  }

  onStep?.('settings');
  // Stored values only, never a secret (API keys, tokens): those stay on this machine.
  const settings: Record<string, unknown> = {};
  for (const info of host.config.list()) if (info.origin === 'stored' && !info.secret && !INSTALL_LOCAL_SETTINGS.has(info.key)) settings[info.key] = info.value;
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 1), { mode: 0o600 });
  files.push({ entry: 'settings.json', part: 'settings', source: join(dir, 'settings.json') });
  counts.settings = Object.keys(settings).length;

  onStep?.('adapters');
  // The person's Lua adapters (decision 0540): code, which an import holds apart until the person
  // moves it into use. Only files the adapter registry would load; a file over the size an adapter
  // may have is left out and logged.
  const adapterDir = join(host.home, 'adapters');
  let adapters = 0;
  for (const n of existsSync(adapterDir) ? readdirSync(adapterDir).sort() : []) {
    const src = join(adapterDir, n);
    if (!n.endsWith('.lua') || !ADAPTER_NAME_RE.test(n.slice(0, -'.lua'.length)) || !regularFile(src)) continue;
    if (lstatSync(src).size > ADAPTER_MAX_BYTES) {
      host.log.warn(`export: adapters/${n} is larger than an adapter may be (${ADAPTER_MAX_BYTES} bytes) and was left out`);
      continue;
    }
    mkdirSync(join(dir, 'adapters'), { recursive: true, mode: 0o700 });
    copyFileSync(src, join(dir, 'adapters', n));
    files.push({ entry: `adapters/${n}`, part: 'adapters', source: join(dir, 'adapters', n) });
    adapters++;
  }
  // Counted only when there are some: a reader of format 2 refuses a count of a part it does not know.
  if (adapters) counts.adapters = adapters;

  onStep?.('tombstones');
  const tombs = host.forget?.()?.tombstones() ?? [];
  writeFileSync(join(dir, 'tombstones.json'), JSON.stringify(tombs), { mode: 0o600 });
  files.push({ entry: 'tombstones.json', part: 'tombstones', source: join(dir, 'tombstones.json') });
  counts.tombstones = tombs.length;

  onStep?.('replacements');
  // Which turn a regenerate or an edit-and-resend replaced (decision 0620), so that an import does
  // not take an older copy of the replaced turn back into memory. Only when there are some: a
  // reader of format 3 refuses a part it does not know. Not a turn forgotten since (its id stays here).
  const forgotten = host.forget?.();
  const replaced = (host.replacements?.()?.list() ?? []).filter((r) => !forgotten?.isForgotten(r.turnId) && !forgotten?.isForgotten(r.byTurn));
  if (replaced.length) {
    writeFileSync(join(dir, 'replacements.json'), JSON.stringify(replaced.map((r) => ({ turnId: r.turnId, byTurn: r.byTurn }))), { mode: 0o600 });
    files.push({ entry: 'replacements.json', part: 'replacements', source: join(dir, 'replacements.json') });
    counts.replacements = replaced.length;
  }

  onStep?.('media');
  const media = walk(join(host.home, 'media'), 3);
  for (const rel of media) files.push({ entry: `media/${rel}`, part: 'media', source: join(host.home, 'media', ...rel.split('/')) });
  counts.media = media.length;
  return { files, counts, schemas, leftOut };
}
