import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../fs/index.js';
import { DEFAULT_PERSONA } from '../kernel/index.js';

/**
 * The persona (seed: personal.go): `persona.md` in the data folder, created with the default on
 * first start so the user can edit it. Re-read when the file changes (checked by mtime per call
 * is overkill; a cached read refreshed every 5 s keeps it cheap).
 */
export function personaLoader(path: () => string): () => string {
  const file = path();
  if (!existsSync(file)) {
    try {
      writeFileAtomicSync(file, `${DEFAULT_PERSONA}\n`, { mode: 0o644 });
    } catch {}
  }
  let cached = '';
  let at = 0;
  let from = file;
  return () => {
    const now = Date.now();
    // The setting changed (core.agent.persona_file): read the other file now, not in 5 s.
    const cur = path();
    if (now - at > 5000 || cur !== from) {
      at = now;
      from = cur;
      try {
        cached = readFileSync(cur, 'utf8');
      } catch {
        cached = '';
      }
    }
    return cached;
  };
}
