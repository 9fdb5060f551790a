import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { resolveTimeZone, TIME_ZONE_KEY, type LlmAPI, type PluginDefinition, type PluginSDK, type SetAsideStore } from '../spec/index.js';
import { createLogger, type Logger, type LogLevel } from '../log/index.js';
import { ConfigRegistry, coreConfigDefaults, personaPath } from '../config/index.js';
import { SessionStore, TextLog } from '../sessions/index.js';
import { BUILTIN_ADAPTERS_DIR, ProviderManager, providerConfigDefaults, refuseOwnPorts } from '../providers/index.js';
import { openMemorySystem, type MemorySystem } from '../memory/index.js';
import { AttachmentReader, HtmlReader, PdfReader } from '../media/index.js';
import { removeStaleTempFiles } from '../fs/index.js';
import { OutboundFetch, envProxyProblem } from '../net/index.js';
import { Agent } from '../kernel/index.js';
import { PluginHost, PluginRegistry } from '../plugins/index.js';
import { builtinPlugins } from '../builtins/index.js';
import { ensureAuthToken, homePaths, packageVersion, type HomePaths } from '../paths/index.js';
import { agentStatus, configAdmin, memoryAdmin, providerAdmin } from './host-services.js';
import { memoryAdapter } from './memory-adapter.js';
import { guardImports } from './import-guard.js';
import { personaLoader } from './persona.js';
import { recoverInterruptedImport, TransferRuntime, type TransferServiceOptions } from '../transfer/index.js';

export interface DaemonOptions {
  /** The data folder. */
  homeDir: string;
  /** Environment for secrets and base URLs (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** WebUI port for this run (`homed --port`; tests pass 0 for an ephemeral port); wins over the stored setting. */
  webuiPort?: number;
  /** Print log lines to stderr too (foreground mode). */
  console?: boolean;
  logLevel?: LogLevel;
  /** Extra plugins (tests, embedding). */
  plugins?: PluginDefinition<PluginSDK>[];
  /** Built-ins to leave out by name (a plugin of `plugins` may take the place of one). */
  without?: string[];
  /** Start the memory heartbeat loops (default true). */
  heartbeats?: boolean;
  /** Options of export / import (tests lower limits and the scrypt work factor). */
  transfer?: TransferServiceOptions;
}

/** A running daemon: every subsystem, and `stop()`. */
export interface Daemon {
  readonly homeDir: string;
  readonly paths: HomePaths;
  readonly agent: Agent;
  readonly config: ConfigRegistry;
  readonly sessions: SessionStore;
  readonly providers: ProviderManager;
  readonly memory: MemorySystem;
  readonly host: PluginHost;
  readonly registry: PluginRegistry;
  readonly log: Logger;
  /** The WebUI URL once the webui plugin is up. */
  readonly url: string | undefined;
  readonly socketPath: string;
  /** The per-install secret API clients present (`<home>/auth-token`). */
  readonly authToken: string;
  /** The token a sign-in link must carry: `plugin.webui.token` when the user set one, else {@link authToken}. */
  signInToken(): string;
  stop(): Promise<void>;
}


/**
 * Creates the data folder as 0700; an existing one that we own and that others can read is
 * narrowed to 0700. Returns the old mode when it was narrowed.
 */
function makePrivateHome(home: string): number | undefined {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const st = statSync(home);
  if (st.uid !== process.getuid?.() || (st.mode & 0o077) === 0) return undefined;
  chmodSync(home, 0o700);
  return st.mode & 0o777;
}

/**
 * Assembles and starts the daemon (C-12): config → sessions → providers → memory → kernel →
 * plugin host + registry (built-ins, then external plugins) → event loop. Each step that fails
 * for one subsystem is logged; the kernel and the channels start regardless, so a broken memory
 * file or provider never keeps the user out.
 */
