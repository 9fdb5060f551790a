import type { ConfigKeyInfo, ConfigValue } from './config.js';
import type { ProviderStatus } from './provider.js';
import type { HeldAdapterInfo, HeldAdapterSource, TakenAdapter } from './held-adapter.js';
import type { GraphEntity, GraphRelation, RecallHit, RecallTier } from './memory.js';
import type { HttpRoute } from './plugin.js';
import type { Disposer } from './tool.js';
import type { LinkedPerson, PeopleDirectory } from './people.js';
import type { ForgetLedger, TransferService } from './transfer.js';

/**
 * Services the host offers to built-in plugins through `sdk.use(name)` (P-7: webui, cli,
 * pluginmgr, cfgmgr, healthcheck reach the daemon only through these and the SDK).
 */

/** One plugin as the plugin manager sees it. */
export interface PluginInfo {
  name: string;
  kind: 'builtin' | 'external' | 'lua' | 'skill';
  version?: string;
  description?: string;
  enabled: boolean;
  state: 'stopped' | 'starting' | 'running' | 'failed' | 'crashed' | 'gave-up' | 'disabled';
  lastError?: string;
  restarts: number;
  lastHeartbeat?: number;
  tools: string[];
}

/**
 * A `.hmap` package that was unpacked and validated but not started: it waits for the person to
 * confirm it (WebUI dialog or `waiter plugins install`), showing what it is and what it asks for.
 */
export interface PendingPluginInstall {
  name: string;
  version: string;
  description?: string;
  /** Restricted-SDK permissions the manifest asks for. */
  permissions: string[];
  dependencies: string[];
  /** Setting keys the manifest declares. */
  settings: string[];
  /** The version installed now, when this package would replace it. */
  replaces?: string;
  /** Epoch ms when it was uploaded. */
  stagedAt: number;
}

export interface PluginAdminService {
  list(): PluginInfo[];
  get(name: string): PluginInfo | undefined;
  enable(name: string): Promise<void>;
  disable(name: string): Promise<void>;
  /**
   * Stops and starts a plugin again with its files re-read. A name not known yet is looked for as
   * a folder added since the start (`plugins/<name>`, `skills/<name>`) and started.
   */
  reload(name: string): Promise<void>;
  /** Picks up plugin and skill folders added since the start and starts them; returns their names. */
  rescan(): Promise<string[]>;
  /**
   * Unpacks and validates a `.hmap` archive (zip bytes) without running any of its code; it
   * waits as a pending install until {@link confirmInstall}. A newer upload of the same name
   * replaces the pending one.
   */
  stage(archive: Uint8Array): Promise<PendingPluginInstall>;
  /** Installs still waiting for confirmation. */
  pending(): PendingPluginInstall[];
  /** Installs and starts a pending package; a failed start leaves the previous version running. */
  confirmInstall(name: string): Promise<PluginInfo>;
  /** Discards a pending package. */
  discardInstall(name: string): Promise<void>;
  uninstall(name: string): Promise<void>;
}

/** The per-install secret of the local HTTP API (SPEC §9 Security), offered by the daemon as `host.auth`. */
export interface AuthService {
  /** The per-install secret clients present as `Authorization: Bearer <token>`. */
  token(): string;
  /**
   * The token the WebUI accepts now: the one the user configured (`plugin.webui.token`, needed to
   * bind beyond loopback) when set, else the per-install secret. What a sign-in link must carry.
   */
  signInToken(): string;
}

export interface ConfigAdminService {
  list(prefix?: string): ConfigKeyInfo[];
  get(key: string): ConfigKeyInfo;
  set(key: string, value: ConfigValue): Promise<void>;
  reset(key: string): Promise<void>;
}

