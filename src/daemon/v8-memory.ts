import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

const MiB = 1024 * 1024;

/**
 * V8 settings the daemon applies to itself (issue 11 part 8, decisions 0110, 0150, 0180 and 0220).
 * Three things hold most of the daemon's RSS beyond what is live, and the third its slow queries:
 *
 * - **The old generation's growing factor.** A recall allocates a few MiB of short-lived objects;
 *   part of it is promoted, and with V8's own factor (up to 4× what survived the last full
 *   collection when collections are cheap) the old generation swells to 120–170 MiB committed for
 *   ≈ 40–60 MiB live before a full collection, and keeps those pages. `--heap-growing-percent=N`
 *   fixes the factor at 1 + N/100; by default N = 100, a factor of 2 (decision 0150: RSS at
 *   1,000,000 archived turns ≈ 306 → 256 MiB, CPU per query unchanged within the noise). V8 reads
 *   it at each collection, so `homed run` sets it on itself ({@link applyDaemonV8Flags}).
 * - **The young generation** (decision 0180). V8's new space — two semi-spaces — grows from 2 MiB to
 *   32 MiB as soon as enough survives scavenges, and all of it is touched (resident). By default it
 *   is held at 8 MiB ({@link YOUNG_GENERATION_BOUND}; 16 from decision 0220 to 0230). Decision 0180 measured at 1,000,000 archived
 *   turns, 320 queries, interleaved starts (load 10–14, n = 4): RSS 247.8 → 229.4 MiB with 8 MiB, CPU
 *   per query 19.2 → 18.2 ms (within the noise at that load), 2.4× the scavenges; 4 MiB saved about
 *   the same for 4.2× the scavenges. Decision 0220 measured on a quiet machine (load ≈ 1.5, same run):
 *   8 MiB cost CPU after all (20.0 ms per query against 14.2 with V8's own, recall p95 25.4 against
 *   19.1 ms), while 16 MiB gave 14.8 ms, p95 19.0 ms and the RSS of 8 (208.7 against 215.1 MiB;
 *   V8's own 284.2), so 16 (8 in the tight setting). Decision 0230 removed what the
 *   large young generation had been absorbing (a large archive's reads kept between queries, then
 *   promoted): since then 8 MiB costs 0–20 % more CPU per query (three same-run benches: mean 15.3
 *   against 12.7, 13.8 against 13.8, 15.7 against 15.5 ms) with recall p95 unchanged (18.9 / 17.0 /
 *   17.7 against 17.6 / 17.0 / 19.4 ms), and saves ≈ 10 MiB of RSS (181–182 against 192–196 MiB at
 *   1,000,000 archived turns), so the default is 8 again. `--max-semi-space-size` would say it
 *   directly, but V8 reads it only when the heap is created — on the command line of every
 *   launcher (npm start, the bin's shebang, the supervisor, the service units, the benches), where
 *   one forgotten launcher loses it. `--semi-space-growth-factor` is read at each growth instead, so
 *   the entry (`main.ts`) sets it to 1 before it imports anything else ({@link freezeYoungGeneration}:
 *   the new space keeps its first 2 MiB while the modules load and the tiers open), and once the
 *   daemon has started {@link holdYoungGeneration} grows it to the bound and holds it there.
 * - **Pretenuring** (decisions 0200 and 0220). V8 allocates the objects of an allocation site straight
 *   into the old generation once enough of them survived scavenges. The archive's ranking rows were
 *   such a site: kept between the queries of one archive version, then replaced a query or two later
 *   at 1,000,000 turns — so V8 pretenured them and they died in the old generation: full collections
 *   of 20–80 ms, the slow tail of recall. (Since decision 0230 a large archive's rows and postings
 *   are kept for one query only, which removed most of that promotion at its source.)
 *   `--no-allocation-site-pretenuring` keeps every new object in the young generation first. With the 16 MiB young generation, two quiet same-run benches at
 *   1M: recall p95 22.3 → 18.9 and 20.0 → 18.6 ms, CPU per query 17.1 → 14.7 and 15.8 → 15.9 ms, RSS
 *   209.7 → 208.0 and 213.3 → 211.4 MiB (with the 8 MiB young generation the two runs disagreed,
 *   decision 0220). The entry applies these flags before it loads the daemon, as the command line
 *   would ({@link applyDaemonV8Flags}).
 *
 * `HOMEAGENT_V8_HEAP_TUNING=1` (or `tight`) chooses the memory-first setting: an old-generation factor
 * of 1.2 and an 8 MiB young generation like the default's since decision 0230 (against the 16 MiB
 * default of 0220 it cost ≈ 15–60 % more CPU per query, decisions 0150, 0220 and 0230), also without pretenuring; `0` (or `off`) leaves V8's own factor and its
 * own young generation. `HOMEAGENT_V8_YOUNG_MIB=N` (2, 4, 8, 16 or 32) sets the young
 * generation's bound for measurements.
 */
