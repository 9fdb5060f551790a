import { mkdirSync, rmSync } from 'node:fs';
import { reserveUniquePath, writeFileAtomic } from '../fs/index.js';
import type { ToolDef, TurnInput } from '../spec/index.js';
import { ValidationError } from '../spec/index.js';
import type { KernelDeps } from './kernel-deps.js';

type Attachment = NonNullable<TurnInput['attachments']>[number];

function pick(pending: Attachment[], index: unknown): Attachment {
  const i = typeof index === 'number' ? index : 0;
  const a = pending[i];
  if (!a) throw new ValidationError(`no pending media at index ${i} (there are ${pending.length})`);
  return a;
}

export { reserveUniquePath };

const EXT: Record<string, string> = { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/gif': '.gif', 'image/webp': '.webp', 'audio/mpeg': '.mp3', 'audio/wav': '.wav', 'application/pdf': '.pdf', 'text/plain': '.txt' };

/**
 * Media tools (C-11), offered only while the turn has pending media: describe with a vision
 * provider, save into `<home>/media/`, forward to an output channel.
 */
export function mediaTools(d: KernelDeps, pending: Attachment[], mediaDir: string): ToolDef[] {
  if (pending.length === 0) return [];
  const list = pending.map((a, i) => `${i}: ${a.name ?? 'unnamed'} (${a.mimeType}, ${Math.round((a.data.length * 3) / 4 / 1024)} KiB)`).join('; ');
  return [
    {
      name: 'media_describe',
      // The turn's own attachment (decision 0360); media_save and media_forward are the owner's.
      audience: 'anyone',
      description: `Describe a pending media attachment with a vision-capable model. Pending: ${list}`,
      parameters: { type: 'object', properties: { index: { type: 'number' }, question: { type: 'string' } } },
      interruptible: true, // its work is a vision LLM call: a user interrupt stops it (C-2 a)
      handler: async (args, call) => {
        const a = pick(pending, args.index);
        if (!a.mimeType.startsWith('image/')) return `Attachment ${a.name ?? ''} is ${a.mimeType}; only images can be described.`;
        const res = await d.llm.run(
          { messages: [{ role: 'user', content: typeof args.question === 'string' ? args.question : 'Describe this image in detail.', attachments: [a] }] },
          { signal: call.signal },
        );
        return res.text;
      },
    },
    {
      name: 'media_save',
      description: `Save a pending media attachment into the media folder. Pending: ${list}`,
      parameters: { type: 'object', properties: { index: { type: 'number' }, name: { type: 'string' } } },
      handler: async (args) => {
        const a = pick(pending, args.index);
        const base = (typeof args.name === 'string' && args.name) || a.name || `media-${Date.now()}`;
        const safe = base.replace(/[^A-Za-z0-9._\-\u4e00-\u9fff]/g, '_').replace(/^\.+/, '_').slice(0, 100);
        mkdirSync(mediaDir, { recursive: true });
        // Never overwrite an earlier save of the same name: the user's photos are data.
        const file = reserveUniquePath(mediaDir, /\.[A-Za-z0-9]{1,5}$/.test(safe) ? safe : safe + (EXT[a.mimeType] ?? '.bin'));
        try {
          await writeFileAtomic(file, Buffer.from(a.data, 'base64'));
        } catch (e) {
          rmSync(file, { force: true });
          throw e;
        }
        return `saved to ${file}`;
      },
    },
    {
      name: 'media_forward',
      description: `Forward a pending media attachment to an output channel. Pending: ${list}`,
      parameters: { type: 'object', properties: { index: { type: 'number' }, channel: { type: 'string' }, meta: { type: 'object' } }, required: ['channel'] },
      handler: async (args, call) => {
        const a = pick(pending, args.index);
        const type = a.mimeType.startsWith('image/') ? 'image' : a.mimeType.startsWith('audio/') ? 'audio' : 'file';
        await d.channels.send(String(args.channel), { sessionId: call.sessionId, turnId: call.turnId, payload: a.data, type, meta: { ...(args.meta as object), mimeType: a.mimeType, name: a.name } });
        return `forwarded to ${args.channel}`;
      },
    },
  ];
}
