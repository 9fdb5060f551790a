import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fixtures folder. */
export const FIXTURES = dirname(fileURLToPath(import.meta.url));

/** A temp data folder with the named fixtures copied into `plugins/`. */
export function fixtureHome(...plugins: string[]): string {
  const home = mkdtempSync(join(tmpdir(), 'ha-plugins-'));
  mkdirSync(join(home, 'plugins'), { recursive: true });
  for (const p of plugins) cpSync(join(FIXTURES, p), join(home, 'plugins', p), { recursive: true });
  return home;
}

/** Polls `cond` until it holds (or throws after `ms`). Not a timing assertion: only a deadline. */
export async function waitFor(cond: () => boolean | Promise<boolean>, ms = 8000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
