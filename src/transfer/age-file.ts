import { createReadStream, createWriteStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TransferError } from '../spec/index.js';
import { isDiskFull } from './zip-unpack.js';

/** The first line of every binary age file (age-encryption.org/v1). */
export const AGE_MAGIC = 'age-encryption.org/v1\n';
const ARMOR_MAGIC = '-----BEGIN AGE ENCRYPTED FILE-----';

// age-encryption (the reference TypeScript implementation of age, by age's author) is ESM and
// loaded on the first encrypted export or import, not at daemon start.
type AgeModule = typeof import('age-encryption');
let age: Promise<AgeModule> | undefined;
const loadAge = (): Promise<AgeModule> => (age ??= import('age-encryption'));

/** What the first bytes of a file say it is. */
export function sniff(file: string): 'age' | 'age-armored' | 'zip' | 'unknown' {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64);
    const n = readSync(fd, buf, 0, 64, 0);
    const head = buf.subarray(0, n).toString('latin1');
    if (head.startsWith(AGE_MAGIC)) return 'age';
    if (head.startsWith(ARMOR_MAGIC)) return 'age-armored';
    if (n >= 4 && buf[0] === 0x50 && buf[1] === 0x4b && (buf[2] === 3 || buf[2] === 5) && (buf[3] === 4 || buf[3] === 6)) return 'zip';
    return 'unknown';
  } finally {
    closeSync(fd);
  }
}

function counter(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _e, cb) {
      onBytes(chunk.length);
      cb(null, chunk);
    },
  });
}

/**
 * Encrypts `source` into `target` as an age file with a passphrase (scrypt recipient, work factor
 * 2^`logN`, default 18 as `age -p` uses): `age -d target` decrypts it with the same passphrase.
 */
export async function encryptFile(source: string, target: string, passphrase: string, opts: { logN?: number; onBytes?: (n: number) => void } = {}): Promise<void> {
  const { Encrypter } = await loadAge();
  const e = new Encrypter();
  e.setPassphrase(passphrase);
  if (opts.logN !== undefined) e.setScryptWorkFactor(opts.logN);
  const input = Readable.toWeb(createReadStream(source).pipe(counter(opts.onBytes ?? (() => {})))) as unknown as ReadableStream<Uint8Array>;
  const out = await e.encrypt(input);
  await pipeline(Readable.fromWeb(out as never), createWriteStream(target, { flags: 'wx', mode: 0o600 }));
}

/** Length of the age header (up to and including the `--- <mac>` line), or undefined when it does not end in the file's first 64 KiB. */
function headerLength(file: string): number | undefined {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(65536);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString('latin1');
    const at = text.indexOf('\n--- ');
    if (at < 0) return undefined;
    const end = text.indexOf('\n', at + 5);
    return end < 0 ? undefined : end + 1;
  } finally {
    closeSync(fd);
  }
}

/**
 * Decrypts an age file with a passphrase into `target`. Every chunk is authenticated before it is
 * written; failures are coded: TRANSFER_WRONG_PASSPHRASE, TRANSFER_TRUNCATED (the file ends early),
 * TRANSFER_CORRUPT (a chunk does not authenticate), TRANSFER_NOT_AN_EXPORT (an age file encrypted
 * to a key rather than a passphrase, or a broken header).
 */
export async function decryptFile(source: string, target: string, passphrase: string, opts: { onBytes?: (n: number) => void } = {}): Promise<void> {
  const { Decrypter } = await loadAge();
  const size = statSync(source).size;
  const header = headerLength(source);
  if (header === undefined) {
    throw size < 200 ? new TransferError('TRANSFER_TRUNCATED', 'the encrypted archive ends inside its header (the file is incomplete)') : new TransferError('TRANSFER_CORRUPT', 'the encrypted archive has a damaged header');
  }
  const d = new Decrypter();
  d.addPassphrase(passphrase);
  let out: Awaited<ReturnType<typeof d.decrypt>> & { size?: (n: number) => number };
  try {
    out = (await d.decrypt(Readable.toWeb(createReadStream(source)) as unknown as ReadableStream<Uint8Array>)) as typeof out;
  } catch (e) {
    throw mapAgeError(e, 'header');
  }
  try {
    out.size?.(size - header);
  } catch {
    await (out as ReadableStream).cancel().catch(() => {});
    throw new TransferError('TRANSFER_TRUNCATED', 'the encrypted archive is cut short (its length is not a whole number of age chunks): copy or download it again');
  }
  try {
    await pipeline(Readable.fromWeb(out as never), counter(opts.onBytes ?? (() => {})), createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  } catch (e) {
    throw mapAgeError(e, 'body');
  }
}

function mapAgeError(e: unknown, where: 'header' | 'body'): TransferError {
  if (isDiskFull(e)) return new TransferError('TRANSFER_NO_SPACE', 'the disk of the data folder filled up while decrypting the archive; free some space and try again', {}, e);
  const msg = (e as Error)?.message ?? String(e);
  if (/no identity matched/i.test(msg)) {
    return new TransferError('TRANSFER_WRONG_PASSPHRASE', 'the passphrase does not open this archive');
  }
  if (/stream ended/i.test(msg)) return new TransferError('TRANSFER_TRUNCATED', 'the encrypted archive is cut short: copy or download it again', {}, e);
  if (where === 'body' || /invalid tag/i.test(msg)) return new TransferError('TRANSFER_CORRUPT', `the encrypted archive is damaged or cut short (${msg}): copy or download it again`, {}, e);
  if (/scrypt/i.test(msg) || /work factor/i.test(msg)) return new TransferError('TRANSFER_NOT_AN_EXPORT', `the archive's passphrase stanza is not usable: ${msg}`, {}, e);
  return new TransferError('TRANSFER_NOT_AN_EXPORT', `the archive is an age file this HomeAgent cannot open with a passphrase (${msg})`, {}, e);
}
