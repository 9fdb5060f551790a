import { AsyncLocalStorage } from 'node:async_hooks';
import type { ChangeMeta } from '../../spec/index.js';

const store = new AsyncLocalStorage<ChangeMeta>();

/**
 * Runs `fn` with who is changing memory (K-3): the memory tools run as the agent (with their
 * turn), the heartbeat loops as the heartbeat, an import as `import`; what runs outside any of
 * them (the WebUI, `waiter`) is the user. Every change recorded inside `fn` — however deep, across
 * awaits — carries it.
 */
export function withChangeActor<T>(meta: ChangeMeta, fn: () => T): T {
  return store.run({ ...store.getStore(), ...meta }, fn);
}

/** Who is changing memory now (default: the user). */
export function currentChangeActor(): ChangeMeta & { actor: NonNullable<ChangeMeta['actor']> } {
  const m = store.getStore();
  return { ...m, actor: m?.actor ?? 'user' };
}
