import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatRequest, ChatResponse } from '../../spec/index.js';
import { ConfigRegistry } from '../../config/index.js';
import { BUILTIN_ADAPTERS_DIR, ProviderManager, SEEDED_SOURCES, providerConfigDefaults, sourceKey } from '../../providers/index.js';
import { silentLogger } from '../../log/index.js';
import { startFakeLlm, type FakeLlm } from '../../../test/fixtures/fake-llm/index.js';

/** The LLM a memory component sees in tests: a real provider manager in front of the fake server. */
export interface ProviderLlm {
  llm: { available(): boolean; chat(req: ChatRequest): Promise<ChatResponse> };
  /** The scripted fake server: `enqueue` replies, read `requests`. */
  fake: FakeLlm;
  close(): Promise<void>;
}

/**
 * Starts the fake LLM server and a real {@link ProviderManager} (the shipped Lua OpenAI adapter)
 * pointed at it, as `createTestHost` does, so every LLM call of a test crosses loopback HTTP in
 * the real wire format. `available: false` configures no key: `llm.available()` is false.
 */
export async function startProviderLlm(opts: { available?: boolean } = {}): Promise<ProviderLlm> {
  const dir = mkdtempSync(join(tmpdir(), 'ha-provider-llm-'));
  const fake = await startFakeLlm();
  const config = new ConfigRegistry({ dbPath: join(dir, 'config.db'), logger: { warn: () => {} } });
  config.open();
  config.register(providerConfigDefaults());
  // Only the fake server's source: a key in the developer's environment must never reach a real API.
  for (const s of SEEDED_SOURCES) await config.set(sourceKey(s.name, 'enabled'), s.name === 'openai');
  await config.set(sourceKey('openai', 'api_key'), opts.available === false ? '' : 'test');
  await config.set(sourceKey('openai', 'base_url'), `${fake.url}/v1`);
  await config.set('core.llm.order', ['openai']);
  const providers = new ProviderManager({ config, adapterDirs: [BUILTIN_ADAPTERS_DIR], env: {}, probeOllama: false, log: silentLogger, adapterTimeoutMs: 20_000 });
  await providers.start();
  let closed = false;
  return {
    llm: { available: () => providers.available(), chat: (req) => providers.run(req) },
    fake,
    async close() {
      if (closed) return;
      closed = true;
      await providers.stop();
      config.close();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
