import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, openSync, readSync, closeSync, statfsSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import type yauzl from 'yauzl';
import { TransferError } from '../spec/index.js';
import { MANIFEST_ENTRY, parseManifest, partOfEntry, type Manifest, type ManifestFile } from './manifest.js';

const requireLazy = createRequire(import.meta.url);
const zipLib = (): typeof yauzl => requireLazy('yauzl') as typeof yauzl;

/** Limits of an archive being imported. */
export interface UnpackLimits {
  /** Most entries. Default 200,000. */
  maxEntries: number;
  /** Largest unpacked total. Default 64 GiB. */
  maxTotalBytes: number;
  /** Largest manifest. Default 64 MiB. */
  maxManifestBytes: number;
  /** An entry that unpacks to more than this many times its packed size (and over 1 MiB) is a zip bomb. Default 1000. */
  maxRatio: number;
  /**
   * Bytes an import leaves free on the data folder's disk (decision 0280): receiving or unpacking
   * an archive that would leave less is refused (TRANSFER_NO_SPACE) — the daemon's own databases
   * and logs need room to keep working. Default 256 MiB.
   */
  keepFreeBytes: number;
}

export const DEFAULT_UNPACK_LIMITS: UnpackLimits = { maxEntries: 200_000, maxTotalBytes: 64 * 1024 ** 3, maxManifestBytes: 64 * 1024 ** 2, maxRatio: 1000, keepFreeBytes: 256 * 1024 ** 2 };

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

function open(file: string): Promise<yauzl.ZipFile> {
  return new Promise((res, rej) => zipLib().open(file, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false }, (err, zf) => (err ? rej(err) : res(zf!))));
}

function openEntry(zf: yauzl.ZipFile, e: yauzl.Entry): Promise<Readable> {
  return new Promise((res, rej) => zf.openReadStream(e, (err, s) => (err ? rej(err) : res(s!))));
}

/**
 * An entry's name as UTF-8 (names are decoded here, not by yauzl, so that a traversal name reaches
 * our own check and is reported as such).
 */
function nameOf(e: yauzl.Entry): string {
  const raw = e.fileName as unknown;
  return Buffer.isBuffer(raw) ? raw.toString('utf8') : String(raw);
}

/** Reads the central directory (every entry's header), without unpacking anything. */
async function listEntries(zf: yauzl.ZipFile, max: number): Promise<yauzl.Entry[]> {
  if (zf.entryCount > max) throw new TransferError('TRANSFER_TOO_MANY_FILES', `the archive has ${zf.entryCount} entries (limit ${max})`, { entries: zf.entryCount, limit: max });
  const out: yauzl.Entry[] = [];
  await new Promise<void>((resolveAll, reject) => {
    zf.on('entry', (e: yauzl.Entry) => {
      out.push(e);
      zf.readEntry();
    });
    zf.on('end', () => resolveAll());
    zf.on('error', (e: Error) => reject(e));
    zf.readEntry();
  }).catch((e: unknown) => {
    throw e instanceof TransferError ? e : new TransferError('TRANSFER_CORRUPT', `the archive's directory is damaged: ${(e as Error).message}`);
  });
  return out;
}

/** True when the file starts like a zip but its end-of-directory record is missing (cut short). */
function looksTruncated(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    return readSync(fd, b, 0, 4, 0) === 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 3 && b[3] === 4;
  } finally {
    closeSync(fd);
  }
}

