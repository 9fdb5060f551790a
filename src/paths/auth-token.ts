import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, statSync, writeSync, fsyncSync, chmodSync } from 'node:fs';
import { join } from 'node:path';

/** File name of the per-install secret inside the data folder (mode 0600). */
export const AUTH_TOKEN_FILE = 'auth-token';

/** A token must be at least this long to be accepted from the file (a truncated file is replaced). */
const MIN_TOKEN_CHARS = 32;
const TOKEN_RE = /^[A-Za-z0-9_-]+$/;

/** Path of the secret for a data folder. */
export function authTokenPath(home: string): string {
  return join(home, AUTH_TOKEN_FILE);
}

/**
 * Reads the per-install secret of a data folder, or `undefined` when there is none (or it is
 * unreadable or malformed). Used by `waiter` and by clients on the same machine.
 */
export function readAuthToken(home: string): string | undefined {
  try {
    const text = readFileSync(authTokenPath(home), 'utf8').trim();
    return text.length >= MIN_TOKEN_CHARS && TOKEN_RE.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The per-install secret of the HTTP API (SPEC §9 Security): 32 random bytes, base64url,
 * generated at first start and kept in `<home>/auth-token` with mode 0600. An existing valid
 * file is reused (the WebUI of a browser that signed in stays signed in across restarts); a
 * missing, empty or malformed one is replaced atomically. A file that others can read is
 * narrowed to 0600.
 */
export function ensureAuthToken(home: string): string {
  const path = authTokenPath(home);
  const existing = readAuthToken(home);
  if (existing) {
    try {
      if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    } catch {}
    return existing;
  }
  const token = randomBytes(32).toString('base64url');
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return token;
}

/** The WebUI link that signs a browser in (the SPA keeps the token in this origin's storage). */
export function signInUrl(webuiUrl: string, token: string): string {
  return `${webuiUrl.replace(/\/+$/, '')}/?token=${encodeURIComponent(token)}`;
}
