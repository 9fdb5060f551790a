import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ConflictError, NotFoundError, ValidationError, type HeldAdapterInfo, type HeldAdapterSource, type TakenAdapter } from '../spec/index.js';
import { writeFileAtomicSync } from '../fs/index.js';

/**
 * The folder under the data folder's `adapters/` where an import puts an archive's Lua adapters
 * (decision 0540): the adapter registry reads only the files directly in `adapters/`, so nothing
 * here runs until the person takes it.
 */
export const HELD_ADAPTERS_DIR = 'imported';
/** Where the code a taken adapter replaced is kept (not read by the registry either). */
export const REPLACED_ADAPTERS_DIR = 'replaced';
/** The largest Lua adapter an export carries and an import or a take accepts (the shipped ones are under 20 KiB). */
export const ADAPTER_MAX_BYTES = 1024 * 1024;
/** Lua adapter names, as the adapter registry finds them (`<name>.lua`). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Why an adapter file is not taken as code (too large, not UTF-8 text), or undefined. */
export function adapterProblem(bytes: Buffer): 'too-large' | 'not-text' | undefined {
  if (bytes.length > ADAPTER_MAX_BYTES) return 'too-large';
  if (bytes.includes(0)) return 'not-text';
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return 'not-text';
  }
  return undefined;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A regular file (not a link, not a folder) at `path`, or false. */
function isPlainFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The Lua adapters an import held in `adapters/imported/` (decision 0540), and the person's act of
 * taking one into use (decision 0620). Taking moves the file into `adapters/`, where the registry
 * finds it on its next scan — the act that installs any adapter — and only the bytes the person
 * was shown (`sha256`): a file an import wrote over since is refused. One that would replace an
 * adapter here (the person's own, or a shipped one of that name) needs `replace`; the person's own
 * code is kept in `adapters/replaced/` first. No agent tool or MCP tool reaches this: only the
 * CLI socket and the WebUI's token-guarded routes.
 */
export class HeldAdapters {
  constructor(
    /** `<data>/adapters`. */
    private readonly dir: string,
    /** The shipped adapters' folder. */
    private readonly shippedDir: string,
    /** The sources and the adapter each names (for `usedBy`). */
    private readonly sources: () => readonly { name: string; adapter: string; enabled: boolean }[],
  ) {}

  private heldPath(name: string): string {
    return join(this.dir, HELD_ADAPTERS_DIR, `${name}.lua`);
  }

  /** Every adapter held, by name. */
  list(): HeldAdapterInfo[] {
    let names: string[];
    try {
      names = readdirSync(join(this.dir, HELD_ADAPTERS_DIR)).sort();
    } catch {
      return [];
    }
    return names.flatMap((f) => {
      const name = f.endsWith('.lua') ? f.slice(0, -'.lua'.length) : '';
      if (!NAME.test(name) || !isPlainFile(this.heldPath(name))) return [];
      try {
        const { source: _, ...info } = this.get(name);
        return [info];
      } catch {
        return []; // not text, too large: `get` says why
      }
    });
  }

  /** One held adapter with its code; NotFoundError when there is none, ValidationError when it is not an adapter's text. */
  get(name: string): HeldAdapterSource {
    const bytes = this.read(name);
    const replaces = this.replaces(name, bytes);
    return {
      name,
      bytes: bytes.length,
      sha256: sha256(bytes),
      ...(replaces ? { replaces } : {}),
      usedBy: this.sources().filter((s) => s.adapter === name).map((s) => ({ name: s.name, enabled: s.enabled })),
      source: bytes.toString('utf8'),
    };
  }

  /**
   * Takes a held adapter into use: the file the person read (`sha256`) moves into `adapters/`.
   * ConflictError when it changed since (read it again), or when it would replace an adapter here
   * and `replace` is not set.
   */
  take(name: string, o: { sha256: unknown; replace?: boolean }): TakenAdapter {
    if (typeof o.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(o.sha256)) throw new ValidationError('sha256 must be the SHA-256 (hex) of the adapter as it was shown', { key: 'sha256' });
    const bytes = this.read(name);
    if (sha256(bytes) !== o.sha256) throw new ConflictError(`held adapter ${name} is not the file that was shown (an import wrote it since): read it again before taking it`, { name });
    const target = join(this.dir, `${name}.lua`);
    const replaces = this.replaces(name, bytes);
    if (replaces && o.replace !== true) {
      throw new ConflictError(
        replaces === 'yours' ? `adapters/${name}.lua is here already, with other code: take it with replace to use the archive's (yours is kept in adapters/${REPLACED_ADAPTERS_DIR}/)` : `${name} is an adapter HomeAgent ships: take it with replace to use the archive's instead`,
        { name, replaces },
      );
    }
    let keptAt: string | undefined;
    if (replaces === 'yours') {
      const aside = join(this.dir, REPLACED_ADAPTERS_DIR);
      mkdirSync(aside, { recursive: true, mode: 0o700 });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      keptAt = join('adapters', REPLACED_ADAPTERS_DIR, `${name}.${stamp}.lua`);
      copyFileSync(target, join(aside, `${name}.${stamp}.lua`));
    }
    // The same bytes here already (taken before, or copied by hand): nothing to write.
    if (!(isPlainFile(target) && readFileSync(target).equals(bytes))) writeFileAtomicSync(target, bytes, { mode: 0o600 });
    unlinkSync(this.heldPath(name));
    return { name, ...(replaces ? { replaced: replaces } : {}), ...(keptAt ? { keptAt } : {}) };
  }

  /**
   * Discards a held adapter the person does not want: the file they were shown (`sha256`) is
   * deleted from `adapters/imported/` (the archive it came from still has it). ConflictError when
   * it changed since. Nothing in `adapters/` is touched.
   */
  discard(name: string, o: { sha256: unknown }): { name: string; discarded: true } {
    if (typeof o.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(o.sha256)) throw new ValidationError('sha256 must be the SHA-256 (hex) of the adapter as it was shown', { key: 'sha256' });
    const bytes = this.read(name);
    if (sha256(bytes) !== o.sha256) throw new ConflictError(`held adapter ${name} is not the file that was shown (an import wrote it since): read it again before discarding it`, { name });
    unlinkSync(this.heldPath(name));
    return { name, discarded: true };
  }

  /** The held file's bytes, checked: a name of the registry's, a plain file, an adapter's text. */
  private read(name: string): Buffer {
    if (typeof name !== 'string' || !NAME.test(name)) throw new ValidationError(`invalid adapter name ${JSON.stringify(String(name).slice(0, 80))}`, { key: 'name' });
    const path = this.heldPath(name);
    if (!isPlainFile(path)) throw new NotFoundError('held adapter', name);
    const bytes = readFileSync(path);
    const problem = adapterProblem(bytes);
    if (problem) throw new ValidationError(`held adapter ${name} ${problem === 'too-large' ? `is larger than ${ADAPTER_MAX_BYTES} bytes` : 'is not UTF-8 text'}`, { key: 'name', name });
    return bytes;
  }

  /** What the held bytes would replace: the person's own adapter of that name (other code), else a shipped one. */
  private replaces(name: string, bytes: Buffer): HeldAdapterInfo['replaces'] {
    const yours = join(this.dir, `${name}.lua`);
    if (existsSync(yours)) return isPlainFile(yours) && readFileSync(yours).equals(bytes) ? undefined : 'yours';
    return existsSync(join(this.shippedDir, `${name}.lua`)) ? 'shipped' : undefined;
  }
}
