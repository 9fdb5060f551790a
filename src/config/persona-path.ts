import { isAbsolute, resolve } from 'node:path';

/**
 * A persona path `core.agent.persona_file` takes: a Markdown or text file, relative, inside the data
 * folder (no ".."). Its text becomes the system prompt sent to the LLM: not `config.db` (API keys)
 * or any other file of the data folder.
 */
export function isPersonaPath(p: string): boolean {
  return p.trim() !== '' && /\.(md|txt)$/i.test(p) && !isAbsolute(p) && !/^[A-Za-z]:/.test(p) && !p.split(/[\\/]/).includes('..');
}

/** Where the persona is: the setting, under the data folder; `persona.md` for anything else. */
export function personaPath(home: string, setting: unknown): string {
  return typeof setting === 'string' && isPersonaPath(setting) ? resolve(home, setting) : resolve(home, 'persona.md');
}
