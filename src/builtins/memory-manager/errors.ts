import { HomeAgentError } from '../../sdk/index.js';

/**
 * A business error of the memory manager that has no better class in `spec/errors`
 * (`MM_DISABLED`, `MM_LLM_BAD_JSON`, `MM_SESSION_NOT_FOUND` …).
 */
export class MemoryManagerError extends HomeAgentError {
  constructor(code: string, message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(code, message, { details, cause });
  }
}

/** The master switch is off (M-10). */
export class DisabledError extends MemoryManagerError {
  constructor(what = 'memory manager') {
    super('MM_DISABLED', `${what} is disabled (plugin.memory-manager.enabled = false)`);
  }
}

/** A memory made from a turn the person excluded, asked for by a model (decision 0440). */
export class SetAsideError extends MemoryManagerError {
  constructor(id: string) {
    super('MM_SET_ASIDE', `memory ${id} was made from a turn the user excluded; it is not given to a model while that turn stays excluded`, { id });
  }
}
