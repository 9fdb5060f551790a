import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import type yazl from 'yazl';
import type { TransferPart } from '../spec/index.js';
import { MANIFEST_ENTRY, type Manifest, type ManifestFile } from './manifest.js';

const requireLazy = createRequire(import.meta.url);
const zipLib = (): typeof yazl => requireLazy('yazl') as typeof yazl;

/** A file of the snapshot and where it goes in the archive. */
export interface PackFile {
  entry: string;
  part: TransferPart;
  /** Absolute path of the (stable, snapshotted) source. */
  source: string;
}

/** SHA-256 (hex) and size of a file, read as a stream. */
export async function hashFile(file: string, onBytes?: (n: number) => void): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    h.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
    onBytes?.((chunk as Buffer).length);
  }
  return { sha256: h.digest('hex'), bytes };
}

/** Hashes every file (progress in bytes) and returns the manifest's file list. */
export async function describeFiles(files: readonly PackFile[], onBytes?: (n: number) => void): Promise<ManifestFile[]> {
  const out: ManifestFile[] = [];
  for (const f of files) {
    const { sha256, bytes } = await hashFile(f.source, onBytes);
    out.push({ path: f.entry, part: f.part, bytes, sha256 });
  }
  return out;
}

/** Total size of the sources. */
export function totalBytes(files: readonly PackFile[]): number {
  return files.reduce((n, f) => n + statSync(f.source).size, 0);
}

/**
 * Writes the zip: `manifest.json` first (a reader finds versions and checksums before any data),
 * then every file, deflated. `target` must not exist (it is a temp file the caller renames).
 * Progress is reported in source bytes read.
 */
export async function writeZip(target: string, manifest: Manifest, files: readonly PackFile[], onBytes?: (n: number) => void): Promise<void> {
  const zip = new (zipLib().ZipFile)();
  const mtime = new Date(manifest.createdAt);
  zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 1)), MANIFEST_ENTRY, { mtime, mode: 0o100600 });
  for (const f of files) {
    const size = statSync(f.source).size;
    const counted = createReadStream(f.source).pipe(
      new Transform({
        transform(chunk: Buffer, _e, cb) {
          onBytes?.(chunk.length);
          cb(null, chunk);
        },
      }),
    );
    zip.addReadStream(counted, f.entry, { mtime, mode: 0o100600, size, compress: !f.entry.startsWith('media/') });
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
}
