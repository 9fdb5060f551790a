import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentEvents, ConfigValue, InputOptions, SessionEvent, ToolDef, TurnOutcome } from '../../spec/index.js';
import { ConfigRegistry, coreConfigDefaults } from '../../config/index.js';
import { SessionStore } from '../../sessions/index.js';
import { BUILTIN_ADAPTERS_DIR, ProviderManager, providerConfigDefaults } from '../../providers/index.js';
import { startFakeLlm, type FakeLlm } from '../../../test/fixtures/fake-llm/index.js';
import { Agent, type AgentOptions } from '../agent.js';
import type { LlmPort, SessionPort } from '../ports.js';
import { captureLogger, type LogLine } from './capture-logger.js';

/** One event seen on the agent's bus. */
export interface BusRecord {
  name: string;
  payload: unknown;
}

export interface HarnessOptions {
  /** Config values set before the agent starts (e.g. `core.agent.max_tool_rounds`). */
  config?: Record<string, ConfigValue>;
  /** Leave the LLM unconfigured (no api key). */
  noProvider?: boolean;
  /** Extra Agent options. */
  agent?: Partial<AgentOptions>;
  /** Do not call `agent.start()`. */
  noStart?: boolean;
  /** Wraps the LLM port (benchmarks time the calls). */
  wrapLlm?: (llm: LlmPort) => LlmPort;
  /** A session port other than the JSONL SessionStore (benchmarks isolate disk syncs). */
  sessions?: SessionPort;
  /** Give the agent the provider manager as its provider admin (the llm_sources tool). */
  providerAdmin?: boolean;
}

/**
 * A whole kernel over real parts: temp home, SQLite config, JSONL sessions, the fake LLM server
 * over loopback HTTP, and an Agent. `send(text)` runs one turn and returns its outcome.
 */
export interface KernelHarness {
  home: string;
  fake: FakeLlm;
  config: ConfigRegistry;
  sessions: SessionStore;
  llm: LlmPort;
  providers: ProviderManager;
  agent: Agent;
  log: LogLine[];
  /** Every bus event, in order. */
  bus: BusRecord[];
  events<K extends keyof AgentEvents>(name: K): AgentEvents[K][];
  send(text: string, opts?: Partial<InputOptions>): Promise<TurnOutcome>;
  /** The session log of a session (default `test:main`). */
  sessionLog(sessionId?: string): Promise<SessionEvent[]>;
  /** The chat messages (body.messages) of the n-th LLM request the fake server got. */
  requestMessages(n: number): { role: string; content: string | null; tool_call_id?: string }[];
  /** Tool names offered in the n-th LLM request. */
  requestTools(n: number): string[];
  close(): Promise<void>;
}

export const SESSION = 'test:main';

/** Config + provider manager (Lua VMs are slow to create): one per test process, reused. */
interface Backend {
  dir: string;
  config: ConfigRegistry;
  providers: ProviderManager;
}

async function createBackend(withKey: boolean): Promise<Backend> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeagent-kernel-cfg-'));
  const config = new ConfigRegistry({ dbPath: path.join(dir, 'config.db'), env: {}, logger: { warn: () => {} } });
  config.open();
  config.register(coreConfigDefaults());
  config.register(providerConfigDefaults());
  if (withKey) await config.set('core.llm.sources.openai.api_key', 'sk-test-kernel');
  const providers = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR], env: {}, probeOllama: false });
  await providers.start();
  return { dir, config, providers };
}

async function closeBackend(b: Backend): Promise<void> {
  await b.providers.stop();
  b.config.close();
  fs.rmSync(b.dir, { recursive: true, force: true });
}

let shared: Promise<Backend> | undefined;
function sharedBackend(): Promise<Backend> {
  if (!shared) {
    shared = createBackend(true);
    void shared.then((b) =>
      process.once('exit', () => {
        b.config.close();
        fs.rmSync(b.dir, { recursive: true, force: true });
      }),
    );
  }
  return shared;
}

/** Keys a test may change; reset when its harness closes so the shared config starts clean. */
const RESET_PREFIXES = ['core.agent.', 'core.subagent.', 'core.llm.order', 'core.notify.', 'core.identity.'];

export async function startHarness(opts: HarnessOptions = {}): Promise<KernelHarness> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'homeagent-kernel-'));
  const fake = await startFakeLlm();
  const own = opts.noProvider ? await createBackend(false) : undefined;
  const { config, providers } = own ?? (await sharedBackend());
  await config.set('core.llm.sources.openai.base_url', `${fake.url}/v1`);
  for (const [k, v] of Object.entries(opts.config ?? {})) await config.set(k, v);
  const sessions = new SessionStore({ dir: path.join(home, 'sessions'), logger: { warn: () => {} } });
  await sessions.open();
  const llm = opts.wrapLlm ? opts.wrapLlm(providers) : providers;
  const logger = captureLogger();
  const agent = new Agent({ llm, sessions: opts.sessions ?? sessions, config, log: logger, homeDir: home, ...(opts.providerAdmin ? { providerAdmin: providers } : {}), ...opts.agent });
  const bus: BusRecord[] = [];
  agent.bus.onAny((name, payload) => void bus.push({ name, payload }));
  if (!opts.noStart) agent.start();
  let closed = false;
  const h: KernelHarness = {
    home,
    fake,
    config,
    sessions,
    llm,
    providers,
    agent,
    log: logger.lines,
    bus,
    events: <K extends keyof AgentEvents>(name: K) => bus.filter((b) => b.name === name).map((b) => b.payload as AgentEvents[K]),
    send: (text, o = {}) => agent.injectInput({ sessionId: SESSION, source: 'test', text, ...o }).done,
    sessionLog: (id = SESSION) => sessions.events(id),
    requestMessages: (n) => fake.requests.filter((r) => r.format !== 'embeddings')[n]?.body.messages ?? [],
    requestTools: (n) => (fake.requests.filter((r) => r.format !== 'embeddings')[n]?.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name),
    close: async () => {
      if (closed) return;
      closed = true;
      await agent.stop();
      await sessions.close();
      await fake.close();
      if (own) await closeBackend(own);
      else for (const prefix of RESET_PREFIXES) for (const k of config.list(prefix)) if (k.origin === 'stored') await config.reset(k.key);
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
  return h;
}

/** Starts a harness closed automatically when the test ends. */
export async function harness(t: { after: (fn: () => Promise<void> | void) => void }, opts: HarnessOptions = {}): Promise<KernelHarness> {
  const h = await startHarness(opts);
  t.after(() => h.close());
  return h;
}

/** A tool definition for tests that records its calls. */
export function recordingTool(name: string, result: (args: Record<string, unknown>) => unknown = () => `${name} done`): ToolDef & { calls: Record<string, unknown>[] } {
  const calls: Record<string, unknown>[] = [];
  return {
    name,
    description: `test tool ${name}`,
    parameters: { type: 'object', properties: { x: { type: 'string' } } },
    calls,
    handler: async (args) => {
      calls.push(args);
      return result(args) as string;
    },
  };
}

/** Polls `cond` every 10 ms until it holds; fails the test after `ms` (a deadline, not a timing assertion). */
export async function until(cond: () => boolean, what: string, ms = 4000): Promise<void> {
  for (let i = 0; i < ms / 10 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}
