import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

/** One adapter script found on disk. */
export interface AdapterFile {
  name: string;
  path: string;
  mtimeMs: number;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Finds `*.lua` adapter scripts in an ordered list of folders (built-ins first, then the user's
 * `<home>/adapters`). A later folder overrides an earlier one, so a user can replace a built-in
 * adapter by dropping a file of the same name. Missing folders are ignored; scans are cheap
 * (one readdir + stat per file) and run whenever the list is asked for, so a new file is picked
 * up without a restart.
 */
export class AdapterRegistry {
  constructor(private readonly dirs: string[]) {}

  /** Adapters by name (later folders win). */
  scan(): Map<string, AdapterFile> {
    const out = new Map<string, AdapterFile>();
    for (const dir of this.dirs) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const file of names.sort()) {
        if (!file.endsWith('.lua')) continue;
        const name = basename(file, '.lua');
        if (!NAME.test(name)) continue;
        const path = join(dir, file);
        try {
          const st = statSync(path);
          if (st.isFile()) out.set(name, { name, path, mtimeMs: st.mtimeMs });
        } catch {}
      }
    }
    return out;
  }

  names(): string[] {
    return [...this.scan().keys()].sort();
  }

  get(name: string): AdapterFile | undefined {
    return this.scan().get(name);
  }

  /** The source of an adapter, or undefined when it does not exist or cannot be read. */
  source(name: string): string | undefined {
    const f = this.get(name);
    if (!f) return undefined;
    try {
      return readFileSync(f.path, 'utf8');
    } catch {
      return undefined;
    }
  }
}