export interface ProviderAdminService {
  status(): ProviderStatus[];
  order(): string[];
  setOrder(names: string[]): Promise<void>;
  /**
   * Sends a tiny request to one source; unknown name → NotFoundError. A failure carries `error`,
   * and `code` when it is known without asking (`PROVIDER_NO_KEY`: a hosted source has no key).
   */
  test(name: string): Promise<{ ok: boolean; latencyMs: number; error?: string; code?: string }>;
  adapters(): string[];
  /**
   * Adds a source: `{ name, label?, api?: 'openai' | 'anthropic', adapter?, baseUrl, apiKey?,
   * model?, models?, enabled?, options? }` (validated; the key is stored as a secret).
   */
  addSource(input: unknown): Promise<ProviderStatus>;
  /** Changes a source's settings (same fields but `name`; label/models only for added sources). */
  updateSource(name: string, patch: unknown): Promise<ProviderStatus>;
  /** Removes a source the person added (its key too); a seeded one → ValidationError. */
  removeSource(name: string): Promise<void>;
  /** The model ids the source's API lists, and the ones declared for it (no key → `PROVIDER_NO_KEY`). */
  models(name: string): Promise<{ models: string[]; declared: string[] }>;
  /** The Lua adapters an import held in `adapters/imported/` (decision 0620), where nothing runs them. */
  heldAdapters(): HeldAdapterInfo[];
  /** One held adapter with its code, to read before taking it (NotFoundError when there is none). */
  heldAdapter(name: string): HeldAdapterSource;
  /**
   * The person takes a held adapter into use: the file whose SHA-256 they were shown moves into
   * `adapters/` (ConflictError when it changed since, or when it would replace an adapter here
   * without `replace`). The person's act only: no agent or MCP tool calls it.
   */
  takeHeldAdapter(name: string, o: { sha256: unknown; replace?: boolean }): Promise<TakenAdapter>;
  /** The person discards a held adapter: the file whose SHA-256 they were shown is deleted from `adapters/imported/` (ConflictError when it changed since). */
  discardHeldAdapter(name: string, o: { sha256: unknown }): Promise<{ name: string; discarded: true }>;
}

/**
 * A store found corrupt when this process opened it: renamed to `file` (`*.corrupt-<time>`) and
 * replaced at `at` by a new one — empty, or (memory-control, config, graph: decisions 0280, 0310)
 * holding what could be read back of the old file (`salvaged`). The old file is kept.
 */
export interface SetAsideStore {
  /** `config`, `memory-control`, `documents`, `archive`, `graph`, `context` or `session-log` (one conversation's log). */
  store: string;
  /** Where the old file is now. */
  file: string;
  at: number;
  /** The command that brings its contents back, when there is one (`waiter memory reindex`). */
  recover?: string;
  /** What was read back of the old file into the new store. */
  salvaged?: StoreSalvage;
}

/** How the rows of one table of a damaged file fared in its salvage (decision 0310). */
export interface SalvageRows {
  /** Rows found on the readable pages of the old file (cells that did not decode count too). */
  read: number;
  /** Of those, rows in the new store. */
  kept: number;
  /**
   * Of those, rows left out: undecodable, not fitting their table's columns or the store's checks
   * (config: a setting that no longer fits its key), or refused by a constraint (a fact whose
   * entity was on an unreadable page).
   */
  skipped: number;
}

/**
 * What a store set aside as corrupt still gave back (decisions 0280, 0310): the rows read from the
 * readable pages of the old file into the new one — in total and by table of the old file — and
 * the pages that could not be read (what they held is lost; how many rows, nobody can say).
 * memory-control adds its forget tombstones (K-2), excluded turns (M-9) and history (K-3); config
 * names the settings it dropped.
 */
export interface StoreSalvage extends SalvageRows {
  /** Pages of the old file's tables that could not be read (rows on them are lost). */
  unreadablePages: number;
  /**
   * Pages a table pointed to that are on the old file's freelist (a stale inner page, a lost
   * write): skipped unread — their rows were deleted. Rows the stale page should have pointed to
   * instead are not reached. Absent: none (or a report from before decision 0310's amendment).
   */
  freePagesSkipped?: number;
  /** Why the old file's freelist could not be read whole (absent: it was); pages on its unread part are not known to be free. */
  freelistDamaged?: string;
  /** The counts by table of the old file (`config`, `config_<plugin>`, `people`, `relations`, `entities` …). */
  tables: Record<string, SalvageRows>;
  /** config: settings read back but dropped because they no longer fit their key (names only, never values). */
  droppedKeys?: string[];
  /** memory-control: forget tombstones read back (what they name stays forgotten). */
  tombstones?: number;
  /**
   * memory-control: tombstones that may be lost — 0 when every page of their table was read and
   * every row in it was valid; otherwise at most this many (what the unreadable pages could hold);
   * null when not even that is known (the table's root or an inner page could not be read).
   */
  tombstonesLostAtMost?: number | null;
  /** memory-control: excluded turns read back (they stay excluded, with what is held for them). */
  exclusions?: number;
  /** memory-control: history entries read back. */
  changes?: number;
}

/** memory-control's salvage report (decision 0280): the tombstone, exclusion and history counts are always there. */
export interface ControlStoreSalvage extends StoreSalvage {
  tombstones: number;
  tombstonesLostAtMost: number | null;
  exclusions: number;
  changes: number;
}

