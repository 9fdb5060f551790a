import type { Disposer, ServiceMap } from '../spec/index.js';
import { ConflictError } from '../spec/index.js';

/** Services shared between plugins (`sdk.provide` / `sdk.use`, cordis-style). One provider per name. */
export class ServiceRegistry {
  private readonly services = new Map<string, { impl: unknown; owner: string }>();

  provide<K extends keyof ServiceMap>(owner: string, name: K, impl: ServiceMap[K]): Disposer {
    const existing = this.services.get(name as string);
    if (existing) throw new ConflictError(`service "${String(name)}" is already provided by "${existing.owner}"`, { service: name, owner: existing.owner });
    const entry = { impl, owner };
    this.services.set(name as string, entry);
    return () => {
      if (this.services.get(name as string) === entry) this.services.delete(name as string);
    };
  }

  use<K extends keyof ServiceMap>(name: K): ServiceMap[K] | undefined {
    return this.services.get(name as string)?.impl as ServiceMap[K] | undefined;
  }

  /** Names of the services currently provided. */
  names(): string[] {
    return [...this.services.keys()];
  }
}
