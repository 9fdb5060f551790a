import type { Disposer, ToolDef, ToolSource } from '../spec/index.js';
import type { Logger } from '../log/index.js';
import { silentLogger } from '../log/index.js';

/**
 * Rebuilds the tool list every cycle from the sources that exist so far (C-5): plugin tools,
 * output channel tools, memory tools, built-in conditional tools, media tools. On a name clash the
 * earlier source wins and the clash is logged once.
 */
export class ToolAggregator {
  private readonly sources: { name: string; source: ToolSource }[] = [];
  private readonly warned = new Set<string>();

  constructor(private readonly log: Logger = silentLogger) {}

  add(name: string, source: ToolSource): Disposer {
    const entry = { name, source };
    this.sources.push(entry);
    return () => {
      const i = this.sources.indexOf(entry);
      if (i >= 0) this.sources.splice(i, 1);
    };
  }

  sourceNames(): string[] {
    return this.sources.map((s) => s.name);
  }

  build(filter?: (def: ToolDef) => boolean): ToolDef[] {
    const out = new Map<string, ToolDef>();
    for (const { name, source } of this.sources) {
      let defs: ToolDef[] = [];
      try {
        defs = source();
      } catch (e) {
        this.log.warn(`tool source ${name} failed: ${(e as Error).message}`);
      }
      for (const d of defs) {
        if (filter && !filter(d)) continue;
        if (out.has(d.name)) {
          const key = `${name}:${d.name}`;
          if (!this.warned.has(key)) {
            this.warned.add(key);
            this.log.warn(`tool ${d.name} from source ${name} shadowed by an earlier source`);
          }
          continue;
        }
        out.set(d.name, d);
      }
    }
    return [...out.values()];
  }
}
