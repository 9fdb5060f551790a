import { HomeAgentError } from './homeagent-error.js';

/**
 * No LLM source is configured or every configured one failed; `details.attempts` lists why.
 * `details.chinese`, when given, is the same message in Chinese: the reply to a person who wrote
 * in Chinese (it is stored as the turn's answer, so it is said in the person's language).
 */
export class NoProviderError extends HomeAgentError {
  constructor(message: string, attempts: { provider: string; error: string }[] = [], unconfigured = attempts.length === 0, chinese?: string) {
    super(unconfigured ? 'NO_PROVIDER_CONFIGURED' : 'ALL_PROVIDERS_FAILED', message, {
      retryable: !unconfigured,
      details: { attempts, ...(chinese ? { chinese } : {}) },
    });
  }
}
