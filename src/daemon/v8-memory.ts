import v8 from 'node:v8';

/**
 * V8 flags the daemon sets on itself at start (issue 11 part 8, decision 0110). `--optimize-for-size`
 * makes V8 grow the old generation conservatively and keep the young generation small. A recall
 * allocates a few MiB of short-lived objects; with V8's default growth the garbage a query
 * promotes lets the old generation swell to 120–170 MiB committed for 50 MiB live before a full
 * collection, and it is not given back while queries keep coming. Measured on the scale bench
 * (1,000,000 archived turns, 320 queries): daemon RSS ≈ 300 MiB → ≈ 210 MiB with the same query
 * latency. The flag is one V8 reads at each collection, so setting it at run time works (Node does
 * not freeze flags after start); `homed run` sets it however it is launched (foreground, the
 * supervisor, a service). `HOMEAGENT_V8_OPTIMIZE_FOR_SIZE=0` turns it off.
 */
export const DAEMON_V8_FLAGS: readonly string[] = ['--optimize-for-size'];

/** Applies DAEMON_V8_FLAGS to this process unless the environment opts out; returns the flags set. */
export function applyDaemonV8Flags(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.HOMEAGENT_V8_OPTIMIZE_FOR_SIZE === '0') return [];
  for (const f of DAEMON_V8_FLAGS) v8.setFlagsFromString(f);
  return [...DAEMON_V8_FLAGS];
}
