import { z } from 'zod';
import { ConflictError, NotFoundError } from '../../sdk/index.js';
import { DisabledError, SetAsideError } from './errors.js';
import { assertMemoryId, MEMORY_ID_RE } from './memory-id.js';
import { assertNoImmutable, parseInput } from './memory-library.js';
import type { MemoryManager } from './memory-manager.js';

/** The request of one API call (`POST /api/memory-manager`). */
export interface ApiRequest {
  op: string;
  sessionId?: string;
  args: Record<string, unknown>;
}

type OpHandler = (m: MemoryManager, req: ApiRequest) => Promise<unknown>;

/** Ops answered while the master switch is off (M-10). */
export const OPS_WHEN_DISABLED = new Set(['state.get', 'state.setEnabled', 'diag.log']);

const id = z.string().regex(MEMORY_ID_RE, 'invalid memory id');
const sessionArg = (req: ApiRequest) => req.sessionId ?? req.args.sessionId;

const schemas = {
  setEnabled: z.object({ enabled: z.boolean() }),
  setMode: z.object({ mode: z.enum(['on', 'off']) }),
  diag: z.object({
    entries: z.array(z.object({ level: z.string().optional(), message: z.unknown().optional(), stack: z.string().optional(), context: z.unknown().optional() })).max(100).optional(),
    level: z.string().optional(),
    message: z.unknown().optional(),
    stack: z.string().optional(),
    context: z.unknown().optional(),
  }),
  list: z.object({ tag: z.string().optional(), enabledOnly: z.boolean().optional(), limit: z.number().int().min(0).max(5000).optional(), offset: z.number().int().min(0).optional(), order: z.enum(['updated', 'mru']).optional() }),
  idOnly: z.object({ id }),
  // forModel: the caller hands the result to a model (MCP), so memories an excluded turn sets aside are left out (decision 0440).
  search: z.object({ query: z.string().max(2000), limit: z.number().int().min(1).max(200).optional(), tag: z.string().optional(), forModel: z.boolean().optional() }),
  get: z.object({ id, forModel: z.boolean().optional() }),
  notes: z.object({ id, notes: z.string(), mode: z.enum(['replace', 'append']).optional() }),
  related: z.object({ id, depth: z.number().int().min(1).max(5).optional(), limit: z.number().int().min(1).max(500).optional() }),
  graph: z.object({ focus: id.optional(), hops: z.union([z.literal(1), z.literal(2)]).optional(), limit: z.number().int().min(1).max(2000).optional() }),
  pin: z.object({ role: z.enum(['user', 'assistant', 'system']).optional(), text: z.string().min(1).max(200_000) }),
  unpin: z.object({ id: z.string().min(1).max(100) }),
  injectOnce: z.object({ value: z.boolean() }),
  once: z.object({ text: z.string().min(1).max(200_000).optional(), memoryId: id.optional() }).refine((o) => (o.text === undefined) !== (o.memoryId === undefined), 'give exactly one of text or memoryId'),
  summarize: z.object({ lastN: z.number().int().min(1).max(10_000).optional(), merge: z.boolean().optional() }),
  turn: z.object({ turnId: z.string().min(1).max(400) }),
  preview: z.object({
    /** Limits to preview instead of the configured ones (the settings page while they are edited). */
    limits: z.object({ memoryChars: z.number().int().min(0).max(10_000_000), totalChars: z.number().int().min(0).max(10_000_000), pinChars: z.number().int().min(0).max(10_000_000) }).partial().optional(),
    /** Preview as if injection were on (mode off would inject nothing). */
    active: z.boolean().optional(),
    sessionId: z.string().optional(),
  }),
};

function args<T>(schema: z.ZodType<T>, req: ApiRequest): T {
  return parseInput(schema, req.args, req.op);
}

