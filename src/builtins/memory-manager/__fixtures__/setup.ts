import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigValue, LlmAPI } from '../../../sdk/index.js';
import { MemoryManager } from '../memory-manager.js';
import { settingsDefs } from '../settings.js';
import { FakeSdk } from './fake-sdk.js';

/** A started MemoryManager on a FakeSdk in a temp home; stopped and removed after the test. */
export function setupManager(
  t: { after(fn: () => unknown): void },
  opts: { settings?: Record<string, ConfigValue>; llm?: LlmAPI; home?: string; start?: boolean; services?: Record<string, unknown> } = {},
): { home: string; fake: FakeSdk; m: MemoryManager } {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'mm-home-'));
  const fake = new FakeSdk({ homeDir: home, settingsDefs, settings: opts.settings, llm: opts.llm, services: opts.services });
  const m = new MemoryManager(fake.sdk);
  if (opts.start !== false) m.start();
  t.after(async () => {
    await m.stop();
    if (!opts.home) rmSync(home, { recursive: true, force: true });
  });
  return { home, fake, m };
}
