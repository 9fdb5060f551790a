/**
 * Text of a file's bytes: UTF-8 (BOM dropped), UTF-16 with a BOM, else GB18030 — the legacy
 * encoding of Chinese text files, which also reads plain ASCII unchanged. Invalid sequences
 * become U+FFFD; line endings become `\n`.
 */
export function decodeText(bytes: Uint8Array): string {
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) text = new TextDecoder('utf-16le').decode(bytes.subarray(2));
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = new TextDecoder('utf-16be').decode(bytes.subarray(2));
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      try {
        text = new TextDecoder('gb18030').decode(bytes);
      } catch {
        text = new TextDecoder('utf-8').decode(bytes);
      }
    }
  }
  return text.replace(/\r\n?/g, '\n');
}
