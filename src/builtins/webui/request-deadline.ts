import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { bearerToken, tokenMatches } from './auth.js';
import { IMPORT_UPLOAD_ROUTE } from './transfer-routes.js';

/**
 * How long a request may take to arrive whole (its body included), counted from the moment its
 * headers are in (those have Node's `headersTimeout`, a minute, of their own). Once the request
 * has arrived the answer may take as long as it needs (the event stream, a long turn).
 */
export interface RequestDeadlines {
  /** A request carrying the token (default 5 minutes, Node's own `requestTimeout`). */
  requestMs: number;
  /**
   * A request without the token (default 30 s). No route reads such a body — the API answers
   * 401 at once and the static files are GETs — so a client that still sends one after 30 s is
   * only holding the connection.
   */
  anonymousMs: number;
}

export const DEFAULT_REQUEST_DEADLINES: RequestDeadlines = { requestMs: 5 * 60_000, anonymousMs: 30_000 };

/** What Node itself answers when its `requestTimeout` runs out. */
const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

const pathOf = (url: string | undefined) => (url ?? '').split('?')[0];

/**
 * Gives every request of `server` a deadline to arrive whole (Node's `requestTimeout` is 0 on this
 * server, because it cannot spare one route): a client that trickles a body — signed in or not,
 * on any route — is cut when its deadline passes: answered 408 when no answer has begun on the
 * connection, and the connection closed. The one exception is the import upload
 * ({@link IMPORT_UPLOAD_ROUTE}) sent with the token: an archive from another machine on the LAN
 * may take longer than any fixed time, and the transfer service gives it up when no byte arrives
 * for two minutes instead. Once its answer is sent (done, refused or given up) a rest of its body
 * still arriving gets the ordinary deadline. `token` is read per request (it can change).
 */
export function enforceRequestDeadlines(server: Server, token: () => string, deadlines: RequestDeadlines, onCut?: (what: string) => void): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const signedIn = tokenMatches(bearerToken(req.headers.authorization), token());
    const upload = signedIn && req.method === IMPORT_UPLOAD_ROUTE.method && pathOf(req.url) === IMPORT_UPLOAD_ROUTE.path;
    const ms = signedIn ? deadlines.requestMs : deadlines.anonymousMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cut = () => {
      const socket: Socket = req.socket;
      if (req.complete || socket.destroyed) return;
      // As Node does: a 408 only where it cannot break an answer already on its way (an earlier
      // pipelined request's, or this one's), then the connection is closed.
      const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
      if (socket.writable && !res.headersSent && !inFlight?.headersSent) socket.write(REQUEST_TIMEOUT_RESPONSE);
      socket.destroy();
      onCut?.(`${req.method} ${pathOf(req.url).slice(0, 200)} (${signedIn ? 'with' : 'without'} the token): its body was still arriving after ${ms} ms`);
    };
    const arm = () => {
      if (timer) return;
      timer = setTimeout(cut, ms);
      timer.unref();
    };
    const settle = () => {
      if (req.complete || req.socket.destroyed) clearTimeout(timer);
      // The upload's answer is out while its body is still coming: no more exception for the rest.
      else if (upload && res.writableFinished) arm();
    };
    if (!upload) arm();
    req.once('end', settle);
    req.once('close', settle);
    res.once('finish', settle);
    res.once('close', settle);
  });
}
