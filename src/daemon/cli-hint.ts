import { accessSync, constants, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The homeagent package folder (the one with its package.json) above `from`. */
export function packageDir(from = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (let i = 0; i < 6; i++) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'homeagent') return dir;
    } catch {}
    dir = dirname(dir);
  }
  return from;
}

/** The executable called `name` on `PATH`, if any. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return realpathSync(p);
    } catch {}
  }
  return undefined;
}

/**
 * How the person who just started `homed` reaches the CLI: `waiter chat` when `waiter` is on
 * PATH (a global install or `npm link`); otherwise what works from a fresh clone, where npm
 * puts neither bin on PATH (issue 14).
 */
export function waiterHint(env: NodeJS.ProcessEnv = process.env): string {
  if (onPath('waiter', env)) return 'waiter chat';
  return `npx waiter chat   (in ${packageDir()}; "npm link" there puts waiter and homed on your PATH)`;
}

/** `homed` when it is on PATH, else `npx homed` (run in the package folder). */
export function homedCommand(env: NodeJS.ProcessEnv = process.env): string {
  return onPath('homed', env) ? 'homed' : 'npx homed';
}

/** `waiter` when it is on PATH, else `npx waiter` (run in the package folder). */
export function waiterCommand(env: NodeJS.ProcessEnv = process.env): string {
  return onPath('waiter', env) ? 'waiter' : 'npx waiter';
}
