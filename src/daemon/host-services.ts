import type {
  AgentStatusService,
  ConfigAdminService,
  ConfigKeyInfo,
  ConfigValue,
  Disposer,
  HeldAdapterInfo,
  HeldAdapterSource,
  MediaService,
  MemoryAdminService,
  ProviderAdminService,
  ProviderStatus,
  SetAsideStore,
  TakenAdapter,
} from '../spec/index.js';
import { NotFoundError } from '../spec/index.js';
import type { Agent } from '../kernel/index.js';
import { v8MemoryStatus } from './v8-memory.js';
import { knowledgeFileText, type PdfReader } from '../media/index.js';

/** The config registry as the admin service needs it. */
export interface ConfigLike {
  list(prefix?: string): ConfigKeyInfo[];
  info(key: string): ConfigKeyInfo;
  set(key: string, value: ConfigValue): Promise<void>;
  reset(key: string): Promise<void>;
}

/** `host.config` over the registry (values of secrets come back masked). */
export function configAdmin(config: ConfigLike): ConfigAdminService {
  return {
    list: (prefix) => config.list(prefix),
    get: (key) => config.info(key),
    set: (key, value) => config.set(key, value),
    reset: (key) => config.reset(key),
  };
}

/** The provider manager as the admin service needs it. */
export interface ProvidersLike {
  status(): ProviderStatus[];
  order(): string[];
  setOrder(names: string[]): Promise<void>;
  testSource(name: string): Promise<{ ok: boolean; latencyMs: number; error?: string; code?: string }>;
  adapters(): string[];
  addSource(input: unknown): Promise<ProviderStatus>;
  updateSource(name: string, patch: unknown): Promise<ProviderStatus>;
  removeSource(name: string): Promise<void>;
  listModels(name: string): Promise<{ models: string[]; declared: string[] }>;
  heldAdapters(): HeldAdapterInfo[];
  heldAdapter(name: string): HeldAdapterSource;
  takeHeldAdapter(name: string, o: { sha256: unknown; replace?: boolean }): Promise<TakenAdapter>;
  discardHeldAdapter(name: string, o: { sha256: unknown }): Promise<{ name: string; discarded: true }>;
}

/** `host.providers` over the provider manager. */
export function providerAdmin(p: ProvidersLike): ProviderAdminService {
  return {
    status: () => p.status(),
    order: () => p.order(),
    setOrder: (names) => p.setOrder(names),
    test: (name) => p.testSource(name),
    adapters: () => p.adapters(),
    addSource: (input) => p.addSource(input),
    updateSource: (name, patch) => p.updateSource(name, patch),
    removeSource: (name) => p.removeSource(name),
    models: (name) => p.listModels(name),
    heldAdapters: () => p.heldAdapters(),
    heldAdapter: (name) => p.heldAdapter(name),
    takeHeldAdapter: (name, o) => p.takeHeldAdapter(name, o),
    discardHeldAdapter: (name, o) => p.discardHeldAdapter(name, o),
  };
}

/** `host.agent`: kernel status (with the stores set aside at this start), the live event stream and published endpoints. */
export function agentStatus(agent: Agent, info: { startedAt: number; version: string; homeDir: string; setAside?: () => SetAsideStore[]; timeZone?: () => string; importing?: () => boolean }): AgentStatusService {
  const endpoints = new Map<string, string>();
  return {
    status: () => ({ busy: agent.busy, current: agent.currentTurn, queued: agent.queued, startedAt: info.startedAt, version: info.version, homeDir: info.homeDir, pid: process.pid, v8: v8MemoryStatus(), setAside: info.setAside?.() ?? [], ...(info.timeZone ? { timeZone: info.timeZone() } : {}), importing: info.importing?.() ?? false }),
    onAny: (fn): Disposer => agent.bus.onAny(fn),
    endpoints: () => Object.fromEntries(endpoints),
    setEndpoint: (name, url) => {
      if (url) endpoints.set(name, url);
      else endpoints.delete(name);
    },
  };
}

