import { HomeAgentError } from './homeagent-error.js';

/** The operation clashes with existing state (duplicate tool name, immutable field …). */
export class ConflictError extends HomeAgentError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('CONFLICT', message, { details });
  }
}
