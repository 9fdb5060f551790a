import type { Hono } from 'hono';
import { z } from 'zod';
import { ConflictError, ValidationError } from '../../sdk/index.js';
import { KnowledgeFileError, MAX_KNOWLEDGE_FILE_BYTES } from '../../spec/index.js';
import { json, readBytes, readJson, ServiceUnavailableError } from './http-json.js';
import { parseBody } from './chat-routes.js';
import type { WebuiContext } from './webui-context.js';

const knowledgeName = /^[\p{L}\p{N}_ .-]{1,100}$/u;
const putSchema = z.object({ content: z.string().max(2_000_000) });

function num(v: string | undefined, def: number, min: number, max: number): number {
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new ValidationError(`"${v}" is not a number`);
  return Math.min(Math.max(Math.trunc(n), min), max);
}

function checkName(name: string): string {
  if (!knowledgeName.test(name) || name.includes('..')) throw new ValidationError(`invalid knowledge name "${name.slice(0, 60)}": use letters, digits, spaces, "_", "-", "." (no path separators or "..")`);
  return name;
}

/**
 * The name of an uploaded file, from `X-Filename` (URL-encoded: a header carries no Chinese as
 * it is): only its last path segment, without control characters, for its kind and for messages.
 */
function uploadName(header: string | undefined): string {
  let raw = header ?? '';
  try {
    raw = decodeURIComponent(raw);
  } catch {
    // not URL-encoded: taken as it came
  }
  // eslint-disable-next-line no-control-regex
  const base = (raw.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return [...base].slice(0, 120).join('') || 'the file';
}

/** Read/edit browsers over the memory tiers (`host.memory`): stats, context, documents, graph, knowledge (W-4). */
export function mountMemoryRoutes(app: Hono, ctx: WebuiContext): void {
  const mem = () => ctx.sdk.use('host.memory') ?? (() => {
    throw new ServiceUnavailableError('host.memory', 'The memory subsystem');
  })();

  /** A new entry only: a name taken (in any letter case) is a 409 that says what to do. */
  const createOnly = (name: string, content: string) =>
    mem()
      .knowledgeCreate(name, content)
      .catch((e: unknown) => {
        if ((e as { code?: string }).code !== 'CONFLICT') throw e;
        const taken = ((e as { details?: { name?: string } }).details?.name as string | undefined) ?? name;
        throw new ConflictError(`a knowledge entry named "${taken}" exists already: open it to edit it, or choose another name`, { name: taken });
      });

  app.get('/api/v1/memory/stats', async () => json({ ok: true, stats: await mem().stats() }));
  app.get('/api/v1/memory/context', async () => json({ ok: true, events: await mem().context() }));
  app.get('/api/v1/memory/documents', async (c) => {
    const q = c.req.query('q')?.trim();
    const limit = num(c.req.query('limit'), 50, 1, 500);
    if (q) return json({ ok: true, query: q, documents: await mem().searchDocuments(q, limit) });
    return json({ ok: true, documents: await mem().listDocuments({ limit, offset: num(c.req.query('offset'), 0, 0, 1e9) }) });
  });
  app.delete('/api/v1/memory/documents/:id', async (c) => {
    await mem().deleteDocument(c.req.param('id'));
    return json({ ok: true });
  });
  app.get('/api/v1/memory/graph', async (c) => {
    const g = await mem().graph({
      query: c.req.query('q') || c.req.query('query') || undefined,
      entity: c.req.query('entity') || undefined,
      depth: num(c.req.query('depth'), 2, 1, 4),
      limit: num(c.req.query('limit'), 300, 1, 5000),
    });
    return json({ ok: true, ...g });
  });
  app.delete('/api/v1/memory/graph/entities/:name', async (c) => {
    await mem().deleteEntity(c.req.param('name'));
    return json({ ok: true });
  });
  app.get('/api/v1/memory/knowledge', async (c) => {
    const q = c.req.query('q')?.trim();
    if (q) return json({ ok: true, query: q, hits: await mem().knowledgeSearch(q, num(c.req.query('limit'), 20, 1, 200)) });
    return json({ ok: true, items: await mem().knowledgeList() });
  });
  app.get('/api/v1/memory/knowledge/:name', async (c) => json({ ok: true, item: await mem().knowledgeGet(checkName(c.req.param('name'))) }));
  app.put('/api/v1/memory/knowledge/:name', async (c) => {
    const name = checkName(c.req.param('name'));
    const body = parseBody(putSchema, await readJson(c.req.raw, ctx.limits.chatBytes));
    // `If-None-Match: *` (the WebUI's "New"): only a new entry — one of that name (in any letter
    // case) is not overwritten, also by two "New"s at once.
    if (c.req.header('if-none-match')?.trim() === '*') {
      await createOnly(name, body.content);
      return json({ ok: true });
    }
    await mem().knowledgePut(name, body.content);
    return json({ ok: true });
  });
  // "Add from file…": the file itself is the body, its name in `X-Filename`. Its type may be any
  // but the form types the API guard refuses (a page elsewhere cannot send it without a preflight):
  // the WebUI sends a text file as application/octet-stream and the reader judges it by its name
  // and bytes. Read in the daemon (PDF through pdf.js in a worker) and stored only as a new entry.
  app.post('/api/v1/memory/knowledge/:name/file', async (c) => {
    const name = checkName(c.req.param('name'));
    const file = uploadName(c.req.header('x-filename'));
    const bytes = await readBytes(c.req.raw, MAX_KNOWLEDGE_FILE_BYTES).catch((e: unknown) => {
      throw (e as { code?: string }).code === 'PAYLOAD_TOO_LARGE' ? KnowledgeFileError.fileTooLarge(file) : e;
    });
    const read = await mem().knowledgeFileText(bytes, { name: file, mimeType: c.req.header('content-type') });
    await createOnly(name, read.text);
    return json({ ok: true, item: { name, kind: read.kind, characters: [...read.text].length, ...(read.pages !== undefined ? { pages: read.pages } : {}) } });
  });
  app.delete('/api/v1/memory/knowledge/:name', async (c) => {
    await mem().knowledgeDelete(checkName(c.req.param('name')));
    return json({ ok: true });
  });
}
