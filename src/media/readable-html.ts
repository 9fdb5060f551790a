import type { ReadableHtml, ReadableHtmlOptions } from '../spec/index.js';
import { decodeText } from './text-decode.js';

type DomNode = { nodeType: number; nodeName: string; textContent: string | null; childNodes: ArrayLike<DomNode>; getAttribute?(n: string): string | null };

const BLOCK = new Set(['p', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'nav', 'blockquote', 'table', 'ul', 'ol', 'dl', 'dt', 'dd', 'figure', 'figcaption', 'form', 'hr', 'address', 'details', 'summary', 'caption', 'fieldset']);
/** Never text a person reads: code, styles, embedded objects, form controls. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'head', 'title', 'meta', 'link', 'button', 'select', 'input', 'textarea']);
/** Nesting deeper than this is machine-made, not structure: what lies below it is left out. */
const MAX_DEPTH = 300;
/** `<meta charset="gbk">` and `<meta http-equiv="Content-Type" content="text/html; charset=gbk">` alike. */
const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i;

/** A decoder for a charset label, or undefined when `TextDecoder` does not know the label. */
function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label);
  } catch {
    return undefined;
  }
}

/**
 * The bytes of an HTML document as text. A byte-order mark decides first; then the charset the
 * transport declared (`charset`, from an HTTP `Content-Type`); then valid UTF-8 (a file saved
 * as UTF-8 often keeps the `<meta charset>` of the page it came from; a last character cut off
 * by a download limit does not count against it); then the page's own `<meta charset>` (gbk, big5,
 * shift_jis …); else GB18030, as for text files (`decodeText`). Line endings become `\n`.
 */
export function decodeHtml(bytes: Uint8Array, charset?: string): string {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 'utf-8' : bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : undefined;
  let text = (decoderFor(bom) ?? decoderFor(charset))?.decode(bytes);
  if (text === undefined) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    } catch {
      const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('latin1');
      text = decoderFor(META_CHARSET.exec(head)?.[1])?.decode(bytes) ?? decodeText(bytes);
    }
  }
  return text.replace(/\r\n?/g, '\n');
}

