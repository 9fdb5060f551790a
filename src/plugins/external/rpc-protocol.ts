/**
 * The JSON messages between the daemon and an external plugin's child process (P-3), sent over
 * the Node IPC channel. The daemon never trusts a child message: every field is checked where it
 * is used, and only the operations in {@link CHILD_OPS} are answered.
 */
import type { ConfigKeyInfo } from '../../spec/index.js';

export interface RpcError {
  code: string;
  message: string;
}

/** Daemon → child. */
export type ParentMessage =
  | { t: 'init'; name: string; entry: string; homeDir: string; dataDir: string; settings: ConfigKeyInfo[]; permissions: string[] }
  | { t: 'call'; id: number; target: CallTarget; key: string; payload: unknown }
  | { t: 'notify'; target: 'event'; key: string; payload: unknown }
  | { t: 'res'; id: number; ok: boolean; value?: unknown; error?: RpcError }
  | { t: 'ping'; id: number }
  | { t: 'settings'; list: ConfigKeyInfo[] }
  | { t: 'turn'; turnId: string; outcome: unknown }
  | { t: 'stop' };

/** Child → daemon. */
export type ChildMessage =
  | { t: 'req'; id: number; op: string; args: Record<string, unknown> }
  | { t: 'res'; id: number; ok: boolean; value?: unknown; error?: RpcError }
  | { t: 'pong'; id: number }
  | { t: 'started' }
  | { t: 'start-failed'; error: RpcError }
  | { t: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; msg: string; data?: Record<string, unknown> }
  | { t: 'stopped' };

/** What the daemon calls inside the child. */
export type CallTarget = 'tool' | 'stage' | 'output' | 'slot';

/**
 * Operations a child may ask for, with the manifest permission each needs (undefined: always
 * allowed). There is deliberately no `publish`, no social write, no `provide`/`use`/`registerRoute`.
 */
export const CHILD_OPS: Record<string, string | undefined> = {
  registerTool: undefined,
  registerStage: undefined,
  subscribe: undefined,
  registerPromptSlot: undefined,
  dispose: undefined,
  registerOutputChannel: 'output',
  injectInput: 'input',
  injectInterrupt: 'interrupt',
  'memory.recall': 'memory',
  'memory.commit': 'memory',
  'memory.embed': 'memory',
  'memory.embeddingModel': 'memory',
  'knowledge.search': 'knowledge',
  'knowledge.create': 'knowledge',
  'knowledge.list': 'knowledge',
  'social.getPerson': 'social',
  'social.getTrait': 'social',
  'social.getRelations': 'social',
  'social.getNetwork': 'social',
  'social.listPersons': 'social',
  'settings.set': undefined,
  'llm.available': 'llm',
  'llm.chat': 'llm',
  'sessions.list': 'sessions',
  'sessions.get': 'sessions',
  'sessions.events': 'sessions',
};

/** Stage context fields a handler in the child may change; copied back onto the shared context. */
export const STAGE_MUTABLE = ['messages', 'text', 'toolCalls', 'args', 'rejected', 'result', 'response', 'state'] as const;

export function toRpcError(e: unknown): RpcError {
  const code = typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : 'PLUGIN_ERROR';
  return { code, message: e instanceof Error ? e.message : String(e) };
}

/** An Error rebuilt from an RpcError (keeps the code). */
export class RemoteError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'RemoteError';
  }
}
