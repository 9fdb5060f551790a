import { MemorySystem, type MemorySystemOptions } from './memory-system.js';

/**
 * What the one memory composition can be given. The daemon passes these and so does the LoCoMo
 * benchmark (bench/locomo), which must measure what users run: there is no ranking or tier
 * override here, ranking knobs exist only per call (`recall.search(q, { rank })`) for tuning.
 */
export type MemoryCompositionOptions = Pick<MemorySystemOptions, 'homeDir' | 'config' | 'people' | 'log' | 'now' | 'llm' | 'injectConsolidation' | 'scheduler' | 'cleaners' | 'fetch' | 'sessions' | 'textLog'>;

/**
 * The memory subsystem as the daemon runs it (T-1…T-10, K-1): every tier assembled and opened,
 * crash recovery from the session logs done. The daemon and the LoCoMo benchmark both call this.
 */
export async function openMemorySystem(opts: MemoryCompositionOptions): Promise<MemorySystem> {
  const m = new MemorySystem(opts);
  await m.open();
  return m;
}