export const DAEMON_V8_FLAGS: readonly string[] = ['--heap-growing-percent=100', '--no-allocation-site-pretenuring'];

/** The memory-first opt-in (`HOMEAGENT_V8_HEAP_TUNING=1`): less memory for ≈ 20–45 % more CPU per query. */
export const TIGHT_V8_FLAGS: readonly string[] = ['--heap-growing-percent=20', '--no-allocation-site-pretenuring'];

/**
 * The young generation's bound by default: V8's new space (both semi-spaces) held at 8 MiB
 * (decision 0180 chose 8 at load; decision 0220 measured 8, 16 and V8's own 32 on a quiet machine
 * and chose 16 for CPU; decision 0230, once a large archive's reads were no longer kept between
 * queries, measured 8 at about the same CPU and ≈ 10 MiB less RSS).
 */
export const YOUNG_GENERATION_BOUND = 8 * MiB;

/** The tight setting's bound (`HOMEAGENT_V8_HEAP_TUNING=1`, memory first): 8 MiB. */
export const TIGHT_YOUNG_GENERATION_BOUND = 8 * MiB;

function tuning(env: NodeJS.ProcessEnv): 'default' | 'tight' | 'off' {
  const v = (env.HOMEAGENT_V8_HEAP_TUNING ?? '').trim().toLowerCase();
  if (v === '0' || v === 'off') return 'off';
  if (v === '1' || v === 'tight') return 'tight';
  return 'default';
}

/** The flags `HOMEAGENT_V8_HEAP_TUNING` selects: unset → the default, `1`/`tight` → tight, `0`/`off` → none. */
export function daemonV8Flags(env: NodeJS.ProcessEnv = process.env): readonly string[] {
  const t = tuning(env);
  return t === 'off' ? [] : t === 'tight' ? TIGHT_V8_FLAGS : DAEMON_V8_FLAGS;
}

/**
 * The young generation's bound in bytes, or undefined for V8's own (`HOMEAGENT_V8_HEAP_TUNING=0`).
 * `HOMEAGENT_V8_YOUNG_MIB` picks another power of two from 2 to 32 MiB; anything else → the default.
 */
export function youngGenerationBound(env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (tuning(env) === 'off') return undefined;
  const n = Number((env.HOMEAGENT_V8_YOUNG_MIB ?? '').trim());
  if ([2, 4, 8, 16, 32].includes(n)) return n * MiB;
  return tuning(env) === 'tight' ? TIGHT_YOUNG_GENERATION_BOUND : YOUNG_GENERATION_BOUND;
}

/** What this process applied, for the status route (`host.agent` status → `v8`). */
const applied: { flags: string[]; youngBound?: number } = { flags: [] };

/**
 * V8's new space: both semi-spaces, bytes. Read as twice the to-space's capacity (used + available,
 * rounded to its power of two: pages carry headers), not the committed size, which V8 halves when it
 * releases the from-space after a full collection in an idle stretch and restores at the next scavenge.
 */
function newSpaceSize(): number {
  const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space');
  if (!s) return 0;
  const semi = s.space_used_size + s.space_available_size;
  return semi > 0 ? 2 * 2 ** Math.round(Math.log2(semi)) : 0;
}

let growthFactor = 2;
function setGrowthFactor(f: number): void {
  if (f === growthFactor) return;
  v8.setFlagsFromString(`--semi-space-growth-factor=${f}`);
  growthFactor = f;
}

