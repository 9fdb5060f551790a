/** An anchored pattern of a sentence the daemon writes, and how the page says it. */
export type Phrase = [RegExp, (m: RegExpExecArray) => string];

/** The first phrase of `book` that matches `text`, said; undefined when none does. */
export function sayFrom(book: readonly Phrase[], text: string): string | undefined {
  for (const [re, say] of book) {
    const m = re.exec(text);
    if (m) return say(m);
  }
  return undefined;
}
