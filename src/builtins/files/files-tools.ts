import { promises as fsp } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import type { ToolDef } from '../../spec/index.js';
import { HomeAgentError, PayloadTooLargeError, ValidationError } from '../../spec/index.js';
import { writeFileAtomic } from '../../sdk/index.js';
import { parseArgs, toolParameters } from '../shared/index.js';
import type { PathGuard } from './path-guard.js';
import type { ChangeJournal } from './change-journal.js';

/** Limits the tools read from settings at call time (hot). */
export interface FilesLimits {
  maxReadBytes: number;
  maxWriteBytes: number;
  maxListEntries: number;
  maxSearchFiles: number;
  /** Largest file whose before-image is journaled; bigger files are not overwritten/deleted. */
  maxJournalFileBytes: number;
}

function assertJournalable(size: number, limit: number, path: string): void {
  if (size > limit) {
    throw new HomeAgentError('PAYLOAD_TOO_LARGE', `${path} is ${size} bytes: too large to keep an undo copy of (limit ${limit}, setting plugin.files.max_journal_file_bytes); it was not changed`, { details: { path, size, limit } });
  }
}

const readArgs = z.object({
  path: z.string().min(1).describe('File path (relative to the first root, or absolute inside a root)'),
  offset: z.number().int().min(0).optional().describe('Byte offset to start at'),
  maxBytes: z.number().int().min(1).optional().describe('At most this many bytes'),
});
const writeArgs = z.object({
  path: z.string().min(1),
  content: z.string().describe('Text to write (UTF-8)'),
  append: z.boolean().optional().describe('Append instead of replacing'),
});
const listArgs = z.object({ path: z.string().optional().describe('Folder (default: the first root)'), recursive: z.boolean().optional() });
const searchArgs = z.object({
  query: z.string().min(1).describe('Case-insensitive text to find in file names and (text) contents'),
  path: z.string().optional(),
  limit: z.number().int().min(1).max(500).optional(),
});
const deleteArgs = z.object({ path: z.string().min(1) });

