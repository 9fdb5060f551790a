import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Disposer, PluginDefinition, PluginSDK } from '../spec/index.js';
import { NotFoundError, PluginError } from '../spec/index.js';

// yaml (~70 CommonJS modules, ~30 ms) is loaded on the first front-matter that needs it, not at
// daemon start.
const requireLazy = createRequire(import.meta.url);
let yamlParse: ((src: string) => unknown) | undefined;
function parseYaml(src: string): unknown {
  yamlParse ??= (requireLazy('yaml') as typeof import('yaml')).parse;
  return yamlParse(src);
}

/** A skill (P-5): a name, a one-line description and instructions the agent loads on demand. */
export interface Skill {
  name: string;
  description: string;
  instructions: string;
  /** The SKILL.md file. */
  file: string;
}

const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MAX_SKILL_BYTES = 256 * 1024;

/**
 * Parses a SKILL.md: YAML front-matter between `---` lines with `name` and `description`, then the
 * instructions (the ClawHub / agent-skill format). A bad file is a PluginError SKILL_BAD_FILE.
 */
export function parseSkill(text: string, file: string): Skill {
  const where = file;
  if (text.length > MAX_SKILL_BYTES) throw new PluginError(where, `SKILL.md is larger than ${MAX_SKILL_BYTES} bytes`, 'SKILL_BAD_FILE');
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!m) throw new PluginError(where, 'SKILL.md must start with a YAML front-matter block (--- name/description ---)', 'SKILL_BAD_FILE');
  let meta: unknown;
  try {
    meta = parseYaml(m[1]);
  } catch (e) {
    throw new PluginError(where, `SKILL.md front-matter is not valid YAML: ${(e as Error).message}`, 'SKILL_BAD_FILE', e);
  }
  const o = (meta && typeof meta === 'object' ? meta : {}) as Record<string, unknown>;
  if (typeof o.name !== 'string' || !SKILL_NAME.test(o.name)) throw new PluginError(where, 'SKILL.md front-matter needs a "name" (letters, digits, _ . -)', 'SKILL_BAD_FILE');
  if (typeof o.description !== 'string' || !o.description.trim()) throw new PluginError(where, 'SKILL.md front-matter needs a "description"', 'SKILL_BAD_FILE');
  return { name: o.name, description: o.description.trim().replace(/\s+/g, ' '), instructions: m[2].trim(), file };
}

export function readSkill(file: string): Skill {
  return parseSkill(readFileSync(file, 'utf8'), file);
}

/**
 * The skills the agent can load (P-5). The `skills` built-in plugin ({@link skillsPlugin}) lists
 * them in the `skills` prompt slot and offers `skill_load {name}`; each skill plugin adds itself
 * here while it runs. A skill never runs code.
 */
export class SkillCatalog {
  private readonly skills = new Map<string, Skill>();

  add(skill: Skill): Disposer {
    this.skills.set(skill.name, skill);
    return () => {
      if (this.skills.get(skill.name) === skill) this.skills.delete(skill.name);
    };
  }

  list(): Skill[] {
    return [...this.skills.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): Skill | undefined {
    return this.skills.get(name);
  }
}

/** The built-in plugin that shows the catalog to the agent: prompt slot `skills` + tool `skill_load`. */
export function skillsPlugin(catalog: SkillCatalog): PluginDefinition<PluginSDK> {
  return {
    name: 'skills',
    description: 'Lists skills (SKILL.md) in the system prompt and loads their instructions on demand',
    start(sdk) {
      sdk.registerPromptSlot('skills', () => {
        const list = catalog.list();
        if (!list.length) return undefined;
        return [
          'Skills you can use: call skill_load with the name to read a skill\'s instructions before following it.',
          ...list.map((s) => `- ${s.name}: ${s.description}`),
        ].join('\n');
      });
      sdk.registerTool({
        name: 'skill_load',
        // Instructions shipped with HomeAgent or installed by the owner, nothing remembered (decision 0360).
        audience: 'anyone',
        description: 'Load the full instructions of a skill listed under Skills.',
        parameters: { type: 'object', properties: { name: { type: 'string', description: 'The skill name' } }, required: ['name'] },
        handler: (args) => {
          const name = String(args.name ?? '');
          const s = catalog.get(name);
          if (!s) throw new NotFoundError('skill', name);
          return `# Skill: ${s.name}\n\n${s.instructions}`;
        },
      });
    },
  };
}

/** A skill as a plugin of kind `skill`: starting it (re-)reads SKILL.md and adds it to the catalog. */
export function skillPlugin(name: string, file: string, catalog: SkillCatalog): PluginDefinition<PluginSDK> {
  return {
    name,
    start(sdk) {
      const skill = readSkill(file);
      sdk.onDispose(catalog.add({ ...skill, name }));
    },
  };
}
