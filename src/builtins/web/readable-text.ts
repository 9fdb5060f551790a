import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { WebError } from './web-error.js';

/** A page as the model reads it. */
export interface ReadablePage {
  title: string;
  text: string;
  /** `article` when the reader view found the main content, `page` for the whole body, `text` for non-HTML. */
  mode: 'article' | 'page' | 'text';
}

const TEXT_TYPES = /^(text\/(plain|markdown|x-markdown|csv|xml)|application\/(json|xml|ld\+json|rss\+xml|atom\+xml)|[a-z]+\/[a-z0-9.+-]+\+json)$/;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)$/;
const BLOCK = new Set(['p', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'blockquote', 'pre', 'table', 'tr', 'ul', 'ol', 'dl', 'dt', 'dd', 'figure', 'figcaption', 'form', 'hr', 'address', 'details', 'summary']);
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'canvas', 'head', 'button', 'select', 'input']);

/** The charset of a body: the Content-Type's, else a `<meta charset>` near the top, else UTF-8. */
function charsetOf(contentType: string, body: Buffer): string {
  const fromHeader = /charset=["']?([\w.:-]+)/i.exec(contentType)?.[1];
  if (fromHeader) return fromHeader;
  const head = body.subarray(0, 4096).toString('latin1');
  return /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(head)?.[1] ?? 'utf-8';
}

function decode(body: Buffer, contentType: string): string {
  try {
    return new TextDecoder(charsetOf(contentType, body)).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

type DomNode = { nodeType: number; nodeName: string; textContent: string | null; childNodes: ArrayLike<DomNode>; getAttribute?(n: string): string | null };

/**
 * Text of a DOM subtree with its structure kept as light markdown: headings, paragraphs, list
 * items, and links as `[text](url)` when they lead to another http(s) page.
 */
export function domToText(root: DomNode, base: string): string {
  const out: string[] = [];
  const walk = (n: DomNode, depth: number): void => {
    if (depth > 200) return;
    if (n.nodeType === 3) {
      out.push((n.textContent ?? '').replace(/\s+/g, ' '));
      return;
    }
    if (n.nodeType !== 1 && n.nodeType !== 9 && n.nodeType !== 11) return;
    const tag = n.nodeName.toLowerCase();
    if (SKIP.has(tag)) return;
    if (tag === 'br') return void out.push('\n');
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) out.push(`\n\n${'#'.repeat(Number(heading[1]))} `);
    else if (tag === 'li') out.push('\n- ');
    else if (BLOCK.has(tag)) out.push('\n\n');
    else if (tag === 'td' || tag === 'th') out.push(' | ');
    let href: string | undefined;
    if (tag === 'a') {
      try {
        const u = new URL(n.getAttribute?.('href') ?? '', base);
        if (/^https?:$/.test(u.protocol)) href = u.href;
      } catch {}
      if (href) out.push('[');
    }
    for (const c of Array.from(n.childNodes)) walk(c, depth + 1);
    if (href) out.push(`](${href})`);
    if (heading || BLOCK.has(tag)) out.push('\n\n');
  };
  walk(root, 0);
  return out
    .join('')
    .replace(/\[\s*\]\([^)]*\)/g, '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n[ \t]+/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * A fetched body as readable text: HTML through Mozilla's Readability (the Firefox reader view)
 * on a linkedom document — the main article when it finds one, else the whole body without
 * scripts and styles; text types as they are. Anything else (images, PDFs, archives) is refused.
 */
export function toReadable(body: Buffer, contentType: string, url: string): ReadablePage {
  const type = contentType.split(';')[0].trim().toLowerCase();
  const sniffHtml = !type && /^\s*(<!doctype html|<html|<head|<body|<p|<div)/i.test(body.subarray(0, 512).toString('latin1'));
  if (HTML_TYPES.test(type) || sniffHtml) {
    const html = decode(body, contentType);
    const { document } = parseHTML(html);
    const title = (document.querySelector('title')?.textContent ?? '').trim();
    let article: ReturnType<Readability['parse']> = null;
    try {
      article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
    } catch {
      article = null;
    }
    if (article?.content) {
      const { document: doc } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
      const text = domToText(doc.body as unknown as DomNode, url);
      if (text.length >= 80) return { title: article.title?.trim() || title, text, mode: 'article' };
    }
    // Readability changed the document: parse again for the whole-page text.
    const { document: again } = parseHTML(html);
    return { title, text: domToText((again.body ?? again.documentElement) as unknown as DomNode, url), mode: 'page' };
  }
  if (TEXT_TYPES.test(type) || (!type && !body.subarray(0, 1024).includes(0))) return { title: '', text: decode(body, contentType).trim(), mode: 'text' };
  throw new WebError('WEB_UNSUPPORTED_CONTENT', `${type || 'binary content'} cannot be read as text (web_fetch reads HTML and text pages)`, { contentType: type });
}
