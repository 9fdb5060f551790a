/**
 * Host services for the mini-host harness (used until / unless the real daemon can be started):
 * providers, config admin (persisted to a JSON file so a restart keeps values), plugin admin
 * (installs `.hmap` zips by reading their manifest), a small memory admin with a knowledge
 * graph, and a change tracker.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yauzl from 'yauzl';
import type { ChangeRecord, ConfigAdminService, MemoryAdminService, PendingPluginInstall, PluginAdminService, PluginInfo, ProviderAdminService } from '../../../src/spec/index.js';
import type { ConfigKeyInfo, ConfigValue, GraphEntity, GraphRelation } from '../../../src/spec/index.js';
import { NotFoundError, ValidationError } from '../../../src/spec/index.js';
import { knowledgeFileText } from '../../../src/media/index.js';

export function fakeProviders(opts: { configured: () => boolean }): ProviderAdminService {
  let order = ['openai', 'deepseek', 'anthropic', 'ollama'];
  const info = (name: string) => ({
    name,
    adapter: name === 'ollama' ? 'ollama' : name === 'anthropic' ? 'anthropic' : 'openai',
    model: { openai: 'gpt-4o-mini', deepseek: 'deepseek-chat', anthropic: 'claude-sonnet', ollama: 'qwen2.5' }[name] ?? '',
    baseUrl: { openai: 'https://api.openai.com/v1', deepseek: 'https://api.deepseek.com', anthropic: 'https://api.anthropic.com', ollama: 'http://127.0.0.1:11434' }[name] ?? '',
    enabled: true,
    configured: name === 'openai' && opts.configured(),
    state: (name === 'openai' && opts.configured() ? 'ready' : 'unconfigured') as 'ready' | 'unconfigured',
    consecutiveFailures: 0,
  });
  return {
    status: () => order.map(info),
    order: () => [...order],
    async setOrder(names) {
      if (names.some((n) => !order.includes(n))) throw new ValidationError('unknown source');
      order = [...names, ...order.filter((n) => !names.includes(n))];
    },
    async test(name) {
      return info(name).configured ? { ok: true, latencyMs: 12 } : { ok: false, latencyMs: 0, error: 'no API key' };
    },
    adapters: () => ['openai', 'openai-compatible', 'deepseek', 'anthropic', 'gemini', 'ollama', 'azure-openai', 'openai-responses'],
    async addSource(input) {
      const name = (input as { name?: unknown })?.name;
      if (typeof name !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,31}$/.test(name)) throw new ValidationError('invalid LLM source (name)');
      if (order.includes(name)) throw new ValidationError(`an LLM source named "${name}" already exists`);
      order = [...order, name];
      return info(name);
    },
    async updateSource(name) {
      if (!order.includes(name)) throw new NotFoundError('LLM source', name);
      return info(name);
    },
    async removeSource(name) {
      if (!order.includes(name)) throw new NotFoundError('LLM source', name);
      order = order.filter((n) => n !== name);
    },
    async models(name) {
      if (!order.includes(name)) throw new NotFoundError('LLM source', name);
      return { models: [info(name).model].filter(Boolean), declared: [] };
    },
    heldAdapters: () => [],
    heldAdapter(name) {
      throw new NotFoundError('held adapter', name);
    },
    async takeHeldAdapter(name) {
      throw new NotFoundError('held adapter', name);
    },
    async discardHeldAdapter(name) {
      throw new NotFoundError('held adapter', name);
    },
  };
}

interface KeyDef {
  default: ConfigValue;
  description: string;
  schema: Record<string, unknown>;
  secret?: boolean;
  env?: string;
}

const CORE_KEYS: Record<string, KeyDef> = {
  'core.agent.name': { default: 'HomeAgent', description: 'Name the agent uses for itself', schema: { type: 'string', minLength: 1, maxLength: 64 } },
  'core.agent.max_tool_rounds': { default: 8, description: 'Most LLM rounds with tool calls in one turn', schema: { type: 'integer', minimum: 1, maximum: 100 } },
  'core.agent.stream': { default: true, description: 'Stream LLM output to channels as it arrives', schema: { type: 'boolean' } },
  'core.agent.language': { default: 'auto', description: 'Reply language (BCP 47 tag or "auto")', schema: { type: 'string' } },
  'core.context.top_k': { default: 40, description: 'Events kept in the relevance context window', schema: { type: 'integer', minimum: 1, maximum: 1000 } },
  'core.memory.distill_interval': { default: '30m', description: 'How often conversation is distilled into memories (duration such as "30m")', schema: { type: 'string' } },
  'core.log.level': { default: 'info', description: 'Log level', schema: { type: 'string', enum: ['debug', 'info', 'warn', 'error'] } },
  'core.llm.openai.api_key': { default: '', description: 'API key of the OpenAI source', schema: { type: 'string' }, secret: true, env: 'OPENAI_API_KEY' },
  'core.llm.openai.model': { default: 'gpt-4o-mini', description: 'Model of the OpenAI source', schema: { type: 'string' } },
  'core.llm.deepseek.api_key': { default: '', description: 'API key of the DeepSeek source', schema: { type: 'string' }, secret: true, env: 'DEEPSEEK_API_KEY' },
};

function checkType(def: KeyDef, v: ConfigValue): void {
  const t = def.schema.type;
  if (t === 'boolean' && typeof v !== 'boolean') throw new ValidationError('expected a boolean');
  if ((t === 'integer' || t === 'number') && (typeof v !== 'number' || (t === 'integer' && !Number.isInteger(v)))) throw new ValidationError(`expected ${t === 'integer' ? 'an integer' : 'a number'}`);
  if (t === 'string' && typeof v !== 'string') throw new ValidationError('expected a string');
  if (typeof v === 'number' && typeof def.schema.minimum === 'number' && v < def.schema.minimum) throw new ValidationError(`must be ≥ ${def.schema.minimum}`);
  if (typeof v === 'number' && typeof def.schema.maximum === 'number' && v > def.schema.maximum) throw new ValidationError(`must be ≤ ${def.schema.maximum}`);
  if (Array.isArray(def.schema.enum) && !def.schema.enum.includes(v)) throw new ValidationError(`must be one of ${def.schema.enum.join(', ')}`);
}

export function fakeConfig(home: string, onChange: (key: string, value: ConfigValue) => void): ConfigAdminService & { value(key: string): ConfigValue } {
  const file = join(home, 'config.json');
  const stored: Record<string, ConfigValue> = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, ConfigValue>) : {};
  const save = () => writeFileSync(file, JSON.stringify(stored, null, 2));
  const info = (key: string): ConfigKeyInfo => {
    const def = CORE_KEYS[key];
    if (!def) throw new NotFoundError('config key', key);
    const value = key in stored ? stored[key] : def.default;
    return { key, value: def.secret && value ? '••••' : value, default: def.default, description: def.description, secret: !!def.secret, schema: def.schema, origin: key in stored ? 'stored' : 'default', env: def.env };
  };
  return {
    list: (prefix) => Object.keys(CORE_KEYS).filter((k) => !prefix || k.startsWith(prefix)).map(info),
    get: info,
    async set(key, value) {
      const def = CORE_KEYS[key];
      if (!def) throw new NotFoundError('config key', key);
      checkType(def, value);
      stored[key] = value;
      save();
      onChange(key, value);
    },
    async reset(key) {
      delete stored[key];
      save();
    },
    value: (key) => (key in stored ? stored[key] : CORE_KEYS[key]?.default ?? null),
  };
}

/** Reads plugin.json out of a `.hmap` zip. */
function readManifest(bytes: Uint8Array): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(bytes), { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(new ValidationError(`not a valid .hmap archive: ${err?.message ?? 'unreadable'}`));
      let found = false;
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.includes('..')) return reject(new ValidationError(`archive entry escapes the plugin folder: ${entry.fileName}`));
        if (/(^|\/)plugin\.json$/.test(entry.fileName)) {
          found = true;
          zip.openReadStream(entry, (e2, stream) => {
            if (e2 || !stream) return reject(new ValidationError('cannot read plugin.json'));
            const chunks: Buffer[] = [];
            stream.on('data', (c: Buffer) => chunks.push(c));
            stream.on('end', () => {
              try {
                resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
              } catch {
                reject(new ValidationError('plugin.json is not valid JSON'));
              }
              zip.close();
            });
          });
        } else zip.readEntry();
      });
      zip.on('end', () => {
        if (!found) reject(new ValidationError('the archive has no plugin.json'));
      });
      zip.readEntry();
    });
  });
}

