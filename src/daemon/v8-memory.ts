import v8 from 'node:v8';

/**
 * V8 flags the daemon can set on itself at start (issue 11 part 8, decision 0110): opt-in with
 * `HOMEAGENT_V8_HEAP_TUNING=1`, off by default because they cost query time.
 * `--heap-growing-percent=20` makes V8 raise the old generation's limit by 20 % of what survives a
 * full collection instead of its default factor (up to 4× when collections are cheap). A recall
 * allocates a few MiB of short-lived objects; part of it is promoted, and with the default factor
 * the old generation swells to 120–170 MiB committed for ≈ 50 MiB live before a full collection, and
 * keeps those pages. Measured on the scale bench (1,000,000 archived turns, 320 queries, same run):
 * RSS 302 → 229 MiB, but the daemon's CPU per query 26.7 → 32.6 ms and wall-clock p50 50 → 70 ms
 * (more full collections). `--optimize-for-size` saved a little more and cost more (+37 % CPU per
 * query). The task's rule — a heap flag only if query time holds — keeps it off by default. V8 reads
 * the flag at each collection and Node does not freeze flags after start, so setting it at run time
 * works; `homed run` applies it however it is launched (foreground, the supervisor, a service).
 */
export const DAEMON_V8_FLAGS: readonly string[] = ['--heap-growing-percent=20'];

/** Applies DAEMON_V8_FLAGS to this process when the environment opts in; returns the flags set. */
export function applyDaemonV8Flags(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.HOMEAGENT_V8_HEAP_TUNING !== '1') return [];
  for (const f of DAEMON_V8_FLAGS) v8.setFlagsFromString(f);
  return [...DAEMON_V8_FLAGS];
}
