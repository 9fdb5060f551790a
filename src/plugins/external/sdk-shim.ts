import { Cap, STAGES } from '../../spec/index.js';
import { redactPaths } from '../../fs/index.js';

/**
 * Source of the `homeagent/sdk` module an external plugin sees in its child process: the same
 * runtime exports as the real SDK (`definePlugin`, `Cap`, `STAGES`, the error classes), without
 * any way into the daemon. The runner maps the bare specifier to it with a resolve hook, so a
 * plugin folder needs no node_modules.
 */
export function sdkShimSource(): string {
  return `
import { open as _open, rename as _rename, rm as _rm } from 'node:fs/promises';
import { dirname as _dirname, basename as _basename, join as _join } from 'node:path';
export function definePlugin(def) { return def; }
export function cosine(a, b) {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
export async function writeFileAtomic(path, data, opts = {}) {
  const tmp = _join(_dirname(path), '.' + _basename(path) + '.tmp-' + process.pid + '-' + Math.random().toString(36).slice(2));
  try {
    const fh = await _open(tmp, 'wx', opts.mode ?? 0o600);
    try { await fh.writeFile(data); await fh.sync(); } finally { await fh.close(); }
    await _rename(tmp, path);
    try { const d = await _open(_dirname(path), 'r'); try { await d.sync(); } finally { await d.close(); } } catch {}
  } catch (e) { await _rm(tmp, { force: true }); throw e; }
}
export async function writeJsonAtomic(path, value, opts = {}) { await writeFileAtomic(path, JSON.stringify(value, null, opts.indent ?? 2) + '\\n', opts); }
export ${redactPaths.toString()}
export const Cap = Object.freeze(${JSON.stringify(Cap)});
export const STAGES = Object.freeze(${JSON.stringify(STAGES)});
export class HomeAgentError extends Error {
  constructor(code, message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }
  toJSON() { return { name: this.name, code: this.code, message: this.message, retryable: this.retryable, details: this.details }; }
}
export class ValidationError extends HomeAgentError { constructor(message, details = {}, cause) { super('VALIDATION', message, { details, cause }); } }
export class NotFoundError extends HomeAgentError { constructor(what, id) { super('NOT_FOUND', what + ' not found: ' + id, { details: { what, id } }); } }
export class ConflictError extends HomeAgentError { constructor(message, details = {}) { super('CONFLICT', message, { details }); } }
export class PayloadTooLargeError extends HomeAgentError { constructor(limitBytes, what = 'payload') { super('PAYLOAD_TOO_LARGE', what + ' is larger than ' + limitBytes + ' bytes', { details: { limitBytes, what } }); } }
export class PluginError extends HomeAgentError { constructor(plugin, message, code = 'PLUGIN_FAILED', cause, details = {}) { super(code, plugin + ': ' + message, { details: { plugin, ...details }, cause }); } }
`;
}

/** The loader hooks module (registered with `module.register`) that resolves `homeagent/sdk`. */
export function sdkHooksSource(): string {
  const shimUrl = `data:text/javascript;base64,${Buffer.from(sdkShimSource()).toString('base64')}`;
  return `
const SHIM = ${JSON.stringify(shimUrl)};
export async function resolve(specifier, context, next) {
  if (specifier === 'homeagent/sdk') return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
`;
}
