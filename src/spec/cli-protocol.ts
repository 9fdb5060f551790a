/**
 * The `waiter` ↔ `homed` socket protocol (§8): newline-delimited JSON frames over the daemon's
 * Unix socket. Every frame carries the protocol version `v`. A request has an `id` the daemon
 * echoes in its reply and in the stream events of that request.
 */
export const CLI_PROTOCOL_VERSION = 1;
/** Largest frame either side accepts. */
export const CLI_MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** Commands the daemon understands. */
export const CLI_COMMANDS = [
  'hello',
  'status',
  'webui.sign-in',
  'send',
  'interrupt',
  'sessions.list',
  'sessions.show',
  'config.get',
  'config.set',
  'config.list',
  'config.reset',
  'providers.list',
  'providers.order',
  'providers.test',
  'providers.add',
  'providers.update',
  'providers.remove',
  'providers.models',
  'providers.held',
  'providers.take',
  'providers.discard',
  'plugins.list',
  'plugins.enable',
  'plugins.disable',
  'plugins.reload',
  'plugins.rescan',
  'plugins.install',
  'plugins.pending',
  'plugins.confirm',
  'plugins.discard',
  'memory.stats',
  'memory.context',
  'memory.docs',
  'memory.search',
  'memory.graph',
  'memory.delete-doc',
  'memory.delete-entity',
  'memory.commit',
  'memory.edit-entity',
  'memory.merge',
  'memory.add-doc',
  'memory.reindex',
  'memory.why',
  'memory.about',
  'memory.delete-fact',
  'memory.correct-fact',
  'people.list',
  'people.link',
  'people.unlink',
  'people.rename',
  'memory.forget-preview',
  'memory.forget',
  'memory.history',
  'memory.undo',
  'memory.exclude',
  'memory.restore',
  'knowledge.list',
  'knowledge.get',
  'knowledge.put',
  'knowledge.search',
  'knowledge.delete',
  'library',
  'changes.list',
  'changes.undo',
  'transfer.export',
  'transfer.import',
] as const;
export type CliCommand = (typeof CLI_COMMANDS)[number];

export interface CliRequest {
  v: number;
  id: string;
  cmd: CliCommand;
  args?: Record<string, unknown>;
}

/** The final reply to a request. */
export type CliReply =
  | { v: number; id: string; ok: true; result: unknown }
  | { v: number; id: string; ok: false; error: { code: string; message: string; details?: Record<string, unknown> } };

/** A stream event of a request (e.g. `send` with `stream: true`). */
export interface CliStreamEvent {
  v: number;
  id: string;
  event: 'turn_start' | 'delta' | 'reasoning' | 'tool_start' | 'tool_end' | 'llm_round' | 'output' | 'turn_end' | 'progress';
  data: Record<string, unknown>;
}
