import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, posix, resolve, sep } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import type yauzl from 'yauzl';
import { PluginError } from '../spec/index.js';
import { readManifest, type PluginManifest } from './plugin-manifest.js';

// Loaded on the first install, not at daemon start.
const requireLazy = createRequire(import.meta.url);
const zipLib = (): typeof yauzl => requireLazy('yauzl') as typeof yauzl;

/** Limits of a `.hmap` archive (P-3). */
export interface HmapLimits {
  /** Most entries (files + folders). Default 2000. */
  maxFiles?: number;
  /** Largest single file, uncompressed. Default 20 MiB. */
  maxFileBytes?: number;
  /** Largest total, uncompressed. Default 100 MiB. */
  maxTotalBytes?: number;
  /** Largest archive. Default 50 MiB. */
  maxArchiveBytes?: number;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

function fail(code: string, message: string, details: Record<string, unknown> = {}): PluginError {
  return new PluginError('hmap', message, code, undefined, details);
}

/** Checks one entry name: relative, no `..`, no drive letter, no backslash tricks. Returns the normalized name. */
export function checkEntryName(raw: string): string {
  if (raw.includes('\0')) throw fail('HMAP_PATH_ESCAPE', `entry name contains a NUL byte`, { entry: raw });
  const name = raw.replace(/\\/g, '/');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name.startsWith('//')) throw fail('HMAP_PATH_ESCAPE', `entry "${raw}" is an absolute path`, { entry: raw });
  const parts = name.split('/');
  if (parts.some((p) => p === '..')) throw fail('HMAP_PATH_ESCAPE', `entry "${raw}" escapes the plugin folder`, { entry: raw });
  const norm = posix.normalize(name);
  if (norm.startsWith('../') || norm === '..') throw fail('HMAP_PATH_ESCAPE', `entry "${raw}" escapes the plugin folder`, { entry: raw });
  return norm;
}

function openZip(buf: Buffer): Promise<yauzl.ZipFile> {
  return new Promise((res, rej) =>
    zipLib().fromBuffer(buf, { lazyEntries: true, decodeStrings: false, validateEntrySizes: false, strictFileNames: false }, (err, zf) => (err ? rej(err) : res(zf!))),
  );
}

function openStream(zf: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((res, rej) => zf.openReadStream(entry, (err, s) => (err ? rej(err) : res(s!))));
}

/**
 * Extracts a `.hmap` (zip) archive into a fresh folder under `stagingParent` and validates it
 * before anything of it runs: every entry must stay inside the folder (no `../`, absolute paths,
 * drive letters), no symlinks, at most `maxFiles` entries, no file over `maxFileBytes` and no
 * total over `maxTotalBytes` — checked on the declared sizes AND while streaming the actual bytes
 * (a zip bomb that lies in its headers is stopped at the limit) — and `plugin.json` must be valid.
 * The archive may hold the plugin at its root or inside one top-level folder.
 *
 * Errors are PluginErrors with codes HMAP_BAD_ARCHIVE, HMAP_PATH_ESCAPE, HMAP_SYMLINK,
 * HMAP_TOO_LARGE, HMAP_TOO_MANY_FILES, HMAP_BAD_MANIFEST; on error nothing is left behind.
 */
