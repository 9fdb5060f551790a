import type { Segment } from './onebot-types.js';

/** What the agent needs of an incoming message. */
export interface ParsedMessage {
  /** Readable text: text segments, `@name` for mentions of others, `[face:ID]` for QQ faces. */
  text: string;
  /** The bot itself was @-mentioned. */
  mentionsSelf: boolean;
  /** The message id this one replies to (a `reply` segment). */
  replyTo?: string;
  /** Image segments (their `url`, and `file` as the implementation named it). */
  images: { url?: string; file?: string }[];
  /** Segment types the agent cannot read (record, video, file …), for a note. */
  unsupported: string[];
}

const unescapeCq = (s: string) => s.replace(/&#91;/g, '[').replace(/&#93;/g, ']').replace(/&#44;/g, ',').replace(/&amp;/g, '&');

/** Parses the CQ-code string form of a message (message/string.md) into segments. */
export function parseCqString(s: string): Segment[] {
  const out: Segment[] = [];
  const re = /\[CQ:([a-zA-Z0-9_.-]+)((?:,[^,\]]*)*)\]/g;
  let last = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m.index > last) out.push({ type: 'text', data: { text: unescapeCq(s.slice(last, m.index)) } });
    const data: Record<string, unknown> = {};
    for (const kv of m[2].split(',').slice(1)) {
      const i = kv.indexOf('=');
      if (i > 0) data[kv.slice(0, i)] = unescapeCq(kv.slice(i + 1));
    }
    out.push({ type: m[1], data });
    last = re.lastIndex;
  }
  if (last < s.length) out.push({ type: 'text', data: { text: unescapeCq(s.slice(last)) } });
  return out;
}

/** Reads segments (array form, or the CQ string form) of an incoming message. */
export function parseMessage(message: Segment[] | string, selfId: string): ParsedMessage {
  const segs = typeof message === 'string' ? parseCqString(message) : message;
  const out: ParsedMessage = { text: '', mentionsSelf: false, images: [], unsupported: [] };
  let text = '';
  for (const s of segs) {
    const d = s.data ?? {};
    switch (s.type) {
      case 'text':
        text += String(d.text ?? '');
        break;
      case 'at': {
        const qq = String(d.qq ?? '');
        if (qq === selfId) out.mentionsSelf = true;
        else text += qq === 'all' ? '@全体成员 ' : `@${typeof d.name === 'string' && d.name ? d.name : qq} `;
        break;
      }
      case 'reply':
        if (d.id !== undefined && d.id !== null) out.replyTo = String(d.id);
        break;
      case 'face':
        text += `[face:${String(d.id ?? '')}]`;
        break;
      case 'image':
        out.images.push({ url: typeof d.url === 'string' ? d.url : undefined, file: typeof d.file === 'string' ? d.file : undefined });
        break;
      default:
        out.unsupported.push(s.type);
    }
  }
  out.text = text.replace(/[ \t]+\n/g, '\n').trim();
  return out;
}

/**
 * Turns the agent's text into segments: `[face:ID]` becomes a QQ face and `[at:QQ]` a mention
 * (never `@all`); everything else is a text segment. Segments are sent as an array, so CQ codes in
 * the text are never interpreted — a prompt-injected model cannot smuggle `[CQ:at,qq=all]` in.
 */
export function toSegments(text: string): Segment[] {
  const out: Segment[] = [];
  const re = /\[(face|at):(\d{1,20})\]/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push({ type: 'text', data: { text: text.slice(last, m.index) } });
    out.push(m[1] === 'face' ? { type: 'face', data: { id: m[2] } } : { type: 'at', data: { qq: m[2] } });
    last = re.lastIndex;
  }
  if (last < text.length) out.push({ type: 'text', data: { text: text.slice(last) } });
  return out;
}