export function fakePlugins(builtins: string[]): PluginAdminService {
  const pending = new Map<string, PendingPluginInstall>();
  const list = new Map<string, PluginInfo>(builtins.map((name) => [name, { name, kind: 'builtin', enabled: true, state: 'running', restarts: 0, lastHeartbeat: Date.now(), tools: name === 'memory-manager' ? ['library_search', 'library_read', 'library_save', 'library_annotate', 'library_link', 'library_plan'] : [] }]));
  const get = (n: string) => {
    const p = list.get(n);
    if (!p) throw new NotFoundError('plugin', n);
    return p;
  };
  return {
    list: () => [...list.values()].map((p) => ({ ...p })),
    get: (n) => list.get(n) && { ...list.get(n)! },
    async enable(n) {
      Object.assign(get(n), { enabled: true, state: 'running' });
    },
    async disable(n) {
      Object.assign(get(n), { enabled: false, state: 'disabled' });
    },
    async reload(n) {
      get(n).lastHeartbeat = Date.now();
    },
    async rescan() {
      return [];
    },
    async stage(bytes) {
      const m = await readManifest(bytes);
      if (typeof m.name !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(m.name)) throw new ValidationError('plugin.json: invalid name');
      const p: PendingPluginInstall = { name: m.name, version: String(m.version ?? '0.0.0'), description: String(m.description ?? ''), permissions: Array.isArray(m.permissions) ? m.permissions.map(String) : [], dependencies: [], settings: [], stagedAt: Date.now() };
      pending.set(p.name, p);
      return { ...p };
    },
    pending: () => [...pending.values()].map((p) => ({ ...p })),
    async confirmInstall(n) {
      const p = pending.get(n);
      if (!p) throw new ValidationError(`no pending install ${n}`);
      pending.delete(n);
      const info: PluginInfo = { name: p.name, kind: 'external', version: p.version, description: p.description, enabled: true, state: 'running', restarts: 0, lastHeartbeat: Date.now(), tools: [`${p.name.replace(/-/g, '_')}_greet`] };
      list.set(info.name, info);
      return { ...info };
    },
    async discardInstall(n) {
      pending.delete(n);
    },
    async uninstall(n) {
      list.delete(n);
    },
  };
}