/** Kernel status and the live event stream (webui SSE, waiter status). */
export interface AgentStatusService {
  status(): {
    busy: boolean;
    /** The running turn; `speaker` (its speaker id) when it is someone's on a chat channel. */
    current?: { turnId: string; sessionId: string; speaker?: string };
    queued: number;
    startedAt: number;
    version: string;
    homeDir: string;
    pid: number;
    /** The daemon's V8 memory settings and its new space now (decision 0180): flags set, the young generation's bound (null: V8's own), sizes in bytes. */
    v8?: { flags: string[]; youngGenerationBound: number | null; newSpaceBytes: number; heapTotalBytes: number };
    /** Stores found corrupt and set aside at this start (empty when none). */
    setAside?: SetAsideStore[];
    /** The person's time zone as the daemon resolves it (`core.agent.timezone`, else this machine's; decision 0270): what a view prints days in. */
    timeZone?: string;
    /**
     * An import is being applied (decision 0380): messages sent meanwhile are kept and acknowledged
     * once it is in or undone — the WebUI says so while a send waits.
     */
    importing?: boolean;
  };
  /** Every bus event, for SSE. */
  onAny(fn: (event: string, payload: unknown) => void): Disposer;
  /** URLs that channel plugins publish (e.g. webui → http://127.0.0.1:8765). */
  endpoints(): Record<string, string>;
  setEndpoint(name: string, url: string | undefined): void;
}

/** Read/edit access to the memory tiers for the WebUI and `waiter memory …`. */
export interface MemoryAdminService {
  stats(): Promise<Record<string, unknown>>;
  context(): Promise<{ id: string; timestamp: number; kind: string; source: string; sessionId: string; input: string; response: string }[]>;
  /**
   * One recall over every tier (K-1): context window, documents, cold archive and graph facts,
   * best first, each hit with its provenance (tier, date, session, channel, speaker, turn).
   */
  searchDocuments(query: string, k?: number): Promise<RecallHit[]>;
  /**
   * Rebuilds the cold archive from the session logs (`waiter memory reindex`): what no tier holds
   * is archived. Idempotent; `onProgress` after each session.
   */
  reindex(onProgress?: (p: { sessions: number; totalSessions: number; scanned: number; added: number }) => void): Promise<{ sessions: number; totalSessions: number; scanned: number; added: number }>;
  /**
   * One memory by the tier and id a recall hit named (`graph`: `relation:<id>`): its text and where
   * it came from (a fact with the turns it cites). NotFoundError when it is gone.
   */
  readMemory(tier: RecallTier, id: string): Promise<{ text: string; meta: Record<string, unknown> }>;
  listDocuments(opts?: { limit?: number; offset?: number }): Promise<{ id: string; text: string; createdAt: number; accessCount: number }[]>;
  deleteDocument(id: string): Promise<void>;
  graph(opts?: { query?: string; entity?: string; depth?: number; limit?: number }): Promise<{ entities: GraphEntity[]; relations: GraphRelation[] }>;
  deleteEntity(name: string): Promise<void>;
  /** Writes triples into the graph (T-4 commit). Returns how many relations were stored. */
  commitTriples(triples: { subject: string; predicate: string; object: string; confidence?: number; subjectType?: string; objectType?: string }[]): Promise<number>;
  /** Renames / retypes an entity or replaces its attributes. */
  editEntity(name: string, patch: { name?: string; type?: string; attributes?: Record<string, unknown> }): Promise<GraphEntity>;
  /** Merges entity `drop` into `keep` (relations move over). */
  mergeEntities(keep: string, drop: string): Promise<{ kept: string; removed: string }>;
  /** Adds a document to the document tier (doc_commit). */
  addDocument(text: string, refs?: string[]): Promise<{ id: string }>;
  knowledgeList(): Promise<{ name: string; updatedAt: number; size: number }[]>;
  knowledgeGet(name: string): Promise<{ name: string; content: string; updatedAt: number }>;
  knowledgePut(name: string, content: string): Promise<void>;
  /** Only a new entry: a name taken, also in another letter case, is a ConflictError (409). */
  knowledgeCreate(name: string, content: string): Promise<void>;
  knowledgeDelete(name: string): Promise<void>;
  /**
   * The text of a file for a knowledge entry (the WebUI's "Add from file…"): Markdown and text
   * decoded, a PDF's text layer, HTML as readable text. A kind it does not read, a file without
   * text, or text over MAX_KNOWLEDGE_BYTES is a KnowledgeFileError; nothing is stored here.
   */
  knowledgeFileText(bytes: Uint8Array, file: { name: string; mimeType?: string }): Promise<{ kind: 'text' | 'pdf' | 'html'; text: string; pages?: number }>;
  knowledgeSearch(query: string, k?: number): Promise<{ name: string; score: number; snippet: string }[]>;
  /** Deletes one graph fact (`relation:<id>`'s number); NotFoundError when it is gone. */
  deleteRelation(id: number): Promise<void>;
  /**
   * The person corrects one graph fact's value ("you live in 杭州" → 上海): the fact keeps its sources
   * and its place in the timeline; the wrong value leaves the same mark a delete leaves, so the same
   * words distilled again do not bring it back. NotFoundError when it is gone.
   */
  correctRelation(id: number, object: string): Promise<GraphRelation>;
  /**
   * What the tiers hold about a person (issue 12 part 7): graph facts whose subject or object is
   * one of `names` (with the turns they came from and, where the graph keeps it, since/until),
   * and recent turns that mention a name or were said by one of `speakerIds`.
   */
  about(q: { names: string[]; speakerIds: string[]; limit?: number }): Promise<{ facts: AboutFact[]; documents: AboutSource[] }>;
}

