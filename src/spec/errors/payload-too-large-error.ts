import { HomeAgentError } from './homeagent-error.js';

/** A request body, frame or file is over its limit. */
export class PayloadTooLargeError extends HomeAgentError {
  constructor(limitBytes: number, what = 'payload') {
    super('PAYLOAD_TOO_LARGE', `${what} is larger than ${limitBytes} bytes`, { details: { limitBytes, what } });
  }
}
