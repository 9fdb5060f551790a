import { HomeAgentError } from './homeagent-error.js';

/** A Lua script (adapter or plugin) raised an error, ran out of time or memory, or returned garbage. */
export class LuaScriptError extends HomeAgentError {
  constructor(script: string, message: string, kind: 'runtime' | 'timeout' | 'memory' | 'bad-return' | 'load' = 'runtime', cause?: unknown) {
    super(`LUA_${kind.toUpperCase().replace('-', '_')}`, `${script}: ${message}`, { details: { script, kind }, cause });
  }
}
