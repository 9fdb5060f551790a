/**
 * Export and import of the whole memory (K-5): the contract the CLI, the WebUI and the daemon
 * share (`host.transfer`), and the seam through which an import asks what was forgotten (K-2).
 */

/** What an import does with an item that exists on both sides and differs. */
export const TRANSFER_MODES = ['skip', 'overwrite', 'keep-both'] as const;
export type TransferMode = (typeof TRANSFER_MODES)[number];

/**
 * The parts of an export, in the order an import applies them. `sources` (the person's own LLM
 * sources) travel inside `settings.json` and are reported apart; `adapters` are the Lua adapter
 * files of the data folder's `adapters/` (code: an import never puts one into use, decision 0540);
 * `replacements` say which turn a regenerate or an edit-and-resend replaced (decisions 0550, 0620).
 */
export const TRANSFER_PARTS = ['sessions', 'media', 'context', 'documents', 'archive', 'library', 'knowledge', 'persona', 'settings', 'sources', 'adapters', 'tombstones', 'replacements', 'graph'] as const;
export type TransferPart = (typeof TRANSFER_PARTS)[number];

/** Progress of a running export or import. */
export interface TransferProgress {
  /** `snapshot`, `pack`, `encrypt`, `receive`, `decrypt`, `verify`, `plan`, `apply`, `rollback`, `done`. */
  phase: string;
  part?: TransferPart;
  done: number;
  total: number;
}

/** Per part: how many items the archive holds (the manifest's `counts`). */
export type TransferCounts = Partial<Record<TransferPart, number>>;

/** The manifest as shown to a person (the file list left out). */
export interface TransferManifestSummary {
  format: string;
  formatVersion: number;
  homeagentVersion: string;
  createdAt: string;
  counts: TransferCounts;
  files: number;
  bytes: number;
  encrypted: boolean;
}

/** What an import did (or would do) with one part. */
export interface TransferPartPlan {
  /** New here: added. */
  added: number;
  /** The same on both sides: nothing to do. */
  same: number;
  /** Differ on both sides (what the mode decides). */
  conflicts: number;
  /** Conflicts kept as they are here (`skip`, or a part where two copies cannot coexist). */
  skipped: number;
  /** Conflicts replaced by the archive's copy (`overwrite`). */
  overwritten: number;
  /** Conflicts imported beside ours under a new id (`keep-both`). */
  keptBoth: number;
  /** Left out because they were forgotten (a tombstone here or in the archive). */
  forgotten: number;
  /**
   * Settings only: keys held back because only the person sets them (decision 0350) — privileged
   * keys, and those this install's `plugin.cfgmgr.tool_protected_keys` protects from `config_set`.
   * Import them with `privilegedSettings`.
   */
  privilegedLeftOut?: string[];
  /**
   * What waits for the person's yes. Library and persona: what would reach every session
   * (decision 0350): library memories (`memories/<id>.md`) imported disabled, plan files
   * (`pinned/plan.json`, `pinned/once.json`) and `persona.md` left out; take them with
   * `approveInjected` (or enable a memory in the library). Sources (decision 0540): the names of
   * LLM sources that came in disabled — the person enables each in the settings. Adapters: the
   * Lua adapters (`<name>.lua`) put in `adapters/imported/`, where nothing runs them — the person
   * reads one and moves it into `adapters/` to use it.
   */
  heldForApproval?: string[];
}

/** The plan (inspect) or the outcome (apply) of an import. */
export interface TransferReport {
  mode: TransferMode;
  parts: Partial<Record<TransferPart, TransferPartPlan>>;
  /** keep-both: sessions imported under a new id (theirs → new). */
  renamedSessions: Record<string, string>;
  /** keep-both: library memories and knowledge entries imported under a new name. */
  renamed: { library: Record<string, string>; knowledge: Record<string, string> };
  notes: string[];
}

/** A database an export left out because it is damaged (decision 0080, amended). */
export interface TransferLeftOut {
  part: 'documents' | 'archive' | 'graph';
  /** The damaged file, relative to the data folder (`documents/archive.db`). */
  file: string;
  /** SQLite's words for the damage. */
  error: string;
  /** What brings the part back, in words and commands (English; the WebUI says it from `part`). */
  recover: string;
}