/** What the memory admin service needs of the memory subsystem (structural, see src/memory). */
export interface MemoryLike {
  stats(): Promise<Record<string, unknown>> | Record<string, unknown>;
  contextEvents(): readonly { id: string; timestamp: number; kind: string; source: string; sessionId: string; input: string; response: string }[];
  searchDocuments: MemoryAdminService['searchDocuments'];
  reindex: MemoryAdminService['reindex'];
  readMemory: MemoryAdminService['readMemory'];
  listDocuments(limit: number, offset: number): Promise<{ id: string; text: string; createdAt: number; accessCount: number }[]>;
  deleteDocument(id: string): Promise<void>;
  graph(opts: { query?: string; entity?: string; depth?: number; limit?: number }): Promise<Awaited<ReturnType<MemoryAdminService['graph']>>>;
  deleteEntity(name: string): Promise<void>;
  deleteRelation: MemoryAdminService['deleteRelation'];
  correctRelation: MemoryAdminService['correctRelation'];
  about: MemoryAdminService['about'];
  commitTriples: MemoryAdminService['commitTriples'];
  editEntity: MemoryAdminService['editEntity'];
  mergeEntities: MemoryAdminService['mergeEntities'];
  addDocument: MemoryAdminService['addDocument'];
  knowledge: {
    list(): Promise<{ name: string; updatedAt: number; size: number }[]>;
    get(name: string): Promise<{ name: string; content: string; updatedAt: number } | undefined>;
    put(name: string, content: string): Promise<void>;
    /** Only a new entry: a name taken (also in another letter case) is a ConflictError. */
    create(name: string, content: string): Promise<void>;
    delete(name: string): Promise<void>;
    search(query: string, k: number): Promise<{ name: string; score: number; snippet: string }[]>;
  };
}

/** `host.memory` for the WebUI browsers and `waiter memory …`; a knowledge file's HTML is read by `html`, a PDF by `pdf` (the daemon's readers). */
export function memoryAdmin(m: MemoryLike, html?: MediaService, pdf?: PdfReader): MemoryAdminService {
  return {
    stats: async () => m.stats(),
    context: async () => m.contextEvents().map((e) => ({ id: e.id, timestamp: e.timestamp, kind: e.kind, source: e.source, sessionId: e.sessionId, input: e.input, response: e.response })),
    searchDocuments: (q, k = 10) => m.searchDocuments(q, k),
    reindex: (onProgress) => m.reindex(onProgress),
    readMemory: (tier, id) => m.readMemory(tier, id),
    listDocuments: (o = {}) => m.listDocuments(o.limit ?? 50, o.offset ?? 0),
    deleteDocument: (id) => m.deleteDocument(id),
    graph: (o = {}) => m.graph(o),
    deleteEntity: (name) => m.deleteEntity(name),
    deleteRelation: (id) => m.deleteRelation(id),
    correctRelation: (id, object) => m.correctRelation(id, object),
    about: (q) => m.about(q),
    commitTriples: (t) => m.commitTriples(t),
    editEntity: (name, patch) => m.editEntity(name, patch),
    mergeEntities: (keep, drop) => m.mergeEntities(keep, drop),
    addDocument: (text, refs) => m.addDocument(text, refs),
    knowledgeList: () => m.knowledge.list(),
    knowledgeGet: async (name) => {
      const e = await m.knowledge.get(name);
      if (!e) throw new NotFoundError('knowledge entry', name);
      return e;
    },
    knowledgePut: (name, content) => m.knowledge.put(name, content),
    knowledgeCreate: (name, content) => m.knowledge.create(name, content),
    knowledgeDelete: (name) => m.knowledge.delete(name),
    knowledgeFileText: (bytes, file) => knowledgeFileText(bytes, file, { html, pdf }),
    knowledgeSearch: (q, k = 10) => m.knowledge.search(q, k),
  };
}