async function readSmall(zf: yauzl.ZipFile, e: yauzl.Entry, limit: number): Promise<string> {
  if (e.uncompressedSize > limit) throw new TransferError('TRANSFER_TOO_LARGE', `the manifest is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of await openEntry(zf, e)) {
    n += (c as Buffer).length;
    if (n > limit) throw new TransferError('TRANSFER_TOO_LARGE', `the manifest is larger than ${limit} bytes`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Verifies and unpacks an export (a zip) into `dir`, which must be empty and private. Checked
 * before a byte is unpacked: the central directory, the entry count, the manifest (format and
 * version first), every entry name (no traversal, one of the format's places, no duplicates), no
 * links or devices, that the entries and the manifest's file list are the same set with the same
 * sizes, the unpacked total against the limit and the free disk, and each entry's packing ratio
 * (zip bombs). While unpacking: the actual size (yauzl stops at the declared one) and the SHA-256
 * of every file against the manifest. Every failure is a coded TransferError; the caller removes
 * `dir`.
 */
export async function unpackExport(file: string, dir: string, limits: UnpackLimits = DEFAULT_UNPACK_LIMITS, onBytes?: (n: number, total: number) => void): Promise<Manifest> {
  let zf: yauzl.ZipFile;
  try {
    zf = await open(file);
  } catch (e) {
    const msg = (e as Error).message;
    if (/end of central directory/i.test(msg) && looksTruncated(file)) throw new TransferError('TRANSFER_TRUNCATED', 'the archive is cut short (its zip directory is missing): copy or download it again');
    if (/end of central directory/i.test(msg)) throw new TransferError('TRANSFER_NOT_AN_EXPORT', 'this is not a HomeAgent export (not a zip file)');
    throw new TransferError('TRANSFER_CORRUPT', `the archive cannot be read: ${msg}`);
  }
  try {
    const entries = await listEntries(zf, limits.maxEntries);
    const manifestEntry = entries.find((e) => nameOf(e) === MANIFEST_ENTRY);
    if (!manifestEntry) throw new TransferError('TRANSFER_NOT_AN_EXPORT', 'this is not a HomeAgent export (the archive has no manifest.json)');
    const manifest = parseManifest(await readSmall(zf, manifestEntry, limits.maxManifestBytes).catch((e: unknown) => {
      throw e instanceof TransferError ? e : new TransferError('TRANSFER_CORRUPT', `the manifest cannot be read: ${(e as Error).message}`);
    }));
    const listed = new Map<string, ManifestFile>();
    for (const f of manifest.files) {
      if (partOfEntry(f.path) !== f.part) throw new TransferError('TRANSFER_CORRUPT', `the manifest puts ${f.path} in the wrong part`, { entry: f.path });
      if (listed.has(f.path)) throw new TransferError('TRANSFER_CORRUPT', `the manifest lists ${f.path} twice`, { entry: f.path });
      listed.set(f.path, f);
    }
    const seen = new Set<string>();
    let total = 0;
    const files: [yauzl.Entry, ManifestFile][] = [];
    for (const e of entries) {
      if (e === manifestEntry) continue;
      const name = nameOf(e);
      partOfEntry(name);
      if (seen.has(name)) throw new TransferError('TRANSFER_CORRUPT', `entry ${name} appears twice`, { entry: name });
      seen.add(name);
      const type = (e.externalFileAttributes >>> 16) & S_IFMT;
      if (type !== 0 && type !== S_IFREG) throw new TransferError('TRANSFER_SYMLINK', `entry ${name} is a link or a device, not a file`, { entry: name });
      const m = listed.get(name);
      if (!m) throw new TransferError('TRANSFER_CORRUPT', `entry ${name} is not in the manifest`, { entry: name });
      if (m.bytes !== e.uncompressedSize) throw new TransferError('TRANSFER_CORRUPT', `entry ${name} is ${e.uncompressedSize} bytes; the manifest says ${m.bytes}`, { entry: name });
      if (e.uncompressedSize > 1024 * 1024 && e.uncompressedSize > limits.maxRatio * Math.max(1, e.compressedSize)) {
        throw new TransferError('TRANSFER_TOO_LARGE', `entry ${name} unpacks to ${e.uncompressedSize} bytes from ${e.compressedSize} (a zip bomb?)`, { entry: name });
      }
      total += e.uncompressedSize;
      if (total > limits.maxTotalBytes) throw new TransferError('TRANSFER_TOO_LARGE', `the archive unpacks to more than ${limits.maxTotalBytes} bytes`, { limit: limits.maxTotalBytes });
      files.push([e, m]);
    }
    for (const p of listed.keys()) if (!seen.has(p)) throw new TransferError('TRANSFER_CORRUPT', `${p} is in the manifest but not in the archive`, { entry: p });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const free = freeBytes(dir);
    if (free !== undefined && total + limits.keepFreeBytes > free) throw new TransferError('TRANSFER_NO_SPACE', `unpacking needs ${total} bytes and ${limits.keepFreeBytes} must stay free; the disk has ${free}`, { needed: total, free, keepFree: limits.keepFreeBytes });
    const base = resolve(dir);
    for (const [e, m] of files) {
      const target = resolve(base, m.path);
      if (!target.startsWith(base + sep)) throw new TransferError('TRANSFER_PATH_ESCAPE', `entry ${m.path} leaves the archive folder`, { entry: m.path });
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      const h = createHash('sha256');
      let n = 0;
      const check = new Transform({
        transform(chunk: Buffer, _e, cb) {
          n += chunk.length;
          if (n > m.bytes) return cb(new TransferError('TRANSFER_CORRUPT', `entry ${m.path} is longer than the manifest says`, { entry: m.path }));
          h.update(chunk);
          onBytes?.(chunk.length, total);
          cb(null, chunk);
        },
      });
      try {
        await pipeline(await openEntry(zf, e), check, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
      } catch (err) {
        if (err instanceof TransferError) throw err;
        if (isDiskFull(err)) throw new TransferError('TRANSFER_NO_SPACE', 'the disk of the data folder filled up while unpacking the archive; free some space and try again', { entry: m.path }, err);
        throw new TransferError('TRANSFER_CORRUPT', `entry ${m.path} is damaged: ${(err as Error).message}`, { entry: m.path });
      }
      if (n !== m.bytes || h.digest('hex') !== m.sha256) throw new TransferError('TRANSFER_CORRUPT', `${m.path} does not match its checksum in the manifest (the archive is damaged)`, { entry: m.path });
    }
    return manifest;
  } finally {
    zf.close();
  }
}

/** True for the error of a full disk or an exhausted quota (ENOSPC, EDQUOT). */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** Free bytes (for this user) on the disk of `dir`, or undefined when the system does not say. */
export function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return undefined;
  }
}

/** Path of an unpacked entry. */
export function unpacked(dir: string, entry: string): string {
  return join(dir, ...entry.split('/'));
}

/** Size of a file, or 0 when missing. */
export function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
