/**
 * Conversations this window deleted. The daemon tells every window about a deleted conversation
 * (`session_event` `session_deleted`); the window that deleted the open one has already said so and
 * moved on, while any other window showing it has to leave it and say why.
 */
const mine = new Set<string>();

export function deletingHere(sessionId: string): void {
  mine.add(sessionId);
}

/** Whether this window deleted the conversation (asked once per delete: the mark is taken away). */
export function deletedHere(sessionId: string): boolean {
  return mine.delete(sessionId);
}
