import type { Disposer, StageContext, StageHandler, StageName, StageScope, ToolDef, ToolInvocation, ToolOutput } from '../spec/index.js';
import { ConflictError, ValidationError, isHomeAgentError } from '../spec/index.js';
import type { Logger } from '../log/index.js';
import { silentLogger } from '../log/index.js';

interface RegisteredHandler {
  plugin: string;
  scope: StageScope;
  handler: StageHandler;
}

/** A stage handler failure, reported with the plugin and stack (C-3). */
export interface StageFailure {
  stage: StageName;
  plugin: string;
  message: string;
  stack?: string;
}

/** Result of one tool execution. */
export interface ToolRunResult {
  output: string;
  error?: string;
  stack?: string;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Runs one tool call (`run`) inside what the host wants around every tool call (see `AgentOptions.toolScope`). */
export type ToolScope = <T>(call: { tool: string; turnId: string }, run: () => T) => T;

/**
 * The stage host (C-3): the tool registry (duplicate names rejected, tool → plugin map) and the
 * seven stages' handlers. Handlers of one stage run concurrently on one shared context; one that
 * throws or times out is logged with its stack and does not affect the others.
 */
export class StageHost {
  private readonly toolsByName = new Map<string, { def: ToolDef; plugin: string }>();
  private readonly handlers = new Map<StageName, RegisteredHandler[]>();

  constructor(
    private readonly opts: { log?: Logger; handlerTimeoutMs?: () => number; toolTimeoutMs?: () => number; onFailure?: (f: StageFailure & { turnId: string }) => void; toolScope?: ToolScope } = {},
  ) {}

  private get log(): Logger {
    return this.opts.log ?? silentLogger;
  }

  /** Registers a tool owned by `plugin`. A duplicate name is refused with ConflictError. */
  registerTool(def: ToolDef, plugin: string): Disposer {
    if (!TOOL_NAME.test(def.name)) throw new ValidationError(`invalid tool name "${def.name}": use letters, digits, _ or - (max 64)`, { tool: def.name, plugin });
    // Sent with every LLM request: a schema an API refuses (OpenAI-style APIs take only an object
    // schema) would fail every turn on every source. No schema, `{}` (or Lua's empty table) is "no arguments".
    const p = def.parameters as unknown;
    const empty = p === undefined || (Array.isArray(p) && p.length === 0);
    if (!empty && (typeof p !== 'object' || p === null || Array.isArray(p) || ('type' in p && (p as { type?: unknown }).type !== 'object'))) {
      throw new ValidationError(`tool "${def.name}": its parameters must be a JSON Schema of an object ({ "type": "object", "properties": { … } }); LLM APIs refuse any other`, { tool: def.name, plugin });
    }
    const existing = this.toolsByName.get(def.name);
    if (existing) throw new ConflictError(`tool "${def.name}" is already registered by plugin "${existing.plugin}"`, { tool: def.name, owner: existing.plugin, plugin });
    const entry = { def, plugin };
    this.toolsByName.set(def.name, entry);
    return () => {
      if (this.toolsByName.get(def.name) === entry) this.toolsByName.delete(def.name);
    };
  }

  /** Removes one tool, whoever registered it; returns the plugin that owned it. */
  removeTool(name: string): string | undefined {
    const e = this.toolsByName.get(name);
    this.toolsByName.delete(name);
    return e?.plugin;
  }

  /** Removes every tool of a plugin (hot reload / unload). */
  unregisterPluginTools(plugin: string): number {
    let n = 0;
    for (const [name, e] of this.toolsByName) {
      if (e.plugin === plugin) {
        this.toolsByName.delete(name);
        n++;
      }
    }
    return n;
  }

  /** The plugin that owns a tool. */
  toolPlugin(name: string): string | undefined {
    return this.toolsByName.get(name)?.plugin;
  }

  /** The tool → plugin map. */
  toolPlugins(): Map<string, string> {
    return new Map([...this.toolsByName].map(([n, e]) => [n, e.plugin]));
  }

  tools(): ToolDef[] {
    return [...this.toolsByName.values()].map((e) => e.def);
  }

  registerStage(stage: StageName, handler: StageHandler, plugin: string, scope: StageScope = 'global'): Disposer {
    const list = this.handlers.get(stage) ?? [];
    const entry: RegisteredHandler = { plugin, scope, handler };
    this.handlers.set(stage, [...list, entry]);
    return () => {
      this.handlers.set(
        stage,
        (this.handlers.get(stage) ?? []).filter((h) => h !== entry),
      );
    };
  }