export async function extractHmap(archive: Uint8Array, stagingParent: string, limits: HmapLimits = {}): Promise<{ dir: string; root: string; manifest: PluginManifest }> {
  const maxFiles = limits.maxFiles ?? 2000;
  const maxFile = limits.maxFileBytes ?? 20 * 1024 * 1024;
  const maxTotal = limits.maxTotalBytes ?? 100 * 1024 * 1024;
  const maxArchive = limits.maxArchiveBytes ?? 50 * 1024 * 1024;
  if (!(archive instanceof Uint8Array) || archive.byteLength === 0) throw fail('HMAP_BAD_ARCHIVE', 'the archive is empty');
  if (archive.byteLength > maxArchive) throw fail('HMAP_TOO_LARGE', `the archive is larger than ${maxArchive} bytes`, { bytes: archive.byteLength });
  mkdirSync(stagingParent, { recursive: true });
  const dir = mkdtempSync(join(stagingParent, '.staging-'));
  const base = resolve(dir);
  let zf: yauzl.ZipFile | undefined;
  try {
    try {
      zf = await openZip(Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength));
    } catch (e) {
      throw fail('HMAP_BAD_ARCHIVE', `not a zip archive: ${(e as Error).message}`);
    }
    if (zf.entryCount > maxFiles) throw fail('HMAP_TOO_MANY_FILES', `the archive has ${zf.entryCount} entries (limit ${maxFiles})`, { entries: zf.entryCount });
    let total = 0;
    let count = 0;
    const z = zf;
    await new Promise<void>((resolveAll, rejectAll) => {
      z.on('error', (e: Error) => rejectAll(e instanceof PluginError ? e : fail('HMAP_BAD_ARCHIVE', `corrupt archive: ${e.message}`)));
      z.on('end', () => resolveAll());
      z.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          if (++count > maxFiles) throw fail('HMAP_TOO_MANY_FILES', `the archive has more than ${maxFiles} entries`);
          const rawName = Buffer.isBuffer(entry.fileName) ? (entry.fileName as unknown as Buffer).toString('utf8') : String(entry.fileName);
          const name = checkEntryName(rawName);
          const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
          const madeByUnix = entry.versionMadeBy >> 8 === 3;
          if (mode === S_IFLNK && madeByUnix) throw fail('HMAP_SYMLINK', `entry "${rawName}" is a symbolic link`, { entry: rawName });
          if (mode !== 0 && mode !== S_IFREG && mode !== S_IFDIR) throw fail('HMAP_BAD_ARCHIVE', `entry "${rawName}" is not a regular file or folder`, { entry: rawName });
          const target = resolve(base, name);
          if (target !== base && !target.startsWith(base + sep)) throw fail('HMAP_PATH_ESCAPE', `entry "${rawName}" escapes the plugin folder`, { entry: rawName });
          if (rawName.endsWith('/') || rawName.endsWith('\\')) {
            mkdirSync(target, { recursive: true });
            z.readEntry();
            return;
          }
          if (entry.uncompressedSize > maxFile) throw fail('HMAP_TOO_LARGE', `entry "${rawName}" is ${entry.uncompressedSize} bytes (limit ${maxFile})`, { entry: rawName });
          if (total + entry.uncompressedSize > maxTotal) throw fail('HMAP_TOO_LARGE', `the archive unpacks to more than ${maxTotal} bytes`, { entry: rawName });
          mkdirSync(dirname(target), { recursive: true });
          let actual = 0;
          const counter = new Transform({
            transform(chunk: Buffer, _enc, cb) {
              actual += chunk.length;
              total += chunk.length;
              if (actual > maxFile) return cb(fail('HMAP_TOO_LARGE', `entry "${rawName}" unpacks to more than ${maxFile} bytes`, { entry: rawName }));
              if (total > maxTotal) return cb(fail('HMAP_TOO_LARGE', `the archive unpacks to more than ${maxTotal} bytes`, { entry: rawName }));
              cb(null, chunk);
            },
          });
          const stream = await openStream(z, entry);
          await pipeline(stream, counter, createWriteStream(target, { flags: 'wx', mode: 0o644 }));
          z.readEntry();
        })().catch((e: unknown) => {
          z.close();
          rejectAll(e instanceof PluginError ? e : fail('HMAP_BAD_ARCHIVE', `cannot extract: ${(e as Error).message}`));
        });
      });
      z.readEntry();
    });
    // The plugin is at the root, or inside exactly one top-level folder.
    let root = dir;
    if (!existsSync(join(dir, 'plugin.json'))) {
      const top = readdirSync(dir);
      if (top.length === 1 && statSync(join(dir, top[0])).isDirectory() && existsSync(join(dir, top[0], 'plugin.json'))) root = join(dir, top[0]);
      else throw fail('HMAP_BAD_MANIFEST', 'the archive has no plugin.json');
    }
    const manifest = readManifest(root, 'hmap', 'HMAP_BAD_MANIFEST');
    if (!existsSync(join(root, manifest.entry))) throw fail('HMAP_BAD_MANIFEST', `entry file ${manifest.entry} is missing from the archive`);
    return { dir, root, manifest };
  } catch (e) {
    zf?.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
