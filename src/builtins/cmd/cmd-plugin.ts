import { promises as fsp } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { definePlugin, ValidationError } from '../../sdk/index.js';
import type { ConfigKeyDef } from '../../sdk/index.js';
import { confirmQuestion } from '../../spec/index.js';
import { childEnv, parseArgs, toolParameters } from '../shared/index.js';
import { decideCommand, refusalMessage, type ConfirmPolicy } from './command-policy.js';
import { formatResult, runCommand } from './run-command.js';

/**
 * The default allowlist: commands that cannot start other programs or write files through any
 * option of their own, so a prompt-injected model cannot turn them into code execution (SPEC §9).
 * Deliberately absent: `git` (aliases `-c alias.x=!cmd`, hooks, `core.sshCommand`, pagers,
 * `--upload-pack` all run programs), `date` (`-s` sets the clock), `find` (`-exec`, `-delete`),
 * `sort` (`-o`, `--compress-program`), `tar`, `xargs`, `env`, shells and interpreters. Everything
 * else asks the person first.
 */
export const DEFAULT_ALLOWLIST = ['ls', 'cat', 'echo', 'pwd', 'uname', 'whoami', 'df'];

const settings: Record<string, ConfigKeyDef> = {
  allowlist: { default: DEFAULT_ALLOWLIST, description: 'Executables cmd_run may start without asking (exact names, or exact paths). This is a policy, not a sandbox: a listed program can do whatever its options allow — do not add programs that run others (git runs aliases and hooks, find -exec, env, shells, interpreters)', privileged: true, schema: z.array(z.string().min(1).max(4096)).max(1000) },
  confirm: {
    default: 'outside-allowlist',
    description: 'When to ask the user first: "never" (refuse anything outside the allowlist), "outside-allowlist", "always". Without an interactive confirmation service, a command that needs confirmation is refused.',
    schema: z.enum(['never', 'outside-allowlist', 'always']),
    privileged: true,
  },
  timeout_ms: { default: 30_000, description: 'Kill the command (and its children) after this long', schema: z.number().int().min(100).max(3_600_000) },
  max_output_bytes: { default: 64 * 1024, description: 'Output (stdout + stderr) kept; the rest is cut with a note', schema: z.number().int().min(64).max(16 * 1024 * 1024) },
  cwd: { default: '', description: 'Default working folder (empty = the data folder; relative = inside it)', schema: z.string().max(4096), privileged: true },
};

const runArgs = z.object({
  command: z.string().min(1).max(4096).describe('Executable name (no shell: pipes, globs and redirections are NOT interpreted)'),
  args: z.array(z.string().max(65536)).max(1000).optional().describe('Arguments, passed as is'),
  cwd: z.string().max(4096).optional().describe('Working folder'),
});

/**
 * `cmd` (P-7): run one executable without a shell, under an allowlist and a confirmation
 * policy, with a timeout that kills the process tree and an output cap.
 */
export const cmdPlugin = definePlugin({
  name: 'cmd',
  description: 'Run commands (no shell) with an allowlist, confirmation policy, timeout and output cap',
  settings,
  start(sdk) {
    const s = sdk.settings();
    sdk.registerTool({
      name: 'cmd_run',
      description:
        'Run one program with arguments (no shell). Only allowlisted programs run without confirmation. Returns the exit code and output.',
      parameters: toolParameters(runArgs),
      async handler(raw, call) {
        const a = parseArgs(runArgs, raw, 'cmd_run');
        const decision = decideCommand(a.command, s.get<string[]>('allowlist'), s.get<ConfirmPolicy>('confirm'));
        if (decision.kind === 'refuse') return refusalMessage(a.command, decision.reason);
        if (decision.kind === 'confirm') {
          const confirm = sdk.use('host.confirm');
          if (!confirm) return refusalMessage(a.command, `${decision.reason} and it needs the user's confirmation, which no channel can ask for here`);
          if (confirm.reachable?.() === false) return refusalMessage(a.command, `${decision.reason} and it needs the user's approval, but no WebUI page is open to ask it in (the user can open the WebUI with \`waiter webui\` and ask again)`);
          const ok = await confirm.ask({ plugin: 'cmd', sessionId: call.sessionId, title: confirmQuestion.runCommand(a.command), detail: [a.command, ...(a.args ?? [])].join(' ') }).catch(() => false);
          if (!ok) return `the user did not approve running ${JSON.stringify(a.command)}`;
        }
        const base = s.get<string>('cwd') || sdk.homeDir;
        const defCwd = isAbsolute(base) ? base : join(sdk.homeDir, base);
        const cwd = a.cwd ? (isAbsolute(a.cwd) ? a.cwd : join(defCwd, a.cwd)) : defCwd;
        const st = await fsp.stat(cwd).catch(() => undefined);
        if (!st?.isDirectory()) throw new ValidationError(`cmd_run: working folder does not exist: ${cwd}`, { cwd });
        const timeoutMs = s.get<number>('timeout_ms');
        try {
          const r = await runCommand(a.command, a.args ?? [], { cwd, timeoutMs, maxOutputBytes: s.get<number>('max_output_bytes'), signal: call.signal, env: childEnv() });
          return formatResult(a.command, r, timeoutMs);
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') return `command not found: ${a.command}`;
          if (code === 'EACCES') return `permission denied: ${a.command}`;
          throw e;
        }
      },
    });
  },
});
