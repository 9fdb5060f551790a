import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importNote, type ForgetLedger, type SessionEvent, type TransferMode, type TransferPart, type TransferPartPlan, type TransferReplacement, type TransferReport } from '../spec/index.js';
import type { MemorySystem } from '../memory/index.js';
import type { ConfigRegistry } from '../config/index.js';
import { mergeDocumentTiers } from './document-merge.js';
import { forgottenTurns } from './forgotten-turns.js';
import { mergeGraph } from './graph-merge.js';
import { mergeLibraryFiles } from './library-merge.js';
import { holdAdapters } from './llm-sources.js';
import { mergeMedia } from './media-merge.js';
import { emptyPlan, type LivePaths, type MergeContext, type SwapFile } from './merge-context.js';
import { mergeReplacements } from './replacement-merge.js';
import { mergeSessions } from './session-merge.js';
import { logLines } from './session-log-lines.js';
import { mergeSettings } from './settings-merge.js';
import type { StagedExport } from './staged-export.js';
import { mergeTombstones } from './tombstone-merge.js';

export type { LivePaths, SwapFile } from './merge-context.js';
export { archiveTurnFloors } from './archive-turn-floors.js';

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
  const { staged, mergedHome: M, mode } = o;
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
  const forgotten = forgottenTurns({ ledger: o.ledger, theirTombs, theirSessions, theirDocs, theirCtx, textForgotten, pairForgotten });
  const { refs } = forgotten;
  mkdirSync(M, { recursive: true, mode: 0o700 });
  const c: MergeContext = { staged, live: o.live, mergedHome: M, mode, ledger: o.ledger, memory: o.memory, config: o.config, refs, files, notes, plan, textForgotten, pairForgotten, noteLeftOut: forgotten.noteLeftOut };

  // Sessions first: a keep-both rename changes the refs of every other part.
  const { sessionIds, landed } = mergeSessions(c, theirSessions);
  const renamedSessions = Object.fromEntries(refs.sessions);
  await mergeDocumentTiers(c, theirDocs, theirCtx);
  const graph = mergeGraph(c);
  if (graph) parts.graph = graph;
  const renamed = mergeLibraryFiles(c, { approveInjected: o.approveInjected });
  const theirLogs = new Map(theirSessions.map((s) => [s.id, logLines(readFileSync(s.file, 'utf8')).filter((l) => l.type === 'event') as unknown as SessionEvent[]]));
  mergeMedia(c, theirLogs);
  // Lua adapters are code (decision 0540): never put into use by an import.
  const heldAdapters = holdAdapters({ adapters: staged.adapters(), liveDir: o.live.adapters, mergedDir: join(M, 'adapters'), plan: () => plan('adapters'), notes, files });
  const settings = mergeSettings(c, { privilegedSettings: o.privilegedSettings, heldAdapters });
  const tombstones = mergeTombstones(c, theirTombs, forgotten);
  const replacements = mergeReplacements({ theirs: staged.replacements(), landed, logs: theirLogs, refs, here: o.replacedHere ?? new Set(), plan: () => plan('replacements'), notes });
  for (const [from, to] of Object.entries(renamedSessions)) notes.push(importNote.sessionRenamed(from, to));
  return { files, settings, tombstones, replacements, sessionIds, report: { mode, parts, renamedSessions, renamed, notes } };
}