async function state(m: MemoryManager) {
  const cfg = m.cfg();
  const base = { enabled: cfg.enabled, mode: cfg.mode, view: cfg.view, modelTools: cfg.modelTools, autoInject: cfg.autoInject, libraryPath: m.libraryRoot(cfg), llmAvailable: safeLlm(m) };
  if (!cfg.enabled) return base;
  await m.ensureInjectionReady();
  const plan = m.plan.peek();
  const excluded = await m.plan.excluded();
  return {
    ...base,
    memories: m.library.all().length,
    plan: { pinned: plan.pinned.length, memories: plan.memories.length, injectOnce: plan.injectOnce },
    once: (await m.plan.once()).length,
    excludedTurns: Object.values(excluded).reduce((n, l) => n + l.length, 0),
  };
}

function safeLlm(m: MemoryManager): boolean {
  try {
    return m.sdk.llm().available();
  } catch {
    return false;
  }
}

/** Every op of M-11. */
export const API_OPS: Record<string, OpHandler> = {
  'state.get': (m) => state(m),
  'state.setEnabled': async (m, r) => {
    await m.setConfig({ enabled: args(schemas.setEnabled, r).enabled });
    return state(m);
  },
  'state.setMode': async (m, r) => {
    await m.setConfig({ mode: args(schemas.setMode, r).mode });
    return state(m);
  },
  'diag.log': async (m, r) => {
    const a = args(schemas.diag, r);
    const entries = a.entries ?? [{ level: a.level, message: a.message, stack: a.stack, context: a.context }];
    return m.clientLog.log(entries);
  },
  'config.get': async (m) => ({ ...m.cfg(), effectiveLibraryPath: m.libraryRoot() }),
  'config.set': async (m, r) => {
    const patch = r.args.patch ?? r.args;
    const cfg = await m.setConfig(patch);
    return { ...cfg, effectiveLibraryPath: m.libraryRoot() };
  },
  // The person's own view marks what an excluded turn sets aside from the model (decision 0440).
  'memory.list': async (m, r) => {
    const page = await m.library.list(args(schemas.list, r));
    return { ...page, items: await markSetAside(m, page.items) };
  },
  'memory.get': async (m, r) => {
    const id = assertMemoryId(r.args.id);
    const a = args(schemas.get, r);
    const aside = (await m.setAside([m.library.get(id)])).has(id);
    if (aside && a.forModel) throw new SetAsideError(id);
    const rec = await m.library.read(id);
    // Links and sources that name a memory no longer in the library (deleted, forgotten, a hand
    // edit): the panel shows them as gone instead of opening a "not found".
    const missing = [...new Set([...rec.links, ...rec.composedOf])].filter((x) => !m.library.get(x));
    return { ...rec, ...(aside ? { setAside: true } : {}), ...(missing.length ? { missing } : {}) };
  },
  'memory.search': async (m, r) => {
    const a = args(schemas.search, r);
    if (!a.forModel) return markSetAside(m, await m.library.search(a.query, a.limit ?? 20, { tag: a.tag }));
    const hits = await m.library.search(a.query, 200, { tag: a.tag });
    const aside = await m.setAside(hits.map((h) => m.library.get(h.id)));
    return hits.filter((h) => !aside.has(h.id)).slice(0, a.limit ?? 20);
  },
  'memory.save': async (m, r) => m.library.save(r.args),
  'memory.updateNotes': async (m, r) => {
    assertMemoryId(r.args.id);
    if ('snapshot' in r.args) throw new ConflictError('the snapshot of a memory is immutable', { field: 'snapshot' });
    const a = args(schemas.notes, r);
    return m.library.updateNotes(a.id, a.notes, a.mode);
  },
  'memory.updateMeta': async (m, r) => {
    const mid = assertMemoryId(r.args.id);
    const { id: _id, patch, ...rest } = r.args;
    const p = patch ?? rest;
    assertNoImmutable(p);
    const rec = await m.library.updateMeta(mid, p);
    const plan = m.plan.peek();
    if (plan.memories.some((x) => x.id === mid)) await m.plan.addMemory(rec);
    return rec;
  },
  'memory.delete': async (m, r) => {
    const mid = assertMemoryId(r.args.id);
    const res = await m.library.delete(mid);
    await m.plan.ready();
    if (m.plan.peek().memories.some((x) => x.id === mid)) await m.plan.removeMemory(mid);
    return res;
  },
  'memory.compose': async (m, r) => m.library.compose(r.args),
  'memory.related': async (m, r) => {
    const a = args(schemas.related, r);
    return m.library.related(a.id, a.depth ?? 2, a.limit ?? 20);
  },
  'memory.graph': async (m, r) => {
    if (r.args.focus !== undefined) assertMemoryId(r.args.focus, 'focus');
    return m.library.graph(args(schemas.graph, r));
  },
  'plan.get': async (m) => ({ ...(await m.plan.get()), excluded: await m.plan.excluded(), once: await m.plan.once() }),
  'plan.pin': async (m, r) => {
    const a = args(schemas.pin, r);
    return m.plan.pin(a.role ?? 'user', a.text);
  },
  'plan.unpin': async (m, r) => {
    await m.plan.unpin(args(schemas.unpin, r).id);
    return m.plan.get();
  },
  'plan.addMemory': async (m, r) => {
    const mid = assertMemoryId(r.args.id);
    const rec = await m.library.read(mid);
    if (!rec.enabled) throw new ConflictError(`memory ${mid} is disabled and cannot be added to the plan`, { id: mid });
    await m.plan.addMemory(rec);
    return m.plan.get();
  },
  'plan.removeMemory': async (m, r) => {
    await m.plan.removeMemory(args(schemas.idOnly, r).id);
    return m.plan.get();
  },
  'plan.setInjectOnce': async (m, r) => {
    await m.plan.setInjectOnce(args(schemas.injectOnce, r).value);
    return m.plan.get();
  },
  'plan.clear': async (m) => {
    await m.plan.clear();
    return m.plan.get();
  },
  'plan.preview': async (m, r) => {
    const sid = sessionArg(r);
    const a = args(schemas.preview, r);
    const res = await m.composeInjection({ sessionId: typeof sid === 'string' ? sid : undefined, consume: false, limits: a.limits, forceActive: a.active });
    return {
      block: res.block ?? null,
      chars: res.block ? Array.from(res.block).length : 0,
      active: res.active,
      autoInjected: res.autoInjected,
      used: res.budget.used,
      caps: res.budget.caps,
      items: res.budget.items.map(({ text: _t, ...rest }) => rest),
      dropped: res.budget.dropped,
    };
  },
  'once.push': async (m, r) => {
    const a = args(schemas.once, r);
    if (a.memoryId) {
      await m.library.ready();
      if (!m.library.get(a.memoryId)) throw new NotFoundError('memory', a.memoryId);
    }
    return m.plan.pushOnce(a);
  },
  'session.list': async (m) => (await m.sdk.sessions().list()).sort((a, b) => b.updatedAt - a.updatedAt),
  'session.turns': async (m, r) => m.turns(sessionArg(r)),
  'session.summarize': async (m, r) => {
    const a = args(schemas.summarize, r);
    const res = await m.summarize({ sessionId: sessionArg(r) as string, ...a });
    return { count: res.count, summaries: res.summaries.map((s) => m.library.summary(s)) };
  },
  'turn.exclude': async (m, r) => m.excludeTurn(sessionArg(r), args(schemas.turn, r).turnId),
  'turn.restore': async (m, r) => m.restoreTurn(sessionArg(r), args(schemas.turn, r).turnId),
};

/** Adds `setAside: true` to the items an excluded turn keeps from the model (decision 0440). */
async function markSetAside<T extends { id: string }>(m: MemoryManager, items: T[]): Promise<(T & { setAside?: true })[]> {
  const aside = await m.setAside(items.map((i) => m.library.get(i.id)));
  return aside.size ? items.map((i) => (aside.has(i.id) ? { ...i, setAside: true as const } : i)) : items;
}

/** Runs one op; throws the op's typed errors (the route turns them into envelopes). */
export async function runOp(m: MemoryManager, req: ApiRequest): Promise<unknown> {
  const handler = API_OPS[req.op];
  if (!handler) throw new NotFoundError('op', req.op);
  if (!m.cfg().enabled && !OPS_WHEN_DISABLED.has(req.op)) throw new DisabledError();
  // The WebUI, waiter and MCP read the library through here: what a forget finished at this start
  // still owes it goes first (decision 0420).
  await m.sdk.use('host.memory-control')?.settled?.('library');
  return handler(m, req);
}
