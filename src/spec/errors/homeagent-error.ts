/**
 * Base class of every error HomeAgent raises on purpose.
 *
 * Errors carry a stable `code`, a `retryable` flag and JSON-safe `details`, so the WebUI, the CLI
 * and the socket protocol can show them without string matching.
 */
export class HomeAgentError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(
    code: string,
    message: string,
    options: { retryable?: boolean; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }

  /** JSON form for APIs: never includes the stack. */
  toJSON(): { name: string; code: string; message: string; retryable: boolean; details: Record<string, unknown> } {
    return { name: this.name, code: this.code, message: this.message, retryable: this.retryable, details: this.details };
  }
}

/** True when `e` is a HomeAgentError (also across module copies, by shape). */
export function isHomeAgentError(e: unknown): e is HomeAgentError {
  return e instanceof HomeAgentError || (typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' && 'retryable' in e);
}

/** Turns anything thrown into a JSON-safe error description. */
export function errorToJSON(e: unknown): { code: string; message: string; retryable: boolean; details: Record<string, unknown> } {
  if (e instanceof HomeAgentError) return e.toJSON();
  if (e instanceof Error) return { code: 'INTERNAL', message: e.message, retryable: false, details: {} };
  return { code: 'INTERNAL', message: String(e), retryable: false, details: {} };
}
