/**
 * What an API key may be: it travels in an HTTP header, so only visible ASCII (letters, digits,
 * punctuation). A key pasted with a full-width space or a Chinese character in it would be stored
 * and then fail every call with a cryptic "Cannot convert argument to a ByteString"; it is refused
 * where it is set instead. Spaces and line breaks around it are allowed (the header trims them).
 * The empty string is "no key".
 */
export const API_KEY_PROBLEM = 'an API key is ASCII letters, digits and punctuation, without spaces inside: check what was pasted (a full-width space or a Chinese character may have come with it)';

/** The reason `key` cannot be an API key, or undefined when it can. */
export function apiKeyProblem(key: string): string | undefined {
  return key === '' || /^[ \t\r\n]*[\x21-\x7e]+[ \t\r\n]*$/.test(key) ? undefined : API_KEY_PROBLEM;
}
