import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_PROTECTED_KEYS, importNote, isProtectedKey, type ConfigKeyInfo, type ContextEvent, type SessionEvent, type ForgetLedger, type TransferMode, type TransferPart, type TransferPartPlan, type TransferReplacement, type TransferReport, REPLACES_META_KEY } from '../spec/index.js';
import { ColdArchive, DocStore, GraphDB, saidDays, type ArchivedRow, type MemoryDocument, type MemorySystem } from '../memory/index.js';
import type { ConfigRegistry } from '../config/index.js';
import { forgetInLogBytes, kernelTurnNumber, SESSION_ID_RE, sessionFileStem } from '../sessions/index.js';
import { filesOnlyOf, turnForgotten, turnHash } from '../memory/control/index.js';
import { holdMemoryFile, planInjects } from './every-session.js';
import { RefMap } from './ref-map.js';
import type { StagedExport } from './staged-export.js';
import { INSTALL_LOCAL_SETTINGS } from './transfer-host.js';
import { adapterHere, holdAdapters, mergeSources } from './llm-sources.js';
import { mergeReplacements } from './replacement-merge.js';
import { CUSTOM_SOURCES_KEY } from '../providers/index.js';

/** A file an import replaces or adds: the merged copy is renamed over the live path. */
export interface SwapFile {
  live: string;
  merged: string;
}

/** What a merge produced: files to swap in, settings to set, tombstones to record, and the report. */
export interface MergeResult {
  files: SwapFile[];
  settings: { key: string; value: unknown }[];
  tombstones: { ref: string; at: number }[];
  /** The archive's replaced turns to record here (decision 0620), ids as they are imported. */
  replacements: TransferReplacement[];
  sessionIds: string[];
  report: TransferReport;
}

/** Where the live data is. */
export interface LivePaths {
  home: string;
  library: string;
  persona: string;
  /** The person's Lua adapters (`<home>/adapters`). */
  adapters: string;
}

/** Tombstone refs of a turn id (`sha256:turn:<hex>`). */
const TURN_STONE = 'sha256:turn:';

/** The adapter setting of an LLM source. */
const ADAPTER_SETTING_RE = /^core\.llm\.sources\.[^.]+\.adapter$/;

/** The setting that lists what `config_set` may not change (the cfgmgr plugin's). */
const PROTECTED_KEYS_SETTING = 'plugin.cfgmgr.tool_protected_keys';

/** The live protected-key patterns; the default list when the setting is absent or not a list of strings. */
function protectedPatterns(value: unknown): readonly string[] {
  return Array.isArray(value) && value.every((p) => typeof p === 'string') ? (value as string[]) : DEFAULT_PROTECTED_KEYS;
}

const emptyPlan = (): TransferPartPlan => ({ added: 0, same: 0, conflicts: 0, skipped: 0, overwritten: 0, keptBoth: 0, forgotten: 0 });

/** Copies a SQLite database consistently (VACUUM INTO from its own read-only connection). */
function copyDb(source: string, target: string): void {
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  if (!existsSync(source)) return;
  const src = new Database(source, { readonly: true, fileMustExist: true });
  try {
    src.prepare('VACUUM INTO ?').run(target);
  } finally {
    src.close();
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A free session id for an imported session that clashes with ours (keep-both). */
function freeSessionId(id: string, taken: (id: string) => boolean): string {
  for (let n = 1; n < 1000; n++) {
    const suffix = `.imported-${n}`;
    const cand = `${id.slice(0, 128 - suffix.length)}${suffix}`;
    if (SESSION_ID_RE.test(cand) && !cand.includes('..') && !taken(cand)) return cand;
  }
  throw new Error(`no free session id for ${id}`);
}

function freeName(base: string, maxLen: number, taken: (n: string) => boolean): string {
  for (let n = 1; n < 1000; n++) {
    const suffix = `-imported${n > 1 ? `-${n}` : ''}`;
    const cand = `${base.slice(0, maxLen - suffix.length)}${suffix}`;
    if (!taken(cand)) return cand;
  }
  throw new Error(`no free name for ${base}`);
}

/** Parsed lines of a session log (header, titles, events); torn lines dropped. */
/**
 * An archive's inputs that never got an outcome (a turn in flight when it was exported) are closed
 * with a `done` marker in the log that comes in: this install never acknowledged them, and its
 * next start must not run them as live turns (decision 0390; a crafted archive could otherwise
 * plant an input with no speaker — an owner turn — to be run after a restart).
 */
function closeUnanswered(lines: Record<string, unknown>[], now: number): Record<string, unknown>[] {
  const open = new Set<string>();
  let lastSeq = 0;
  for (const l of lines) {
    if (l.type !== 'event' || typeof l.turnId !== 'string') continue;
    if (typeof l.seq === 'number' && l.seq > lastSeq) lastSeq = l.seq;
    const data = l.data as { op?: unknown } | undefined;
    if (l.kind === 'user') open.add(l.turnId);
    else if (l.kind === 'assistant' || l.kind === 'error' || (l.kind === 'marker' && data?.op === 'done')) open.delete(l.turnId);
  }
  if (!open.size) return lines;
  return [...lines, ...[...open].map((turnId) => ({ type: 'event', seq: ++lastSeq, turnId, kind: 'marker', at: now, text: '[imported without an answer]', data: { op: 'done', imported: true } }))];
}

function logLines(text: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // a torn or foreign line: the session store skips it too
    }
  }
  return out;
}

