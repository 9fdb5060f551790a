import { existsSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { PluginSDK } from '../../sdk/index.js';
import { CLI_MAX_FRAME_BYTES, CLI_PROTOCOL_VERSION, errorToJSON, type CliReply, type CliStreamEvent } from '../../spec/index.js';
import { FrameReader } from './frame-reader.js';
import { parseRequest } from './protocol-schema.js';
import { runCommand } from './commands.js';

/** True when something answers on the socket path. */
function alive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * The Unix socket server `waiter` talks to (mode 0600). Each connection may carry many requests;
 * a malformed frame gets an error reply, an oversized one closes that connection only.
 */
export class CliSocketServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly sdk: PluginSDK,
    readonly path: string,
    private readonly maxFrameBytes = CLI_MAX_FRAME_BYTES,
  ) {}

  async start(): Promise<void> {
    if (existsSync(this.path)) {
      if (await alive(this.path)) throw new Error(`another daemon is already listening on ${this.path}`);
      unlinkSync(this.path);
    }
    const server = createServer((sock) => this.onConnection(sock));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // The socket file is created by bind(), synchronously inside listen(), with the process
      // umask: a umask of 0177 makes it 0600 from birth instead of chmod-ing it afterwards, which
      // would leave a window in which another user could connect.
      const umask = process.umask(0o177);
      try {
        server.listen(this.path, () => {
          server.off('error', reject);
          resolve();
        });
      } finally {
        process.umask(umask);
      }
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((r) => server.close(() => r()));
    try {
      if (existsSync(this.path)) unlinkSync(this.path);
    } catch {}
  }

  private onConnection(sock: Socket): void {
    this.sockets.add(sock);
    sock.setEncoding('utf8');
    const reader = new FrameReader(this.maxFrameBytes);
    let closed = false;
    const write = (obj: CliReply | CliStreamEvent) => {
      if (!closed && !sock.destroyed) sock.write(JSON.stringify(obj) + '\n');
    };
    sock.on('data', (chunk: string) => {
      if (closed) return;
      let frames: string[];
      try {
        frames = reader.push(chunk);
      } catch (e) {
        const j = errorToJSON(e);
        write({ v: CLI_PROTOCOL_VERSION, id: '', ok: false, error: { code: j.code, message: j.message } });
        closed = true;
        sock.end();
        return;
      }
      for (const line of frames) void this.handle(line, write);
    });
    sock.on('error', () => {});
    sock.on('close', () => this.sockets.delete(sock));
  }

  private async handle(line: string, write: (o: CliReply | CliStreamEvent) => void): Promise<void> {
    let id = '';
    try {
      const req = parseRequest(line);
      id = req.id;
      const result = await runCommand(this.sdk, req, (event, data) => write({ v: CLI_PROTOCOL_VERSION, id, event, data }));
      write({ v: CLI_PROTOCOL_VERSION, id, ok: true, result: result ?? null });
    } catch (e) {
      const j = errorToJSON(e);
      const reqId = id || ((e as { details?: { id?: string } }).details?.id ?? '');
      if (j.code === 'INTERNAL') this.sdk.log.error(`cli command failed: ${j.message}`, { stack: (e as Error).stack });
      write({ v: CLI_PROTOCOL_VERSION, id: reqId, ok: false, error: { code: j.code, message: j.message, details: j.details } });
    }
  }
}
