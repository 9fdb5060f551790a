import { HomeAgentError } from './homeagent-error.js';

/** A named thing (session, memory, plugin, tool …) does not exist. */
export class NotFoundError extends HomeAgentError {
  constructor(what: string, id: string) {
    super('NOT_FOUND', `${what} not found: ${id}`, { details: { what, id } });
  }
}
