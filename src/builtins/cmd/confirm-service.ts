/**
 * An interactive confirmation a channel plugin (webui, cli) MAY provide as `host.confirm`.
 * When nobody provides it, commands that need confirmation are refused with a message that
 * says how to allow them.
 */
export interface ConfirmService {
  /** Asks the user; resolves true when approved. Should time out to false by itself. */
  ask(request: { plugin: string; sessionId: string; title: string; detail: string }): Promise<boolean>;
}

declare module '../../spec/plugin.js' {
  interface ServiceMap {
    'host.confirm': ConfirmService;
  }
}
