/**
 * The notes an import's report carries (`TransferReport.notes`), one builder per kind, in English:
 * `waiter import` prints them as they are. The WebUI says each in the page's language
 * (web/src/lib/import-note-words.ts); test/import-note-words.test.ts builds every note here and
 * checks that the Chinese page has words for it, so a note reworded or added here without its
 * Chinese fails there rather than showing English to a person reading Chinese.
 */

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
const unreadable = (n: number): string => `${plural(n, 'line', 'lines')} that could not be read`;
const leftOutTurns = (n: number): string => `${plural(n, 'turn', 'turns')} in the archive ${n === 1 ? 'was' : 'were'}`;
// The parts count their own items (a log's turns, the window's events, documents): the note says
// what they are one turn at a time.
const leftOutHow = (n: number): string =>
  `${n === 1 ? 'it comes' : 'they come'} in as [forgotten] in ${n === 1 ? 'its' : 'their'} conversation's log, and what the other parts held of ${n === 1 ? 'it' : 'them'} was left out (the "forgotten" column)`;

export const importNote = {
  theirLinesUnreadable: (session: string, n: number) => `session ${session} in the archive has ${unreadable(n)}: left out (the archive still holds them)`,
  ourLinesUnreadableSkipped: (session: string, n: number) => `session ${session} here has ${unreadable(n)}: it was kept as it is and the archive's left out`,
  ourLinesUnreadableBeside: (session: string, n: number) => `session ${session} here has ${unreadable(n)}: it was kept as it is and the archive's imported beside it`,
  diverged: (session: string) => `session ${session} here has turns the archive's does not: overwrite kept it and imported the archive's beside it`,
  unreadableDocuments: (n: number) => `${n} unreadable documents in the archive were left out`,
  invalidContextEvents: (n: number) => `${n} invalid context events in the archive were left out`,
  memoryNotMarkable: (memory: string) => `library memory ${memory} would reach every session and its front matter could not be marked disabled: left out (the archive still holds it)`,
  memoriesDisabled: (n: number) =>
    `${n} library memor${n === 1 ? 'y' : 'ies'} of the archive would reach every session (convention or session summary): imported disabled — enable each in the library once you have read it, or import again approving them`,
  planHeld: () => "the archive's injection plan would reach every turn: left out — import again approving it to take it",
  personaHeld: () => "the archive's persona would replace this one and reach every session: left out — import again approving it to take it",
  settingUnknown: (key: string) => `setting ${key} is not known here and was left out`,
  settingSecret: (key: string) => `setting ${key} is a secret and was left out (secrets are never imported)`,
  settingPersonaPath: (key: string) => `setting ${key} says where the other install keeps its persona and was left out (the persona came as persona.md)`,
  turnTombstones: (n: number) =>
    `${plural(n, 'turn tombstone', 'turn tombstones')} of the archive ${n === 1 ? 'is' : 'are'} not recorded here (turn ids are not the same turns on another install: what was said in them is matched instead); ${n === 1 ? 'it only keeps' : 'they only keep'} the archive's own forgotten turns out`,
  forgottenHereLeftOut: (n: number) => `${leftOutTurns(n)} forgotten here, and ${n === 1 ? 'stays' : 'stay'} forgotten: ${leftOutHow(n)}`,
  forgottenThereLeftOut: (n: number) => `${leftOutTurns(n)} forgotten on the install the archive came from, and ${n === 1 ? 'stays' : 'stay'} forgotten: ${leftOutHow(n)}`,
  replacementsInvalid: (n: number) =>
    `${plural(n, 'replaced turn', 'replaced turns')} of the archive ${n === 1 ? 'was' : 'were'} left out: the archive's conversation does not show ${n === 1 ? 'it' : 'them'} said again (regenerate, edit-and-resend)`,
  replacementsOfKeptSessions: (n: number) =>
    `${plural(n, 'replaced turn', 'replaced turns')} of the archive ${n === 1 ? 'is' : 'are'} in a conversation kept as it is here: not recorded (the turn ids name turns of this install's conversation)`,
  adapterHeld: (name: string, replaces: boolean) =>
    `Lua adapter ${name} of the archive is code${replaces ? ' and differs from the one here' : ''}: it was put in adapters/imported/${name}.lua of the data folder, where nothing runs it (an import never puts code into use) — read it, and move it into adapters/ to use it`,
  adapterUnreadable: (name: string, tooLarge: boolean) => `Lua adapter ${name} of the archive was left out: ${tooLarge ? 'it is larger than 1 MiB' : 'it is not UTF-8 text'}; the rest was imported`,
  sourceWithoutKey: (name: string) => `LLM source ${name} came in without its API key (keys never leave the install they were entered on): enter it in Settings → LLM sources if it uses one`,
  sourceDisabled: (name: string) =>
    `LLM source ${name} came in disabled and without its API key (keys never leave the install they were entered on): check its address in Settings → LLM sources, enter its key if it uses one, and enable it there — or import again taking privileged settings`,
  sourceAdapterHeld: (name: string, adapter: string) =>
    `LLM source ${name} came in disabled and without its API key: its Lua adapter ${adapter} came as code and waits in adapters/imported/ — once you have read it and moved it into adapters/, enter the key and enable the source`,
  sourceAdapterMissing: (name: string, adapter: string) => `LLM source ${name} came in disabled: its Lua adapter ${adapter} is neither here nor in the archive`,
  sourceInvalid: (name: string, why: string) => `LLM source ${name} in the archive is malformed (${why}) and was left out; the rest was imported`,
  sourceBuiltInName: (name: string) => `LLM source ${name} in the archive has the name of a built-in source here and was left out`,
  sourcesUnreadable: (why: string) => `the archive's list of LLM sources is malformed (${why}) and was left out; the rest was imported`,
  settingAdapterHeld: (key: string, adapter: string) => `setting ${key} names the Lua adapter ${adapter}, which came as code and waits in adapters/imported/: left out`,
  sessionRenamed: (from: string, to: string) => `session ${from} was imported as ${to} (both kept)`,
  wouldForgetHere: (c: ForgetCounts) =>
    `would also forget here what was forgotten on the archive's install: ${c.turns} turns, ${c.facts} facts, ${c.documents} documents${c.files ? `, and ${c.files} files sent with those turns (deleted from the data folder)` : ''}`,
  forgotHere: (c: ForgetCounts) => `forgotten here too, as on the archive's install: ${c.turns} turns, ${c.facts} facts, ${c.documents} documents`,
  forgetsNotRecorded: (why: string) => `the archive's forgets could not be recorded yet (${why}); they will be at the next start`,
  replacementsNotRecorded: (why: string) => `the archive's replaced turns could not be recorded yet (${why}); they will be at the next start`,
  forgetsNotApplied: (why: string) => `the archive's forgets were recorded but could not be applied to what is here yet (${why}); forget those things again to remove them`,
} as const;

export interface ForgetCounts {
  turns: number;
  facts: number;
  documents: number;
  files?: number;
}
