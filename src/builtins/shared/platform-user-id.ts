import { z } from 'zod';

/**
 * A person's id on a chat app, as a channel's settings take it. Owner ids name the app
 * (`core.identity.owner_ids`: "telegram:42", "qq:10001"), so that form is taken too and stored as
 * the bare number the platform uses; another app's prefix is refused with `message`.
 * `digits` is the number's pattern without anchors (e.g. `\d{1,20}`).
 */
export function platformUserId(app: string, digits: string, message: string) {
  const prefix = `${app}:`;
  return z
    .string()
    .regex(new RegExp(`^(${app}:)?${digits}$`), message)
    .transform((s) => (s.startsWith(prefix) ? s.slice(prefix.length) : s));
}

/** A list of such ids: the same person written twice ("42" and "telegram:42") is kept once. */
export function platformUserList(id: ReturnType<typeof platformUserId>, max = 1000) {
  return z
    .array(id)
    .max(max)
    .transform((l) => [...new Set(l)]);
}
