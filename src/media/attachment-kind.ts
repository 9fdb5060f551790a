import { extname } from 'node:path';
import type { AttachmentKind } from '../spec/index.js';

/** Media types that are text whatever their `application/` prefix says. */
const TEXT_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/x-javascript',
  'application/typescript',
  'application/x-typescript',
  'application/x-sh',
  'application/x-shellscript',
  'application/sql',
  'application/x-python',
  'application/x-python-code',
  'application/x-httpd-php',
  'application/x-ndjson',
  'application/csv',
  'application/x-tex',
  'application/rtf',
  'application/x-subrip',
  'image/svg+xml',
]);

/** Extensions of text, Markdown, data and source-code files (for uploads typed octet-stream). */
const TEXT_EXT = new Set(
  (
    'txt text md markdown mdx rst adoc org tex csv tsv json jsonl ndjson yaml yml toml ini cfg conf env properties xml html htm css scss sass less svg ' +
    'js mjs cjs jsx ts mts cts tsx vue svelte py pyi rb go rs java kt kts scala groovy gradle c h cc cpp cxx hpp hh cs fs vb php pl pm r jl lua swift m mm ' +
    'dart ex exs erl hrl hs elm clj cljs edn sh bash zsh fish ps1 bat cmd sql graphql gql proto thrift tf hcl nix dockerfile makefile cmake mk ' +
    'log diff patch srt vtt ics vcf bib'
  ).split(' '),
);

const AUDIO_EXT = new Set(['mp3', 'wav', 'm4a', 'mp4a', 'aac', 'ogg', 'oga', 'opus', 'flac', 'webm', 'amr', 'wma', 'mpga', 'mpeg']);
const IMAGE_EXT = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'bmp', 'heic', 'heif', 'tiff', 'tif']);

/**
 * What an attachment is, from its media type and name: `pdf`, `audio`, `image`, `text`
 * (text/*, JSON, YAML, source code …) or `other`. An `application/octet-stream` upload is judged
 * by its file name; {@link looksLikeText} judges what is left by its bytes.
 */
export function attachmentKind(mimeType: string, name = ''): AttachmentKind {
  const mime = mimeType.toLowerCase().split(';')[0].trim();
  const base = name.toLowerCase().split(/[\\/]/).pop() ?? '';
  const ext = extname(base).slice(1) || (['dockerfile', 'makefile'].includes(base) ? base : '');
  if (mime === 'application/pdf' || ext === 'pdf') return 'pdf';
  if (mime === 'image/svg+xml') return 'text';
  if (mime.startsWith('audio/') || (mime === 'video/webm' && ext === 'webm') || (!mime.startsWith('video/') && AUDIO_EXT.has(ext))) return 'audio';
  if (mime.startsWith('image/') || IMAGE_EXT.has(ext)) return 'image';
  if (mime.startsWith('text/') || TEXT_TYPES.has(mime) || mime.endsWith('+json') || mime.endsWith('+xml') || TEXT_EXT.has(ext)) return 'text';
  return 'other';
}

/** True when bytes read as text: no NUL in the first 8 KiB and valid UTF-8 (or a UTF-16 BOM). */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return true;
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return true;
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return false;
  try {
    // A multi-byte character cut at the 8 KiB edge is fine: stream mode does not fail on it.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}
