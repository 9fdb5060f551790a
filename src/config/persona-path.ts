import { isAbsolute, resolve } from 'node:path';

/** A persona path `core.agent.persona_file` takes: relative, inside the data folder (no ".."). */
export function isPersonaPath(p: string): boolean {
  return p.trim() !== '' && !isAbsolute(p) && !/^[A-Za-z]:/.test(p) && !p.split(/[\\/]/).includes('..');
}

/** Where the persona is: the setting, under the data folder; `persona.md` for anything else. */
export function personaPath(home: string, setting: unknown): string {
  return typeof setting === 'string' && isPersonaPath(setting) ? resolve(home, setting) : resolve(home, 'persona.md');
}
