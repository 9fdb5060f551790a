import { z } from 'zod';

/**
 * The Bot API objects the channel reads (https://core.telegram.org/bots/api#available-types), as
 * lenient schemas: unknown fields pass, so a newer Bot API does not break parsing; a malformed
 * update is skipped (and confirmed) instead of stopping the poller.
 */

export const tgUserSchema = z.looseObject({
  id: z.number().int(),
  is_bot: z.boolean().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
  language_code: z.string().optional(),
});
export type TgUser = z.infer<typeof tgUserSchema>;

export const tgChatSchema = z.looseObject({
  id: z.number().int(),
  type: z.string(),
  title: z.string().optional(),
  username: z.string().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
});

const fileRef = {
  file_id: z.string().min(1),
  file_unique_id: z.string().optional(),
  file_size: z.number().optional(),
};

export const tgPhotoSizeSchema = z.looseObject({ ...fileRef, width: z.number(), height: z.number() });
export const tgVoiceSchema = z.looseObject({ ...fileRef, duration: z.number().optional(), mime_type: z.string().optional() });
export const tgDocumentSchema = z.looseObject({ ...fileRef, file_name: z.string().optional(), mime_type: z.string().optional() });

export const tgMessageSchema = z.looseObject({
  message_id: z.number().int(),
  date: z.number().optional(),
  from: tgUserSchema.optional(),
  chat: tgChatSchema,
  text: z.string().optional(),
  caption: z.string().optional(),
  photo: z.array(tgPhotoSizeSchema).optional(),
  voice: tgVoiceSchema.optional(),
  audio: tgDocumentSchema.extend({ duration: z.number().optional(), title: z.string().optional() }).optional(),
  document: tgDocumentSchema.optional(),
  video: tgDocumentSchema.optional(),
  video_note: tgVoiceSchema.optional(),
  sticker: z.looseObject({ emoji: z.string().optional() }).optional(),
  location: z.looseObject({ latitude: z.number(), longitude: z.number() }).optional(),
  venue: z.looseObject({ title: z.string().optional(), address: z.string().optional() }).optional(),
  contact: z.looseObject({ phone_number: z.string().optional(), first_name: z.string().optional(), last_name: z.string().optional() }).optional(),
  poll: z.looseObject({ question: z.string().optional(), options: z.array(z.looseObject({ text: z.string().optional() })).optional() }).optional(),
  dice: z.looseObject({ emoji: z.string().optional(), value: z.number().optional() }).optional(),
});
export type TgMessage = z.infer<typeof tgMessageSchema>;

export const tgUpdateSchema = z.looseObject({
  update_id: z.number().int(),
  message: tgMessageSchema.optional(),
});
export type TgUpdate = z.infer<typeof tgUpdateSchema>;

export interface TgFile {
  file_id: string;
  file_unique_id?: string;
  file_size?: number;
  file_path?: string;
}

/** Telegram's own limits (Bot API): message text, media caption, bot downloads. */
export const TELEGRAM_LIMITS = { text: 4096, caption: 1024, downloadBytes: 20 * 1024 * 1024 } as const;
