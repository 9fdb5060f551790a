/**
 * Removes absolute file-system paths from a message meant for a client (SPEC §9: errors returned
 * over HTTP name no absolute paths — they tell a caller where the data folder and the user's home
 * are). Known roots become short labels (`<data>/sessions/x.jsonl`); any other absolute path is
 * replaced by `<path>`. URL paths of our own API (`/api/…`, `/v1/…`, `/mcp`) are kept.
 */
export function redactPaths(text: string, roots: readonly { path: string; label: string }[] = []): string {
  let out = text;
  const sorted = roots.filter((r) => r.path && r.path.length > 1).sort((a, b) => b.path.length - a.path.length);
  for (const r of sorted) {
    const p = r.path.replace(/[\\/]+$/, '');
    out = out.split(p).join(r.label);
  }
  // `file:` URLs name a path too (`file:///home/ann/x`).
  // Not a backslash: in a JSON text it escapes the quote that ends the string (`\"file:///a\"`).
  out = out.replace(/\bfile:\/\/(?:localhost)?\/[^\s'"`<>\\]*/gi, 'file://<path>');
  // POSIX absolute paths of two or more segments, and Windows drive paths, not part of a URL or of
  // a relative path: at the start, or after anything but a letter, digit, `_ . ~ - / \ >` — and
  // after a JSON escape (`\n/home/ann/x` in a JSON text: the webui redacts error bodies as text).
  out = out.replace(/(^|[^\w.~\-/\\>]|\\[nrtbf])(\/(?!api\/|v1\/|mcp\b)(?:[^\s'"`()<>{}[\]|,:;/\\]+\/)+[^\s'"`()<>{}[\]|,:;/\\]*)/g, (_m, pre: string) => `${pre}<path>`);
  out = out.replace(/(^|[^\w.~\-/\\>]|\\[nrtbf])([A-Za-z]:\\+(?:[^\s'"`()<>,;\\]+\\+)*[^\s'"`()<>,;\\]*)/g, (_m, pre: string) => `${pre}<path>`);
  return out;
}
