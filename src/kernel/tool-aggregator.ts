import type { Disposer, ToolDef, ToolSource } from '../spec/index.js';
import type { Logger } from '../log/index.js';
import { silentLogger } from '../log/index.js';

/** Options of {@link ToolAggregator.add}. */
export interface ToolSourceOptions {
  /**
   * The source loses every name clash, whatever the order the sources were added in: the
   * registered plugin tools yield to the kernel's own (channels, built-in and memory tools), so a
   * plugin can never stand in for one of them (C-3).
   */
  yields?: boolean;
}

interface Source {
  name: string;
  source: ToolSource;
  yields: boolean;
}

/**
 * Rebuilds the tool list every cycle from the sources that exist so far (C-5): plugin tools,
 * output channel tools, memory tools, built-in conditional tools, media tools. On a name clash the
 * earlier source wins — except that a yielding source loses to every other — and the clash is
 * logged once.
 */
export class ToolAggregator {
  private readonly sources: Source[] = [];
  private readonly warned = new Set<string>();

  constructor(private readonly log: Logger = silentLogger) {}

  add(name: string, source: ToolSource, opts: ToolSourceOptions = {}): Disposer {
    const entry: Source = { name, source, yields: opts.yields === true };
    this.sources.push(entry);
    return () => {
      const i = this.sources.indexOf(entry);
      if (i >= 0) this.sources.splice(i, 1);
    };
  }

  sourceNames(): string[] {
    return this.sources.map((s) => s.name);
  }

  /** The source (not a yielding one) that offers a tool of this name now, if any. */
  ownerOf(tool: string): string | undefined {
    for (const s of this.sources) if (!s.yields && this.defsOf(s).some((d) => d.name === tool)) return s.name;
    return undefined;
  }

  build(filter?: (def: ToolDef) => boolean): ToolDef[] {
    const all = this.sources.map((s) => ({ s, defs: this.defsOf(s) }));
    const strong = new Set(all.filter((x) => !x.s.yields).flatMap((x) => x.defs.map((d) => d.name)));
    const out = new Map<string, ToolDef>();
    for (const { s, defs } of all) {
      for (const d of defs) {
        if (filter && !filter(d)) continue;
        if (out.has(d.name) || (s.yields && strong.has(d.name))) {
          const key = `${s.name}:${d.name}`;
          if (!this.warned.has(key)) {
            this.warned.add(key);
            this.log.warn(`tool ${d.name} from source ${s.name} shadowed by ${s.yields ? 'a source it yields to' : 'an earlier source'}`);
          }
          continue;
        }
        out.set(d.name, d);
      }
    }
    return [...out.values()];
  }

  private defsOf({ name, source }: Source): ToolDef[] {
    try {
      return source();
    } catch (e) {
      this.log.warn(`tool source ${name} failed: ${(e as Error).message}`);
      return [];
    }
  }
}
