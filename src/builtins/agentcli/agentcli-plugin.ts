import { isAbsolute, join } from 'node:path';
import { promises as fsp } from 'node:fs';
import { z } from 'zod';
import { definePlugin, ValidationError } from '../../sdk/index.js';
import type { ConfigKeyDef, PluginDefinition } from '../../sdk/index.js';
import { confirmQuestion } from '../../spec/index.js';
import { parseArgs, toolParameters } from '../shared/index.js';
import { TerminalManager, type TerminalInfo } from './terminal-manager.js';

/** Source of everything this plugin injects; the memory layer does not archive it (T-2). */
export const AGENTCLI_SOURCE = 'agentcli';

const settings: Record<string, ConfigKeyDef> = {
  programs: { default: ['bash', 'sh'], description: 'Programs terminal_open may start (the first is the default). These are real shells: the agent can run anything they can.', schema: z.array(z.string().min(1).max(4096)).max(100), privileged: true },
  confirm_open: {
    default: true,
    description: 'Ask the person (WebUI confirmation) before each new terminal; without an open WebUI the terminal is refused. Turning it off lets the agent — or text it reads — start shells unasked.',
    schema: z.boolean(),
    privileged: true,
  },
  max_sessions: { default: 4, description: 'Most terminal sessions running at once', schema: z.number().int().min(1).max(64) },
  buffer_chars: { default: 200_000, description: 'Output kept per session (older output is dropped)', schema: z.number().int().min(1000).max(50_000_000) },
  cwd: { default: '', description: 'Working folder of new sessions (empty = the data folder)', schema: z.string().max(4096), privileged: true },
  idle_timeout_ms: { default: 30 * 60_000, description: 'Close a session nobody used for this long', schema: z.number().int().min(1000).max(7 * 86_400_000) },
  notify_on_exit: { default: false, description: 'When a session ends by itself, tell the agent (a system input with source agentcli)', schema: z.boolean() },
};

const openArgs = z.object({
  program: z.string().max(4096).optional().describe('Program to run (default: the first allowed one, a shell)'),
  args: z.array(z.string()).max(200).optional(),
  cwd: z.string().max(4096).optional(),
  cols: z.number().int().min(20).max(500).optional(),
  rows: z.number().int().min(5).max(200).optional(),
});
const writeArgs = z.object({
  id: z.string().min(1),
  input: z.string().max(100_000).describe('Text to type'),
  enter: z.boolean().optional().describe('Press Enter after the text (default true)'),
  wait_ms: z.number().int().min(0).max(30_000).optional().describe('Wait up to this long for the output (default 2000)'),
});
const readArgs = z.object({ id: z.string().min(1), wait_ms: z.number().int().min(0).max(30_000).optional() });
const idArgs = z.object({ id: z.string().min(1) });

function describe(t: TerminalInfo): string {
  return `${t.id}: ${[t.program, ...t.args].join(' ')} (pid ${t.pid}, in ${t.cwd})${t.exited ? ` — exited with code ${t.exited.code}` : ' — running'}`;
}

function render(r: { text: string; dropped: number; exited?: TerminalInfo['exited'] }): string {
  const parts: string[] = [];
  if (r.dropped) parts.push(`[${r.dropped} earlier characters not shown]`);
  parts.push(r.text || '(no new output)');
  if (r.exited) parts.push(`[the program exited with code ${r.exited.code}]`);
  return parts.join('\n');
}

/**
 * Builds the `agentcli` plugin (P-7): PTY terminal sessions the agent drives with
 * `terminal_open`, `terminal_write`, `terminal_read`, `terminal_close`, `terminal_list`.
 */
