import { HomeAgentError, HTML_UNREADABLE, type HtmlReadFailure } from '../spec/index.js';

/**
 * An HTML document the reader could not turn into text (see {@link HtmlReadFailure}). Built-ins,
 * which cannot import this class, know it by its code, {@link HTML_UNREADABLE}, and `details.reason`.
 */
export class HtmlReadError extends HomeAgentError {
  declare readonly details: { reason: HtmlReadFailure } & Record<string, unknown>;

  constructor(reason: HtmlReadFailure, message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(HTML_UNREADABLE, message, { details: { reason, ...details }, cause });
  }

  /** Why it failed. */
  get reason(): HtmlReadFailure {
    return this.details.reason;
  }
}
