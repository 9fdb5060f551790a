import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * V8 flags the daemon sets on itself at start (issue 11 part 8, decisions 0110 and 0150). A recall
 * allocates a few MiB of short-lived objects; part of it is promoted, and with V8's own heap
 * growing factor (up to 4× what survived the last full collection when collections are cheap) the
 * old generation swells to 120–170 MiB committed for ≈ 40–60 MiB live before a full collection,
 * and keeps those pages. `--heap-growing-percent=N` fixes the factor at 1 + N/100.
 *
 * By default N = 50 (decision 0150). Measured on the scale bench at 1,000,000 archived turns,
 * 320 queries, interleaved runs at load ≈ 9: RSS ≈ 306 → ≈ 237 MiB with the daemon's CPU per
 * query within the run-to-run noise (≈ 37 vs ≈ 38 ms; 100 saved ≈ 50 MiB, 30 cost ≈ +17 % CPU).
 * `HOMEAGENT_V8_HEAP_TUNING=1` (or `tight`) chooses 20 (decision 0110: ≈ 20 % more CPU per query
 * for a little less memory), `0` (or `off`) leaves V8's own factor. V8 reads the flag at each
 * collection and Node does not freeze flags after start, so no re-exec or `NODE_OPTIONS` is
 * needed; `homed run` applies it however it is launched (foreground, the supervisor, a service).
 */
export const DAEMON_V8_FLAGS: readonly string[] = ['--heap-growing-percent=50'];

/** The tighter opt-in of decision 0110 (`HOMEAGENT_V8_HEAP_TUNING=1`): less memory, ≈ 20 % more CPU per query. */
export const TIGHT_V8_FLAGS: readonly string[] = ['--heap-growing-percent=20'];

/** The flags `HOMEAGENT_V8_HEAP_TUNING` selects: unset → the default, `1`/`tight` → tight, `0`/`off` → none. */
export function daemonV8Flags(env: NodeJS.ProcessEnv = process.env): readonly string[] {
  const v = (env.HOMEAGENT_V8_HEAP_TUNING ?? '').trim().toLowerCase();
  if (v === '0' || v === 'off') return [];
  if (v === '1' || v === 'tight') return TIGHT_V8_FLAGS;
  return DAEMON_V8_FLAGS;
}

/**
 * The young generation's cap (decision 0150): V8's new space — two semi-spaces — is 32 MiB once it
 * has grown to its default maximum, and all of it is touched (resident) within a few scavenges.
 * Held at 16 MiB (semi-spaces of 8 MiB) it measured ≈ 10–13 MiB less RSS at 1,000,000 archived
 * turns with the CPU per query within the noise. `--max-semi-space-size` is read only when the
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

/** Applies the flags {@link daemonV8Flags} selects to this process, and the young generation's cap unless tuning is off; returns the flags set. */
export function applyDaemonV8Flags(env: NodeJS.ProcessEnv = process.env): string[] {
  const flags = daemonV8Flags(env);
  for (const f of flags) v8.setFlagsFromString(f);
  if (flags.length === 0) return [];
  capYoungGeneration();
  return [...flags, '--semi-space-growth-factor=1 (from a 16 MiB new space)'];
}