/** An `href` as an absolute http(s) URL (resolved against `base` when there is one), else undefined. */
function httpLink(href: string | null | undefined, base: string | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Text of a DOM subtree as light Markdown: headings as `#`, paragraphs apart, list items as `- `,
 * table rows as `| a | b |`, preformatted blocks fenced and kept as they are, http(s) links as
 * `[text](url)` — relative ones resolved against `base`, and left as plain text without one (a
 * relative link of a local file leads nowhere).
 */
export function domToMarkdown(root: DomNode, base?: string): string {
  const out: string[] = [];
  const walk = (n: DomNode, depth: number, pre: boolean): void => {
    if (depth > MAX_DEPTH) return;
    if (n.nodeType === 3) {
      out.push(pre ? (n.textContent ?? '') : (n.textContent ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (n.nodeType !== 1 && n.nodeType !== 9 && n.nodeType !== 11) return;
    const tag = n.nodeName.toLowerCase();
    if (SKIP.has(tag)) return;
    if (tag === 'br') return void out.push('\n');
    if (tag === 'pre' && !pre) {
      out.push('\n\n```\n');
      for (const c of Array.from(n.childNodes)) walk(c, depth + 1, true);
      out.push('\n```\n\n');
      return;
    }
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) out.push(`\n\n${'#'.repeat(Number(heading[1]))} `);
    else if (tag === 'li') out.push('\n- ');
    else if (BLOCK.has(tag)) out.push('\n\n');
    else if (tag === 'tr') out.push('\n');
    else if (tag === 'td' || tag === 'th') out.push('| ');
    const href = tag === 'a' ? httpLink(n.getAttribute?.('href'), base) : undefined;
    if (href) out.push('[');
    for (const c of Array.from(n.childNodes)) walk(c, depth + 1, pre);
    if (href) out.push(`](${href})`);
    if (tag === 'td' || tag === 'th') out.push(' ');
    else if (tag === 'tr') out.push('|');
    else if (heading || BLOCK.has(tag)) out.push('\n\n');
  };
  walk(root, 0, false);
  // Tidy outside code fences only: inside them every space and blank line is the author's.
  return out
    .join('')
    .split(/(\n```\n[\s\S]*?\n```\n)/)
    .map((part, i) =>
      i % 2
        ? part
        : part
            .replace(/\[\s*\]\([^)]*\)/g, '')
            .replace(/ {2,}/g, ' ')
            .replace(/[ \t]+\n/g, '\n')
            .replace(/\n[ \t]+/g, '\n')
            .replace(/\n{3,}/g, '\n\n'),
    )
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Opening and closing tags of the document and its body, wherever they stand. */
const DOCUMENT_TAGS = /<!doctype[^>]*>|<\/?(?:html|body)(?=[\s/>])[^>]*>/gi;

/** The document has `html > body`, where the walk and the reader view look. */
function hasBody(doc: { documentElement: DomNode | null }): boolean {
  const root = doc.documentElement;
  return root?.nodeName.toLowerCase() === 'html' && Array.from(root.childNodes).some((n) => n.nodeName.toLowerCase() === 'body');
}

const oneLine = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
/** What counts when the reader view's pick is weighed against the page: not spaces or Markdown marks. */
const letters = (s: string) => s.replace(/[\s#>|`*_[\]()-]/g, '').length;

/**
 * The readable text of an HTML document — the one reader behind `web_fetch` (through
 * `host.media`) and the knowledge base's HTML files: Mozilla's Readability (the Firefox reader
 * view) on a linkedom document. Its pick is kept when it passes `options.article` (by default: 80
 * characters or more, which suits a web page full of menus; a kept file asks for most of the
 * page); otherwise the whole body is. Scripts, styles, embedded objects and form controls never
 * count. Readability and linkedom load on the first call, not when the daemon or `waiter` starts.
 *
 * This runs on the calling thread, and markup can be made to keep Readability busy for minutes:
 * everything but tests reaches it through `HtmlReader` (html-reader.ts, `src/media`'s
 * `readableHtml`), which runs it in a worker thread within a time limit (decision 0580).
 *
 * @example
 * const page = await readableHtml(body, { charset: 'gbk', baseUrl: 'https://example.com/a' });
 */
export async function readableHtml(bytes: Uint8Array, options: ReadableHtmlOptions = {}): Promise<ReadableHtml> {
  const [{ parseHTML }, { Readability }] = await Promise.all([import('linkedom'), import('@mozilla/readability')]);
  const { baseUrl } = options;
  const minChars = options.article?.minChars ?? 80;
  const minShare = options.article?.minShare ?? 0;
  let html = decodeHtml(bytes, options.charset);
  const wholePage = (doc: ReturnType<typeof parseHTML>['document']) => domToMarkdown(doc.body as unknown as DomNode, baseUrl);
  let { document } = parseHTML(html);
  if (!hasBody(document as unknown as { documentElement: DomNode | null })) {
    // linkedom builds html > body only from markup that spells both out: a fragment, an HTML5
    // page that leaves those tags out, or plain text read as nothing (or threw). What there is
    // goes into a body, as a browser puts it.
    html = `<!doctype html><html><body>${html.replace(DOCUMENT_TAGS, '')}</body></html>`;
    ({ document } = parseHTML(html));
  }
  const title = oneLine(document.querySelector('title')?.textContent);
  // Readability changes the document it reads: the page's text, when the pick is weighed against
  // it, is taken first and the reader gets its own copy; otherwise the page is parsed again only
  // when the pick is not kept.
  const page = minShare > 0 ? wholePage(document) : undefined;
  let article: { content?: string | null; title?: string | null } | null = null;
  try {
    article = new Readability((page === undefined ? document : parseHTML(html).document) as unknown as Document, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  if (article?.content) {
    const { document: doc } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
    const text = domToMarkdown(doc.body as unknown as DomNode, baseUrl);
    if (text.length >= minChars && (page === undefined || letters(text) >= minShare * letters(page))) return { title: oneLine(article.title) || title, text, mode: 'article' };
  }
  return { title, text: page ?? wholePage(parseHTML(html).document), mode: 'page' };
}
