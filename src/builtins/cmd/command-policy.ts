/** When a command must be confirmed by the user before it runs. */
export type ConfirmPolicy = 'never' | 'outside-allowlist' | 'always';

/** What the policy says about one command. */
export type PolicyDecision =
  | { kind: 'run' }
  | { kind: 'confirm'; reason: string }
  | { kind: 'refuse'; reason: string };

/**
 * Decides whether `command` may run (P-7 `cmd`). The allowlist holds exact executable names
 * (`git`) or exact paths (`/usr/bin/git`); a path is never allowed by its base name alone,
 * so `/tmp/x/ls` is not `ls`.
 *
 * - `never`: allowlisted commands run; others are refused.
 * - `outside-allowlist`: allowlisted commands run; others need confirmation.
 * - `always`: every command needs confirmation.
 */
export function decideCommand(command: string, allowlist: readonly string[], policy: ConfirmPolicy): PolicyDecision {
  const listed = allowlist.includes(command);
  if (policy === 'always') return { kind: 'confirm', reason: `the confirmation policy is "always"` };
  if (listed) return { kind: 'run' };
  if (policy === 'outside-allowlist') return { kind: 'confirm', reason: `"${command}" is not in the allowlist` };
  return { kind: 'refuse', reason: `"${command}" is not in the allowlist` };
}

/** The message the model gets when a command is refused, saying how the user can allow it. */
export function refusalMessage(command: string, reason: string, plugin = 'cmd'): string {
  return (
    `refused to run ${JSON.stringify(command)}: ${reason}. ` +
    `The user can allow it by adding it to plugin.${plugin}.allowlist (e.g. \`waiter config set plugin.${plugin}.allowlist '["ls","${command}"]'\` or the WebUI settings page)` +
    ` or change plugin.${plugin}.confirm ("never" | "outside-allowlist" | "always").`
  );
}
