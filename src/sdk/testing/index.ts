/**
 * `homeagent/sdk/testing` — run a plugin in a real kernel from its tests.
 *
 * Every LLM call crosses real HTTP: `createTestHost` starts a fake LLM server (the
 * {@link ScriptedLlm}'s) and a real provider manager whose OpenAI source points at it.
 *
 * @example
 * ```ts
 * import { createTestHost, ScriptedLlm } from 'homeagent/sdk/testing';
 * const llm = new ScriptedLlm([{ toolCalls: [{ name: 'hello_say', arguments: {} }] }, { text: 'done' }]);
 * const t = await createTestHost({ plugins: [myPlugin], llm });
 * assert.equal(await t.callTool('hello_say'), 'hello');
 * const outcome = await t.send('say hello');
 * assert.equal(llm.requests[1].messages.at(-1)?.role, 'tool');
 * await t.close();
 * ```
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InputOptions, LlmAPI, MediaService, PluginDefinition, PluginInfo, PluginSDK, StageContext, StageName, TurnOutcome } from '../../spec/index.js';
import { Agent, type ToolScope } from '../../kernel/index.js';
import { ConfigRegistry } from '../../config/index.js';
import { BUILTIN_ADAPTERS_DIR, ProviderManager, SEEDED_SOURCES, providerConfigDefaults, sourceKey } from '../../providers/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import { PluginHost, PluginRegistry, type MemoryPort, type PluginRegistryOptions } from '../../plugins/index.js';
import { readableHtml } from '../../media/index.js';
import { MemorySessions } from './memory-sessions.js';
import { ScriptedLlm } from './scripted-llm.js';

export { ScriptedLlm, type ScriptedReply } from './scripted-llm.js';
export { MemorySessions } from './memory-sessions.js';
export type { RecordedChatRequest } from './chat-request-of.js';
export { startFakeLlm, hashEmbedding, type FakeLlm, type FakeReply, type RecordedRequest, type WireFormat } from './fake-llm/index.js';

/** The LLM source the test host configures (its OpenAI Chat Completions adapter). */
const SOURCE = 'openai';

export interface TestHostOptions {
  /** Built-in style plugins to start (in dependency order). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  plugins?: PluginDefinition<any>[];
  /**
   * The scripted fake LLM server the agent talks to over HTTP (default: a new ScriptedLlm
   * answering "ok"). The host starts it and closes it in `close()`.
   */
  llm?: ScriptedLlm;
  /** Data folder; a fresh temp folder (removed by `close`) when omitted. */
  homeDir?: string;
  memory?: MemoryPort;
  /** What every tool call runs inside (the daemon's: the memory history's actor); none by default. */
  toolScope?: ToolScope;
  log?: Logger;
  /** Time an in-process plugin's start may take (default 30 s). */
  startTimeoutMs?: number;
  /** Extra registry options (external plugin timeouts, `.hmap` limits …). */
  registry?: Omit<PluginRegistryOptions, 'host'>;
  /**
   * `host.media` (default: the HTML reader `src/media` shares in this process — worker threads,
   * 15 s a page); a test of a time limit hands in an `HtmlReader` with its own.
   */
  media?: MediaService;
}

/** A running kernel + plugin host for tests. */
export interface TestHost {
  homeDir: string;
  agent: Agent;
  host: PluginHost;
  registry: PluginRegistry;
  config: ConfigRegistry;
  sessions: MemorySessions;
  llm: ScriptedLlm;
  /** The real provider manager (Lua OpenAI adapter → `llm.url`) behind the agent and `sdk.llm()`. */
  providers: ProviderManager;
  /** Sends user input through the real event loop and waits for the turn's outcome. */
  send(text: string, opts?: Partial<InputOptions>): Promise<TurnOutcome>;
  /** Calls a registered tool as the agent would; returns its output text (errors throw). */
  callTool(name: string, args?: Record<string, unknown>): Promise<string>;
  /** Runs every handler of a stage on a context built from `patch`; returns the context. */
  runStage(stage: StageName, patch?: Partial<StageContext>, toolName?: string): Promise<StageContext>;
  /** The system prompt the agent would use for `input`. */
  systemPrompt(input?: string): Promise<string>;
  /** The plugin manager's view of one plugin. */
  plugin(name: string): PluginInfo | undefined;
  close(): Promise<void>;
}

