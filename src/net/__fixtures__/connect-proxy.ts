import { createServer, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A tiny HTTP CONNECT proxy on loopback for tests: it counts the tunnels it opens and the host:port each asked for. */
export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Every CONNECT target asked for (`host:port`), refused ones too, in order. */
  asked: string[];
  /** Tunnels opened. */
  tunnels(): number;
  /** The `proxy-authorization` headers received, in order. */
  auth: (string | undefined)[];
  close(): Promise<void>;
}

export interface ConnectProxyOptions {
  /**
   * Where a `host:port` is really reached: a name only the proxy knows (`api.example.invalid:443`)
   * mapped to a loopback server (`127.0.0.1:40123`). Others are reached as asked.
   */
  routes?: Record<string, string>;
  /** Answer every CONNECT with this status instead of opening a tunnel (502, 407 …). */
  refuseWith?: number;
}

export async function startConnectProxy(opts: ConnectProxyOptions = {}): Promise<ConnectProxy> {
  const asked: string[] = [];
  const auth: (string | undefined)[] = [];
  let tunnels = 0;
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => {
    // Only tunnels here: a request in the clear (absolute URI) is not what the daemon sends.
    res.writeHead(400).end('CONNECT only');
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    asked.push(target);
    auth.push(req.headers['proxy-authorization']);
    if (opts.refuseWith) {
      client.end(`HTTP/1.1 ${opts.refuseWith} Refused\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const real = opts.routes?.[target] ?? target;
    const i = real.lastIndexOf(':');
    const upstream = connect(Number(real.slice(i + 1)), real.slice(0, i).replace(/^\[|\]$/g, ''), () => {
      tunnels++;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    asked,
    auth,
    tunnels: () => tunnels,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
