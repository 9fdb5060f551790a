import { readFile, realpath, stat } from 'node:fs/promises';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** The package root: the nearest folder above this file that holds `package.json` (works from src/ and dist/src/). */
export function packageRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return resolve(from, '../../..');
}

/** The page shown when the SPA has not been built. */
export const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>HomeAgent</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#eee;padding:.1em .3em;border-radius:4px}</style></head>
<body><h1>HomeAgent WebUI is not built</h1>
<p>The daemon is running and its HTTP API answers under <code>/api/v1/…</code>, but the web app has not been built.</p>
<p>Run <code>npm run build</code> in the HomeAgent folder, then reload this page.</p>
<p lang="zh">WebUI 尚未构建：请在 HomeAgent 目录运行 <code>npm run build</code> 后刷新本页。</p></body></html>`;

/** A path with its symlinks resolved as far as it exists (the rest appended): where it really is. */
export function realPath(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const up = dirname(abs);
    return up === abs ? abs : join(realPath(up), abs.slice(up.length));
  }
}

/** True when `p` is `dir` or inside it. */
export function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/**
 * The folder the WebUI serves: `plugin.webui.web_root`, unless it is the data folder, inside it or
 * holds it — static files are served without the token, and the data folder holds the auth token,
 * config.db and every memory (decision 0350) — then the bundled build, with a warning saying why.
 */
export function chooseWebRoot(configured: string, home: string, bundled: string): { root: string; warning?: string } {
  if (!configured) return { root: bundled };
  const root = realPath(configured);
  const data = realPath(home);
  if (within(root, data) || within(data, root)) {
    return { root: bundled, warning: `plugin.webui.web_root (${configured}) is the data folder, inside it or holds it: static files are served without the token, so it is not used — serving the bundled WebUI instead` };
  }
  return { root: configured };
}

/**
 * Serves the built SPA from `root` (e.g. `dist/web`): exact files with long caching for hashed
 * assets, `index.html` for every other GET path (client-side routing), and a clear page
 * asking to run `npm run build` when nothing is built. Paths never escape `root`; a dotfile (any
 * part of the path starting with `.`) and any file that really is inside one of `deny` (the data
 * folder: the auth token, config.db) are never served — a 404 (decision 0350).
 */
export async function serveStatic(root: string, pathname: string, deny: readonly string[] = []): Promise<Response> {
  const base = resolve(root);
  let rel: string;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    rel = pathname;
  }
  const target = normalize(join(base, rel));
  if (target.startsWith(base + sep) && !rel.includes('\0')) {
    const hidden = target.slice(base.length + 1).split(sep).some((part) => part.startsWith('.'));
    const s = hidden ? undefined : await stat(target).catch(() => undefined);
    if (s?.isFile()) {
      const real = await realpath(target).catch(() => target);
      if (deny.some((d) => within(real, realPath(d)))) return new Response('not found', { status: 404 });
      const body = await readFile(target);
      const hashed = rel.startsWith('/assets/');
      return new Response(body, {
        headers: {
          'content-type': TYPES[extname(target).toLowerCase()] ?? 'application/octet-stream',
          'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
          'x-content-type-options': 'nosniff',
        },
      });
    }
    if (hidden || rel.startsWith('/assets/')) return new Response('not found', { status: 404 });
  }
  const index = await readFile(join(base, 'index.html')).catch(() => undefined);
  const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };
  if (!index) return new Response(NOT_BUILT_PAGE, { status: 200, headers });
  return new Response(index, { headers });
}
