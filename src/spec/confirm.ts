/**
 * An interactive confirmation a channel plugin (webui, cli) MAY provide as `host.confirm`:
 * the `cmd` plugin asks it before running a command its policy says needs the user's approval.
 * When nobody provides it, such commands are refused with a message saying how to allow them.
 */
export interface ConfirmService {
  /** Asks the user; resolves true when approved. Should time out to false by itself. */
  ask(request: { plugin: string; sessionId: string; title: string; detail: string }): Promise<boolean>;
  /**
   * False when nobody can be asked right now (the WebUI provides it: no WebUI page is open), so
   * `ask` would answer false at once. A caller says so instead of "the user did not approve",
   * which a person never said. Absent = someone can always be asked.
   */
  reachable?(): boolean;
}

/** A confirmation waiting for the user's answer, as the WebUI receives it (`confirm` events, `GET /api/v1/confirm`). */
export interface PendingConfirm {
  id: string;
  plugin: string;
  sessionId: string;
  title: string;
  detail: string;
  /** Epoch ms when it is answered "denied" by itself. */
  expiresAt: number;
  timeoutMs: number;
}

declare module './plugin.js' {
  interface ServiceMap {
    'host.confirm': ConfirmService;
  }
}
