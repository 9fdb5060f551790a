import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** HomeAgent's version, from the nearest package.json above this file (sources and dist/ alike); `0.0.0` if none. */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'homeagent' && typeof pkg.version === 'string') return pkg.version;
    } catch {}
    dir = dirname(dir);
  }
  return '0.0.0';
}
