import type { Disposer, OutputChannel, OutputChannelOptions, OutputHandler, OutputMessage, ToolDef } from '../spec/index.js';
import { Cap, ConflictError, HomeAgentError, NotFoundError, ValidationError } from '../spec/index.js';

/** A payload naming a file on this machine (an absolute path, `~`, a Windows drive or `file:`), not a URL or base64. */
function isLocalPath(payload: string): boolean {
  const p = payload.trim();
  return p.startsWith('/') || p.startsWith('~') || p.startsWith('.') || /^[A-Za-z]:[\\/]/.test(p) || /^file:/i.test(p);
}

const CHANNEL_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const TYPE_BY_CAP: [number, OutputMessage['type']][] = [
  [Cap.Text, 'text'],
  [Cap.File, 'file'],
  [Cap.Image, 'image'],
  [Cap.Audio, 'audio'],
  [Cap.Structured, 'structured'],
];

/** The message types a capability mask allows. */
export function typesFor(caps: number): OutputMessage['type'][] {
  return TYPE_BY_CAP.filter(([c]) => (caps & c) !== 0).map(([, t]) => t);
}

const SEPARATORS = ['\n\n', '\n', '。', '. ', '！', '! ', '? ', '？', '；', '; ', '，', ', ', ' '];
const FENCE = /^\s{0,3}(`{3,}|~{3,})(.*)$/;

/** The code fence left open at the end of `text` (its opening line and marker), if any. */
function openFence(text: string): { marker: string; line: string } | undefined {
  let open: { marker: string; line: string } | undefined;
  for (const line of text.split('\n')) {
    const m = FENCE.exec(line);
    if (!m) continue;
    if (!open) open = { marker: m[1], line: line.trim() };
    else if (m[1][0] === open.marker[0] && m[1].length >= open.marker.length && !m[2].trim()) open = undefined;
  }
  return open;
}

/** Where to cut `text` so the piece is at most `budget` long: the last good boundary, else a hard cut that never splits a surrogate pair. */
function cutPoint(text: string, budget: number): number {
  const window = text.slice(0, budget + 1);
  for (const sep of SEPARATORS) {
    const i = window.lastIndexOf(sep, budget - sep.length);
    if (i > budget * 0.5) return i + sep.length;
  }
  const code = text.charCodeAt(budget - 1);
  return code >= 0xd800 && code <= 0xdbff ? budget - 1 : budget;
}

/**
 * Splits text into pieces of at most `limit` characters (UTF-16 units, as Telegram counts),
 * preferring paragraph, line, sentence, clause and word boundaries (P-6). A code block cut in two
 * is closed at the end of one piece and reopened (with its language) at the start of the next, so
 * each piece reads on its own; nothing else is added or lost.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (limit <= 0 || text.length <= limit) return [text];
  const parts: string[] = [];
  let rest = text;
  let fence: { marker: string; line: string } | undefined;
  while (rest) {
    const prefix = fence ? `${fence.line}\n` : '';
    if (prefix.length + rest.length <= limit) {
      parts.push(prefix + rest);
      break;
    }
    // Room for a closing fence too, unless the limit is too small to carry fences at all.
    const reserve = limit >= 40 ? 1 + (fence?.marker.length ?? 3) + 4 : 0;
    const usePrefix = prefix.length + reserve < limit / 2 ? prefix : '';
    const budget = limit - usePrefix.length - reserve;
    const cut = cutPoint(rest, budget);
    const piece = usePrefix + rest.slice(0, cut).replace(/\s+$/, '');
    const stillOpen = reserve ? openFence(piece) : undefined;
    parts.push(stillOpen ? `${piece}\n${stillOpen.marker}` : piece);
    fence = stillOpen;
    rest = rest.slice(cut);
    rest = fence ? rest.replace(/^\n+/, '') : rest.trimStart();
  }
  return parts.filter((p) => p.length > 0);
}

/**
 * Output channels (P-6): each registered channel yields the tools `output_send__{name}` and
 * `output_send__{name}_help`; the kernel's final replies go out through the input's channel.
 */
export class OutputChannels {
  private readonly channels = new Map<string, OutputChannel>();

  register(plugin: string, name: string, caps: number, description: string, handler: OutputHandler, options: OutputChannelOptions = {}): Disposer {
    if (!CHANNEL_NAME.test(name)) throw new ValidationError(`invalid output channel name "${name}"`, { channel: name });
    if (this.channels.has(name)) throw new ConflictError(`output channel "${name}" is already registered by ${this.channels.get(name)!.plugin}`, { channel: name });
    if (!Number.isInteger(caps) || caps <= 0 || caps > 31) throw new ValidationError(`invalid capability flags ${caps} for channel "${name}"`, { channel: name });
    const ch: OutputChannel = { name, caps, description, handler, options, plugin };
    this.channels.set(name, ch);
    return () => {
      if (this.channels.get(name) === ch) this.channels.delete(name);
    };
  }

  get(name: string): OutputChannel | undefined {
    return this.channels.get(name);
  }

  list(): OutputChannel[] {
    return [...this.channels.values()];
  }

  /** Sends a message; text longer than the channel limit is split into several sends. */
  async send(name: string, msg: OutputMessage): Promise<number> {
    const ch = this.channels.get(name);
    if (!ch) throw new NotFoundError('output channel', name);
    if (!typesFor(ch.caps).includes(msg.type)) throw new ValidationError(`channel "${name}" cannot send ${msg.type} (supports ${typesFor(ch.caps).join(', ')})`, { channel: name, type: msg.type });
    const pieces = msg.type === 'text' ? splitMessage(msg.payload, ch.options.maxMessageLength ?? 0) : [msg.payload];
    for (const [i, payload] of pieces.entries()) {
      await ch.handler({ ...msg, payload, meta: pieces.length > 1 ? { ...msg.meta, part: i + 1, parts: pieces.length } : msg.meta });
    }
    return pieces.length;
  }

  /**
   * Delivers a message nobody in a channel asked for (R-6: a timer's result, a notice): to the
   * session's own chat when that channel can push (`options.push`: Telegram, QQ), else to the
   * owner's default channel `preferred`, else to the WebUI. A channel that fails hands the message
   * to the next. Resolves with the channel that took it; undefined when none could.
   */
  async sendProactive(msg: OutputMessage, opts: { home?: string; preferred: string; onError?: (channel: string, e: unknown) => void }): Promise<string | undefined> {
    const order: string[] = [];
    const home = opts.home ? this.channels.get(opts.home) : undefined;
    if (home?.options.push) order.push(home.name);
    for (const name of [opts.preferred, 'webui']) if (name && !order.includes(name) && this.channels.has(name)) order.push(name);
    for (const name of order) {
      try {
        await this.send(name, { ...msg, meta: { ...msg.meta, proactive: true } });
        return name;
      } catch (e) {
        opts.onError?.(name, e);
      }
    }
    return undefined;
  }

  /** The generated tools (two per channel). */
  tools(defaultSessionId: () => string): ToolDef[] {
    const out: ToolDef[] = [];
    for (const ch of this.channels.values()) {
      const types = typesFor(ch.caps);
      out.push({
        name: `output_send__${ch.name}`,
        // Anyone's turn may send to its own chat; only the owner's may pick another target or a local file (decision 0360).
        audience: 'anyone',
        description: `${ch.description} Send a message through the "${ch.name}" output channel. Call output_send__${ch.name}_help for the meta format.`,
        parameters: {
          type: 'object',
          properties: {
            payload: { type: 'string', description: 'The message: text, or a file path / URL / base64 for other types.' },
            meta: { type: 'string', description: 'JSON routing metadata (see the _help tool). Use "{}" for the default target.' },
            type: { type: 'string', enum: types },
          },
          required: ['payload'],
        },
        handler: async (args, call) => {
          let meta: Record<string, unknown> = {};
          if (typeof args.meta === 'string' && args.meta.trim()) {
            try {
              const parsed = JSON.parse(args.meta);
              if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) meta = parsed;
              else throw new Error('not an object');
            } catch {
              throw new ValidationError('meta must be a JSON object', { meta: args.meta });
            }
          } else if (args.meta && typeof args.meta === 'object') meta = args.meta as Record<string, unknown>;
          const type = (typeof args.type === 'string' ? args.type : 'text') as OutputMessage['type'];
          if (call.owner === false) {
            // Someone else's turn: its own chat only, no routing of its own, no file from this machine.
            if (!call.sessionId.startsWith(`${ch.name}:`) || (meta.sessionId !== undefined && meta.sessionId !== call.sessionId)) {
              throw new HomeAgentError('FORBIDDEN', `a turn from a group or someone else's chat can only send to that same chat, not through ${ch.name} elsewhere`);
            }
            if (type !== 'text' && isLocalPath(String(args.payload ?? ''))) throw new HomeAgentError('FORBIDDEN', "a turn from a group or someone else's chat cannot send files from this machine");
            // Nor a file by its address: the chat app's side fetches it (a OneBot implementation on
            // this machine or network would reach a camera or router page and post it to the chat).
            if (type !== 'text' && /^\s*https?:/i.test(String(args.payload ?? ''))) throw new HomeAgentError('FORBIDDEN', "a turn from a group or someone else's chat cannot send a file by its address; send the link as text");
            meta = Object.fromEntries(Object.entries(meta).filter(([k]) => k === 'caption' || k === 'mimeType' || k === 'name'));
          }
          const sessionId = typeof meta.sessionId === 'string' ? meta.sessionId : call.sessionId || defaultSessionId();
          const n = await this.send(ch.name, { sessionId, turnId: call.turnId, payload: String(args.payload ?? ''), type, meta });
          return `sent to ${ch.name}${n > 1 ? ` in ${n} parts` : ''}`;
        },
      });
      out.push({
        name: `output_send__${ch.name}_help`,
        audience: 'anyone',
        description: `Explains the meta format and message types of the "${ch.name}" output channel.`,
        parameters: { type: 'object', properties: {} },
        handler: () =>
          ch.options.help ??
          `Channel "${ch.name}": ${ch.description}\nTypes: ${types.join(', ')}.\nmeta: JSON object; {"sessionId": "..."} targets a session (default: the current one).${ch.options.maxMessageLength ? `\nMessages longer than ${ch.options.maxMessageLength} characters are split.` : ''}`,
      });
    }
    return out;
  }

  /** Gating rules for the system prompt. */
  rules(): string | undefined {
    if (this.channels.size === 0) return undefined;
    const lines = [
      'Your final reply is delivered automatically to the channel the input came from; do not call a tool to send it.',
      'Use output_send__<channel> only to reach another channel or to send files, images, audio or structured data. Several calls are allowed; long messages are split automatically.',
      'Channels:',
      ...this.list().map((c) => `- ${c.name} (${typesFor(c.caps).join('/')}): ${c.description}`),
    ];
    return lines.join('\n');
  }
}
