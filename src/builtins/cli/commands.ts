import type { PluginSDK, ServiceMap } from '../../sdk/index.js';
import type { CliRequest, CliStreamEvent, ConfigKeyInfo, ForgetRequest } from '../../spec/index.js';
import { ConflictError, NotFoundError } from '../../spec/index.js';
import { ProtocolError } from '../../spec/index.js';
import { attachments, str } from './protocol-schema.js';
import { turnInjections } from './turn-sources.js';
import { gatherAbout } from '../shared/index.js';

/** Sends a stream event for the request being handled. */
export type StreamFn = (event: CliStreamEvent['event'], data: Record<string, unknown>) => void;

function need<K extends keyof ServiceMap>(sdk: PluginSDK, name: K): ServiceMap[K] {
  const s = sdk.use(name);
  if (!s) throw new NotFoundError('service', `${String(name)} (that subsystem is not running)`);
  return s;
}

function num(args: Record<string, unknown> | undefined, key: string, fallback: number): number {
  const v = args?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function strList(args: Record<string, unknown> | undefined, key: string): string[] {
  const v = args?.[key];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new ProtocolError(`argument "${key}" must be a list of strings`);
  return v as string[];
}

/** A forget request from socket arguments (shapes are checked again by the memory control). */
function forgetArgs(a: Record<string, unknown> | undefined, withQuery: boolean): ForgetRequest {
  const out: ForgetRequest = {};
  if (withQuery && typeof a?.query === 'string') out.query = a.query;
  for (const k of ['turnIds', 'relationIds', 'documents', 'memoryIds', 'keepTurnIds', 'keepRelationIds'] as const) if (a?.[k] !== undefined) (out as Record<string, unknown>)[k] = a[k];
  return out;
}

function optStr(args: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = args?.[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new ProtocolError(`argument "${key}" must be a string`);
  return v;
}

/** Calls the memory-manager's HTTP API in process (the same handler the WebUI uses). */
async function library(sdk: PluginSDK, args: Record<string, unknown> | undefined): Promise<unknown> {
  const route = need(sdk, 'host.routes')
    .list()
    .find((r) => r.method === 'POST' && r.path === '/api/memory-manager');
  if (!route) throw new NotFoundError('plugin', 'memory-manager (not running)');
  const body = JSON.stringify({ op: str(args, 'op'), sessionId: args?.sessionId, args: args?.args ?? {} });
  const res = await route.handler(new Request('http://homed.local/api/memory-manager', { method: 'POST', body, headers: { 'content-type': 'application/json' } }), {});
  const json = (await res.json()) as { ok: boolean; value: unknown };
  if (!json.ok) {
    const v = json.value as { error?: string; code?: string } | undefined;
    throw new ProtocolError(v?.error ?? 'library operation failed', { code: v?.code });
  }
  return json.value;
}

/** Runs one command; `stream` sends progress events for `send`. */
/**
 * A `config set`/`reset` answer: the key's info, plus a `warning` when a value fixed for this run
 * (`homed --port`) hides the stored one — the change is kept but does not take effect until a
 * start without that flag, and the answer (showing `origin: override`) must not look like success.
 * Env vars need no warning: a stored value wins over them.
 */
function withOverrideWarning(info: ConfigKeyInfo, value: unknown, op: 'set' | 'reset'): ConfigKeyInfo & { warning?: string } {
  if (info.origin !== 'override') return info;
  const by = info.overriddenBy ?? 'a command-line flag of this run';
  const shown = (v: unknown) => (info.secret ? 'the new value' : JSON.stringify(v));
  const what = op === 'set' ? `${shown(value)} is stored` : 'the stored value is removed';
  return { ...info, warning: `${what}, but it does not take effect now: this run's ${by} ${info.secret ? '' : `(${JSON.stringify(info.value)}) `}overrides ${info.key}. It applies from the next start without ${by}.` };
}

/**
 * The chat channels' own states (a plugin `running` may have a revoked token): each serves it at
 * `GET /api/v1/channels/<name>` as `{ status, detail? }`, the route the WebUI's Channels page reads.
 */
async function channelStates(sdk: PluginSDK): Promise<{ name: string; status: string; detail?: string }[]> {
  const out: { name: string; status: string; detail?: string }[] = [];
  for (const r of sdk.use('host.routes')?.list() ?? []) {
    const m = /^\/api\/v1\/channels\/([a-z0-9_-]+)$/.exec(r.path);
    if (r.method !== 'GET' || !m) continue;
    try {
      const res = await r.handler(new Request(`http://homed.local${r.path}`), {});
      const v = ((await res.json()) as { value?: { status?: unknown; detail?: unknown } }).value;
      if (typeof v?.status === 'string') out.push({ name: m[1], status: v.status, ...(typeof v.detail === 'string' && v.detail ? { detail: v.detail } : {}) });
    } catch {
      // A channel whose status cannot be read is left out; its plugin's state still shows.
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export async function runCommand(sdk: PluginSDK, req: CliRequest, stream: StreamFn): Promise<unknown> {
  const a = req.args;
  switch (req.cmd) {
    case 'hello':
      return { service: 'homed', protocol: req.v };
    case 'status': {
      const agent = need(sdk, 'host.agent');
      const providers = sdk.use('host.providers');
      const plugins = sdk.use('host.plugins');
      return {
        ...agent.status(),
        endpoints: agent.endpoints(),
        providers: providers?.status().map((p) => ({ name: p.name, state: p.state, model: p.model, configured: p.configured })) ?? [],
        llmAvailable: sdk.llm().available(),
        plugins: plugins?.list().map((p) => ({ name: p.name, kind: p.kind, state: p.state })) ?? [],
        channels: await channelStates(sdk),
      };
    }
    case 'webui.sign-in': {
      // The socket is 0600 in a 0700 folder: whoever reaches it is the user, who may hold the token.
      const url = need(sdk, 'host.agent').endpoints().webui;
      if (!url) throw new ProtocolError('the WebUI is not running (see logs/homed.log)');
      return { url, token: need(sdk, 'host.auth').signInToken() };
    }
    case 'send': {
      const files = attachments(a);
      const text = str(a, 'text', !files?.length);
      const sessionId = typeof a?.sessionId === 'string' && a.sessionId ? a.sessionId : 'cli:default';
      const wantStream = a?.stream !== false;
      const disposers: (() => void)[] = [];
      const ticket = sdk.injectInput({ sessionId, source: 'cli', channel: 'cli', text, attachments: files });
      const mine = (t: string) => t === ticket.turnId || t.startsWith(`${ticket.turnId}/`);
      if (wantStream) {
        disposers.push(sdk.subscribe('turn_start', (e) => mine(e.turnId) && stream('turn_start', { turnId: e.turnId, sessionId: e.sessionId })));
        disposers.push(sdk.subscribe('turn_delta', (e) => mine(e.turnId) && stream(e.kind === 'text' ? 'delta' : 'reasoning', { text: e.text, round: e.round })));
        disposers.push(sdk.subscribe('tool_start', (e) => mine(e.turnId) && stream('tool_start', { name: e.call.name, arguments: e.call.arguments, round: e.round })));
        disposers.push(sdk.subscribe('tool_end', (e) => mine(e.turnId) && stream('tool_end', { name: e.call.name, result: e.result.slice(0, 2000), error: e.error, rejected: e.rejected })));
        disposers.push(sdk.subscribe('agent_llm_chain', (e) => mine(e.turnId) && stream('llm_round', { round: e.round, provider: e.provider, model: e.model, toolCalls: e.toolCalls.length, latencyMs: e.latencyMs })));
      }
      if (a?.wait === false) {
        disposers.forEach((d) => d());
        await ticket.accepted;
        return { turnId: ticket.turnId, sessionId, queued: true };
      }
      try {
        return await ticket.done;
      } finally {
        disposers.forEach((d) => d());
      }
    }
    case 'interrupt': {
      const sessionId = typeof a?.sessionId === 'string' ? a.sessionId : undefined;
      const text = str(a, 'text');
      // Nothing running: the text would start a turn whose answer `interrupt` never shows. Said,
      // with the command that sends a message and prints its answer.
      const st = sdk.use('host.agent')?.status();
      // It joins the running turn when that is the session named — or, naming none, when the turn
      // is the owner's (someone's chat-app turn is not interrupted by the owner's words, 0360).
      const joins = !!st?.current && (sessionId !== undefined ? st.current.sessionId === sessionId : !st.current.speaker);
      if (st && !joins) {
        throw new ConflictError(`${sessionId ? `nothing is running in ${sessionId}` : 'no turn of yours is running'} to interrupt: to send it as a message, use waiter send${sessionId ? ` -s ${sessionId}` : ''} <text>`, { sessionId: sessionId ?? null });
      }
      sdk.injectInterrupt({ sessionId, source: 'cli', text });
      return { delivered: true, turnId: st?.current?.turnId };
    }
    case 'sessions.list':
      return sdk.sessions().list();
    case 'sessions.show': {
      const id = str(a, 'id');
      const info = await sdk.sessions().get(id);
      if (!info) throw new NotFoundError('session', id);
      return { session: info, events: await sdk.sessions().events(id, { limit: num(a, 'limit', 200) }) };
    }
    case 'config.get':
      return need(sdk, 'host.config').get(str(a, 'key'));
    case 'config.set': {
      const key = str(a, 'key');
      await need(sdk, 'host.config').set(key, a?.value as never);
      return withOverrideWarning(need(sdk, 'host.config').get(key), a?.value, 'set');
    }
    case 'config.reset': {
      const key = str(a, 'key');
      await need(sdk, 'host.config').reset(key);
      return withOverrideWarning(need(sdk, 'host.config').get(key), undefined, 'reset');
    }
    case 'config.list':
      return need(sdk, 'host.config').list(typeof a?.prefix === 'string' ? a.prefix : undefined);
    case 'providers.list':
      return { order: need(sdk, 'host.providers').order(), sources: need(sdk, 'host.providers').status(), adapters: need(sdk, 'host.providers').adapters() };
    case 'providers.order': {
      const names = a?.names;
      if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) throw new ProtocolError('argument "names" must be a list of source names');
      await need(sdk, 'host.providers').setOrder(names as string[]);
      return need(sdk, 'host.providers').order();
    }
    case 'providers.test':
      return need(sdk, 'host.providers').test(str(a, 'name'));
    case 'providers.add':
      return need(sdk, 'host.providers').addSource(a?.source);
    case 'providers.update':
      return need(sdk, 'host.providers').updateSource(str(a, 'name'), a?.patch ?? {});
    case 'providers.remove':
      await need(sdk, 'host.providers').removeSource(str(a, 'name'));
      return { removed: str(a, 'name') };
    case 'providers.models':
      return need(sdk, 'host.providers').models(str(a, 'name'));
    // Held adapters (decision 0620): listed, read (`name`: with its code), and taken by the person.
    case 'providers.held':
      return typeof a?.name === 'string' ? need(sdk, 'host.providers').heldAdapter(a.name) : need(sdk, 'host.providers').heldAdapters();
    case 'providers.discard':
      return need(sdk, 'host.providers').discardHeldAdapter(str(a, 'name'), { sha256: a?.sha256 });
    case 'providers.take':
      return need(sdk, 'host.providers').takeHeldAdapter(str(a, 'name'), { sha256: a?.sha256, replace: a?.replace === true });
    case 'plugins.list':
      return need(sdk, 'host.plugins').list();
    case 'plugins.enable':
      await need(sdk, 'host.plugins').enable(str(a, 'name'));
      return need(sdk, 'host.plugins').get(str(a, 'name'));
    case 'plugins.disable':
      await need(sdk, 'host.plugins').disable(str(a, 'name'));
      return need(sdk, 'host.plugins').get(str(a, 'name'));
    case 'plugins.reload':
      await need(sdk, 'host.plugins').reload(str(a, 'name'));
      return need(sdk, 'host.plugins').get(str(a, 'name'));
    case 'plugins.rescan': {
      const found = await need(sdk, 'host.plugins').rescan();
      return { found, plugins: need(sdk, 'host.plugins').list().filter((p) => found.includes(p.name)) };
    }
    case 'plugins.install':
      // Unpacked and validated only: `waiter` shows what it is and asks before plugins.confirm.
      return need(sdk, 'host.plugins').stage(Buffer.from(str(a, 'data'), 'base64'));
    case 'plugins.pending':
      return need(sdk, 'host.plugins').pending();
    case 'plugins.confirm':
      return need(sdk, 'host.plugins').confirmInstall(str(a, 'name'));
    case 'plugins.discard':
      await need(sdk, 'host.plugins').discardInstall(str(a, 'name'));
      return { discarded: str(a, 'name') };
    case 'memory.stats':
      return need(sdk, 'host.memory').stats();
    case 'memory.context':
      return need(sdk, 'host.memory').context();
    case 'memory.docs':
      return need(sdk, 'host.memory').listDocuments({ limit: num(a, 'limit', 50), offset: num(a, 'offset', 0) });
    case 'memory.search':
      return need(sdk, 'host.memory').searchDocuments(str(a, 'query'), num(a, 'limit', 10));
    case 'memory.graph':
      return need(sdk, 'host.memory').graph({ query: typeof a?.query === 'string' ? a.query : undefined, entity: typeof a?.entity === 'string' ? a.entity : undefined, depth: num(a, 'depth', 2), limit: num(a, 'limit', 100) });
    case 'memory.delete-doc':
      await need(sdk, 'host.memory').deleteDocument(str(a, 'id'));
      return { deleted: str(a, 'id') };
    case 'memory.delete-entity':
      await need(sdk, 'host.memory').deleteEntity(str(a, 'name'));
      return { deleted: str(a, 'name') };
    case 'memory.commit': {
      const triples = a?.triples;
      if (!Array.isArray(triples) || triples.length === 0) throw new ProtocolError('argument "triples" must be a non-empty list of {subject, predicate, object}');
      return { stored: await need(sdk, 'host.memory').commitTriples(triples as never) };
    }
    case 'memory.edit-entity': {
      const patch = (a?.patch ?? {}) as Record<string, unknown>;
      if (typeof patch !== 'object' || Array.isArray(patch)) throw new ProtocolError('argument "patch" must be an object');
      return need(sdk, 'host.memory').editEntity(str(a, 'name'), patch as never);
    }
    case 'memory.merge':
      return need(sdk, 'host.memory').mergeEntities(str(a, 'keep'), str(a, 'drop'));
    case 'memory.why':
      return turnInjections(sdk, str(a, 'turn'));
    case 'memory.reindex':
      return need(sdk, 'host.memory').reindex((p) => stream('progress', { ...p }));
    case 'memory.forget-preview':
      return need(sdk, 'host.memory-control').forgetPreview(forgetArgs(a, true));
    case 'memory.forget':
      return need(sdk, 'host.memory-control').forget(forgetArgs(a, false), { actor: 'user', tool: 'waiter' });
    case 'memory.history':
      return need(sdk, 'host.memory-control').history({
        subject: typeof a?.subject === 'string' ? a.subject : undefined,
        target: typeof a?.target === 'string' ? a.target : undefined,
        limit: num(a, 'limit', 50),
      });
    case 'memory.undo':
      return need(sdk, 'host.memory-control').undo(str(a, 'id'), { actor: 'user', tool: 'waiter' });
    case 'memory.exclude':
      return need(sdk, 'host.memory-control').exclude(strList(a, 'turnIds'), { actor: 'user', tool: 'waiter' });
    case 'memory.restore':
      return need(sdk, 'host.memory-control').restore(strList(a, 'turnIds'), { actor: 'user', tool: 'waiter' });
    case 'memory.add-doc':
      return need(sdk, 'host.memory').addDocument(str(a, 'text'));
    case 'knowledge.list':
      return need(sdk, 'host.memory').knowledgeList();
    case 'knowledge.get':
      return need(sdk, 'host.memory').knowledgeGet(str(a, 'name'));
    case 'knowledge.put': {
      // The entry's text is the caller's own: answered with what was stored, not the text again.
      // `create`: a new entry only (a name taken, in any letter case, is a CONFLICT) — `waiter
      // knowledge put` without --replace, as the WebUI's "Add" refuses to write over an entry.
      if (a?.create === true) await need(sdk, 'host.memory').knowledgeCreate(str(a, 'name'), str(a, 'content'));
      else await need(sdk, 'host.memory').knowledgePut(str(a, 'name'), str(a, 'content'));
      const e = await need(sdk, 'host.memory').knowledgeGet(str(a, 'name'));
      return { name: e.name, updatedAt: e.updatedAt, characters: [...e.content].length };
    }
    case 'knowledge.search':
      return need(sdk, 'host.memory').knowledgeSearch(str(a, 'query'), num(a, 'limit', 10));
    case 'knowledge.delete':
      await need(sdk, 'host.memory').knowledgeDelete(str(a, 'name'));
      return { deleted: str(a, 'name') };
    case 'library':
      return library(sdk, a);
    case 'memory.delete-fact': {
      const id = str(a, 'id').replace(/^(relation:|#)/, '');
      if (!/^\d{1,15}$/.test(id)) throw new ProtocolError(`not a fact id: ${id.slice(0, 40)}`);
      await need(sdk, 'host.memory').deleteRelation(Number(id));
      return { deleted: Number(id) };
    }
    case 'memory.correct-fact': {
      const id = str(a, 'id').replace(/^(relation:|#)/, '');
      if (!/^\d{1,15}$/.test(id)) throw new ProtocolError(`not a fact id: ${id.slice(0, 40)}`);
      return { corrected: await need(sdk, 'host.memory').correctRelation(Number(id), str(a, 'object')) };
    }
    case 'memory.about':
      return gatherAbout(sdk, typeof a?.person === 'string' ? a.person : undefined);
    case 'people.list':
      return need(sdk, 'host.people').list();
    case 'people.link': {
      const ids = a?.ids;
      if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')) throw new ProtocolError('argument "ids" must be a list of speaker ids');
      return need(sdk, 'host.people').link(ids as string[], { to: typeof a?.to === 'string' ? a.to : undefined, name: typeof a?.name === 'string' ? a.name : undefined });
    }
    case 'people.unlink':
      return need(sdk, 'host.people').unlink(str(a, 'id'));
    case 'people.rename': {
      const people = need(sdk, 'host.people');
      const ref = str(a, 'person');
      const p = people.find(ref);
      if (!p) throw new NotFoundError('person', ref);
      return people.rename(p.id, str(a, 'name'));
    }
    case 'changes.list':
      return need(sdk, 'changes').list({ limit: num(a, 'limit', 50) });
    case 'changes.undo':
      return need(sdk, 'changes').undo(str(a, 'id'));
    case 'transfer.export':
      return need(sdk, 'host.transfer').exportTo({ file: str(a, 'file'), passphrase: optStr(a, 'passphrase') }, (p) => stream('progress', { ...p }));
    case 'transfer.import': {
      const t = need(sdk, 'host.transfer');
      const opts = { mode: (optStr(a, 'mode') ?? 'skip') as 'skip', passphrase: optStr(a, 'passphrase'), privilegedSettings: a?.privilegedSettings === true, approveInjected: a?.approveInjected === true, withoutTombstones: a?.withoutTombstones === true };
      const job = await t.stageImport({ file: str(a, 'file') });
      try {
        if (a?.dryRun === true) return await t.inspectImport(job.id, opts);
        return await t.applyImport(job.id, opts, (p) => stream('progress', { ...p }));
      } finally {
        await t.discard(job.id).catch(() => {});
      }
    }
  }
}
