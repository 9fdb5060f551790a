import { HomeAgentError } from './homeagent-error.js';

/** Input failed validation; `details.key` / `details.path` say which field and `message` why. */
export class ValidationError extends HomeAgentError {
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super('VALIDATION', message, { details, cause });
  }
}