/** A job of the transfer service, as the WebUI polls it. */
export interface TransferJobView {
  id: string;
  kind: 'export' | 'import';
  /** `running`; an import waits in `staged` for its passphrase / mode; then `done` or `failed`. */
  state: 'running' | 'staged' | 'done' | 'failed';
  progress: TransferProgress;
  startedAt: number;
  /** Import: whether the uploaded archive is encrypted (known once received). */
  encrypted?: boolean;
  manifest?: TransferManifestSummary;
  /** Import: the outcome once applied. */
  report?: TransferReport;
  /** Export: the archive's size and suggested file name once written. */
  file?: { name: string; bytes: number; sha256: string };
  /**
   * Export: databases left out because SQLite found them damaged while copying them — the rest
   * was exported. `file` is the damaged file, `recover` what to do about it.
   */
  leftOut?: TransferLeftOut[];
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

/** Options of an import. */
export interface ImportOptions {
  mode: TransferMode;
  passphrase?: string;
  /**
   * Also import settings only the person sets (privileged ones: programs, paths, endpoints,
   * listen addresses, allowlists, the protections themselves; and those `config_set` may not
   * change); off by default (decision 0350).
   */
  privilegedSettings?: boolean;
  /**
   * The person's yes to what the archive would put into every session — convention and session
   * summary memories, the injection plan and one-shot queue, the persona — after the inspect
   * report named them (`heldForApproval`); off by default (decision 0350).
   */
  approveInjected?: boolean;
  /**
   * Import although forget's tombstones are not in effect in this run (memory-control.db was set
   * aside at start): what was forgotten here may come back with the archive. Off by default (the
   * daemon refuses with TRANSFER_TOMBSTONES_LOST).
   */
  withoutTombstones?: boolean;
}

/** Something a job consumes as it goes (the CLI streams it as `progress` events). */
export type TransferProgressFn = (p: TransferProgress) => void;

/**
 * `host.transfer`: export and import of the whole memory. Exports and imports run one at a time;
 * an import is verified whole (checksums, versions, limits, passphrase) before it changes anything,
 * and applied with the agent and the memory loops held, with a rollback of every part on failure.
 */
export interface TransferService {
  /** Writes an export; to `file` (absolute path, written atomically) or into the daemon's export folder for download. */
  exportTo(opts: { file?: string; passphrase?: string }, onProgress?: TransferProgressFn): Promise<TransferJobView>;
  /** Starts an export in the background (the WebUI polls `job`). */
  startExport(opts: { passphrase?: string }): TransferJobView;
  /** The finished export of a job, to stream to the browser. */
  exportFile(id: string): { path: string; name: string; bytes: number };
  /**
   * Receives an archive (a file path of this machine, or bytes as they arrive, with their declared
   * length when known) into staging. An archive over the size limit, or one the data folder's disk
   * cannot take while keeping room free, is refused before a byte is written
   * (TRANSFER_TOO_LARGE, TRANSFER_NO_SPACE); a receipt that fails or is cut short leaves nothing.
   */
  stageImport(source: { file: string } | { stream: AsyncIterable<Uint8Array>; bytes?: number }): Promise<TransferJobView>;
  /** Opens (decrypts) and verifies a staged archive and returns what each mode would do; changes nothing. */
  inspectImport(id: string, opts: ImportOptions): Promise<TransferJobView>;
  /** Applies a staged import (verifying it first if needed). */
  applyImport(id: string, opts: ImportOptions, onProgress?: TransferProgressFn): Promise<TransferJobView>;
  /** Starts `applyImport` in the background (the WebUI polls `job`). */
  startImport(id: string, opts: ImportOptions): TransferJobView;
  job(id: string): TransferJobView;
  /**
   * True while an import is writing into the data folder (from holding the agent until the library
   * is read again): a memory file that changes meanwhile is the import's, not a hand edit.
   */
  applying?(): boolean;
  /** Throws a staged import or a finished export away. */
  discard(id: string): Promise<void>;
  /** Imports done here, newest first (what each did). */
  history(): Promise<{ id: string; at: number; file?: string; manifest: TransferManifestSummary; report: TransferReport }[]>;
}

/**
 * What forget (K-2) tells export and import: a forgotten turn must not come back through an
 * import, and an export carries the tombstones so that a folder restored from it keeps them.
 *
 * `ref` is a kernel turn id (`<session>#<n>`) or a context / document / archived row id; library
 * memories are `library:<id>`. The forget work provides the implementation; until it is wired, the daemon
 * passes none and nothing counts as forgotten.
 */
export interface ForgetLedger {
  /** True when this ref was forgotten here. */
  isForgotten(ref: string): boolean;
  /** Every tombstone, for an export. */
  tombstones(): readonly Tombstone[];
  /** Adds tombstones an import brought (what is here already is `applyToExisting`'s). */
  record(tombstones: readonly Tombstone[]): void | Promise<void>;
  /** Optional: true when this fact was forgotten (names compared case-insensitively by the provider). */
  isForgottenFact?(subject: string, predicate: string, object: string): boolean;
  /** Optional: true when this text (what a person said, a note) was forgotten; a turn that holds it goes whole. */
  isForgottenText?(text: string): boolean;
  /**
   * Optional: true when this message with this reply was forgotten (decision 0320): the turn that
   * holds both goes whole. A reply alone is not asked about: it is said in countless turns.
   */
  isForgottenPair?(message: string, reply: string): boolean;
  /**
   * Optional: after an import recorded tombstones, forgets what this install already held of them
   * (a forget made on the archive's install reaches the copy here). Counts of what went. `refs`:
   * the tombstones the import brought that were new here — only they are matched (a forget made
   * here acted here already, knowing the turn ids; matched again by text it would take more).
   */
  applyToExisting?(refs?: readonly string[]): Promise<{ turns: number; facts: number; documents: number } | undefined>;
  /** Optional: what `applyToExisting` would forget here once these tombstones are recorded (the import's preview). */
  previewExisting?(refs: readonly string[]): Promise<{ turns: number; facts: number; documents: number; files?: number }>;
}

/** One forgotten thing. */
export interface Tombstone {
  ref: string;
  /** When it was forgotten (ms). */
  at: number;
}

/** A finished replacement (decision 0550): `turnId` was said again as `byTurn`, which memory holds instead. */
export interface TransferReplacement {
  turnId: string;
  byTurn: string;
}

/**
 * What regenerate and edit-and-resend tell export and import (decision 0620): an export carries the
 * finished replacements, and an import records those of the archive's turns that it brings, so
 * the old copy of a replaced turn — in that archive, or in an older one imported before or after —
 * does not come back into memory here. `host.memory-control` provides it.
 */
export interface ReplacementLedger {
  /** Every finished replacement here, for an export. */
  list(): readonly TransferReplacement[];
  /**
   * Records replacements an import brought as finished ones and takes the old turns' copies out of
   * the tiers that are open (the tiers' next open sweeps them again). A turn replaced here already
   * keeps its own record. Idempotent; resolves with how many were new.
   */
  record(rows: readonly TransferReplacement[]): Promise<number>;
}
