import { posix } from 'node:path';
import { z } from 'zod';
import { TransferError, TRANSFER_PARTS, type TransferManifestSummary, type TransferPart } from '../spec/index.js';
import { KNOWLEDGE_NAME_RE } from '../knowledge/index.js';
import { sessionIdFromFileStem } from '../sessions/index.js';

/** The `format` of every HomeAgent export. */
export const EXPORT_FORMAT = 'homeagent-export';
/**
 * The newest format version this build writes and reads. Bump it when a reader of the old one would
 * misread the new. 2 (decision 0320): `tombstones.json` holds pair tombstones
 * (`sha256:pair:…`, a turn's message with its reply); a version-1 reader skips refs of a kind it
 * does not know, so it would import the archive and quietly keep what those forgets took. A
 * version-1 archive reads as before (its `content` tombstones keep their meaning). 3 (decision
 * 0540): `adapters/<name>.lua`, the person's Lua adapters — written only by an export that holds
 * one ({@link formatVersionFor}), since a version-2 reader refuses the new part as a malformed
 * manifest rather than saying it is too new; an export without adapters stays version 2. 4
 * (decision 0620): `replacements.json`, the turns a regenerate or an edit-and-resend replaced —
 * written, likewise, only by an export that has some.
 */
export const EXPORT_FORMAT_VERSION = 4;
/** The format version an export of these files is written as: the oldest that has every part it holds. */
export function formatVersionFor(files: readonly { part: TransferPart }[]): number {
  if (files.some((f) => f.part === 'replacements')) return 4;
  return files.some((f) => f.part === 'adapters') ? 3 : 2;
}
/** The oldest format version this build still reads. */
export const MIN_READ_FORMAT_VERSION = 1;
/** Name of the manifest entry (written first). */
export const MANIFEST_ENTRY = 'manifest.json';

/** Library memory ids (M-1), as the memory-manager checks them. */
export const LIBRARY_ID_RE = /^[A-Za-z0-9_-]{3,64}$/;
/** Lua adapter names, as the adapter registry finds them (`<name>.lua`). */
export const ADAPTER_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const PLAN_FILES = new Set(['plan.json', 'excluded.json', 'once.json']);