/**
 * At the entry, before the daemon's modules are imported: stops V8's new space growing (it keeps
 * its first 2 MiB) unless the tuning is off. Returns whether it did.
 */
export function freezeYoungGeneration(env: NodeJS.ProcessEnv = process.env): boolean {
  const bound = youngGenerationBound(env);
  if (bound === undefined) return false;
  applied.youngBound = bound;
  setGrowthFactor(1);
  return true;
}

/**
 * Grows V8's new space to `bound` bytes now, synchronously, and stops its growth there: the growth
 * factor is set so that one growth lands on the bound (V8 grows the new space to factor × its size
 * at a scavenge once more has survived since its last growth than it holds; sizes are powers of
 * two), then objects are kept alive until the new space has grown, and the factor goes back to 1
 * before any other code runs — a GC observer would run only between tasks, after a recall's
 * synchronous stretch may have grown it twice (measured: 8 MiB for a 4 MiB bound with an observer alone). The objects
 * (at most 8× the bound, ≈ 2× in practice) are garbage on return. A new space at or past the bound stays where it is.
 */
function growYoungGenerationTo(bound: number): void {
  const size = newSpaceSize();
  if (size <= 0 || size >= bound) {
    setGrowthFactor(1);
    return;
  }
  setGrowthFactor(Math.max(2, Math.floor(bound / size)));
  const keep: number[][] = [];
  // ≈ 1 KiB each; the new space is read every 64 (64 KiB: far less than one growth's worth of survivors).
  for (let i = 0; i < (8 * bound) / 1024 && newSpaceSize() < bound; i += 64) for (let j = 0; j < 64; j++) keep.push(new Array<number>(126).fill(i));
  setGrowthFactor(1);
  keep.length = 0;
}

let holder: PerformanceObserver | undefined;

/**
 * Grows V8's new space to `bound` bytes now ({@link growYoungGenerationTo}) and holds it there. V8
 * itself shrinks the new space after a full collection in a stretch with little allocation; an
 * observer of collections then sets the growth factor so that V8's next growth — when the work
 * comes back and enough survives — lands on the bound again, and back to 1 once there. It does not
 * force the growth the way the start does: in an idle daemon that would allocate, be collected,
 * shrink and allocate again. Called once the daemon has started (modules loaded and tiers open with
 * the first 2 MiB). Returns a disposer (tests) that stops holding and restores V8's factor.
 */
export function holdYoungGeneration(bound: number | undefined = applied.youngBound ?? youngGenerationBound()): () => void {
  if (bound === undefined) return () => {};
  applied.youngBound = bound;
  holder?.disconnect();
  const obs = new PerformanceObserver(() => {
    const size = newSpaceSize();
    setGrowthFactor(size > 0 && size < bound ? Math.max(2, Math.floor(bound / size)) : 1);
  });
  holder = obs;
  growYoungGenerationTo(bound);
  obs.observe({ entryTypes: ['gc'] });
  return () => {
    obs.disconnect();
    if (holder === obs) holder = undefined;
    setGrowthFactor(2);
  };
}

/** Applies the flags {@link daemonV8Flags} selects to this process; returns what it set. */
export function applyDaemonV8Flags(env: NodeJS.ProcessEnv = process.env): string[] {
  const flags = [...daemonV8Flags(env)];
  for (const f of flags) v8.setFlagsFromString(f);
  applied.flags = flags;
  return flags;
}

/** The daemon's V8 settings and its new space now (the status route reports them; decision 0180). */
export interface V8MemoryStatus {
  /** Flags {@link applyDaemonV8Flags} set. */
  flags: string[];
  /** The young generation's bound (bytes), or null for V8's own. */
  youngGenerationBound: number | null;
  /** V8's new space now (both semi-spaces, bytes). */
  newSpaceBytes: number;
  /** V8's heap committed now (bytes). */
  heapTotalBytes: number;
}

/** See {@link V8MemoryStatus}. */
export function v8MemoryStatus(): V8MemoryStatus {
  return { flags: [...applied.flags], youngGenerationBound: applied.youngBound ?? null, newSpaceBytes: newSpaceSize(), heapTotalBytes: v8.getHeapStatistics().total_heap_size };
}
