import { HomeAgentError } from './homeagent-error.js';

/** No LLM source is configured or every configured one failed; `details.attempts` lists why. */
export class NoProviderError extends HomeAgentError {
  constructor(message: string, attempts: { provider: string; error: string }[] = [], unconfigured = attempts.length === 0) {
    super(unconfigured ? 'NO_PROVIDER_CONFIGURED' : 'ALL_PROVIDERS_FAILED', message, {
      retryable: !unconfigured,
      details: { attempts },
    });
  }
}
