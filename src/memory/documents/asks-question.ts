/**
 * True when a turn asks something: it holds a question mark (either width), or — Chinese chat often
 * drops it — ends in a question particle (吗, 呢, 么). The cold archive stores this per row
 * (`asks`, computed by this function; its migration mirrors it in SQL for rows archived before), so
 * ranking knows a question → answer pair without reading text.
 */
export function asksQuestion(text: string): boolean {
  if (text.includes('?') || text.includes('？')) return true;
  return /[吗呢么]$/u.test(text.replace(/[\s。.!！~…]+$/u, ''));
}