function looksBinary(buf: Uint8Array): boolean {
  const n = Math.min(buf.byteLength, 8000);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

/** Builds the five files_* tools over a guard and a journal. */
export function filesTools(currentGuard: () => Promise<PathGuard>, journal: ChangeJournal, limits: () => FilesLimits): ToolDef[] {
  const read: ToolDef = {
    name: 'files_read',
    description: 'Read a text file inside the allowed folders. Large files are cut (use offset to continue).',
    parameters: toolParameters(readArgs),
    async handler(raw) {
      const guard = await currentGuard();
      const a = parseArgs(readArgs, raw, 'files_read');
      const g = await guard.resolve(a.path);
      const st = await fsp.stat(g.abs).catch(() => undefined);
      if (!st) throw new ValidationError(`no such file: ${a.path}`, { path: a.path });
      if (!st.isFile()) throw new ValidationError(`not a file: ${a.path}`, { path: a.path });
      const cap = Math.min(a.maxBytes ?? Infinity, limits().maxReadBytes);
      const offset = a.offset ?? 0;
      const fh = await fsp.open(g.abs, 'r');
      try {
        const len = Math.max(0, Math.min(cap, st.size - offset));
        const buf = Buffer.alloc(len);
        await fh.read(buf, 0, len, offset);
        if (looksBinary(buf)) return `[binary file, ${st.size} bytes — not shown]`;
        const more = offset + len < st.size ? `\n[… truncated: showed bytes ${offset}-${offset + len} of ${st.size}; read again with offset=${offset + len}]` : '';
        return buf.toString('utf8') + more;
      } finally {
        await fh.close();
      }
    },
  };

  const write: ToolDef = {
    name: 'files_write',
    description: 'Write (or append to) a text file inside the allowed folders. Every write is journaled and can be undone.',
    parameters: toolParameters(writeArgs),
    async handler(raw, call) {
      const guard = await currentGuard();
      const a = parseArgs(writeArgs, raw, 'files_write');
      const bytes = Buffer.from(a.content, 'utf8');
      const max = limits().maxWriteBytes;
      if (bytes.byteLength > max) throw new PayloadTooLargeError(max, 'files_write content');
      const g = await guard.resolve(a.path);
      const st = await fsp.stat(g.abs).catch(() => undefined);
      if (st && !st.isFile()) throw new ValidationError(`not a file: ${a.path}`, { path: a.path });
      if (st) assertJournalable(st.size, limits().maxJournalFileBytes, a.path);
      const before = st ? await fsp.readFile(g.abs) : undefined;
      const after = a.append && before ? Buffer.concat([before, bytes]) : bytes;
      if (after.byteLength > max) throw new PayloadTooLargeError(max, 'resulting file');
      const rec = await journal.record({ op: st ? 'write' : 'create', path: g.abs, tool: 'files_write', turnId: call.turnId, before, sizeAfter: after.byteLength });
      await fsp.mkdir(join(g.abs, '..'), { recursive: true });
      await writeFileAtomic(g.abs, after, { mode: 'umask' }); // the user's own file: usual permissions
      return `${st ? 'wrote' : 'created'} ${guard.display(g)} (${after.byteLength} bytes; change ${rec.id})`;
    },
  };

  const list: ToolDef = {
    name: 'files_list',
    description: 'List a folder inside the allowed folders (name, type, size).',
    parameters: toolParameters(listArgs),
    async handler(raw) {
      const guard = await currentGuard();
      const a = parseArgs(listArgs, raw, 'files_list');
      const g = await guard.resolve(a.path ?? '.');
      const max = limits().maxListEntries;
      const out: string[] = [];
      const walk = async (dir: string): Promise<void> => {
        const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => undefined);
        if (!entries) throw new ValidationError(`not a folder: ${a.path ?? '.'}`, { path: a.path });
        entries.sort((x, y) => x.name.localeCompare(y.name));
        for (const e of entries) {
          if (out.length >= max) return;
          const p = join(dir, e.name);
          const rel = relative(g.abs, p);
          if (e.isDirectory()) {
            out.push(`${rel}/`);
            if (a.recursive) await walk(p);
          } else if (e.isSymbolicLink()) out.push(`${rel} -> (link)`);
          else {
            const st = await fsp.stat(p).catch(() => undefined);
            out.push(`${rel}\t${st?.size ?? '?'} bytes`);
          }
        }
      };
      await walk(g.abs);
      if (out.length === 0) return '(empty folder)';
      return out.join('\n') + (out.length >= max ? `\n[… listing cut at ${max} entries]` : '');
    },
  };

  const search: ToolDef = {
    name: 'files_search',
    description: 'Find files by name or text content inside the allowed folders.',
    parameters: toolParameters(searchArgs),
    async handler(raw) {
      const guard = await currentGuard();
      const a = parseArgs(searchArgs, raw, 'files_search');
      const g = await guard.resolve(a.path ?? '.');
      const q = a.query.toLowerCase();
      const limit = a.limit ?? 50;
      const { maxSearchFiles, maxReadBytes } = limits();
      const hits: string[] = [];
      let seen = 0;
      const walk = async (dir: string): Promise<void> => {
        const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const e of entries) {
          if (hits.length >= limit || seen >= maxSearchFiles) return;
          const p = join(dir, e.name);
          const rel = relative(g.abs, p);
          if (e.isDirectory()) {
            if (e.name.toLowerCase().includes(q)) hits.push(`${rel}/ (name)`);
            await walk(p);
            continue;
          }
          if (!e.isFile()) continue;
          seen++;
          if (e.name.toLowerCase().includes(q)) {
            hits.push(`${rel} (name)`);
            continue;
          }
          const st = await fsp.stat(p).catch(() => undefined);
          if (!st || st.size > maxReadBytes) continue;
          const buf = await fsp.readFile(p).catch(() => undefined);
          if (!buf || looksBinary(buf)) continue;
          const lines = buf.toString('utf8').split('\n');
          for (let i = 0; i < lines.length && hits.length < limit; i++) {
            if (lines[i].toLowerCase().includes(q)) hits.push(`${rel}:${i + 1}: ${lines[i].trim().slice(0, 200)}`);
          }
        }
      };
      await walk(g.abs);
      return hits.length ? hits.join('\n') : `no match for "${a.query}"`;
    },
  };

  const del: ToolDef = {
    name: 'files_delete',
    description: 'Delete a file inside the allowed folders (journaled: it can be undone). Folders are not deleted.',
    parameters: toolParameters(deleteArgs),
    async handler(raw, call) {
      const guard = await currentGuard();
      const a = parseArgs(deleteArgs, raw, 'files_delete');
      const g = await guard.resolve(a.path);
      const st = await fsp.lstat(g.abs).catch(() => undefined);
      if (!st) throw new ValidationError(`no such file: ${a.path}`, { path: a.path });
      if (!st.isFile()) throw new ValidationError(`only files can be deleted: ${a.path}`, { path: a.path });
      assertJournalable(st.size, limits().maxJournalFileBytes, a.path);
      const before = await fsp.readFile(g.abs);
      const rec = await journal.record({ op: 'delete', path: g.abs, tool: 'files_delete', turnId: call.turnId, before, sizeAfter: 0 });
      await fsp.rm(g.abs);
      return `deleted ${guard.display(g)} (${before.byteLength} bytes; change ${rec.id} can undo it)`;
    },
  };

  return [read, write, list, search, del];
}