export function fakeMemory(): MemoryAdminService {
  const names = ['小明', '上海', '咖啡', 'HomeAgent', 'TypeScript', 'SQLite', '周报', '跑步'];
  const entities: GraphEntity[] = names.map((name, i) => ({ id: i + 1, name, type: i === 0 ? 'person' : i === 1 ? 'place' : i < 4 ? 'thing' : 'topic', attributes: {} }) as GraphEntity);
  const rel = (id: number, subject: string, predicate: string, object: string, sentence: string): GraphRelation => ({ id, subject, predicate, object, confidence: 0.9, sentence });
  const relations = [
    rel(1, '小明', '住在', '上海', '我住在上海'),
    rel(2, '小明', '喜欢', '咖啡', '我喜欢咖啡'),
    rel(3, '小明', '使用', 'HomeAgent', '我每天用 HomeAgent'),
    rel(4, 'HomeAgent', '写于', 'TypeScript', 'HomeAgent is written in TypeScript'),
    rel(5, 'HomeAgent', '存储于', 'SQLite', 'graph.db is SQLite'),
    rel(6, '小明', '每周写', '周报', '每周五写周报'),
    rel(7, '小明', '爱好', '跑步', '周末去跑步'),
  ];
  const knowledge = new Map<string, { content: string; updatedAt: number }>([['家庭网络', { content: '# 家庭网络\n\n- 路由器：192.168.1.1\n- NAS 每晚 2 点备份', updatedAt: Date.now() - 3600_000 }]]);
  return {
    stats: async () => ({ contextEvents: 12, documents: 3, entities: entities.length, relations: relations.length, knowledge: knowledge.size }),
    context: async () => [],
    searchDocuments: async (q) => [{ tier: 'archive', id: 'doc-1', score: 0.8, text: `与「${q}」相关的归档对话`, createdAt: Date.now() - 86_400_000, sessionId: 'webui:demo', channel: 'webui', source: 'webui', kind: 'user', refs: ['webui:demo#1'], turnId: 'webui:demo#1' }],
    reindex: async () => ({ sessions: 0, totalSessions: 0, scanned: 0, added: 0 }),
    readMemory: async (tier, id) => ({ text: `与 ${id} 相关的${tier}`, meta: {} }),
    listDocuments: async () => [
      { id: 'doc-1', text: '用户说他住在上海，喜欢喝咖啡。', createdAt: Date.now() - 86_400_000, accessCount: 2 },
      { id: 'doc-2', text: 'We discussed the weekly report format.', createdAt: Date.now() - 2 * 86_400_000, accessCount: 0 },
    ],
    deleteDocument: async () => undefined,
    deleteRelation: async (id) => {
      const i = relations.findIndex((r) => r.id === id);
      if (i >= 0) relations.splice(i, 1);
    },
    correctRelation: async (id, object) => {
      const r = relations.find((x) => x.id === id);
      if (!r) throw new NotFoundError('fact', String(id));
      r.object = object;
      return r;
    },
    about: async (q) => ({
      facts: relations.filter((r) => q.names.includes(r.subject) || q.names.includes(r.object)).map((r) => ({ id: r.id, subject: r.subject, predicate: r.predicate, object: r.object, confidence: r.confidence, sources: [] })),
      documents: [],
    }),
    commitTriples: async (t) => t.length,
    editEntity: async (name, patch) => ({ id: 0, name: patch.name ?? name, type: patch.type ?? 'concept', attributes: patch.attributes ?? {} }),
    mergeEntities: async (keep, drop) => ({ kept: keep, removed: drop }),
    addDocument: async () => ({ id: 'doc-new' }),
    async graph(opts = {}) {
      let es = entities;
      if (opts.entity) {
        const keep = new Set([opts.entity]);
        for (let d = 0; d < (opts.depth ?? 1); d++) for (const r of relations) {
          if (keep.has(r.subject) || keep.has(r.object)) {
            keep.add(r.subject);
            keep.add(r.object);
          }
        }
        es = entities.filter((e) => keep.has(e.name));
      } else if (opts.query) es = entities.filter((e) => e.name.toLowerCase().includes(opts.query!.toLowerCase()) || relations.some((r) => (r.subject === e.name || r.object === e.name) && `${r.subject}${r.object}`.toLowerCase().includes(opts.query!.toLowerCase())));
      const set = new Set(es.map((e) => e.name));
      return { entities: es, relations: relations.filter((r) => set.has(r.subject) && set.has(r.object)) };
    },
    deleteEntity: async () => undefined,
    knowledgeList: async () => [...knowledge].map(([name, k]) => ({ name, updatedAt: k.updatedAt, size: k.content.length })),
    async knowledgeGet(name) {
      const k = knowledge.get(name);
      if (!k) throw new NotFoundError('knowledge', name);
      return { name, content: k.content, updatedAt: k.updatedAt };
    },
    knowledgePut: async (name, content) => void knowledge.set(name, { content, updatedAt: Date.now() }),
    knowledgeCreate: async (name, content) => {
      if ([...knowledge.keys()].some((k) => k.toLowerCase() === name.toLowerCase())) throw Object.assign(new Error(`knowledge entry "${name}" already exists`), { code: 'CONFLICT', details: { name } });
      knowledge.set(name, { content, updatedAt: Date.now() });
    },
    knowledgeDelete: async (name) => void knowledge.delete(name),
    knowledgeFileText: (bytes, file) => knowledgeFileText(bytes, file),
    knowledgeSearch: async (q) => [...knowledge].filter(([n, k]) => `${n}${k.content}`.includes(q)).map(([name, k]) => ({ name, score: 1, snippet: k.content.slice(0, 80) })),
  };
}

export function fakeChanges() {
  const list: ChangeRecord[] = [
    { id: 'ch-1', at: Date.now() - 600_000, op: 'write', path: '/home/user/notes/todo.md', tool: 'files_write', sizeBefore: 120, sizeAfter: 240, undone: false },
    { id: 'ch-2', at: Date.now() - 300_000, op: 'create', path: '/home/user/notes/weekly.md', tool: 'files_write', sizeAfter: 512, undone: false },
  ];
  return {
    list: () => list.map((c) => ({ ...c })),
    async undo(id: string) {
      const c = list.find((x) => x.id === id);
      if (!c) throw new NotFoundError('change', id);
      c.undone = true;
      return { ...c };
    },
  };
}
