import { HomeAgentError } from './homeagent-error.js';

/** A malformed frame or request on a wire protocol (socket, RPC bridge, HTTP). */
export class ProtocolError extends HomeAgentError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('PROTOCOL', message, { details });
  }
}
