import { decodeText } from './text-decode.js';

/** What was read of an HTML file: its title and its text as light Markdown. */
export interface HtmlText {
  title: string;
  text: string;
  /** `article` when the reader view's main content was kept, `page` for the whole body. */
  mode: 'article' | 'page';
}

type DomNode = { nodeType: number; nodeName: string; textContent: string | null; childNodes: ArrayLike<DomNode>; getAttribute?(n: string): string | null };

const BLOCK = new Set(['p', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'nav', 'blockquote', 'table', 'ul', 'ol', 'dl', 'dt', 'dd', 'figure', 'figcaption', 'form', 'hr', 'address', 'details', 'summary', 'caption', 'fieldset']);
/** Never text a person reads: code, styles, embedded objects, form controls. */
const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'head', 'title', 'meta', 'link', 'button', 'select', 'input', 'textarea']);

/**
 * The bytes of an HTML file as text: a byte-order mark or valid UTF-8 first, then the charset the
 * page declares (`<meta charset>`: gbk, big5, shift_jis …), else GB18030 as for text files.
 */
export function decodeHtml(bytes: Uint8Array): string {
  const bom = (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) || (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (!bom) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      const head = Buffer.from(bytes.subarray(0, 4096)).toString('latin1');
      const declared = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
      if (declared) {
        try {
          return new TextDecoder(declared).decode(bytes).replace(/\r\n?/g, '\n');
        } catch {
          // an unknown label: fall through to the text files' rule
        }
      }
    }
  }
  return decodeText(bytes);
}

/**
 * Text of a DOM subtree as light Markdown: headings as `#`, paragraphs apart, list items as `- `,
 * table rows as `| a | b |`, preformatted blocks fenced and kept as they are, absolute http(s) links
 * as `[text](url)` (a relative link of a local file leads nowhere, so only its text is kept).
 */
export function domToMarkdown(root: DomNode): string {
  const out: string[] = [];
  const walk = (n: DomNode, depth: number, pre: boolean): void => {
    if (depth > 300) return;
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
    let href: string | undefined;
    if (tag === 'a') {
      const raw = n.getAttribute?.('href') ?? '';
      if (/^https?:\/\//i.test(raw)) href = raw;
      if (href) out.push('[');
    }
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

/**
 * The readable text of an HTML file: Mozilla's Readability (the Firefox reader view) on a linkedom
 * document, as `web_fetch` reads pages. A file someone keeps is often a whole document rather than
 * an article inside a page of menus, so the reader view's pick is taken only when it holds most of
 * the page's text (70 %); otherwise the whole body is kept — a smaller entry is not worth losing a
 * section the reader view took for clutter. Scripts, styles and embedded objects never count.
 * Readability and linkedom load on the first call, not when the daemon or `waiter` starts.
 */
export async function htmlText(bytes: Uint8Array): Promise<HtmlText> {
  const [{ parseHTML }, { Readability }] = await Promise.all([import('linkedom'), import('@mozilla/readability')]);
  const html = decodeHtml(bytes);
  const { document } = parseHTML(html);
  const title = (document.querySelector('title')?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const page = domToMarkdown((document.body ?? document.documentElement) as unknown as DomNode);
  let article: { content?: string | null; title?: string | null } | null = null;
  try {
    // Readability changes the document it reads: give it its own copy.
    article = new Readability(parseHTML(html).document as unknown as Document, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  if (article?.content) {
    const { document: doc } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
    const text = domToMarkdown(doc.body as unknown as DomNode);
    const letters = (s: string) => s.replace(/[\s#>|`*_[\]()-]/g, '').length;
    if (text && letters(text) >= 0.7 * letters(page)) return { title: article.title?.trim() || title, text, mode: 'article' };
  }
  return { title, text: page, mode: 'page' };
}