const fileSchema = z.object({
  path: z.string().min(1).max(1024),
  part: z.enum(TRANSFER_PARTS),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
/** One file of an export. */
export type ManifestFile = z.infer<typeof fileSchema>;

/** The manifest (`manifest.json`): versions, counts per part, and each file's size and SHA-256. */
export const manifestSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  formatVersion: z.number().int().positive(),
  homeagentVersion: z.string().max(100),
  createdAt: z.string().max(100),
  counts: z.partialRecord(z.enum(TRANSFER_PARTS), z.number().int().nonnegative()),
  /** `PRAGMA user_version` of each database snapshot (documents, archive, graph). */
  schemas: z.record(z.string(), z.number().int().nonnegative()).default({}),
  files: z.array(fileSchema).max(1_000_000),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** The summary a person sees (no file list). */
export function summarise(m: Manifest, encrypted: boolean): TransferManifestSummary {
  return { format: m.format, formatVersion: m.formatVersion, homeagentVersion: m.homeagentVersion, createdAt: m.createdAt, counts: m.counts, files: m.files.length, bytes: m.files.reduce((n, f) => n + f.bytes, 0), encrypted };
}

/**
 * Parses a manifest: first its format and version (so a newer export says "newer", not "corrupt"),
 * then the whole schema. Every failure is a coded TransferError.
 */
export function parseManifest(text: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new TransferError('TRANSFER_CORRUPT', `the manifest is not valid JSON: ${(e as Error).message}`);
  }
  const head = z.object({ format: z.string(), formatVersion: z.number() }).safeParse(raw);
  if (!head.success || head.data.format !== EXPORT_FORMAT) throw new TransferError('TRANSFER_NOT_AN_EXPORT', 'this is not a HomeAgent export (its manifest names another format)');
  const v = head.data.formatVersion;
  if (v > EXPORT_FORMAT_VERSION) {
    const by = typeof (raw as { homeagentVersion?: unknown }).homeagentVersion === 'string' ? ` (made by HomeAgent ${(raw as { homeagentVersion: string }).homeagentVersion.slice(0, 40)})` : '';
    throw new TransferError('TRANSFER_FORMAT_TOO_NEW', `this export has format version ${v}${by}; this HomeAgent reads versions ${MIN_READ_FORMAT_VERSION}–${EXPORT_FORMAT_VERSION}: update HomeAgent to import it`, { formatVersion: v, supported: EXPORT_FORMAT_VERSION });
  }
  if (v < MIN_READ_FORMAT_VERSION) throw new TransferError('TRANSFER_FORMAT_UNSUPPORTED', `this export has format version ${v}, which this HomeAgent no longer reads (oldest: ${MIN_READ_FORMAT_VERSION})`, { formatVersion: v });
  const r = manifestSchema.safeParse(raw);
  if (!r.success) throw new TransferError('TRANSFER_CORRUPT', `the manifest is malformed: ${r.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

function escape(name: string, why: string): never {
  throw new TransferError('TRANSFER_PATH_ESCAPE', `entry "${name.slice(0, 200)}" ${why}`, { entry: name.slice(0, 200) });
}

/**
 * Checks an entry name of the archive and says which part it belongs to. Names must be relative,
 * use `/`, hold no `..`, `.` or empty segments, no NUL or backslash, and be one of the format's
 * places (`sessions/<stem>.jsonl`, `memory/<tier file>`, `library/memories/<id>.md`,
 * `library/pinned/<plan file>`, `knowledge/<name>/content.md`, `media/…`, `persona.md`,
 * `settings.json`, `tombstones.json`, `replacements.json`, `adapters/<name>.lua`). Traversal is TRANSFER_PATH_ESCAPE; anything else unknown is
 * TRANSFER_CORRUPT.
 */
export function partOfEntry(name: string): TransferPart {
  if (name.includes('\0') || name.includes('\\')) escape(name, 'holds a NUL byte or a backslash');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) escape(name, 'is an absolute path');
  const segs = name.split('/');
  if (segs.some((s) => s === '..')) escape(name, 'leaves the archive folder');
  if (segs.some((s) => s === '' || s === '.') || posix.normalize(name) !== name) escape(name, 'is not a normalised relative path');
  const unknown = (): never => {
    throw new TransferError('TRANSFER_CORRUPT', `entry "${name.slice(0, 200)}" is not part of the export format`, { entry: name.slice(0, 200) });
  };
  const [top, ...rest] = segs;
  switch (top) {
    case 'sessions':
      if (rest.length === 1 && rest[0].endsWith('.jsonl') && sessionIdFromFileStem(rest[0].slice(0, -'.jsonl'.length))) return 'sessions';
      return unknown();
    case 'memory':
      if (rest.length === 1 && rest[0] === 'context.json') return 'context';
      if (rest.length === 1 && rest[0] === 'documents.db') return 'documents';
      if (rest.length === 1 && rest[0] === 'archive.db') return 'archive';
      if (rest.length === 1 && rest[0] === 'graph.db') return 'graph';
      return unknown();
    case 'library':
      if (rest.length === 2 && rest[0] === 'memories' && rest[1].endsWith('.md') && LIBRARY_ID_RE.test(rest[1].slice(0, -3))) return 'library';
      if (rest.length === 2 && rest[0] === 'pinned' && PLAN_FILES.has(rest[1])) return 'library';
      return unknown();
    case 'knowledge':
      if (rest.length === 2 && rest[1] === 'content.md' && KNOWLEDGE_NAME_RE.test(rest[0]) && !/[. ]$/.test(rest[0])) return 'knowledge';
      return unknown();
    case 'media':
      // Attachments keep their relative path (session events name it): a few plain segments.
      if (rest.length >= 1 && rest.length <= 4 && rest.every((s) => s.length <= 255 && !s.startsWith('.'))) return 'media';
      return unknown();
    case 'persona.md':
      return rest.length === 0 ? 'persona' : unknown();
    case 'settings.json':
      return rest.length === 0 ? 'settings' : unknown();
    case 'tombstones.json':
      return rest.length === 0 ? 'tombstones' : unknown();
    case 'replacements.json':
      return rest.length === 0 ? 'replacements' : unknown();
    case 'adapters':
      if (rest.length === 1 && rest[0].endsWith('.lua') && ADAPTER_NAME_RE.test(rest[0].slice(0, -'.lua'.length))) return 'adapters';
      return unknown();
    default:
      return unknown();
  }
}
