import type { Disposer, OutputChannel, OutputChannelOptions, OutputHandler, OutputMessage, ToolDef } from '../spec/index.js';
import { Cap, ConflictError, NotFoundError, ValidationError } from '../spec/index.js';

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

/**
 * Splits text into pieces of at most `limit` characters, preferring paragraph, line, then
 * sentence/word boundaries (P-6: long messages split per channel limit).
 */
export function splitMessage(text: string, limit: number): string[] {
  if (limit <= 0 || text.length <= limit) return [text];
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    let cut = -1;
    for (const sep of ['\n\n', '\n', '。', '. ', '！', '? ', '？', ' ']) {
      const i = window.lastIndexOf(sep);
      if (i > limit * 0.5) {
        cut = i + sep.length;
        break;
      }
    }
    if (cut <= 0) cut = limit;
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest) parts.push(rest);
  return parts;
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

  /** The generated tools (two per channel). */
  tools(defaultSessionId: () => string): ToolDef[] {
    const out: ToolDef[] = [];
    for (const ch of this.channels.values()) {
      const types = typesFor(ch.caps);
      out.push({
        name: `output_send__${ch.name}`,
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
          const sessionId = typeof meta.sessionId === 'string' ? meta.sessionId : call.sessionId || defaultSessionId();
          const n = await this.send(ch.name, { sessionId, turnId: call.turnId, payload: String(args.payload ?? ''), type, meta });
          return `sent to ${ch.name}${n > 1 ? ` in ${n} parts` : ''}`;
        },
      });
      out.push({
        name: `output_send__${ch.name}_help`,
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
