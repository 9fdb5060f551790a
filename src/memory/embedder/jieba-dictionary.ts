/**
 * jieba's dictionary without its part-of-speech column (decision 0230). A dictionary line is
 * `word frequency tag`; segmentation (`cut`, `cutForSearch`) reads the word and its frequency, and
 * only part-of-speech tagging reads the tag, which HomeAgent never asks for. jieba-rs keeps each of
 * the 349,046 tags as its own string: ≈ 4 MiB of the segmenter's resident memory.
 *
 * Works on the bytes (no JS strings: the dictionary is 5 MiB, read once): copies each line up to the
 * whitespace after its second field. Lines with fewer fields are kept as they are.
 */
export function withoutTags(dict: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(dict.length);
  let w = 0;
  let fields = 0;
  let inField = false;
  for (let i = 0; i < dict.length; i++) {
    const c = dict[i];
    if (c === 0x0a) {
      // Trailing spaces (or a \r) before the cut are dropped with the tag; a kept line ends as it did.
      out[w++] = c;
      fields = 0;
      inField = false;
      continue;
    }
    const space = c === 0x20 || c === 0x09 || c === 0x0d;
    if (!space && !inField) {
      fields++;
      inField = true;
    } else if (space) inField = false;
    if (fields <= 2 && !(space && fields === 2)) out[w++] = c;
  }
  return out.subarray(0, w);
}
