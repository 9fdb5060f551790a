import { readFile } from 'node:fs/promises';
import { HomeAgentError, ValidationError } from '../../sdk/index.js';
import type { OutputMessage, PluginLogger } from '../../sdk/index.js';
import type { OneBotLink } from './onebot-link.js';
import type { Segment } from './onebot-types.js';
import type { RecentIds, Trigger } from './qq-inbound.js';
import type { SendPacer } from './rate-limit.js';
import { toSegments } from './segments.js';
import { sendableFile } from '../shared/index.js';

/** No QQ chat to send to, or a target outside the allowlists. */
export class QqTargetError extends HomeAgentError {
  constructor(message: string) {
    super('QQ_NO_TARGET', message);
  }
}

export interface QqOutputDeps {
  link: () => OneBotLink | undefined;
  allowedUsers: () => ReadonlySet<string>;
  allowedGroups: () => ReadonlySet<string>;
  /** `private:<uid>` / `group:<gid>` for proactive messages: the set target or the owner's own QQ ("" = none; never someone else's). */
  notifyTarget: () => string;
  pacer: SendPacer;
  /** The message each group turn answers (by turn id). */
  triggers: Map<string, Trigger>;
  sentIds: RecentIds;
  homeDir: string;
  log: PluginLogger;
}

type Target = { kind: 'private' | 'group'; id: string };

/**
 * The `qq` output channel (P-6): text (with `[face:ID]` / `[at:QQ]` as segments), images and voice
 * (`record`) through send_private_msg / send_group_msg, one at a time and paced. Target:
 * `meta.userId` / `meta.groupId`, else the session's chat (`qq:private:<uid>`, `qq:group:<gid>`),
 * else the owner's (`notify_target`). Only allowlisted users and groups are written to. The reply
 * of a group turn quotes the message it answers and @-mentions its sender.
 */
export function qqOutput(d: QqOutputDeps): (msg: OutputMessage) => Promise<void> {
  const target = (msg: OutputMessage): Target => {
    const users = d.allowedUsers();
    const groups = d.allowedGroups();
    const check = (t: Target): Target => {
      if (t.kind === 'private' ? users.has(t.id) : groups.has(t.id)) return t;
      throw new QqTargetError(`QQ ${t.kind === 'private' ? 'user' : 'group'} ${t.id.slice(0, 30)} is not on the allowlist (plugin.qq.allowed_${t.kind === 'private' ? 'user' : 'group'}_ids)`);
    };
    if (msg.meta.userId !== undefined && msg.meta.userId !== '') return check({ kind: 'private', id: String(msg.meta.userId) });
    if (msg.meta.groupId !== undefined && msg.meta.groupId !== '') return check({ kind: 'group', id: String(msg.meta.groupId) });
    const s = /^qq:(private|group):(\d{1,20})$/.exec(msg.sessionId);
    if (s) {
      const t: Target = { kind: s[1] as Target['kind'], id: s[2] };
      if (!msg.meta.proactive || (t.kind === 'private' ? users.has(t.id) : groups.has(t.id))) return check(t);
    }
    const n = /^(private|group):(\d{1,20})$/.exec(d.notifyTarget());
    if (n) return check({ kind: n[1] as Target['kind'], id: n[2] });
    throw new QqTargetError('no QQ chat of yours to send to: mark your QQ number as yours (Settings → People) or set "Target for notices"');
  };

  const mediaFile = async (payload: string): Promise<string> => {
    const p = payload.trim();
    if (/^https?:\/\//i.test(p)) return p;
    if (p.startsWith('/') || p.startsWith('~') || /^[A-Za-z]:\\/.test(p)) {
      // Only the media folder, never a secret (decision 0360): an injected instruction cannot send auth-token to a group.
      const real = await sendableFile(d.homeDir, p, 'QQ');
      return `base64://${(await readFile(real)).toString('base64')}`;
    }
    if (!/^[A-Za-z0-9+/=\s]+$/.test(p) || !p.replace(/\s/g, '')) throw new ValidationError('the payload of an image or audio message must be an http(s) URL, a file in the media folder, or base64');
    return `base64://${p.replace(/\s/g, '')}`;
  };

  return async (msg) => {
    const link = d.link();
    if (!link) throw new QqTargetError('QQ is not connected ("Connection mode" is off)');
    const t = target(msg);
    let segments: Segment[];
    if (msg.type === 'text') segments = toSegments(msg.payload);
    else {
      const file = await mediaFile(msg.payload);
      const caption = typeof msg.meta.caption === 'string' && msg.meta.caption ? toSegments(msg.meta.caption) : [];
      segments = msg.type === 'image' ? [{ type: 'image', data: { file } }, ...caption] : [{ type: 'record', data: { file } }];
    }
    const trigger = msg.turnId ? d.triggers.get(msg.turnId) : undefined;
    const firstPart = msg.meta.part === undefined || msg.meta.part === 1;
    if (t.kind === 'group' && trigger && firstPart && msg.sessionId === `qq:group:${t.id}`) {
      segments = [{ type: 'reply', data: { id: trigger.messageId } }, { type: 'at', data: { qq: trigger.userId } }, { type: 'text', data: { text: ' ' } }, ...segments];
    }
    const action = t.kind === 'group' ? 'send_group_msg' : 'send_private_msg';
    const params = t.kind === 'group' ? { group_id: Number(t.id), message: segments } : { user_id: Number(t.id), message: segments };
    const res = await d.pacer.run(() => link.call<{ message_id?: number | string }>(action, params));
    if (res?.message_id !== undefined) d.sentIds.add(String(res.message_id));
  };
}
