import { promises as fsp } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { HomeAgentError, ValidationError } from '../../spec/index.js';

/** A path outside every allowed root (also through `..` or a symlink). */
export class PathOutsideRootsError extends HomeAgentError {
  constructor(path: string) {
    super('FORBIDDEN', `path is outside the allowed roots: ${path}`, { details: { path } });
  }
}

/** A path resolved to its real location and the (real) root it lies in. */
export interface GuardedPath {
  /** Real absolute path (symlinks of existing parents resolved). */
  abs: string;
  /** The real root that contains it. */
  root: string;
  /** Whether the path itself exists. */
  exists: boolean;
}

function inside(root: string, p: string): boolean {
  if (p === root) return true;
  const rel = relative(root, p);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !rel.split(sep).includes('..');
}

/**
 * Confines paths to a set of roots. Every path is resolved with `realpath` of its nearest
 * existing ancestor (so a symlink anywhere on the way is followed) and must land inside a root.
 * Relative paths are taken from the first root.
 */
export class PathGuard {
  private realRoots: string[] = [];

  constructor(private readonly roots: string[]) {}

  /** Creates missing roots and resolves them; call before `resolve`. */
  async open(): Promise<void> {
    const out: string[] = [];
    for (const r of this.roots) {
      await fsp.mkdir(r, { recursive: true });
      out.push(await fsp.realpath(r));
    }
    this.realRoots = out;
  }

  /** The real roots. */
  list(): string[] {
    return [...this.realRoots];
  }

  /** Resolves `input` and checks it is inside a root; throws PathOutsideRootsError otherwise. */
  async resolve(input: string): Promise<GuardedPath> {
    if (typeof input !== 'string' || input.length === 0) throw new ValidationError('path must be a non-empty string', { path: input });
    if (input.includes('\0')) throw new ValidationError('path contains a NUL byte', { path: input });
    if (this.realRoots.length === 0) throw new PathOutsideRootsError(input);
    const candidate = isAbsolute(input) ? resolve(input) : resolve(this.realRoots[0], input);
    // Walk up to the nearest existing entry (lstat: a dangling symlink counts as existing).
    let existing = candidate;
    const tail: string[] = [];
    for (;;) {
      try {
        await fsp.lstat(existing);
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        const parent = resolve(existing, '..');
        if (parent === existing) throw new PathOutsideRootsError(input);
        tail.unshift(existing.slice(parent.length).replace(/^[/\\]+/, ''));
        existing = parent;
      }
    }
    let real: string;
    try {
      real = await fsp.realpath(existing);
    } catch {
      // A dangling symlink: where it points cannot be checked, so it is refused.
      throw new PathOutsideRootsError(input);
    }
    const abs = tail.length ? join(real, ...tail) : real;
    const root = this.realRoots.find((r) => inside(r, abs));
    if (!root) throw new PathOutsideRootsError(input);
    return { abs, root, exists: tail.length === 0 };
  }

  /** Path relative to its root, for display. */
  display(g: GuardedPath): string {
    const rel = relative(g.root, g.abs);
    return this.realRoots.length > 1 ? `${g.root}${sep}${rel}` : rel || '.';
  }
}
