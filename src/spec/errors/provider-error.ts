import { HomeAgentError } from './homeagent-error.js';

/**
 * An LLM provider call failed. `status` is the HTTP status when there was one; 401/403 are
 * `auth` failures that disable the provider until its config changes.
 */
export class ProviderError extends HomeAgentError {
  readonly provider: string;
  readonly status: number | undefined;
  readonly kind: 'auth' | 'http' | 'network' | 'timeout' | 'aborted' | 'adapter' | 'bad-response';

  constructor(
    provider: string,
    kind: ProviderError['kind'],
    message: string,
    options: { status?: number; cause?: unknown; body?: string } = {},
  ) {
    super(kind === 'auth' ? 'PROVIDER_AUTH' : kind === 'aborted' ? 'PROVIDER_ABORTED' : 'PROVIDER_FAILED', message, {
      retryable: kind !== 'auth' && kind !== 'adapter',
      details: { provider, kind, status: options.status, body: options.body?.slice(0, 500) },
      cause: options.cause,
    });
    this.provider = provider;
    this.status = options.status;
    this.kind = kind;
  }
}
