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
  // POSIX absolute paths of two or more segments, and Windows drive paths, not part of a URL.
  out = out.replace(/(^|[\s'"`(=,:[])(\/(?!api\/|v1\/|mcp\b)(?:[^\s'"`()<>,:;/\\]+\/)+[^\s'"`()<>,:;/\\]*)/g, (_m, pre: string) => `${pre}<path>`);
  out = out.replace(/(^|[\s'"`(=,:[])([A-Za-z]:\\(?:[^\s'"`()<>,;\\]+\\)*[^\s'"`()<>,;\\]*)/g, (_m, pre: string) => `${pre}<path>`);
  return out;
}
