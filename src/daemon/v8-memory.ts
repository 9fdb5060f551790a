import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * V8 flags the daemon sets on itself at start (issue 11 part 8, decisions 0110 and 0150). A recall
 * allocates a few MiB of short-lived objects; part of it is promoted, and with V8's own heap
 * growing factor (up to 4× what survived the last full collection when collections are cheap) the
 * old generation swells to 120–170 MiB committed for ≈ 40–60 MiB live before a full collection,
 * and keeps those pages. `--heap-growing-percent=N` fixes the factor at 1 + N/100.
 *
 * By default N = 100, a factor of 2 (decision 0150). Measured on the scale bench at 1,000,000
 * archived turns, 320 queries, interleaved starts on the shared machine (load 8–17): RSS ≈ 306 →
 * ≈ 256 MiB with the daemon's CPU per query unchanged within the noise (≈ 37 ms either way). A factor
 * of 1.5 saved ≈ 70 MiB but cost CPU in some runs (7× the full collections; up to +30 % CPU per
 * query in one same-run bench), 1.3 cost ≈ +17 %. `HOMEAGENT_V8_HEAP_TUNING=1` (or `tight`) chooses
 * the memory-first setting: 20 % plus a young generation held at 16 MiB ({@link capYoungGeneration}),
 * ≈ 207 MiB for ≈ 20–30 % more CPU per query; `0` (or `off`) leaves V8's own factor. V8 reads
 * these flags at each collection (not only at start) and Node does not freeze flags, so no re-exec
 * or `NODE_OPTIONS` is needed; `homed run` applies them however it is launched (foreground, the
 * supervisor, a service).
 */
export const DAEMON_V8_FLAGS: readonly string[] = ['--heap-growing-percent=100'];

/** The memory-first opt-in (`HOMEAGENT_V8_HEAP_TUNING=1`): less memory for ≈ 20–30 % more CPU per query; with the young generation's cap. */
export const TIGHT_V8_FLAGS: readonly string[] = ['--heap-growing-percent=20'];

/** The flags `HOMEAGENT_V8_HEAP_TUNING` selects: unset → the default, `1`/`tight` → tight, `0`/`off` → none. */
export function daemonV8Flags(env: NodeJS.ProcessEnv = process.env): readonly string[] {
  const v = (env.HOMEAGENT_V8_HEAP_TUNING ?? '').trim().toLowerCase();
  if (v === '0' || v === 'off') return [];
  if (v === '1' || v === 'tight') return TIGHT_V8_FLAGS;
  return DAEMON_V8_FLAGS;
}

/**
 * The young generation's cap of the tight setting (decision 0150): V8's new space — two
 * semi-spaces — is 32 MiB once it has grown to its default maximum, and all of it is touched
 * (resident) within a few scavenges. Held at 16 MiB (semi-spaces of 8 MiB) it measured ≈ 10–20 MiB
 * less RSS at 1,000,000 archived turns, for about twice the scavenges (234 against 101 over 320
 * queries): not free, so only with `HOMEAGENT_V8_HEAP_TUNING=1`. `--max-semi-space-size` is read only when the
 * heap is created (a command-line flag), but `--semi-space-growth-factor` is read at each growth:
 * 1 stops the growth where it is. By the time `homed run` starts, loading its modules has grown
 * the new space to 16 MiB; if it is still smaller, the factor is set to 1 after the first
 * collection that finds it at the cap (a GC observer, which then disconnects). Returns a disposer
 * (tests) that removes the observer and restores V8's factor.
 */
export const YOUNG_GENERATION_CAP = 16 * 1024 * 1024;

function newSpaceSize(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

/** Stops the growth of V8's new space once it has reached `cap` bytes (see {@link YOUNG_GENERATION_CAP}). */
export function capYoungGeneration(cap = YOUNG_GENERATION_CAP): () => void {
  const restore = () => v8.setFlagsFromString('--semi-space-growth-factor=2');
  if (newSpaceSize() >= cap) {
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    return restore;
  }
  const obs = new PerformanceObserver(() => {
    if (newSpaceSize() < cap) return;
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    obs.disconnect();
  });
  obs.observe({ entryTypes: ['gc'] });
  return () => {
    obs.disconnect();
    restore();
  };
}

/** Applies the flags {@link daemonV8Flags} selects to this process (and, for the tight setting, the young generation's cap); returns what it set. */
export function applyDaemonV8Flags(env: NodeJS.ProcessEnv = process.env): string[] {
  const flags = daemonV8Flags(env);
  for (const f of flags) v8.setFlagsFromString(f);
  if (flags !== TIGHT_V8_FLAGS) return [...flags];
  capYoungGeneration();
  return [...flags, 'young generation capped at 16 MiB'];
}
