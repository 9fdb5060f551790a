import { HomeAgentError } from './homeagent-error.js';

/** The codes of a {@link ProxyError}. */
export const PROXY_ERROR_CODES = ['PROXY_UNREACHABLE', 'PROXY_TUNNEL_REFUSED'] as const;
export type ProxyErrorCode = (typeof PROXY_ERROR_CODES)[number];

/**
 * A request sent through the outbound proxy (`core.network.proxy`, or `HTTPS_PROXY` /
 * `HTTP_PROXY`) failed at the proxy: `PROXY_UNREACHABLE` — no connection to the proxy (refused,
 * its name unknown, timed out); `PROXY_TUNNEL_REFUSED` — the proxy answered the CONNECT with
 * something other than 200 (407: it wants a user and password; 502: it could not reach the
 * destination). The message names the proxy (its password masked) and the destination host:port
 * — never a path, which can hold a token (Telegram's).
 */
export class ProxyError extends HomeAgentError {
  constructor(
    code: ProxyErrorCode,
    readonly proxy: string,
    readonly destination: string,
    reason: string,
    cause?: unknown,
  ) {
    super(
      code,
      code === 'PROXY_UNREACHABLE'
        ? `the proxy ${proxy} could not be reached (${reason}) on the way to ${destination}: check that it runs, or change the "Outbound proxy" setting (core.network.proxy)`
        : `the proxy ${proxy} refused to open a tunnel to ${destination} (${reason}): check its rules and login, or change the "Outbound proxy" setting (core.network.proxy)`,
      { retryable: true, details: { proxy, destination, reason }, cause },
    );
  }
}
