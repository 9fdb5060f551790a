import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import { z } from 'zod';
import { TRANSFER_MODES, TransferError } from '../../spec/index.js';
import { json, readJson, ServiceUnavailableError } from './http-json.js';
import { parseBody } from './chat-routes.js';
import type { WebuiContext } from './webui-context.js';

const exportSchema = z.strictObject({ passphrase: z.string().min(1).max(1024).optional() });
const importSchema = z.strictObject({
  mode: z.enum(TRANSFER_MODES).default('skip'),
  passphrase: z.string().max(1024).optional(),
  privilegedSettings: z.boolean().optional(),
  approveInjected: z.boolean().optional(),
  // Import although forget's tombstones are not in effect in this run (TRANSFER_TOMBSTONES_LOST).
  withoutTombstones: z.boolean().optional(),
});
const jobId = (id: string) => {
  if (!/^[0-9a-f-]{36}$/.test(id)) throw new TransferError('TRANSFER_NOT_FOUND', 'no such job');
  return id;
};

/**
 * The route of the import upload: the one request the server lets take longer than its
 * whole-request deadline (request-deadline.ts); the transfer service gives it up when no byte
 * arrives for two minutes instead.
 */
export const IMPORT_UPLOAD_ROUTE = { method: 'POST', path: '/api/v1/transfer/import' } as const;

/**
 * Settings → Data (K-5): export and import of the whole memory as jobs the SPA polls for progress.
 * Every route is under /api/v1 and so behind the auth token and the cross-site guard; an upload
 * is `application/octet-stream` (a form cannot send it) and streamed into the daemon's staging
 * folder, never held in memory; its declared length is checked against the size limit and the
 * disk's free space before it is read (decision 0280).
 */
export function mountTransferRoutes(app: Hono, ctx: WebuiContext): void {
  const transfer = () => ctx.sdk.use('host.transfer') ?? (() => {
    throw new ServiceUnavailableError('host.transfer', 'Export and import');
  })();

  app.post('/api/v1/transfer/export', async (c) => {
    const body = parseBody(exportSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, job: transfer().startExport({ passphrase: body.passphrase }) }, 202);
  });
  app.get('/api/v1/transfer/jobs/:id', (c) => json({ ok: true, job: transfer().job(jobId(c.req.param('id'))) }));
  app.get('/api/v1/transfer/jobs/:id/download', (c) => {
    const f = transfer().exportFile(jobId(c.req.param('id')));
    const body = Readable.toWeb(createReadStream(f.path)) as unknown as ReadableStream<Uint8Array>;
    return new Response(body, {
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(f.bytes),
        'content-disposition': `attachment; filename="${f.name.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
        'cache-control': 'no-store',
      },
    });
  });
  app.post(IMPORT_UPLOAD_ROUTE.path, async (c) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/octet-stream') throw new TransferError('TRANSFER_BAD_REQUEST', 'send the archive as application/octet-stream');
    const body = c.req.raw.body;
    if (!body) throw new TransferError('TRANSFER_TRUNCATED', 'the archive is empty');
    // The declared length lets the service refuse an archive too large for the limit or the disk
    // before a byte is written (413 / 507); without one (chunked) it checks as the bytes arrive.
    const length = c.req.header('content-length');
    if (length !== undefined && !/^\d{1,16}$/.test(length.trim())) throw new TransferError('TRANSFER_BAD_REQUEST', 'the Content-Length of the archive is not a byte count');
    const job = await transfer().stageImport({ stream: body as unknown as AsyncIterable<Uint8Array>, ...(length !== undefined ? { bytes: Number(length.trim()) } : {}) });
    return json({ ok: true, job }, 201);
  });
  app.post('/api/v1/transfer/jobs/:id/inspect', async (c) => {
    const opts = parseBody(importSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, job: await transfer().inspectImport(jobId(c.req.param('id')), opts) });
  });
  app.post('/api/v1/transfer/jobs/:id/apply', async (c) => {
    const opts = parseBody(importSchema, await readJson(c.req.raw, ctx.limits.jsonBytes));
    return json({ ok: true, job: transfer().startImport(jobId(c.req.param('id')), opts) }, 202);
  });
  app.delete('/api/v1/transfer/jobs/:id', async (c) => {
    await transfer().discard(jobId(c.req.param('id')));
    return json({ ok: true });
  });
  app.get('/api/v1/transfer/history', async () => json({ ok: true, imports: await transfer().history() }));
}
