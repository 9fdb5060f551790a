import v8 from 'node:v8';

/**
 * V8 flags the daemon sets on itself at start (issue 11 part 8, decision 0110).
 * `--heap-growing-percent=20` makes V8 raise the old generation's limit by 20 % of what survives a
 * full collection instead of its default factor (up to 4× when collections are cheap). A recall
 * allocates a few MiB of short-lived objects; part of it is promoted, and with the default factor
 * the old generation swells to 120–170 MiB committed for ≈ 50 MiB live before a full collection, and
 * keeps those pages. Measured on the scale bench (1,000,000 archived turns, 320 queries, same run):
 * RSS ≈ 300 → ≈ 225 MiB at the same CPU time per query. `--optimize-for-size` saved ≈ 15 MiB more but
 * cost 10–37 % more CPU per query (a smaller young generation): rejected. V8 reads the flag at each
 * collection and Node does not freeze flags after start, so setting it at run time works; `homed run`
 * sets it however it is launched (foreground, the supervisor, a service).
 * `HOMEAGENT_V8_HEAP_TUNING=0` turns it off.
 */
export const DAEMON_V8_FLAGS: readonly string[] = ['--heap-growing-percent=20'];

/** Applies DAEMON_V8_FLAGS to this process unless the environment opts out; returns the flags set. */
export function applyDaemonV8Flags(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.HOMEAGENT_V8_HEAP_TUNING === '0') return [];
  for (const f of DAEMON_V8_FLAGS) v8.setFlagsFromString(f);
  return [...DAEMON_V8_FLAGS];
}
