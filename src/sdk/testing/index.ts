/**
 * `homeagent/sdk/testing` — run a plugin in a real kernel from its tests.
 *
 * @example
 * ```ts
 * import { createTestHost, ScriptedLlm } from 'homeagent/sdk/testing';
 * const llm = new ScriptedLlm([{ toolCalls: [{ name: 'hello_say', arguments: {} }] }, { text: 'done' }]);
 * const t = await createTestHost({ plugins: [myPlugin], llm });
 * assert.equal(await t.callTool('hello_say'), 'hello');
 * const outcome = await t.send('say hello');
 * await t.close();
 * ```
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InputOptions, PluginDefinition, PluginInfo, PluginSDK, StageContext, StageName, TurnOutcome } from '../../spec/index.js';
import { Agent } from '../../kernel/index.js';
import { ConfigRegistry } from '../../config/index.js';
import { silentLogger, type Logger } from '../../log/index.js';
import { PluginHost, PluginRegistry, type MemoryPort, type PluginRegistryOptions } from '../../plugins/index.js';
import { MemorySessions } from './memory-sessions.js';
import { ScriptedLlm } from './scripted-llm.js';

export { ScriptedLlm, type ScriptedReply } from './scripted-llm.js';
export { MemorySessions } from './memory-sessions.js';

export interface TestHostOptions {
  /** Built-in style plugins to start (in dependency order). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  plugins?: PluginDefinition<any>[];
  /** The LLM the agent talks to (default: a ScriptedLlm answering "ok"). */
  llm?: ScriptedLlm;
  /** Data folder; a fresh temp folder (removed by `close`) when omitted. */
  homeDir?: string;
  memory?: MemoryPort;
  log?: Logger;
  /** Time an in-process plugin's start may take (default 30 s). */
  startTimeoutMs?: number;
  /** Extra registry options (external plugin timeouts, `.hmap` limits …). */
  registry?: Omit<PluginRegistryOptions, 'host'>;
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
  const sessions = new MemorySessions();
  const config = new ConfigRegistry({ dbPath: join(homeDir, 'config.db'), logger: { warn: () => {} } });
  config.open();
  const agent = new Agent({ llm, sessions, config, log, homeDir });
  const host = new PluginHost({ agent, homeDir, config, sessions, llm, memory: opts.memory, log, startTimeoutMs: opts.startTimeoutMs });
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
      config.close();
      if (ownHome) rmSync(homeDir, { recursive: true, force: true });
    },
  };
  return t;
}