/** How many non-empty lines of a log do not parse as a record (damaged by hand, another encoding). */
function unreadableLines(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) if (line.trim() && !isRecordLine(line)) n++;
  return n;
}

function isRecordLine(line: string): boolean {
  try {
    const v = JSON.parse(line) as unknown;
    return !!v && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** The events of a log, turn by turn: what was said (`user`), answered (`assistant`, `tool_result`), and its other texts. */
/**
 * The highest turn number of each session log in the archive (decision 0380): while an import is
 * applied, turns handed out for these sessions start above them — the log swapped in may hold them.
 */
export function archiveTurnFloors(staged: StagedExport): Map<string, number> {
  const floors = new Map<string, number>();
  for (const s of staged.sessions()) {
    let max = 0;
    try {
      for (const l of logLines(readFileSync(s.file, 'utf8'))) {
        const n = l.type === 'event' && typeof l.turnId === 'string' ? kernelTurnNumber(s.id, l.turnId) : undefined;
        if (n !== undefined && n > max) max = n;
      }
    } catch {
      continue; // an unreadable log is the merge's to report
    }
    if (max > 0) floors.set(s.id, max);
  }
  return floors;
}

function logTurns(lines: readonly Record<string, unknown>[]): Map<string, { messages: unknown[]; replies: unknown[]; others: unknown[] }> {
  const out = new Map<string, { messages: unknown[]; replies: unknown[]; others: unknown[] }>();
  for (const l of lines) {
    if (l.type !== 'event' || typeof l.turnId !== 'string') continue;
    const redacted = !!l.data && typeof l.data === 'object' && (l.data as { redacted?: unknown }).redacted === true;
    if (redacted) continue;
    let g = out.get(l.turnId);
    if (!g) out.set(l.turnId, (g = { messages: [], replies: [], others: [] }));
    (l.kind === 'user' ? g.messages : l.kind === 'assistant' || l.kind === 'tool_result' ? g.replies : g.others).push(l.text);
  }
  return out;
}

/** A log event of a session imported under a new id: its turn id, and the turns a deletion marker names. */
function renameEvent(l: Record<string, unknown>, refs: RefMap): Record<string, unknown> {
  const out = { ...l };
  if (typeof l.turnId === 'string') out.turnId = refs.ref(l.turnId) ?? l.turnId;
  const data = l.data as { turnIds?: unknown; meta?: Record<string, unknown> } | undefined;
  if (data && Array.isArray(data.turnIds)) out.data = { ...data, turnIds: data.turnIds.map((t) => (typeof t === 'string' ? (refs.ref(t) ?? t) : t)) };
  // The turn a resent message replaces (decision 0550) is a turn of the same session: renamed with it.
  const replaces = data?.meta?.[REPLACES_META_KEY];
  if (data?.meta && typeof replaces === 'string') out.data = { ...(out.data as object), meta: { ...data.meta, [REPLACES_META_KEY]: refs.ref(replaces) ?? replaces } };
  return out;
}

/** What identifies each event of a log, in order: seq, turn, kind and text. */
function eventKeys(lines: readonly Record<string, unknown>[]): string[] {
  return lines.filter((l) => l.type === 'event').map((l) => JSON.stringify([l.seq, l.turnId, l.kind, l.text]));
}

/** An event line the session store reads (toEvent): a seq, a turn and a kind. */
function isReadableEvent(l: Record<string, unknown>): boolean {
  return typeof l.seq === 'number' && typeof l.turnId === 'string' && typeof l.kind === 'string';
}

/** True when `a` is `b` or its start. */
function isPrefix(a: readonly string[], b: readonly string[]): boolean {
  return a.length <= b.length && a.every((k, i) => k === b[i]);
}

const serialise = (lines: readonly Record<string, unknown>[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join('');

/**
 * Counts an imported document against our copy (in either tier) and says whether to put it: new,
 * or a conflict that `overwrite` settles (`evict` drops our copy in the other tier) or `keep-both`
 * settles under a new id; the same document or a skipped conflict is left out.
 */
function settleDocument(p: TransferPartPlan, mode: TransferMode, ours: MemoryDocument | undefined, d: MemoryDocument, refs: RefMap, evict: () => void): boolean {
  if (!ours) {
    p.added++;
    return true;
  }
  if (ours.content === d.content && ours.createdAt === d.createdAt) {
    p.same++;
    return false;
  }
  p.conflicts++;
  if (mode === 'skip') {
    p.skipped++;
    return false;
  }
  if (mode === 'overwrite') {
    p.overwritten++;
    evict();
  } else {
    p.keptBoth++;
    d.id = refs.newId(d.id);
  }
  return true;
}

/**
 * A document as it is imported: session renamed, refs mapped, id mapped; undefined when forgotten
 * (its id, its turn, a text forgotten here, or its message with its reply).
 */
function mapDocument(d: MemoryDocument, refs: RefMap, textForgotten: (t: string) => boolean, pairForgotten: (m: string, r: string) => boolean): MemoryDocument | undefined {
  const turn = d.refs[0];
  if (refs.forgotten(d.id) || (turn !== undefined && refs.forgotten(turn))) return undefined;
  if ([d.content, d.input, d.response].some((t) => t && textForgotten(t))) return undefined;
  if (d.input && d.response && pairForgotten(d.input, d.response)) return undefined;
  const id = refs.ref(d.id) ?? d.id;
  return { ...d, id, sessionId: refs.session(d.sessionId), refs: d.refs.map((r) => refs.ref(r)).filter((r): r is string => r !== undefined) };
}

/**
 * Merges a verified export into copies of the live data under `mergedHome` (laid out like a data
 * folder) and says which files to swap in. Nothing live is written: the caller swaps the files in
 * with the tiers closed, or throws the copies away (a dry run, or a failure).
 *
 * What is "the same" item: a session by id, a document / archived turn / context event by id,
 * a graph entity by name and a relation by (subject, predicate, object), a library memory by id,
 * a knowledge entry by name, a media file by path, a setting by key. What `mode` does with one that
 * differs: `skip` keeps ours, `overwrite` takes theirs, `keep-both` imports theirs beside ours under
 * a new id (sessions, with every ref to their turns renamed; documents; library memories; knowledge
 * entries) or, where two cannot coexist (a graph fact, the plan, persona, a setting), keeps ours
 * and adds what theirs has that ours lacks (graph sources) or keeps ours. A session log of ours
 * that the archive's extends (the same session exported later) takes the longer log in every mode.
 * `overwrite` replaces a session log of ours only when ours is a prefix of theirs by events; one
 * that diverged is kept and theirs imported beside it as in keep-both (the tiers cite our turns).
 */
export async function mergeImport(o: {
  staged: StagedExport;
  live: LivePaths;
  mergedHome: string;
  mode: TransferMode;
  ledger: ForgetLedger;
  memory: MemorySystem;
  config: ConfigRegistry;
  privilegedSettings: boolean;
  /** The person's yes to what reaches every session (convention and summary memories, the plan, the persona); decision 0350. */
  approveInjected?: boolean;
  /** Turns replaced here already (decision 0620). */
  replacedHere?: ReadonlySet<string>;
}): Promise<MergeResult> {
  const { staged, live, mergedHome: M, mode } = o;
  const parts: Partial<Record<TransferPart, TransferPartPlan>> = {};
  const plan = (p: TransferPart) => (parts[p] ??= emptyPlan());
  const files: SwapFile[] = [];
  const notes: string[] = [];
  const theirTombs = staged.tombstones();
  const textForgotten = (t: string) => o.ledger.isForgottenText?.(t) === true;
  const pairForgotten = (m: string, r: string) => o.ledger.isForgottenPair?.(m, r) === true;
  const theirSessions = staged.sessions();
  const theirDocs = staged.documents();
  const theirCtx = staged.context();
  // Turns of theirs forgotten here by what was said in them (decision 0320): a message forgotten
  // (content), or a message with its reply (pair). Such a turn is left out whole — its log
  // events, window events, documents, archived rows and graph sources — also when its session
  // comes in under a new id (keep-both), where its turn id cannot tell.
  const forgottenRefs = new Set(theirTombs.map((t) => t.ref));
  // The same whole-turn test as applying tombstones here (`turnForgotten`): any whole text of the
  // turn with a content tombstone — a reply too, as a tombstone recorded before 0320 may name one
  // (0320 review fix 3: the turn came in as its message alone, its reply dropped event by event) —
  // or a message with an answer carrying a pair tombstone.
  const stones = { turn: () => false, content: textForgotten, pair: pairForgotten, fact: () => false, doc: () => false };
  // Turns judged forgotten by what was said in them: forgotten here (the ledger is this install's).
  const judgedHere = new Set<string>();
  const judge = (turn: string | undefined, messages: readonly unknown[], replies: readonly unknown[], others: readonly unknown[] = []) => {
    if (turn === undefined || forgottenRefs.has(turn)) return;
    const said = (x: unknown): x is string => typeof x === 'string' && x.trim() !== '';
    if (turnForgotten(stones, undefined, messages.filter(said), replies.filter(said), others.filter(said))) {
      forgottenRefs.add(turn);
      judgedHere.add(turn);
    }
  };
  if (o.ledger.isForgottenText || o.ledger.isForgottenPair) {
    // Each turn's texts from its log, its window events and its archived events, judged together (a
    // turn has no message only when none of them holds one).
    const texts = new Map<string, { messages: unknown[]; replies: unknown[]; others: unknown[] }>();
    const add = (turn: string | undefined, messages: readonly unknown[], replies: readonly unknown[], others: readonly unknown[] = []) => {
      if (turn === undefined) return;
      let g = texts.get(turn);
      if (!g) texts.set(turn, (g = { messages: [], replies: [], others: [] }));
      g.messages.push(...messages);
      g.replies.push(...replies);
      g.others.push(...others);
    };
    for (const s of theirSessions) for (const [turn, g] of logTurns(logLines(readFileSync(s.file, 'utf8')))) add(turn, g.messages, g.replies, g.others);
    for (const e of theirCtx.events) add(e.refs?.[0], [e.input], [e.response, ...(e.toolOutputs ?? []).map((x) => x.text)]);
    // A document archived from a window event holds its turn's message and reply; a note does not.
    for (const { doc } of theirDocs.docs) if (doc.eventKind === 'user' || doc.eventKind === 'agent') add(doc.refs[0], [doc.input], [doc.response]);
    for (const [turn, g] of texts) judge(turn, g.messages, g.replies, g.others);
  }
  // The archive's turn-id tombstones name turns of the archive's install: `cli:default#5` there is
  // not `cli:default#5` here (session ids are the same on every install). They leave the archive's
  // own turns out, and nothing more — never recorded here, never matched against a turn here
  // (decision 0350). What a forget there took that is here too, its text and pair tombstones find.
  const theirTurnStones = new Set(theirTombs.filter((t) => t.ref.startsWith(TURN_STONE)).map((t) => t.ref.slice(TURN_STONE.length)));
  const refs = new RefMap(o.ledger, forgottenRefs, (ref) => theirTurnStones.size > 0 && ref.includes('#') && theirTurnStones.has(turnHash(ref)));
  const renamed: TransferReport['renamed'] = { library: {}, knowledge: {} };
  mkdirSync(M, { recursive: true, mode: 0o700 });
  // The archive's turns left out as forgotten, by where they were forgotten — for the report's
  // words (decision 0540): the parts count their own items (log turns, window events, documents),
  // a note says how many turns that was and why.
  const forgottenTurns = { here: new Set<string>(), there: new Set<string>() };
  const noteLeftOut = (turn: string | undefined, byTextHere = false): void => {
    if (turn === undefined) return;
    (byTextHere || judgedHere.has(turn) || o.ledger.isForgotten(turn) ? forgottenTurns.here : forgottenTurns.there).add(turn);
  };

  // Sessions first: a keep-both rename changes the refs of every other part.
  const sessDir = join(live.home, 'sessions');
  const mergedSess = join(M, 'sessions');
  mkdirSync(mergedSess, { recursive: true, mode: 0o700 });
  const sessionIds: string[] = [];
  // The archive's sessions whose log is the one here once imported, by their id here (decision 0620).
  const landed = new Map<string, string>();
  const theirIds = new Set(theirSessions.map((s) => s.id));
  const takenSession = (id: string) => existsSync(join(sessDir, `${sessionFileStem(id)}.jsonl`)) || theirIds.has(id);
  for (const s of theirSessions) {
    const p = plan('sessions');
    const theirRaw = readFileSync(s.file);
    // Lines of theirs no store can read are not carried over (they cannot be checked against
    // forget's tombstones); the archive, which keeps them, stays with the person. Said, not silent.
    const theirDamaged = unreadableLines(theirRaw.toString('utf8'));
    if (theirDamaged > 0) notes.push(importNote.theirLinesUnreadable(s.id, theirDamaged));
    // The events of a forgotten turn (or text) become `[forgotten]` in their place, and a title made
    // from them goes — exactly what a forget here leaves in a log (decision 0540): dropped, a log
    // of ours forgotten since this archive was made compared as a conflict with it, and came in
    // beside ours (overwrite, keep-both) under its forgotten message's title. An event that is
    // `[forgotten]` already holds nothing and stays as it is; it was never counted as forgotten.
    const forgotten = forgetInLogBytes(theirRaw, s.id, (e) => {
      const byTurn = refs.forgotten(e.turnId);
      const byText = !byTurn && e.text !== '' && textForgotten(e.text);
      if (byTurn || byText) noteLeftOut(e.turnId, byText);
      return byTurn || byText;
    });
    const isForgottenLine = (l: Record<string, unknown>) => (typeof l.turnId === 'string' && refs.forgotten(l.turnId)) || (typeof l.text === 'string' && l.text !== '' && textForgotten(l.text));
    // An event line no store reads (no seq or kind) is not rewritten by a forget: one of a forgotten turn is left out.
    let theirs = logLines(forgotten.bytes.toString('utf8')).filter((l) => l.type !== 'event' || isReadableEvent(l) || !isForgottenLine(l));
    // Counted in turns (a turn is a message and its reply, tool calls …), not in events.
    p.forgotten += forgotten.turnIds.size;
    const liveFile = join(sessDir, `${sessionFileStem(s.id)}.jsonl`);
    const oursText = readText(liveFile);
    const theirText = serialise(theirs);
    let id = s.id;
    if (oursText === undefined) p.added++;
    else {
      const ours = serialise(logLines(oursText));
      if (ours === theirText || ours.startsWith(theirText)) {
        p.same++;
        landed.set(s.id, s.id);
        continue;
      }
      // A log of ours with lines the store cannot read is never replaced (the merged copy is
      // rebuilt from records: those lines would be gone), even by a log that extends it: a
      // conflict — skipped, or theirs comes in beside it.
      const damaged = unreadableLines(oursText);
      if (damaged > 0) {
        p.conflicts++;
        if (mode === 'skip') {
          p.skipped++;
          notes.push(importNote.ourLinesUnreadableSkipped(s.id, damaged));
          continue;
        }
        notes.push(importNote.ourLinesUnreadableBeside(s.id, damaged));
        id = freeSessionId(s.id, takenSession);
        refs.renameSession(s.id, id);
        p.keptBoth++;
        theirs = theirs.map((l) => (l.type === 'session' ? { ...l, id } : l.type === 'event' ? renameEvent(l, refs) : l));
      } else if (theirText.startsWith(ours)) p.added++;
      else {
        p.conflicts++;
        if (mode === 'skip') {
          p.skipped++;
          continue;
        }
        // Overwrite takes theirs only where ours is a prefix of it (every event of ours is in
        // theirs, in place): a log of ours that diverged has turns the memory tiers still cite
        // (`S#3`), and replacing it would make those refs name other messages or none. Two
        // installs that each chatted as `cli:default` diverge as a rule: theirs is kept beside.
        const diverged = mode === 'overwrite' && !isPrefix(eventKeys(logLines(oursText)), eventKeys(theirs));
        if (mode === 'overwrite' && !diverged) p.overwritten++;
        else {
          if (diverged) notes.push(importNote.diverged(s.id));
          id = freeSessionId(s.id, takenSession);
          refs.renameSession(s.id, id);
          p.keptBoth++;
          theirs = theirs.map((l) => (l.type === 'session' ? { ...l, id } : l.type === 'event' ? renameEvent(l, refs) : l));
        }
      }
    }
    const target = join(mergedSess, `${sessionFileStem(id)}.jsonl`);
    theirs = closeUnanswered(theirs, Date.now());
    writeFileSync(target, serialise(theirs), { mode: 0o600 });
    files.push({ live: join(sessDir, `${sessionFileStem(id)}.jsonl`), merged: target });
    sessionIds.push(id);
    landed.set(s.id, id);
  }
  const renamedSessions = Object.fromEntries(refs.sessions);

  // Warm documents and the cold archive: copies of ours, theirs merged in through the tier classes.
  const liveDocs = join(live.home, 'documents', 'documents.db');
  const liveArchive = join(live.home, 'documents', 'archive.db');
  copyDb(liveDocs, join(M, 'documents', 'documents.db'));
  copyDb(liveArchive, join(M, 'documents', 'archive.db'));
  // Imported turns get their days said resolved here, as the live tiers would (decision 0160),
  // on the person's calendar (decision 0270).
  const said = (text: string, time: number) => saidDays(text, time, o.memory.timeZone());
  const docs = new DocStore({ home: M, embedder: o.memory.embedder, config: o.config, saidDays: said });
  const archive = new ColdArchive({ home: M, tokenize: (t) => o.memory.embedder.tokenize(t), saidDays: said });
  await docs.open();
  archive.open();
  try {
    if (theirDocs.unreadable) notes.push(importNote.unreadableDocuments(theirDocs.unreadable));
    const putDocs: MemoryDocument[] = [];
    const putVecs: (typeof theirDocs.docs)[number]['vector'][] = [];
    for (const { doc, vector } of theirDocs.docs) {
      const p = plan('documents');
      const d = mapDocument(doc, refs, textForgotten, pairForgotten);
      if (!d) {
        p.forgotten++;
        noteLeftOut(doc.refs[0], !(doc.refs[0] !== undefined && refs.forgotten(doc.refs[0])));
        continue;
      }
      if (!settleDocument(p, mode, docs.get(d.id) ?? archive.get(d.id)?.doc, d, refs, () => archive.deleteIds([d.id]))) continue;
      putDocs.push(d);
      putVecs.push(vector);
    }
    if (putDocs.length) docs.restore(putDocs, putVecs);
    const theirArchive = staged.archive((t) => o.memory.embedder.tokenize(t));
    if (theirArchive) {
      try {
        for (let after = 0; ; ) {
          const rows: ArchivedRow[] = theirArchive.page(after, 500);
          if (!rows.length) break;
          after = rows[rows.length - 1].n;
          const put: MemoryDocument[] = [];
          const vecs: ArchivedRow['vec'][] = [];
          for (const r of rows) {
            const p = plan('archive');
            const d = mapDocument(r.doc, refs, textForgotten, pairForgotten);
            if (!d) {
              p.forgotten++;
              noteLeftOut(r.doc.refs[0], !(r.doc.refs[0] !== undefined && refs.forgotten(r.doc.refs[0])));
              continue;
            }
            if (!settleDocument(p, mode, archive.get(d.id)?.doc ?? docs.get(d.id), d, refs, () => docs.remove(d.id))) continue;
            put.push(d);
            vecs.push(r.vec);
          }
          if (put.length) archive.putMany(put, { vectors: vecs });
        }
      } finally {
        theirArchive.close();
      }
    }

    // The context window: their events that no tier of ours holds, and the turn marks.
    const liveCtx = join(live.home, 'context.json');
    const ourCtx = ((): { events: ContextEvent[]; turns: Record<string, { turn: number; done: boolean }> } => {
      try {
        const raw = JSON.parse(readFileSync(liveCtx, 'utf8')) as { events?: ContextEvent[]; turns?: Record<string, { turn: number; done: boolean }> };
        return { events: Array.isArray(raw.events) ? raw.events : [], turns: raw.turns ?? {} };
      } catch {
        return { events: [], turns: {} };
      }
    })();
    if (theirCtx.dropped) notes.push(importNote.invalidContextEvents(theirCtx.dropped));
    const ourIds = new Set(ourCtx.events.map((e) => e.id));
    let ctxChanged = false;
    for (const e of theirCtx.events) {
      const p = plan('context');
      const turn = e.refs?.[0];
      const byTurn = turn !== undefined && refs.forgotten(turn);
      if (refs.forgotten(e.id) || byTurn || [e.input, e.response].some((t) => t && textForgotten(t)) || (!!e.input && !!e.response && pairForgotten(e.input, e.response))) {
        p.forgotten++;
        noteLeftOut(turn, !byTurn);
        continue;
      }
      const id = refs.ref(e.id) ?? e.id;
      if (ourIds.has(id) || docs.has(id) || archive.has(id)) {
        p.same++;
        continue;
      }
      ourCtx.events.push({ ...e, id, sessionId: refs.session(e.sessionId), refs: e.refs?.map((r) => refs.ref(r)).filter((r): r is string => r !== undefined) });
      ourIds.add(id);
      p.added++;
      ctxChanged = true;
    }
    for (const [sid, mark] of Object.entries(theirCtx.marks)) {
      const to = refs.session(sid);
      const ours = ourCtx.turns[to];
      if (!ours || ours.turn < mark.turn) {
        ourCtx.turns[to] = mark;
        ctxChanged = true;
      }
    }
    if (ctxChanged) {
      ourCtx.events.sort((a, b) => a.timestamp - b.timestamp);
      writeFileSync(join(M, 'context.json'), JSON.stringify({ version: 1, events: ourCtx.events, turns: ourCtx.turns, savedAt: Date.now() }), { mode: 0o600 });
      files.push({ live: liveCtx, merged: join(M, 'context.json') });
    }
  } finally {
    await docs.close();
    archive.close();
  }
  if (existsSync(join(M, 'documents', 'documents.db'))) files.push({ live: liveDocs, merged: join(M, 'documents', 'documents.db') });
  if (existsSync(join(M, 'documents', 'archive.db'))) files.push({ live: liveArchive, merged: join(M, 'documents', 'archive.db') });

  // The graph.
  const facts = staged.graph();
  if (facts) {
    const liveGraph = join(live.home, 'graph.db');
    copyDb(liveGraph, join(M, 'graph.db'));
    const g = new GraphDB({ path: join(M, 'graph.db') });
    g.open();
    try {
      parts.graph = { ...emptyPlan(), ...g.importFacts(facts, { mode, mapRef: (r) => refs.ref(r), isForgottenFact: o.ledger.isForgottenFact?.bind(o.ledger) }) };
    } finally {
      g.close();
    }
    files.push({ live: liveGraph, merged: join(M, 'graph.db') });
  }

  // Files: library memories and plan, knowledge, persona, media.
  const fileItem = (part: TransferPart, source: string, liveFile: string, mergedFile: string, canKeepBoth: (() => string) | undefined): void => {
    const p = plan(part);
    const exists = existsSync(liveFile);
    // Sizes first: media files can be large, and most that differ differ in size.
    const same = exists && statSync(liveFile).size === statSync(source).size && readFileSync(liveFile).equals(readFileSync(source));
    let target = liveFile;
    let merged = mergedFile;
    if (!exists) p.added++;
    else if (same) {
      p.same++;
      return;
    } else {
      p.conflicts++;
      if (mode === 'overwrite') p.overwritten++;
      else if (mode === 'keep-both' && canKeepBoth) {
        p.keptBoth++;
        target = canKeepBoth();
        merged = join(M, 'kept-both', String(files.length));
      } else {
        p.skipped++;
        return;
      }
    }
    mkdirSync(dirname(merged), { recursive: true, mode: 0o700 });
    copyFileSync(source, merged);
    files.push({ live: target, merged });
  };
  // What reaches every session needs the person's yes (decisions 0240, 0350): without
  // `approveInjected`, a convention or summary memory comes in disabled, and a plan, a one-shot
  // queue or a persona that would change ours is held back; the report names each.
  const approved = o.approveInjected === true;
  const heldLibrary: string[] = [];
  const heldPersona: string[] = [];
  for (const f of staged.libraryFiles()) {
    const [sub, name] = f.rel.split('/');
    if (sub === 'memories' && refs.forgotten(`library:${name.slice(0, -3)}`)) {
      plan('library').forgotten++;
      continue;
    }
    const liveFile = join(live.library, sub, name);
    let source = f.file;
    // One that is here already, byte for byte, was approved here (or is plain): left as it is.
    if (!approved && sub === 'memories' && !(existsSync(liveFile) && readFileSync(liveFile).equals(readFileSync(f.file)))) {
      const h = holdMemoryFile(readFileSync(f.file, 'utf8'));
      if (h.held) {
        heldLibrary.push(f.rel);
        if (h.text === undefined) {
          plan('library').skipped++;
          notes.push(importNote.memoryNotMarkable(name.slice(0, -3)));
          continue;
        }
        source = join(M, 'held', name);
        mkdirSync(dirname(source), { recursive: true, mode: 0o700 });
        writeFileSync(source, h.text, { mode: 0o600 });
      }
    }
    if (!approved && sub === 'pinned' && (name === 'plan.json' || name === 'once.json') && planInjects(name, readFileSync(f.file, 'utf8'))) {
      const same = existsSync(liveFile) && readFileSync(liveFile).equals(readFileSync(f.file));
      if (same) plan('library').same++;
      else if (existsSync(liveFile) && mode !== 'overwrite') {
        plan('library').conflicts++;
        plan('library').skipped++;
      } else {
        plan('library').skipped++;
        heldLibrary.push(f.rel);
      }
      continue;
    }
    fileItem('library', source, liveFile, join(M, 'library', sub, name), sub === 'memories' ? () => {
      const id = name.slice(0, -3);
      const to = freeName(id, 64, (n) => existsSync(join(live.library, 'memories', `${n}.md`)));
      renamed.library[id] = to;
      return join(live.library, 'memories', `${to}.md`);
    } : undefined);
  }
  for (const k of staged.knowledge()) {
    fileItem('knowledge', k.file, join(live.home, 'knowledge', k.name, 'content.md'), join(M, 'knowledge', k.name, 'content.md'), () => {
      const to = freeName(k.name, 64, (n) => existsSync(join(live.home, 'knowledge', n)));
      renamed.knowledge[k.name] = to;
      return join(live.home, 'knowledge', to, 'content.md');
    });
  }
  if (staged.has('persona.md')) {
    const theirs = join(staged.dir, 'persona.md');
    const here = existsSync(live.persona);
    const wouldChange = (!here || mode === 'overwrite') && !(here && readFileSync(live.persona).equals(readFileSync(theirs)));
    if (!approved && wouldChange) {
      plan('persona').skipped++;
      heldPersona.push('persona.md');
    } else fileItem('persona', theirs, live.persona, join(M, 'persona.md'), undefined);
  }
  if (heldLibrary.length) {
    plan('library').heldForApproval = heldLibrary;
    const memories = heldLibrary.filter((r) => r.startsWith('memories/')).length;
    if (memories) notes.push(importNote.memoriesDisabled(memories));
    if (heldLibrary.some((r) => r.startsWith('pinned/'))) notes.push(importNote.planHeld());
  }
  if (heldPersona.length) {
    plan('persona').heldForApproval = heldPersona;
    notes.push(importNote.personaHeld());
  }
  // A file the archive's logs name only in events left out as forgotten (a message sent with it)
  // stays out too: an export made before a forget brings back no file the forget deleted (decision 0370).
  const leftOutEvent = (e: SessionEvent) => (typeof e.turnId === 'string' && refs.forgotten(e.turnId, e.data?.redacted !== true)) || (typeof e.text === 'string' && e.text !== '' && textForgotten(e.text));
  const theirLogs = new Map(theirSessions.map((s) => [s.id, logLines(readFileSync(s.file, 'utf8')).filter((l) => l.type === 'event') as unknown as SessionEvent[]]));
  const forgottenMedia = new Set(filesOnlyOf(theirLogs, leftOutEvent, live.home).map((f) => relative(join(live.home, 'media'), f).split(sep).join('/')));
  for (const m of staged.media()) {
    if (forgottenMedia.has(m.rel)) {
      plan('media').forgotten++;
      continue;
    }
    fileItem('media', m.file, join(live.home, 'media', ...m.rel.split('/')), join(M, 'media', ...m.rel.split('/')), undefined);
  }

  // Lua adapters are code (decision 0540): never put into use by an import.
  const heldAdapters = holdAdapters({ adapters: staged.adapters(), liveDir: live.adapters, mergedDir: join(M, 'adapters'), plan: () => plan('adapters'), notes, files });

  // Settings: set through the registry after the swap (validated there); secrets never. Without
  // `privilegedSettings` an archive sets only what the agent's `config_set` may set (decision
  // 0350): not a privileged key, and none that this install's live `tool_protected_keys` protects
  // (the live list, not the archive's: the archive may carry one of its own).
  const settings: { key: string; value: unknown }[] = [];
  const leftOut: string[] = [];
  const known = new Map<string, ConfigKeyInfo>(o.config.list().map((i) => [i.key, i]));
  const protectedHere = protectedPatterns(known.get(PROTECTED_KEYS_SETTING)?.value);
  const theirSettings = staged.settings();
  // The person's own LLM sources first (decision 0540): a source new here is not known to the
  // registry until its name is listed, so its settings are checked and set apart from the rest.
  const sources = mergeSources({
    theirs: theirSettings,
    ours: known.get(CUSTOM_SOURCES_KEY)?.value,
    mode,
    privilegedSettings: o.privilegedSettings,
    adapterUsable: (n) => !heldAdapters.has(n) && adapterHere(live.adapters, n) !== undefined,
    heldAdapters,
    plan: () => plan('sources'),
    notes,
  });
  settings.push(...sources.settings);
  leftOut.push(...sources.privilegedLeftOut);
  for (const [key, value] of Object.entries(theirSettings)) {
    if (sources.handled.has(key)) continue;
    const p = plan('settings');
    const info = known.get(key);
    if (!info) {
      notes.push(importNote.settingUnknown(key));
      p.skipped++;
      continue;
    }
    if (info.secret) {
      notes.push(importNote.settingSecret(key));
      p.skipped++;
      continue;
    }
    if (INSTALL_LOCAL_SETTINGS.has(key)) {
      notes.push(importNote.settingPersonaPath(key));
      p.skipped++;
      continue;
    }
    if (!o.privilegedSettings && (info.privileged || isProtectedKey(key, protectedHere))) {
      leftOut.push(key);
      p.skipped++;
      continue;
    }
    if (JSON.stringify(info.value) === JSON.stringify(value)) {
      p.same++;
      continue;
    }
    // A source here is never pointed at an adapter this import held: that would put the archive's
    // code into use (with this install's key) the moment the person moved the file for another reason.
    if (ADAPTER_SETTING_RE.test(key) && typeof value === 'string' && heldAdapters.has(value)) {
      notes.push(importNote.settingAdapterHeld(key, value));
      p.skipped++;
      continue;
    }
    if (info.origin === 'stored' || info.origin === 'env' || info.origin === 'override') {
      p.conflicts++;
      if (mode !== 'overwrite') {
        p.skipped++;
        continue;
      }
      p.overwritten++;
    } else p.added++;
    settings.push({ key, value });
  }
  if (leftOut.length) plan('settings').privilegedLeftOut = leftOut;

  // Only the tombstones new here are recorded, and only they are applied to what is here (0320
  // review fix 2): one recorded here already is a forget made here (or an earlier import's, applied
  // then), which acted here exactly. (\`isForgotten\` is asked of a turn or item id; a ref is
  // compared with the ledger's own refs.)
  // The archive's turn-id tombstones are not among them (decision 0350, above).
  const have = new Set(theirTombs.length ? o.ledger.tombstones().map((t) => t.ref) : []);
  const tombstones = theirTombs.filter((t) => !t.ref.startsWith(TURN_STONE) && !have.has(t.ref) && !o.ledger.isForgotten(t.ref));
  if (forgottenTurns.here.size) notes.push(importNote.forgottenHereLeftOut(forgottenTurns.here.size));
  if (forgottenTurns.there.size) notes.push(importNote.forgottenThereLeftOut(forgottenTurns.there.size));
  if (theirTurnStones.size) notes.push(importNote.turnTombstones(theirTurnStones.size));
  if (theirTombs.length) {
    plan('tombstones').added = tombstones.length;
    // Those recorded here already (this install's own forgets, an archive of it imported back).
    plan('tombstones').same = theirTombs.filter((t) => !t.ref.startsWith(TURN_STONE) && (have.has(t.ref) || o.ledger.isForgotten(t.ref))).length;
  }
  const replacements = mergeReplacements({ theirs: staged.replacements(), landed, logs: theirLogs, refs, here: o.replacedHere ?? new Set(), plan: () => plan('replacements'), notes });
  for (const [from, to] of Object.entries(renamedSessions)) notes.push(importNote.sessionRenamed(from, to));
  return { files, settings, tombstones, replacements, sessionIds, report: { mode, parts, renamedSessions, renamed, notes } };
}