/** Where something HomeAgent holds came from: a turn of a session, on a date (jump target of the WebUI). */
export interface AboutSource {
  tier: RecallTier;
  id: string;
  text: string;
  sessionId: string;
  turnId?: string;
  createdAt: number;
  channel?: string;
  speaker?: { id: string; name?: string };
  conversation?: { kind: string; id: string; title?: string };
}

/** A graph fact about a person, with its history (valid from/to, when the graph records it) and sources. */
export interface AboutFact {
  /** The relation id (`relation:<id>` as a recall hit names it). */
  id: number;
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  /** Since when the fact held (epoch ms), if the graph records it. */
  validFrom?: number;
  /** Until when it held (a superseded fact), if the graph records it. */
  validTo?: number;
  sources: AboutSource[];
  /**
   * When the person kept it while forgetting the turns it came from (epoch ms, decision 0520): it
   * cites no turn since, so `sources` holds none of them.
   */
  kept?: number;
}

/** Routes that plugins registered, for the webui server to mount. */
export interface RouteTableService {
  list(): (HttpRoute & { plugin: string })[];
  onChange(fn: () => void): Disposer;
}

/** The change tracker (C-13). */
export interface ChangeRecord {
  id: string;
  at: number;
  op: 'write' | 'delete' | 'create';
  path: string;
  tool?: string;
  turnId?: string;
  sizeBefore?: number;
  sizeAfter?: number;
  undone: boolean;
}
export interface ChangeTrackerService {
  list(opts?: { limit?: number }): ChangeRecord[];
  undo(id: string): Promise<ChangeRecord>;
}

/**
 * Proactive notices: a message to the owner that no turn produced — a health change, a
 * reminder that could not be answered — delivered through the owner's default channel
 * (`core.notify.channel`) without an LLM call, and recorded in the session `system:notices`.
 */
export interface NotifyService {
  /** The channel notices go to now (`undefined` when no channel is registered at all). */
  channel(): string | undefined;
  /** The registered output channels, for the settings page's choice of a default. */
  channels(): { name: string; caps: number; push: boolean; plugin: string; description: string }[];
  /** Delivers a notice; resolves with the channel used (undefined: none could take it, logged). */
  send(notice: { text: string; source: string; sessionId?: string; meta?: Record<string, unknown> }): Promise<{ channel?: string }>;
}

/**
 * The people registry (decision 0090) for the person's own surfaces: the WebUI, `waiter people`
 * and the local API. Privileged: no tool is built on it, so a prompt-injected model cannot link a
 * stranger's id to the owner.
 */
export interface PeopleAdminService {
  list(): LinkedPerson[];
  /** By person id, speaker id, name (case-insensitive) or `me`/`owner`. */
  find(ref: string): LinkedPerson | undefined;
  /** Links speaker ids into one person (see PeopleRegistry.link): ValidationError / ConflictError / NotFoundError. */
  link(ids: string[], opts?: { to?: string; name?: string; newPerson?: boolean }): LinkedPerson;
  unlink(speakerId: string): { person: LinkedPerson | undefined; removed: boolean };
  rename(personId: string, name: string): LinkedPerson;
  /** The conversations a turn's memory must stay inside (PeopleDirectory.scopeOf). */
  scopeOf: PeopleDirectory['scopeOf'];
}

declare module './plugin.js' {
  interface ServiceMap {
    'host.plugins': PluginAdminService;
    'host.config': ConfigAdminService;
    'host.providers': ProviderAdminService;
    'host.agent': AgentStatusService;
    'host.memory': MemoryAdminService;
    'host.routes': RouteTableService;
    'host.auth': AuthService;
    'host.notify': NotifyService;
    'host.people': PeopleAdminService;
    'host.transfer': TransferService;
    /**
     * Forget's tombstones (K-2), provided by the service that forgets: export carries them, import
     * leaves out what they name. Absent: nothing counts as forgotten.
     */
    'memory.tombstones': ForgetLedger;
    changes: ChangeTrackerService;
  }
}
