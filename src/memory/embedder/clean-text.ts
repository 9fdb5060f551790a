/**
 * Basic whitespace normalisation applied to every text before it reaches the computation layer
 * (seed: CleanText). Never changes the stored original.
 */
export function cleanText(text: string): string {
  // Zero-width and control characters (except newline/tab) carry no meaning for retrieval.
  return text
    .replace(/[\u200B-\u200D\uFEFF]/g, '')
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