  /** Removes every stage handler of a plugin. */
  unregisterPluginStages(plugin: string): void {
    for (const [stage, list] of this.handlers) this.handlers.set(stage, list.filter((h) => h.plugin !== plugin));
  }

  handlerCount(stage: StageName): number {
    return this.handlers.get(stage)?.length ?? 0;
  }

  /**
   * Runs every handler of `stage` concurrently on `ctx`. For tool stages, handlers scoped `own`
   * run only for their plugin's tools. Returns the failures (already logged).
   */
  async runStage(stage: StageName, ctx: StageContext, toolName?: string): Promise<StageFailure[]> {
    const owner = toolName ? this.toolPlugin(toolName) : undefined;
    const list = (this.handlers.get(stage) ?? []).filter((h) => h.scope === 'global' || (toolName !== undefined && h.plugin === owner));
    if (list.length === 0) return [];
    const timeoutMs = this.opts.handlerTimeoutMs?.() ?? 30_000;
    const failures: StageFailure[] = [];
    await Promise.all(
      list.map(async (h) => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            Promise.resolve().then(() => h.handler(ctx)),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error(`stage handler timed out after ${timeoutMs} ms`)), timeoutMs);
              timer.unref?.();
            }),
          ]);
        } catch (e) {
          const err = e instanceof Error ? e : new Error(String(e));
          const f: StageFailure = { stage, plugin: h.plugin, message: err.message, stack: err.stack };
          failures.push(f);
          this.log.error(`stage ${stage} handler of plugin ${h.plugin} failed: ${err.message}`, { stack: err.stack, turnId: ctx.turnId });
          this.opts.onFailure?.({ ...f, turnId: ctx.turnId });
        } finally {
          if (timer) clearTimeout(timer);
        }
      }),
    );
    return failures;
  }

  /**
   * Executes a tool: errors (and timeouts) are caught, logged with their stack and returned as an
   * error result that the model sees — a tool can never crash a turn.
   */
  async executeTool(def: ToolDef, args: Record<string, unknown>, call: ToolInvocation): Promise<ToolRunResult> {
    const timeoutMs = this.opts.toolTimeoutMs?.() ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    // The tool's own signal: the turn's, and aborted too when the call is given up at its time
    // limit, so work the model no longer waits for is stopped (a page in the HTML reader frees
    // its worker) rather than left to run on.
    const given = new AbortController();
    const stopWork = () => given.abort(call.signal.reason);
    if (call.signal.aborted) stopWork();
    else call.signal.addEventListener('abort', stopWork, { once: true });
    const own: ToolInvocation = { ...call, signal: given.signal };
    try {
      const out: ToolOutput = await Promise.race([
        Promise.resolve().then(() => (this.opts.toolScope ? this.opts.toolScope({ tool: def.name, turnId: call.turnId }, () => def.handler(args, own)) : def.handler(args, own))),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const late = new Error(`tool ${def.name} timed out after ${timeoutMs} ms`);
            reject(late);
            given.abort(late);
          }, timeoutMs);
          timer.unref?.();
          // A tool that ignores its signal must not hold up an abort (shutdown).
          onAbort = () => reject(new Error(`tool ${def.name} was cancelled`));
          if (call.signal.aborted) onAbort();
          else call.signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      return { output: typeof out === 'string' ? out : JSON.stringify(out) };
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      const code = (e as { code?: string }).code;
      // A coded error (bad arguments from the model, a missing file …) is the tool's answer: one
      // log line. A stack is logged (and printed by a foreground homed) only for a bug.
      if (isHomeAgentError(e) && code !== 'INTERNAL') this.log.warn(`tool ${def.name}: ${err.message}`, { code, plugin: this.toolPlugin(def.name) });
      else this.log.error(`tool ${def.name} failed: ${err.message}`, { stack: err.stack, plugin: this.toolPlugin(def.name) });
      return { output: `Error${code ? ` [${code}]` : ''}: ${err.message}`, error: err.message, stack: err.stack };
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) call.signal.removeEventListener('abort', onAbort);
      call.signal.removeEventListener('abort', stopWork);
    }
  }
}
