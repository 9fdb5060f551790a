/** Names of environment variables that look like credentials. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|SESSION)/i;

/**
 * The environment for programs the agent starts (cmd, terminals): the daemon's own, minus
 * anything that looks like a credential (API keys of LLM sources, tokens) and HomeAgent's own
 * variables, so `cat /proc/self/environ` or `env` cannot read them.
 */
export function childEnv(base: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) {
    if (v === undefined || SECRET_NAME.test(k) || k.startsWith('HOMEAGENT_')) continue;
    out[k] = v;
  }
  return { ...out, ...extra };
}