export function createAgentcliPlugin(): PluginDefinition & { manager(): TerminalManager | undefined } {
  let mgr: TerminalManager | undefined;
  const def = definePlugin({
    name: 'agentcli',
    description: 'Terminal (PTY) sessions for the agent',
    settings,
    start(sdk) {
      const s = sdk.settings();
      const m = new TerminalManager(
        () => ({ maxSessions: s.get<number>('max_sessions'), bufferChars: s.get<number>('buffer_chars'), programs: s.get<string[]>('programs') }),
        (info, tail) => {
          if (!s.get<boolean>('notify_on_exit')) return;
          sdk.injectInput({ sessionId: info.ownerSession, source: AGENTCLI_SOURCE, trigger: 'system', text: `[terminal ${info.id} (${info.program}) exited with code ${info.exited?.code}]\n${tail.slice(-1000)}`, meta: { terminal: info.id } });
        },
      );
      mgr = m;
      const sweeper = setInterval(() => {
        const closed = m.sweep(s.get<number>('idle_timeout_ms'));
        if (closed.length) sdk.log.info('closed idle terminal sessions', { closed });
      }, 60_000);
      sweeper.unref?.();
      sdk.onDispose(() => {
        clearInterval(sweeper);
        m.closeAll();
        mgr = undefined;
      });
      sdk.registerTool({
        name: 'terminal_open',
        description: 'Open a terminal session (a real shell in a pseudo-terminal). Returns its id; then use terminal_write / terminal_read.',
        parameters: toolParameters(openArgs),
        async handler(raw, call) {
          const a = parseArgs(openArgs, raw, 'terminal_open');
          const base = s.get<string>('cwd') || sdk.homeDir;
          const cwd = a.cwd ? (isAbsolute(a.cwd) ? a.cwd : join(base, a.cwd)) : base;
          if (!(await fsp.stat(cwd).catch(() => undefined))?.isDirectory()) throw new ValidationError(`terminal_open: no such folder: ${cwd}`, { cwd });
          if (s.get<boolean>('confirm_open')) {
            // A terminal is a shell: the person approves each one (SPEC §9, prompt injection).
            const confirm = sdk.use('host.confirm');
            const program = a.program ?? s.get<string[]>('programs')[0] ?? 'a shell';
            if (!confirm) return `terminal_open refused: a new terminal needs the user's approval, and no channel can ask for it here (the user can open the WebUI, or set plugin.agentcli.confirm_open to false)`;
            if (confirm.reachable?.() === false) return `terminal_open refused: a new terminal needs the user's approval, and no WebUI page is open to ask it in (the user can open the WebUI with \`waiter webui\` and ask again, or set plugin.agentcli.confirm_open to false)`;
            const ok = await confirm.ask({ plugin: 'agentcli', sessionId: call.sessionId, title: confirmQuestion.openTerminal(program), detail: `${[program, ...(a.args ?? [])].join(' ')}\nin ${cwd}` }).catch(() => false);
            if (!ok) return `the user did not approve opening a terminal (${program})`;
          }
          return `opened ${describe(m.open({ ...a, cwd, ownerSession: call.sessionId }))}`;
        },
      });
      sdk.registerTool({
        name: 'terminal_write',
        description: 'Type into a terminal session (Enter is pressed unless enter=false) and return the output that follows.',
        parameters: toolParameters(writeArgs),
        noMemory: true,
        async handler(raw) {
          const a = parseArgs(writeArgs, raw, 'terminal_write');
          m.write(a.id, a.input + (a.enter === false ? '' : '\r'));
          return render(await m.read(a.id, { waitMs: a.wait_ms ?? 2000 }));
        },
      });
      sdk.registerTool({
        name: 'terminal_read',
        description: 'Read the output of a terminal session since the last read (optionally waiting for more).',
        parameters: toolParameters(readArgs),
        noMemory: true,
        async handler(raw) {
          const a = parseArgs(readArgs, raw, 'terminal_read');
          return render(await m.read(a.id, { waitMs: a.wait_ms ?? 0 }));
        },
      });
      sdk.registerTool({
        name: 'terminal_close',
        description: 'Close a terminal session (its program is killed).',
        parameters: toolParameters(idArgs),
        handler: (raw) => `closed ${describe(m.close(parseArgs(idArgs, raw, 'terminal_close').id))}`,
      });
      sdk.registerTool({
        name: 'terminal_list',
        description: 'List the open terminal sessions.',
        parameters: toolParameters(z.object({})),
        handler: () => m.list().map(describe).join('\n') || 'no terminal sessions',
      });
    },
  });
  return Object.assign(def, { manager: () => mgr });
}

/** The agentcli plugin. */
export const agentcliPlugin = createAgentcliPlugin();