export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const env = { ...(opts.env ?? process.env) };
  const paths = homePaths(opts.homeDir);
  const widened = makePrivateHome(paths.home);
  for (const d of [paths.logs, paths.sessions, paths.adapters, paths.plugins]) mkdirSync(d, { recursive: true });
  const log = createLogger({ file: paths.daemonLog, level: opts.logLevel ?? (env.HOMEAGENT_LOG_LEVEL as LogLevel | undefined) ?? 'info', console: opts.console });
  const startedAt = Date.now();
  log.info('starting homed', { home: paths.home, pid: process.pid });
  if (widened !== undefined) log.warn(`data folder was readable by others (mode ${widened.toString(8)}); restricted it to 0700`, { home: paths.home });
  // Temp files of atomic writes a kill interrupted (§9): never read, only clutter.
  const stale = removeStaleTempFiles(paths.home);
  if (stale.length) log.info(`removed ${stale.length} leftover temp files of interrupted writes`, { files: stale.slice(0, 20) });

  const config = new ConfigRegistry({ dbPath: paths.configDb, env, logger: log.child('config'), overrides: opts.webuiPort !== undefined ? { 'plugin.webui.port': opts.webuiPort } : undefined, overrideNames: { 'plugin.webui.port': '--port' } });
  // config.db can hold API keys: the registry keeps it 0600 (privateSqliteFile), as every store.
  config.open();
  // An import killed before its commit point is undone before anything else opens the data: its
  // swapped files, and the settings it had started to set (raw rows, before any key is registered;
  // an import swaps no file of config.db, so opening it first is safe).
  recoverInterruptedImport(paths.home, { log: log.child('transfer'), restoreSettings: (rows) => config.restoreStored(rows) });
  config.register(coreConfigDefaults());
  config.register(providerConfigDefaults());

  // The daemon log's rotation follows its settings (they existed, and were not applied), hot.
  log.setRotation({ rotateBytes: config.get<number>('core.log.rotate_bytes'), keep: config.get<number>('core.log.keep_files') });
  const offLogRotation = config.onChange((key, value) => {
    if (key === 'core.log.rotate_bytes') log.setRotation({ rotateBytes: value as number });
    else if (key === 'core.log.keep_files') log.setRotation({ keep: value as number });
  });
  const sessions = new SessionStore({ dir: paths.sessions, logger: log.child('sessions') });
  await sessions.open();
  const textLog = new TextLog({ file: paths.textLog, rotateBytes: config.get<number>('core.textlog.rotate_bytes'), keepFiles: config.get<number>('core.textlog.keep_files'), logger: log.child('textlog') });
  await textLog.open();
  // Rotation limits are hot: a change applies to the next append, no restart.
  const offTextLogLimits = config.onChange((key, value) => {
    const limits = key === 'core.textlog.rotate_bytes' ? { rotateBytes: value as number } : key === 'core.textlog.keep_files' ? { keepFiles: value as number } : undefined;
    if (!limits) return;
    try {
      textLog.setLimits(limits);
    } catch (e) {
      log.warn(`ignoring ${key}: ${(e as Error).message}`);
    }
  }, 'core.textlog.');

  // The endpoints the daemon serves (filled once the webui listens): adapter scripts may not call them.
  const ownEndpoints: { list: () => Record<string, string> } = { list: () => ({}) };
  const ownPorts = () => Object.values(ownEndpoints.list()).map((u) => Number(new URL(u).port)).filter((p) => p > 0);
  // Outbound HTTP through the person's proxy (decision 0670): LLM sources here, the Telegram Bot
  // API through host.network. Read per request, so a changed setting applies to the next one.
  const network = new OutboundFetch({ setting: () => String(config.get('core.network.proxy') ?? ''), env });
  const envProxyIssue = envProxyProblem(env);
  if (envProxyIssue) log.warn(envProxyIssue);
  const providers = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR, paths.adapters], userAdapterDir: paths.adapters, log: log.child('providers'), env, fetch: network.fetch, scriptUrlAllowed: refuseOwnPorts(ownPorts), deferProbe: true });
  await providers.start();
  const llm: LlmAPI = {
    available: () => providers.available(),
    chat: (req, o) => providers.run(req, { signal: o?.signal, onPart: o?.onPart ? (p) => o.onPart!(p) : undefined }),
  };

  // The memory subsystem needs the agent for consolidation input and the agent needs memory's
  // context window: the agent is bound late through this reference.
  const late: { agent?: Agent } = {};
  const memory = await openMemorySystem({
    homeDir: paths.home,
    config,
    people: config.people,
    log: log.child('memory'),
    llm,
    injectConsolidation: (text, meta) => late.agent?.injectSelfInput(text, meta),
    // The embeddings API and the vector-file download are on the internet too (decision 0670).
    fetch: network.fetch,
    sessions,
    textLog,
  });

  // The PDF reader (src/media), in worker threads within core.media.pdf_timeout_ms, for attached
  // files and knowledge uploads: a PDF made to stall pdf.js costs a worker, never this thread.
  const pdfReader = new PdfReader({ timeoutMs: () => config.get<number>('core.media.pdf_timeout_ms') });
  const agent: Agent = new Agent({
    llm: providers,
    sessions,
    context: memory.context,
    config,
    people: config.people,
    log: log.child('kernel'),
    textLog,
    persona: personaLoader(() => personaPath(paths.home, config.get('core.agent.persona_file'))),
    homeDir: paths.home,
    providerAdmin: providers,
    pluginAdmin: PluginRegistry.lazyAdminPort(() => registry),
    media: new AttachmentReader({ homeDir: paths.home, config, log: log.child('media'), transcribe: (audio, signal) => providers.transcribe(audio, signal), pdf: pdfReader }),
    // What any tool changes in memory is the agent's, from the turn it ran in (K-3 history).
    toolScope: (call, run) => memory.control.runAs({ actor: 'agent', tool: call.tool, turnId: call.turnId }, run),
  });
  late.agent = agent;
  const disposers: (() => void)[] = [];
  for (const [slot, provider] of Object.entries(memory.promptSlots())) {
    if (provider) disposers.push(agent.prompt.register(slot as Parameters<typeof agent.prompt.register>[0], provider, 'memory'));
  }
  disposers.push(agent.tools.add('memory', () => memory.tools()));
  // `memory_changed` (decision 0260): the memory's change feed goes on the bus (and so to the
  // WebUI's event stream); the people registry and the memory manager (host.memory-changes,
  // below) report into the same feed, so each burst is one event per kind.
  disposers.push(memory.changes.on((e) => agent.bus.emit('memory_changed', e)));
  disposers.push(config.people.onChange(() => memory.changes.notify({ kind: 'people' })));
  // `config_changed` (the event the spec names): a setting set or reset anywhere — the WebUI, `waiter
  // config set`, a plugin — goes on the bus (and so to the WebUI's event stream, which shows
  // settings live). The key only: any plugin may subscribe, and values that are not marked secret
  // can still carry credentials (an MCP server's headers and env) or another plugin's settings.
  disposers.push(config.onChange((key) => agent.bus.emit('config_changed', { key })));

  const pluginStartMs = config.get<number>('core.plugins.start_timeout_ms');
  const host: PluginHost = new PluginHost({ agent, homeDir: paths.home, config, sessions, llm, memory, log: log.child('plugins'), startTimeoutMs: pluginStartMs });
  // Stores found corrupt at this start and replaced by empty ones (the old files kept): shown by
  // `waiter status`, /api/v1/status and the healthcheck, not only in the log.
  const setAside = (): SetAsideStore[] => [...(config.setAside ? [{ store: 'config', ...config.setAside }] : []), ...memory.setAside(), ...sessions.setAside.map((s) => ({ store: 'session-log', ...s }))];
  const status = agentStatus(agent, { startedAt, version: packageVersion(), homeDir: paths.home, setAside, timeZone: () => resolveTimeZone(config.get(TIME_ZONE_KEY)), importing: () => sessions.writesHeld });
  ownEndpoints.list = () => status.endpoints();
  host.services.provide('host', 'host.config', configAdmin(config));
  host.services.provide('host', 'host.providers', providerAdmin(providers));
  host.services.provide('host', 'host.agent', status);
  // The one HTML reader (src/media), in worker threads within core.media.html_timeout_ms: a page
  // made to stall Readability costs a worker, never the thread that serves chats and the WebUI.
  const htmlReader = new HtmlReader({ timeoutMs: () => config.get<number>('core.media.html_timeout_ms') });
  host.services.provide('host', 'host.memory', memoryAdmin(memoryAdapter(memory), htmlReader, pdfReader));
  host.services.provide('host', 'host.people', config.people);
  host.services.provide('host', 'host.network', { fetch: network.fetch, proxyFor: network.proxyFor });
  // The same reader for built-ins, which cannot import it: web_fetch reads pages with it.
  host.services.provide('host', 'host.media', { readableHtml: htmlReader.readableHtml });
  host.services.provide('host', 'host.memory-changes', { notify: (c) => memory.changes.notify(c) });
  // Exclusion, forget and history (M-9, K-2, K-3); only while its store opened.
  if (memory.status().control) host.services.provide('host', 'host.memory-control', memory.control);
  // The per-install secret of the local HTTP API (SPEC §9): 0600 in the data folder, read by waiter.
  const authToken = ensureAuthToken(paths.home);
  const configuredToken = () => (config.has('plugin.webui.token') ? String(config.get('plugin.webui.token') ?? '') : '');
  host.services.provide('host', 'host.auth', { token: () => authToken, signInToken: () => configuredToken() || authToken });
  const lateRegistry: { registry?: PluginRegistry } = {};
  // Export and import of the whole memory (K-5). Forget's tombstones come through the
  // `memory.tombstones` service when a plugin or the host provides it.
  const transfer = new TransferRuntime({
    home: paths.home,
    version: packageVersion(),
    memory,
    sessions,
    config,
    holdAgent: () => agent.hold(),
    libraryRoot: () => {
      let p = '';
      try {
        p = String(config.get('plugin.memory-manager.libraryPath') ?? '').trim();
      } catch {
        // the memory-manager is not registered: its default folder
      }
      return !p ? join(paths.home, 'memory') : isAbsolute(p) ? p : resolve(paths.home, p);
    },
    personaFile: () => personaPath(paths.home, config.get('core.agent.persona_file')),
    // Forget's tombstones: a `memory.tombstones` provider if one is registered, else the memory
    // control's. Its tombstones are hashes, and travel as such: an export carries them, an import
    // adds them, so an older archive imported later cannot bring the forgotten back.
    forget: () => {
      const own = host.services.use('memory.tombstones');
      if (own) return own;
      const c = host.services.use('host.memory-control');
      if (!c) return undefined;
      return {
        isForgotten: (ref) => c.isTombstoned(ref) || c.isTombstonedDocument(ref),
        isForgottenFact: (s, p, o) => c.isTombstonedFact(s, p, o),
        isForgottenText: (t) => c.isTombstonedContent(t),
        isForgottenPair: (m, r) => c.isTombstonedPair(m, r),
        tombstones: () => c.tombstoneRefs(),
        record: (ts) => void c.addTombstoneRefs(ts),
        applyToExisting: async (refs) => {
          const r = await c.applyTombstones({ actor: 'import', tool: 'import' }, refs ? { refs } : {});
          return r && { turns: r.turns, facts: r.relations, documents: r.documents + r.archived };
        },
        previewExisting: (refs) => c.previewTombstones(refs),
      };
    },
    // Replaced turns travel too (decision 0620): an older copy of one does not come back here.
    replacements: () => {
      const c = host.services.use('host.memory-control');
      if (!c?.replacedTurns || !c.addReplacements) return undefined;
      return { list: () => c.replacedTurns!(), record: (rows) => c.addReplacements!(rows) };
    },
    // The memory-manager caches the plan and the library index: a restart of the plugin re-reads
    // what an import wrote (no change to the plugin needed). Bound late: the registry comes next.
    reloadLibrary: async () => {
      const mm = lateRegistry.registry?.list().find((p) => p.name === 'memory-manager');
      if (mm?.state === 'running') await lateRegistry.registry!.reload('memory-manager');
    },
    log: log.child('transfer'),
  }, opts.transfer);
  transfer.start();
  // While forget's tombstones are not (all) in effect — memory-control.db set aside at this start
  // and not every tombstone read back from it (decision 0280), or not open — an import is refused
  // unless the person says so: it could bring the forgotten back.
  const controlAside = () => memory.setAside().find((s) => s.store === 'memory-control');
  host.services.provide('host', 'host.transfer', guardImports(transfer, () => {
    const a = controlAside();
    if (a && a.salvaged?.tombstonesLostAtMost !== 0) return { setAside: a };
    return memory.status().control ? undefined : {};
  }));
  const registry: PluginRegistry = new PluginRegistry({ host, pluginsDir: paths.plugins, skillsDir: join(paths.home, 'skills'), external: { startTimeoutMs: pluginStartMs } });
  host.services.provide('host', 'host.plugins', registry);
  lateRegistry.registry = registry;
  const without = new Set(opts.without ?? []);
  for (const def of [...builtinPlugins().filter((b) => !without.has(b.name)), ...(opts.plugins ?? [])]) registry.registerBuiltin(def);
  agent.start();
  // A turn that arrives while the built-ins are still starting (a person's first message, an
  // input resumed after a kill) waits for them: it would otherwise run without the memory
  // manager's injection stage. Inputs are recorded and queued meanwhile; each built-in's start is
  // bounded by start_timeout_ms, and so is this wait. External plugins are not waited for.
  const releaseTurns = await agent.hold();
  const turnsWait = setTimeout(releaseTurns, pluginStartMs).unref();
  // Plugins start concurrently and never hold up readiness for long: after ready_wait_ms the
  // daemon is ready and the slow ones settle in the background (their state is in the list).
  const started = registry.start({ waitMs: config.get<number>('core.plugins.ready_wait_ms') });
  void registry.builtinsSettled().then(() => {
    clearTimeout(turnsWait);
    releaseTurns();
  });
  // A local Ollama is looked for once the channels are coming up (see ProviderManager.deferProbe).
  const probing = providers.probeLocalSources();
  await started;
  // Inputs the last run acknowledged and never answered (a kill): answered now — once the channels
  // are registered, so the replies reach them — or marked not answered (decision 0390).
  await agent.resumeUnanswered().catch((e: unknown) => log.error(`resuming unanswered inputs failed: ${(e as Error).message}`));
  await probing;
  // An import a kill cut off after its commit point: the forgets it brought are recorded (and
  // applied to what is here) now — once plugins are up, so a `memory.tombstones` provider is asked.
  await transfer.finishCommitted().catch((e: unknown) => log.error(`finishing an interrupted import failed: ${(e as Error).message}`));
  if (opts.heartbeats !== false) memory.startHeartbeats();
  const counts = () => registry.list().reduce<Record<string, number>>((n, p) => ((n[p.state] = (n[p.state] ?? 0) + 1), n), {});
  log.info('homed ready', { ms: Date.now() - startedAt, llm: providers.available(), endpoints: status.endpoints(), plugins: counts() });
  void registry.settled().then(() => log.info('plugins settled', { ms: Date.now() - startedAt, plugins: counts() }));

  let stopping: Promise<void> | undefined;
  const daemon: Daemon = {
    homeDir: paths.home,
    paths,
    agent,
    config,
    sessions,
    providers,
    memory,
    host,
    registry,
    log,
    get url() {
      return status.endpoints().webui;
    },
    socketPath: paths.socket,
    authToken,
    signInToken: () => configuredToken() || authToken,
    stop() {
      stopping ??= (async () => {
        log.info('stopping homed');
        memory.stopHeartbeats();
        await agent.stop();
        await registry.stop();
        for (const d of disposers.reverse()) d();
        await htmlReader.stop();
        await pdfReader.stop();
        await memory.close();
        transfer.stop();
        await providers.stop();
        await network.close();
        offTextLogLimits();
        offLogRotation();
        await textLog.close();
        await sessions.close();
        config.close();
        log.info('homed stopped');
      })();
      return stopping;
    },
  };
  return daemon;
}
