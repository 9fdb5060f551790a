import { z } from 'zod';

/**
 * OneBot v11 shapes the channel reads (https://github.com/botuniverse/onebot-11: event/message.md,
 * event/meta.md, api/README.md), as lenient schemas: unknown fields pass (NapCat and Lagrange add
 * their own), ids may come as numbers or numeric strings.
 */

const id = z.union([z.number().int(), z.string().regex(/^\d{1,20}$/)]).transform((v) => String(v));

export const segmentSchema = z.looseObject({ type: z.string(), data: z.record(z.string(), z.unknown()).nullish().transform((d) => d ?? {}) });
export type Segment = { type: string; data: Record<string, unknown> };

export const senderSchema = z.looseObject({
  user_id: id.optional(),
  nickname: z.string().optional(),
  card: z.string().optional(),
  role: z.string().optional(),
});

/** A message event (private or group). `message` is a segment array, or a CQ-code string in `string` format. */
export const messageEventSchema = z.looseObject({
  time: z.number().optional(),
  self_id: id,
  post_type: z.literal('message'),
  message_type: z.enum(['private', 'group']),
  sub_type: z.string().optional(),
  message_id: z.union([z.number().int(), z.string()]).transform((v) => String(v)),
  user_id: id,
  group_id: id.optional(),
  group_name: z.string().optional(),
  message: z.union([z.array(segmentSchema), z.string()]),
  raw_message: z.string().optional(),
  sender: senderSchema.optional(),
  anonymous: z.unknown().optional(),
});
export type MessageEvent = z.infer<typeof messageEventSchema>;

/** The answer to an action: `{status, retcode, data, echo}` (api/README.md; ws.md for `echo`). */
export const actionResponseSchema = z.looseObject({
  status: z.string(),
  retcode: z.number(),
  data: z.unknown().optional(),
  echo: z.unknown().optional(),
  message: z.string().optional(),
  wording: z.string().optional(),
});
export type ActionResponse = z.infer<typeof actionResponseSchema>;