/** Builds a real Agent + PluginHost + PluginRegistry in a temp folder and starts `plugins`. */
export async function createTestHost(opts: TestHostOptions = {}): Promise<TestHost> {
  const ownHome = !opts.homeDir;
  const homeDir = opts.homeDir ?? mkdtempSync(join(tmpdir(), 'homeagent-test-'));
  const log = opts.log ?? silentLogger;
  const llm = opts.llm ?? new ScriptedLlm();
  const fake = await llm.start();
  const sessions = new MemorySessions();
  const config = new ConfigRegistry({ dbPath: join(homeDir, 'config.db'), logger: { warn: () => {} } });
  config.open();
  config.register(providerConfigDefaults());
  // Only the fake server's source: a key in the developer's environment must never reach a real API.
  for (const s of SEEDED_SOURCES) await config.set(sourceKey(s.name, 'enabled'), s.name === SOURCE);
  await config.set(sourceKey(SOURCE, 'api_key'), llm.available() ? 'test' : '');
  await config.set(sourceKey(SOURCE, 'base_url'), `${fake.url}/v1`);
  await config.set('core.llm.order', [SOURCE]);
  // A loaded test machine can be slow to run the adapter script; its default budget is 2 s.
  const providers = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR], env: {}, probeOllama: false, log: log.child('providers'), adapterTimeoutMs: 20_000 });
  await providers.start();
  const sdkLlm: LlmAPI = {
    available: () => providers.available(),
    chat: (req, o) => providers.run(req, { signal: o?.signal, onPart: o?.onPart && ((p) => o.onPart!(p)) }),
  };
  const agent = new Agent({ llm: providers, sessions, config, log, homeDir, toolScope: opts.toolScope });
  const host = new PluginHost({ agent, homeDir, config, sessions, llm: sdkLlm, memory: opts.memory, log, startTimeoutMs: opts.startTimeoutMs });
  // The daemon's readers, as in homed (web_fetch reads HTML through them, off the main thread).
  host.services.provide('host', 'host.media', opts.media ?? { readableHtml });
  const registry = new PluginRegistry({ host, watchLua: false, ...opts.registry });
  for (const p of opts.plugins ?? []) registry.registerBuiltin(p as PluginDefinition<PluginSDK>);
  agent.start();
  await registry.start();
  let n = 0;
  const t: TestHost = {
    homeDir,
    agent,
    host,
    registry,
    config,
    sessions,
    llm,
    providers,
    send: (text, o = {}) => agent.injectInput({ sessionId: 'test:1', source: 'test', ...o, text }).done,
    async callTool(name, args = {}) {
      const def = agent.tools.build().find((d) => d.name === name);
      if (!def) throw new Error(`no tool named ${name}`);
      const r = await agent.stages.executeTool(def, args, { sessionId: 'test:1', turnId: 'test:1#0', callId: `call_${++n}`, signal: new AbortController().signal });
      if (r.error !== undefined) throw new Error(r.output);
      return r.output;
    },
    async runStage(stage, patch = {}, toolName) {
      const ctx: StageContext = {
        stage,
        input: { sessionId: 'test:1', source: 'test', channel: 'test', text: '', trigger: 'user' },
        turnId: 'test:1#0',
        round: 0,
        messages: [],
        state: {},
        ...patch,
      };
      await agent.stages.runStage(stage, ctx, toolName);
      return ctx;
    },
    systemPrompt: (input = '') => agent.prompt.build({ sessionId: 'test:1', turnId: 'test:1#0', input, consolidation: false }),
    plugin: (name) => registry.get(name),
    async close() {
      await registry.stop();
      await host.stopAll();
      await agent.stop();
      await providers.stop();
      await llm.close();
      config.close();
      if (ownHome) rmSync(homeDir, { recursive: true, force: true });
    },
  };
  return t;
}
