import { HomeAgentError } from '../../sdk/index.js';

/** Codes of the `web` plugin's errors (what the model and the person read). */
export type WebErrorCode =
  | 'WEB_INVALID_URL'
  | 'WEB_ADDRESS_REFUSED'
  | 'WEB_TIMEOUT'
  | 'WEB_TOO_MANY_REDIRECTS'
  | 'WEB_HTTP_STATUS'
  | 'WEB_UNSUPPORTED_CONTENT'
  | 'WEB_READER_UNAVAILABLE'
  | 'WEB_PAGE_UNREADABLE'
  | 'WEB_NETWORK'
  | 'WEB_SEARCH_NOT_CONFIGURED'
  | 'WEB_SEARCH_FAILED';

/** A coded failure of `web_fetch` or `web_search`, with JSON-safe details. */
export class WebError extends HomeAgentError {
  constructor(code: WebErrorCode, message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(code, message, { details, cause, retryable: code === 'WEB_TIMEOUT' || code === 'WEB_NETWORK' });
  }
}
