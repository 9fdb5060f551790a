/**
 * The questions the built-in plugins ask the person through `host.confirm` (the WebUI's dialog), and
 * the lines of a forget's plan they show with one, in English: one builder per kind. The WebUI says
 * each in the page's language (web/src/lib/confirm-words.ts); test/confirm-words.test.ts builds
 * every kind and checks the Chinese page has words for it. A plugin of the person's own asks in its
 * own words, which the page shows as they are.
 */

/** Who asks for a forget. */
export type ForgetAsker = 'The assistant' | 'An MCP client';

export const confirmQuestion = {
  saveInjected: (tags: readonly string[]) => `Save a memory tagged ${tags.join(' / ')} (injected into every new session)?`,
  mcpSaveInjected: (tags: readonly string[]) => `An MCP client wants to save a memory tagged ${tags.join(' / ')} (injected into every new session). Allow?`,
  changeInjectedNotes: (title: string) => `Change the notes of "${title}" (given to the model in every new session or on your turns)?`,
  addToPlan: (title: string) => `Add "${title}" to the injection plan (given to the model on your turns)?`,
  forget: (who: ForgetAsker, n: number) => `${who} asks to forget ${n} item(s) from every memory tier and the session log. This cannot be undone. Forget them?`,
  runCommand: (command: string) => `Run ${command}?`,
  openTerminal: (program: string) => `Open a terminal (${program})?`,
} as const;

/** The first line of a detail that says what a change of notes does; the new text follows after a blank line. */
export const confirmDetailLead = {
  replaceNotes: () => 'Replace the notes with:',
  appendNotes: () => 'Append to the notes:',
} as const;

/** One line each of a forget's plan, as the confirmation shows it (the daemon's plan, never the model's words). */
export const forgetPlanLine = {
  turn: (turnId: string, places: readonly string[], text: string) => `turn ${turnId} [${places.join(', ')}]: ${text}`,
  quotingTurn: (turnId: string, places: readonly string[], text: string) => `turn ${turnId} (quotes what was said) [${places.join(', ')}]: ${text}`,
  fact: (id: number, text: string) => `fact #${id}: ${text}`,
  /** A fact the asker keeps (decision 0600); `withoutTurn`: it was made only from the turns and stays without them. */
  keptFact: (id: number, text: string, withoutTurn: boolean) => `fact #${id} (kept${withoutTurn ? ', without the turn it came from' : ''}): ${text}`,
  note: (tier: string, id: string, text: string) => `note ${tier}:${id}: ${text}`,
  memory: (id: string, title: string, madeFrom: boolean) => `library memory ${id} "${title}"${madeFrom ? ' (made from what is forgotten)' : ''}`,
  moreTurns: (n: number) => `… and ${n} more turns`,
  moreQuoting: (n: number) => `… and ${n} more turns that quote it`,
  moreFacts: (n: number) => `… and ${n} more facts`,
  moreMemories: (n: number) => `… and ${n} more library memories`,
} as const;
