import type { MemorySummary } from './types';

/** What the links field needs from the memory manager (the page's `mm`). */
export type LinkLookup = {
  /** Memories whose words match (the library search). */
  search(query: string): Promise<MemorySummary[]>;
  /** Whether a memory with this id exists. */
  exists(id: string): Promise<boolean>;
};

/** A link the person typed that names no memory, or several. */
export class LinkNotFound extends Error {
  constructor(
    readonly typed: string,
    readonly reason: 'none' | 'several',
  ) {
    super(`${reason === 'none' ? 'no memory is titled' : 'several memories are titled'} "${typed}"`);
  }
}

/**
 * The memory ids a links field names. A person types a memory's title (what the page shows), or its
 * id: a link the memory has already stays (by the title shown for it, or its id), a title names the
 * one memory of that title (letter case aside), an id an existing memory. A title of no memory, or
 * of several, is an error that names it, and nothing is saved.
 */
export async function resolveLinks(typed: readonly string[], current: ReadonlyMap<string, string>, lookup: LinkLookup): Promise<string[]> {
  const out: string[] = [];
  const currentIds = new Set(current.values());
  for (const x of typed) {
    const known = current.get(x) ?? (currentIds.has(x) ? x : undefined);
    if (known) {
      out.push(known);
      continue;
    }
    const titled = (await lookup.search(x)).filter((m) => m.title.trim().toLowerCase() === x.toLowerCase());
    if (titled.length === 1) out.push(titled[0].id);
    else if (titled.length > 1) throw new LinkNotFound(x, 'several');
    else if (await lookup.exists(x)) out.push(x);
    else throw new LinkNotFound(x, 'none');
  }
  return [...new Set(out)];
}
