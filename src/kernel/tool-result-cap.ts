/** Default of `core.agent.tool_result_chars`: the most characters of one tool result the model reads. */
export const DEFAULT_TOOL_RESULT_CHARS = 100_000;

/**
 * Cuts a tool result to `max` characters (its start) and says so in the text, naming the full
 * size, so the model knows it read a part. A huge result (a tool printing 50 MB) would otherwise
 * go into the history, the session log and every later request of the turn, and fail the
 * adapter's VM — blamed on the LLM source.
 */
export function capToolResult(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  // Do not split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}\n[tool result cut: the first ${end.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters are shown; ask for a smaller part if you need the rest]`;
}
